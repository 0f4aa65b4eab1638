/**
 * The team page: wires sign-in, identity, the channel rail, the thread with its composer, inbox,
 * owed, files and search around one hub client, and keeps them current with the live socket and
 * REST polling. The page never authorises anything: it offers controls and relays the hub's
 * answers, showing every refusal verbatim in the refusal area.
 */
import { ChannelHistory } from './channel-history.js';
import { ChannelRail } from './channel-rail.js';
import { Composer } from './composer.js';
import { h } from './dom.js';
import type { Ask, ChannelRow, MessageRow, PostMessageArgs, TeamHub } from './hub-types.js';
import { IdentityBar, type IdentityState } from './identity-bar.js';
import { InboxView } from './inbox-view.js';
import { LiveSocket, type LiveEnvelope } from './live-socket.js';
import { OwedView } from './owed-view.js';
import { Poller } from './poller.js';
import { RefusalArea } from './refusal-area.js';
import { SearchPanel } from './search-panel.js';
import type { PageServices } from './services.js';
import { SignInView } from './sign-in.js';
import { Tabs } from './tabs.js';
import { ThreadView } from './thread-view.js';
import { VfsBrowser } from './vfs-browser.js';

export interface TeamPageOptions {
  hub: TeamHub;
  /** Channel selected after sign-in when the seat is a member (default `commons`). */
  defaultChannel?: string;
  /** Poll period in ms (default 5000); tests may shorten it. */
  pollMs?: number;
}

type TabKey = 'thread' | 'inbox' | 'owed' | 'files' | 'search';

const BADGE_DEBOUNCE_MS = 800;
const CHARTER_GATE = /requires reading its charter/i;

export class TeamPage {
  readonly element: HTMLElement;
  private readonly hub: TeamHub;
  private readonly services: PageServices;
  private readonly identity: IdentityBar;
  private readonly refusals = new RefusalArea();
  private readonly signIn: SignInView;
  private readonly layout: HTMLElement;
  private readonly rail: ChannelRail;
  private readonly thread: ThreadView;
  private readonly composer: Composer;
  private readonly inbox: InboxView;
  private readonly owed: OwedView;
  private readonly vfs: VfsBrowser;
  private readonly search: SearchPanel;
  private readonly tabs: Tabs<TabKey>;
  private readonly live: LiveSocket;
  private readonly poller: Poller;
  private readonly background: HTMLElement;

