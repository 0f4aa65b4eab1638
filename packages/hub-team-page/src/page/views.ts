/**
 * The page's parts and their layout: identity bar, refusal area and sign-in above a workspace whose
 * sidebar holds the channel rail, people and channel creation and whose main area holds the tabs
 * (the thread panel with its channel bar, info drawer, advisor answers and composer; inbox, owed,
 * files, search, ledger). Also the speech controller and attachment loader the thread uses. Every
 * control's act is handed in (`ViewActions`); views only show what render.ts tells them.
 */
import { AdvisorPanel } from '../advisor-panel.js';
import { AttachmentLoader } from '../attachments.js';
import { ChannelBar, type ChannelBarActions } from '../channel-bar.js';
import { ChannelCreator } from '../channel-creator.js';
import { ChannelInfoDrawer } from '../channel-info-drawer.js';
import { ChannelRail } from '../channel-rail.js';
import { Composer, type ComposerHandlers } from '../composer.js';
import { h } from '../dom.js';
import type { TeamHub } from '../hub-types.js';
import { IdentityBar } from '../identity-bar.js';
import { InboxView } from '../inbox-view.js';
import { LedgerView } from '../ledger-view.js';
import type { MessageActions } from '../message-item.js';
import { OwedView } from '../owed-view.js';
import { PeopleList } from '../people-list.js';
import { SearchPanel } from '../search-panel.js';
import type { PageServices } from '../services.js';
import { SignInView } from '../sign-in.js';
import { SpeechController } from '../speech.js';
import { Tabs } from '../tabs.js';
import { ThreadView } from '../thread-view.js';
import { VfsBrowser } from '../vfs-browser.js';
import type { PageCalls } from './calls.js';

export type TabKey = 'thread' | 'inbox' | 'owed' | 'files' | 'search' | 'ledger';

/** What the page's controls do. */
export interface ViewActions {
  signIn(key: string): Promise<void>;
  signOut(): void;
  select(name: string): void;
  startDm(peer: string): void;
  createChannel(name: string, isPrivate: boolean): Promise<boolean>;
  closeInfo(): void;
  bar: ChannelBarActions;
  message: MessageActions;
  composer: ComposerHandlers;
  showTab(key: TabKey): void;
  /** Speech started or stopped (the thread shows which message speaks). */
  speechChanged(): void;
}

export class PageViews {
  readonly element: HTMLElement;
  readonly layout: HTMLElement;
  readonly attachments: AttachmentLoader;
  readonly speech: SpeechController;
  readonly identity: IdentityBar;
  readonly signIn: SignInView;
  readonly rail: ChannelRail;
  readonly people: PeopleList;
  readonly creator: ChannelCreator;
  readonly bar: ChannelBar;
  readonly info: ChannelInfoDrawer;
  readonly thread: ThreadView;
  readonly advisorPanel = new AdvisorPanel();
  readonly composer: Composer;
  readonly inbox: InboxView;
  readonly owed: OwedView;
  readonly vfs: VfsBrowser;
  readonly search: SearchPanel;
  readonly ledger: LedgerView;
  readonly tabs: Tabs<TabKey>;

  constructor(hub: TeamHub, services: PageServices, calls: PageCalls, actions: ViewActions) {
    this.attachments = new AttachmentLoader(hub);
    this.speech = new SpeechController(() => actions.speechChanged());
    this.identity = new IdentityBar(() => actions.signOut());
    this.signIn = new SignInView((key) => actions.signIn(key));
    this.rail = new ChannelRail((name) => actions.select(name));
    this.people = new PeopleList((peer) => actions.startDm(peer));
    this.creator = new ChannelCreator((name, isPrivate) => actions.createChannel(name, isPrivate));
    this.bar = new ChannelBar(actions.bar);
    this.info = new ChannelInfoDrawer(services, () => actions.closeInfo());
    this.thread = new ThreadView(actions.message, this.attachments);
    this.composer = new Composer(actions.composer);
    this.inbox = new InboxView(services);
    this.owed = new OwedView(services);
    this.vfs = new VfsBrowser(services);
    this.search = new SearchPanel(services);
    this.ledger = new LedgerView(services);
    const threadPanel = h('section', { testid: 'thread-panel', class: 'tp-thread-panel' },
      this.bar.element, this.info.element, this.thread.element, this.advisorPanel.element, this.composer.element);
    this.tabs = new Tabs<TabKey>([
      { key: 'thread', label: 'Thread', panel: threadPanel },
      { key: 'inbox', label: 'Inbox', panel: this.inbox.element },
      { key: 'owed', label: 'Owed', panel: this.owed.element },
      { key: 'files', label: 'Files', panel: this.vfs.element },
      { key: 'search', label: 'Search', panel: this.search.element },
      { key: 'ledger', label: 'Ledger', panel: this.ledger.element },
    ], (key) => actions.showTab(key));
    this.layout = h('div', { testid: 'workspace', class: 'tp-layout', attrs: { hidden: true } },
      h('aside', { class: 'tp-sidebar' }, this.rail.element, this.people.element, this.creator.element),
      h('main', { class: 'tp-main' }, this.tabs.element, this.tabs.panels, calls.background));
    this.element = h('div', { testid: 'team-page', class: 'tp-root', data: { state: 'signed-out' } },
      this.identity.element, calls.refusals.element, this.signIn.element, this.layout);
  }

  /** Shows the workspace (signed in) or the sign-in form (signed out). */
  setSignedIn(signedIn: boolean): void {
    this.element.dataset.state = signedIn ? 'signed-in' : 'signed-out';
    this.signIn.element.hidden = signedIn;
    this.layout.hidden = !signedIn;
  }

  /** Sets the channel the channel-scoped panels (files, ledger, info drawer) show; null empties them. */
  setChannel(name: string | null): void {
    this.vfs.setChannel(name);
    this.ledger.setChannel(name);
    this.info.setChannel(name);
  }
}
