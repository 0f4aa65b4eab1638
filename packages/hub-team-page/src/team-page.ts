/**
 * The team page: wires sign-in, identity, the channel rail, people and channel creation, the thread
 * with its channel bar, info drawer, advisor answers and composer, and the inbox, owed, files,
 * search and ledger panels around one hub client, and keeps them current with the live socket and
 * REST polling. The page never authorises anything: it offers controls and relays the hub's
 * answers, showing every refusal verbatim in the refusal area. Host props (props.ts) add optional
 * controls; without them the page shows none of them.
 *
 * This file only wires: the parts live in `page/` (state, calls, views, render, navigation,
 * session, thread acts, host props and focus, polling and the live socket).
 */
import { SUMMARY_QUESTION } from './advisor-panel.js';
import { defaultHub } from './default-hub.js';
import type { TeamPageProps, TeamPageUpdate } from './props.js';
import type { PageServices } from './services.js';
import { ThreadActs } from './page/acts.js';
import { PageCalls } from './page/calls.js';
import type { PageContext } from './page/context.js';
import { HostFocus } from './page/focus.js';
import { HostProps } from './page/host-props.js';
import { envelopeArrived, pageSocket } from './page/live-wiring.js';
import { ChannelNavigation } from './page/navigation.js';
import { PagePolling } from './page/polling.js';
import { PageRender } from './page/render.js';
import { Session } from './page/session.js';
import { initialState } from './page/state.js';
import { PageViews, type ViewActions } from './page/views.js';

/** @deprecated the props are `TeamPageProps`; kept for hosts written against the first release. */
export type TeamPageOptions = TeamPageProps;

export class TeamPage {
  readonly element: HTMLElement;
  private readonly ctx: PageContext;
  private readonly nav: ChannelNavigation;
  private readonly focus: HostFocus;
  private readonly acts: ThreadActs;
  private readonly host: HostProps;
  private readonly polling: PagePolling;
  private readonly session: Session;

  constructor(props: TeamPageProps = {}) {
    const pageProps = { ...props };
    const hub = props.hub ?? defaultHub();
    const state = initialState();
    const calls = new PageCalls();
    const services: PageServices = {
      hub,
      attempt: (action, call) => calls.attempt(action, call),
      open: (channel, seq) => void this.nav.open(channel, seq),
      openFile: (channel, path) => void this.nav.openFile(channel, path),
      startDm: (peer) => void this.nav.startDm(peer),
      seat: () => state.identity.seat,
    };
    const views = new PageViews(hub, services, calls, this.actions());
    const render = new PageRender(pageProps, state, views);
    const live = pageSocket(hub, render, (env) => envelopeArrived(this.ctx, this.nav, this.polling, env));
    this.ctx = { props: pageProps, hub, state, calls, views, render, live };
    this.nav = new ChannelNavigation(this.ctx);
    this.focus = new HostFocus(this.ctx, this.nav);
    this.acts = new ThreadActs(this.ctx, this.nav);
    this.host = new HostProps(this.ctx);
    this.polling = new PagePolling(this.ctx, this.nav);
    this.session = new Session(this.ctx, this.nav, this.focus, this.polling);
    this.element = views.element;
    views.composer.setAssistant(Boolean(pageProps.advisor));
    render.channel();
    render.composer();
  }

  /**
   * Reads the hub's health (no key needed) so protocol and pause show before sign-in, then asks who
   * the client speaks as: a host client that already holds a key (or sits behind a key-holding
   * proxy) signs in without the form.
   */
  start(): Promise<void> {
    return this.session.start();
  }

  /** Changes host props after mounting (advisor, speech, board navigation, focus). */
  update(patch: TeamPageUpdate): void {
    this.host.update(patch);
    if ('focus' in patch) this.focus.request(patch.focus ?? null);
  }

  /** Stops polling, the socket, speech and advisor calls, releases attachment URLs and removes the page. */
  destroy(): void {
    const { state, live, views } = this.ctx;
    state.destroyed = true;
    live.stop();
    this.polling.dispose();
    views.speech.stop();
    views.advisorPanel.cancel();
    views.attachments.clear();
    views.element.remove();
  }

  /** What each control does, routed to the part of the page that owns it. */
  private actions(): ViewActions {
    return {
      signIn: (key) => this.session.signIn(key),
      signOut: () => this.session.signOut(),
      select: (name) => void this.nav.select(name),
      startDm: (peer) => void this.nav.startDm(peer),
      createChannel: (name, isPrivate) => this.nav.createChannel(name, isPrivate),
      closeInfo: () => this.nav.setInfoOpen(false),
      bar: {
        join: () => void this.nav.joinSelected(),
        toggleInfo: () => this.nav.setInfoOpen(!this.ctx.views.info.isOpen),
        summarise: () => void this.host.askAdvisor(SUMMARY_QUESTION, 'summary'),
        openBoard: () => this.host.openBoard(),
      },
      message: {
        reply: (m) => this.acts.reply(m),
        answer: (m, ask) => this.acts.answer(m, ask),
        rate: (m, value) => void this.acts.rate(m, value),
        retract: (m) => void this.acts.retract(m),
        armThread: (m) => this.acts.armThread(m),
        retractThread: (m) => void this.acts.retractThread(m),
        speak: (m) => this.host.speak(m),
        openBoard: (id) => this.host.openBoard(id),
        download: (m, ref) => void this.acts.download(m, ref),
      },
      composer: {
        post: (args, files) => this.acts.post(args, files),
        assistant: (question) => this.host.askAdvisor(question, 'assistant'),
      },
      showTab: (key) => void this.nav.showTab(key),
      speechChanged: () => this.ctx.render.thread(),
    };
  }
}

/** Builds the team page inside `root` and starts it. Every prop is optional (see props.ts). */
export function mountTeamPage(root: HTMLElement, props: TeamPageProps = {}): TeamPage {
  const page = new TeamPage(props);
  root.replaceChildren(page.element);
  void page.start();
  return page;
}