  private state: IdentityState = { seat: null, operator: false, mission: '', protocol: null, hubVersion: null, paused: false, live: 'off' };
  private rows: ChannelRow[] = [];
  private selected: string | null = null;
  private history: ChannelHistory | null = null;
  private readonly unseen = new Map<string, number>();
  private badgeTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly options: TeamPageOptions) {
    this.hub = options.hub;
    this.services = {
      hub: this.hub,
      attempt: (action, call) => this.attempt(action, call),
      open: (channel, seq) => void this.open(channel, seq),
    };
    this.identity = new IdentityBar(() => this.signOut());
    this.signIn = new SignInView((key) => this.signInWith(key));
    this.rail = new ChannelRail((name) => void this.select(name));
    this.thread = new ThreadView({
      reply: (m) => this.composer.prepareReply(m.id),
      answer: (m, ask) => this.answer(m, ask),
      rate: (m, value) => void this.rate(m, value),
      retract: (m) => void this.retract(m),
    });
    this.composer = new Composer((args) => this.post(args));
    this.inbox = new InboxView(this.services);
    this.owed = new OwedView(this.services);
    this.vfs = new VfsBrowser(this.services);
    this.search = new SearchPanel(this.services);
    const threadPanel = h('section', { testid: 'thread-panel', class: 'tp-thread-panel' }, this.thread.element, this.composer.element);
    this.tabs = new Tabs<TabKey>([
      { key: 'thread', label: 'Thread', panel: threadPanel },
      { key: 'inbox', label: 'Inbox', panel: this.inbox.element },
      { key: 'owed', label: 'Owed', panel: this.owed.element },
      { key: 'files', label: 'Files', panel: this.vfs.element },
      { key: 'search', label: 'Search', panel: this.search.element },
    ], (key) => void this.onTab(key));
    this.background = h('p', { testid: 'background-status', class: 'tp-background', attrs: { 'aria-live': 'polite' } });
    this.layout = h('div', { testid: 'workspace', class: 'tp-layout', attrs: { hidden: true } },
      this.rail.element,
      h('main', { class: 'tp-main' }, this.tabs.element, this.tabs.panels, this.background));
    this.element = h('div', { testid: 'team-page', class: 'tp-root', data: { state: 'signed-out' } },
      this.identity.element, this.refusals.element, this.signIn.element, this.layout);

    this.live = new LiveSocket({
      url: () => this.hub.ws_url(),
      onEnvelope: (env) => this.onEnvelope(env),
      onState: (live) => this.setState({ live }),
    });
    this.poller = new Poller((slow) => this.tick(slow), options.pollMs);
    this.renderComposerState();
  }

  /** Reads the hub's health (no key needed) so protocol and pause show before sign-in. */
  async start(): Promise<void> {
    this.identity.render(this.state);
    await this.readHealth(true);
    this.signIn.focus();
  }

  // -------------------------------------------------------------------------------------------
  // Sign-in

  private async signInWith(key: string): Promise<void> {
    this.refusals.clear();
    this.hub.set_bearer_token(key);
    const meta = await this.attempt('signing in', async () => {
      const summary = await this.hub.meta();
      // meta() reads a 401/403 as "no usable key"; whoami() brings back the hub's own sentence.
      if (!summary.seat_key_present || !summary.seat) await this.hub.whoami();
      return summary;
    });
    if (!meta || !meta.seat_key_present || !meta.seat) {
      this.hub.set_bearer_token(null);
      if (meta) this.refusals.show({ detail: 'the hub served no identity for this seat key' }, 'signing in');
      return;
    }
    this.setState({ seat: meta.seat, operator: meta.operator === true, mission: meta.mission ?? '' });
    this.element.dataset.state = 'signed-in';
    this.signIn.element.hidden = true;
    this.layout.hidden = false;
    this.live.start();
    this.poller.start();
    await this.readHealth(false);
    await this.loadChannels();
    const preferred = this.options.defaultChannel ?? 'commons';
    const first = this.rows.find((r) => r.name === preferred && r.member) ?? this.rows.find((r) => r.member);
    if (first && !this.selected) await this.select(first.name);
    void this.badgePass();
  }

  private signOut(): void {
    this.live.stop();
    this.poller.stop();
    this.hub.set_bearer_token(null);
    this.rows = [];
    this.selected = null;
    this.history = null;
    this.unseen.clear();
    this.refusals.clear();
    this.setState({ seat: null, operator: false, mission: '' });
    this.element.dataset.state = 'signed-out';
    this.layout.hidden = true;
    this.signIn.element.hidden = false;
    this.rail.render([], null, null, this.unseen);
    this.thread.render(null, [], { seat: null, operator: false });
    this.vfs.setChannel(null);
    this.signIn.focus();
  }

  // -------------------------------------------------------------------------------------------
  // Channels and the thread

  private async loadChannels(): Promise<void> {
    const rows = await this.quietly('channels', () => this.hub.channels());
    if (!rows) return;
    this.rows = rows;
    this.renderRail();
    this.live.setChannels(rows.filter((r) => r.member).map((r) => r.name));
  }

  private async select(name: string): Promise<void> {
    this.tabs.show('thread', false);
    if (name === this.selected && this.history) return;
    this.selected = name;
    this.unseen.delete(name);
    this.renderRail();
    this.vfs.setChannel(name);
    const history = new ChannelHistory(this.hub, name);
    this.history = history;
    this.renderThread();
    this.renderComposerState();
    const row = this.rows.find((r) => r.name === name);
    const loaded = await this.attempt(`reading ${name}`, () => history.loadLatest(row?.last_seq ?? 0).then(() => true));
    if (this.history !== history) return;
    if (loaded) this.live.noteSeq(name, history.newest);
    this.renderThread();
  }

  private async refreshSelected(seq?: number): Promise<void> {
    const history = this.history;
    if (!history) return;
    const ok = await this.quietly(`reading ${history.channel}`, () => history.refresh(seq).then(() => true));
    if (!ok || this.history !== history) return;
    this.live.noteSeq(history.channel, history.newest);
    this.renderThread();
  }

  private async open(channel: string, seq?: number): Promise<void> {
    await this.select(channel);
    if (seq === undefined || !this.history) return;
    const history = this.history;
    if (!history.has(seq)) {
      await this.attempt(`reading ${channel} #${seq}`, () => history.readOne(seq));
      this.renderThread();
    }
    this.thread.focus(seq);
  }

  // -------------------------------------------------------------------------------------------
  // Acts: post, answer, rate, retract

  private async post(args: PostMessageArgs): Promise<boolean> {
    const history = this.history;
    if (!history) return false;
    const posted = await this.attempt(`posting to ${history.channel}`, () => this.hub.post_message(history.channel, args), (refusal) => {
      if (CHARTER_GATE.test(refusal)) void this.owed.load();
    });
    if (!posted) return false;
    history.fold(posted);
    this.renderThread();
    void this.refreshSelected();
    return true;
  }

  private answer(message: MessageRow, ask: Ask): void {
    this.tabs.show('thread', false);
    this.composer.prepareAnswer(message.id, ask.id);
  }

  private async rate(message: MessageRow, value: 1 | -1): Promise<void> {
    const history = this.history;
    if (!history) return;
    const again = message.ratings?.mine === value;
    const done = await this.attempt(again ? `removing your rating of #${message.seq}` : `rating #${message.seq}`,
      () => again ? this.hub.unrate_message(history.channel, message.id) : this.hub.rate_message(history.channel, message.id, value));
    if (done === undefined) return;
    await this.quietly('re-reading the rated message', () => history.readOne(message.seq));
    this.renderThread();
  }

  private async retract(message: MessageRow): Promise<void> {
    const history = this.history;
    if (!history) return;
    const tombstone = await this.attempt(`retracting #${message.seq}`, () => this.hub.retract_message(history.channel, message.id));
    if (!tombstone) return;
    history.fold({ ...message, ...tombstone, retracted: true });
    this.renderThread();
    void this.refreshSelected(message.seq);
  }

  // -------------------------------------------------------------------------------------------
  // Live updates and polling

  private onEnvelope(env: LiveEnvelope): void {
    if (env.channel === this.selected) {
      void this.refreshSelected(env.seq);
    } else if (!env.retracted) {
      this.unseen.set(env.channel, (this.unseen.get(env.channel) ?? 0) + 1);
      if (!this.rows.some((r) => r.name === env.channel)) void this.loadChannels();
      else this.renderRail();
    }
    if (this.badgeTimer) clearTimeout(this.badgeTimer);
    this.badgeTimer = setTimeout(() => void this.badgePass(), BADGE_DEBOUNCE_MS);
  }

  private async tick(slow: boolean): Promise<void> {
    await this.refreshSelected();
    if (!slow) return;
    await this.loadChannels();
    await this.readHealth(false);
    await this.badgePass();
  }

  private async badgePass(): Promise<void> {
    if (!this.state.seat) return;
    const inboxCount = await this.quietly('inbox', () => this.hub.inbox().then((rows) => rows.length));
    this.tabs.setCount('inbox', inboxCount ?? null);
    const owed = await this.quietly('owed', () => this.hub.owed());
    if (owed) this.tabs.setCount('owed', (owed.counts?.to_answer ?? 0) + (owed.counts?.to_consume ?? 0));
  }

  private async onTab(key: TabKey): Promise<void> {
    if (key === 'inbox') await this.inbox.load();
    else if (key === 'owed') await this.owed.load();
    else if (key === 'files') await this.vfs.load();
    else if (key === 'thread') await this.refreshSelected();
  }

  private async readHealth(showRefusal: boolean): Promise<void> {
    const read = () => this.hub.healthz();
    const health = showRefusal ? await this.attempt('checking the hub', read) : await this.quietly('health', read);
    if (!health) return;
    this.setState({ protocol: typeof health.protocol === 'string' ? health.protocol : null, hubVersion: health.version ?? null, paused: health.paused === true });
  }

  // -------------------------------------------------------------------------------------------
  // Calls and rendering

  /** A call the person asked for: its refusal replaces whatever the refusal area showed. */
  private async attempt<T>(action: string, call: () => Promise<T>, onRefusal?: (detail: string) => void): Promise<T | undefined> {
    this.refusals.clear();
    try {
      return await call();
    } catch (err) {
      const refusal = this.refusals.show(err, action);
      onRefusal?.(refusal.detail);
      return undefined;
    }
  }

  /** A background call (polling, badges): a failure is noted quietly, never over a refusal. */
  private async quietly<T>(what: string, call: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await call();
      if (this.background.dataset.what === what) {
        this.background.textContent = '';
        delete this.background.dataset.what;
      }
      return result;
    } catch (err) {
      const e = err as { detail?: unknown; message?: unknown };
      this.background.dataset.what = what;
      this.background.textContent = `${what}: ${typeof e?.detail === 'string' ? e.detail : String(e?.message ?? err)}`;
      return undefined;
    }
  }

  private setState(patch: Partial<IdentityState>): void {
    this.state = { ...this.state, ...patch };
    this.identity.render(this.state);
    this.renderComposerState();
  }

  private renderRail(): void {
    this.rail.render(this.rows, this.selected, this.state.seat, this.unseen);
  }

  private renderThread(): void {
    this.thread.render(this.selected, this.history?.list() ?? [], { seat: this.state.seat, operator: this.state.operator });
  }

  private renderComposerState(): void {
    if (!this.composer) return;
    if (this.state.paused) this.composer.setEnabled(false, 'The hub is paused by the operator; posting resumes when it is lifted.');
    else if (!this.selected) this.composer.setEnabled(false, 'Select a channel first.');
    else this.composer.setEnabled(true);
  }
}

/** Builds the team page inside `root` and starts it. */
export function mountTeamPage(root: HTMLElement, options: TeamPageOptions): TeamPage {
  const page = new TeamPage(options);
  root.replaceChildren(page.element);
  void page.start();
  return page;
}
