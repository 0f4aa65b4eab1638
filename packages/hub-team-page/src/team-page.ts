/**
 * The team page: wires sign-in, identity, the channel rail, people and channel creation, the thread
 * with its channel bar, info drawer, advisor answers and composer, and the inbox, owed, files,
 * search and ledger panels around one hub client, and keeps them current with the live socket and
 * REST polling. The page never authorises anything: it offers controls and relays the hub's
 * answers, showing every refusal verbatim in the refusal area. Host props (props.ts) add optional
 * controls; without them the page shows none of them.
 */
import { AdvisorPanel, advisorMessages, SUMMARY_QUESTION } from './advisor-panel.js';
import { AttachmentLoader } from './attachments.js';
import { ChannelBar } from './channel-bar.js';
import { ChannelCreator } from './channel-creator.js';
import { ChannelHistory } from './channel-history.js';
import { ChannelInfoDrawer } from './channel-info-drawer.js';
import { ChannelRail, dmChannelName, dmPeer, DM_PREFIX } from './channel-rail.js';
import { Composer } from './composer.js';
import { defaultHub } from './default-hub.js';
import { h } from './dom.js';
import type { Ask, AttachmentRef, ChannelRow, Meta, MessageRow, PostMessageArgs, TeamHub } from './hub-types.js';
import { IdentityBar, type IdentityState } from './identity-bar.js';
import { InboxView } from './inbox-view.js';
import { LedgerView } from './ledger-view.js';
import { LiveSocket, type LiveEnvelope } from './live-socket.js';
import { OwedView } from './owed-view.js';
import { PeopleList } from './people-list.js';
import { Poller } from './poller.js';
import type { FocusTarget, TeamPageProps, TeamPageUpdate } from './props.js';
import { RefusalArea } from './refusal-area.js';
import { SearchPanel } from './search-panel.js';
import type { PageServices } from './services.js';
import { SignInView } from './sign-in.js';
import { SpeechController } from './speech.js';
import { Tabs } from './tabs.js';
import { ThreadView } from './thread-view.js';
import { VfsBrowser } from './vfs-browser.js';

/** @deprecated the props are `TeamPageProps`; kept for hosts written against the first release. */
export type TeamPageOptions = TeamPageProps;

type TabKey = 'thread' | 'inbox' | 'owed' | 'files' | 'search' | 'ledger';

const BADGE_DEBOUNCE_MS = 800;
const CHARTER_GATE = /requires reading its charter/i;

export class TeamPage {
  readonly element: HTMLElement;
  private readonly props: TeamPageProps;
  private readonly hub: TeamHub;
  private readonly services: PageServices;
  private readonly identity: IdentityBar;
  private readonly refusals = new RefusalArea();
  private readonly signIn: SignInView;
  private readonly layout: HTMLElement;
  private readonly rail: ChannelRail;
  private readonly people: PeopleList;
  private readonly creator: ChannelCreator;
  private readonly bar: ChannelBar;
  private readonly info: ChannelInfoDrawer;
  private readonly thread: ThreadView;
  private readonly advisorPanel = new AdvisorPanel();
  private readonly composer: Composer;
  private readonly inbox: InboxView;
  private readonly owed: OwedView;
  private readonly vfs: VfsBrowser;
  private readonly search: SearchPanel;
  private readonly ledger: LedgerView;
  private readonly tabs: Tabs<TabKey>;
  private readonly live: LiveSocket;
  private readonly poller: Poller;
  private readonly speech: SpeechController;
  private readonly attachments: AttachmentLoader;
  private readonly background: HTMLElement;

  private state: IdentityState = { seat: null, operator: false, mission: '', protocol: null, hubVersion: null, paused: false, live: 'off' };
  private rows: ChannelRow[] = [];
  private selected: string | null = null;
  private history: ChannelHistory | null = null;
  /** The peer of a direct message not created yet (selected, empty; its first message creates it). */
  private pendingDm: string | null = null;
  /** Root whose Retract thread awaits confirmation. */
  private armed: string | null = null;
  private readonly unseen = new Map<string, number>();
  private badgeTimer: ReturnType<typeof setTimeout> | null = null;
  private pendingFocus: FocusTarget | null = null;
  private lastFocus: FocusTarget | null = null;
  /** Signed in (or signing in): the probe at start and the sign-in form never both enter. */
  private entered = false;
  private destroyed = false;

  constructor(props: TeamPageProps = {}) {
    this.props = { ...props };
    this.hub = props.hub ?? defaultHub();
    this.services = {
      hub: this.hub,
      attempt: (action, call) => this.attempt(action, call),
      open: (channel, seq) => void this.open(channel, seq),
      openFile: (channel, path) => void this.openFile(channel, path),
      startDm: (peer) => void this.startDm(peer),
      seat: () => this.state.seat,
    };
    this.attachments = new AttachmentLoader(this.hub);
    this.speech = new SpeechController(() => this.renderThread());
    this.identity = new IdentityBar(() => this.signOut());
    this.signIn = new SignInView((key) => this.signInWith(key));
    this.rail = new ChannelRail((name) => void this.select(name));
    this.people = new PeopleList((peer) => void this.startDm(peer));
    this.creator = new ChannelCreator((name, isPrivate) => this.createChannel(name, isPrivate));
    this.bar = new ChannelBar({
      join: () => void this.joinSelected(),
      toggleInfo: () => this.setInfoOpen(!this.info.isOpen),
      summarise: () => void this.askAdvisor(SUMMARY_QUESTION, 'summary'),
      openBoard: () => this.openBoard(),
    });
    this.info = new ChannelInfoDrawer(this.services, () => this.setInfoOpen(false));
    this.thread = new ThreadView({
      reply: (m) => this.composer.prepareReply(m.id),
      answer: (m, ask) => this.answer(m, ask),
      rate: (m, value) => void this.rate(m, value),
      retract: (m) => void this.retract(m),
      armThread: (m) => this.armThread(m),
      retractThread: (m) => void this.retractThread(m),
      speak: (m) => this.speak(m),
      openBoard: (id) => this.openBoard(id),
      download: (m, ref) => void this.download(m, ref),
    }, this.attachments);
    this.composer = new Composer({
      post: (args, files) => this.post(args, files),
      assistant: (question) => this.askAdvisor(question, 'assistant'),
    });
    this.inbox = new InboxView(this.services);
    this.owed = new OwedView(this.services);
    this.vfs = new VfsBrowser(this.services);
    this.search = new SearchPanel(this.services);
    this.ledger = new LedgerView(this.services);
    const threadPanel = h('section', { testid: 'thread-panel', class: 'tp-thread-panel' },
      this.bar.element, this.info.element, this.thread.element, this.advisorPanel.element, this.composer.element);
    this.tabs = new Tabs<TabKey>([
      { key: 'thread', label: 'Thread', panel: threadPanel },
      { key: 'inbox', label: 'Inbox', panel: this.inbox.element },
      { key: 'owed', label: 'Owed', panel: this.owed.element },
      { key: 'files', label: 'Files', panel: this.vfs.element },
      { key: 'search', label: 'Search', panel: this.search.element },
      { key: 'ledger', label: 'Ledger', panel: this.ledger.element },
    ], (key) => void this.onTab(key));
    this.background = h('p', { testid: 'background-status', class: 'tp-background', attrs: { 'aria-live': 'polite' } });
    this.layout = h('div', { testid: 'workspace', class: 'tp-layout', attrs: { hidden: true } },
      h('aside', { class: 'tp-sidebar' }, this.rail.element, this.people.element, this.creator.element),
      h('main', { class: 'tp-main' }, this.tabs.element, this.tabs.panels, this.background));
    this.element = h('div', { testid: 'team-page', class: 'tp-root', data: { state: 'signed-out' } },
      this.identity.element, this.refusals.element, this.signIn.element, this.layout);

    this.live = new LiveSocket({
      url: () => this.hub.ws_url(),
      onEnvelope: (env) => this.onEnvelope(env),
      onState: (live) => this.setState({ live }),
    });
    this.poller = new Poller((slow) => this.tick(slow), props.pollMs);
    this.composer.setAssistant(Boolean(this.props.advisor));
    this.pendingFocus = this.props.focus ?? null;
    this.renderChannel();
    this.renderComposerState();
  }

  /**
   * Reads the hub's health (no key needed) so protocol and pause show before sign-in, then asks who
   * the client speaks as: a host client that already holds a key (or sits behind a key-holding
   * proxy) signs in without the form.
   */
  async start(): Promise<void> {
    this.identity.render(this.state);
    await this.readHealth(true);
    const meta = await this.silently(() => this.hub.meta());
    if (this.destroyed || this.entered) return;
    if (meta?.seat_key_present && meta.seat) await this.enter(meta);
    else this.signIn.focus();
  }

  /** Changes host props after mounting (advisor, speech, board navigation, focus). */
  update(patch: TeamPageUpdate): void {
    const hadAdvisor = Boolean(this.props.advisor);
    Object.assign(this.props, patch);
    if (hadAdvisor && !this.props.advisor) this.advisorPanel.cancel();
    if (!this.props.on_speak_message) this.speech.stop();
    this.composer.setAssistant(Boolean(this.props.advisor));
    this.renderChannel();
    this.renderThread();
    if ('focus' in patch) this.requestFocus(patch.focus ?? null);
  }

  /** Stops polling, the socket, speech and advisor calls, releases attachment URLs and removes the page. */
  destroy(): void {
    this.destroyed = true;
    this.live.stop();
    this.poller.stop();
    if (this.badgeTimer) clearTimeout(this.badgeTimer);
    this.speech.stop();
    this.advisorPanel.cancel();
    this.attachments.clear();
    this.element.remove();
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
    await this.enter(meta);
  }

  private async enter(meta: Meta): Promise<void> {
    if (this.entered || this.destroyed) return;
    this.entered = true;
    this.setState({ seat: meta.seat, operator: meta.operator === true, mission: meta.mission ?? '' });
    this.element.dataset.state = 'signed-in';
    this.signIn.element.hidden = true;
    this.layout.hidden = false;
    this.live.start();
    this.poller.start();
    await this.readHealth(false);
    await this.loadChannels();
    void this.loadPresence();
    if (this.pendingFocus) {
      await this.applyFocus();
    } else {
      const preferred = this.props.defaultChannel ?? 'commons';
      const first = this.rows.find((r) => r.name === preferred && r.member) ?? this.rows.find((r) => r.member);
      if (first && !this.selected) await this.select(first.name);
    }
    void this.badgePass();
  }

  private signOut(): void {
    this.entered = false;
    this.live.stop();
    this.poller.stop();
    this.leaveChannel();
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
    this.setInfoOpen(false);
    this.renderRail();
    this.people.render([], null);
    this.renderThread();
    this.renderChannel();
    this.vfs.setChannel(null);
    this.ledger.setChannel(null);
    this.info.setChannel(null);
    this.signIn.focus();
  }

  // -------------------------------------------------------------------------------------------
  // Channels and the thread

  private async loadChannels(): Promise<void> {
    const rows = await this.quietly('channels', () => this.hub.channels());
    if (!rows) return;
    this.rows = rows;
    this.renderRail();
    this.renderChannel();
    this.renderComposerState();
    this.live.setChannels(rows.filter((r) => r.member).map((r) => r.name));
  }

  private async loadPresence(): Promise<void> {
    const rows = await this.quietly('presence', () => this.hub.presence());
    if (rows && this.state.seat) this.people.render(rows, this.state.seat);
  }

  /** What leaving the selected channel stops: speech, the advisor, attachment URLs, an armed retraction, a pending DM. */
  private leaveChannel(): void {
    this.speech.stop();
    this.advisorPanel.cancel();
    this.attachments.clear();
    this.armed = null;
    this.pendingDm = null;
  }

  /** Selects a channel; resolves true when its history is loaded (false for a channel the seat has not joined or the hub refused). */
  private async select(name: string, reload = false): Promise<boolean> {
    this.tabs.show('thread', false);
    if (name === this.selected && !reload) {
      if (this.history) return true;
      if (this.pendingDm) return false;
    }
    this.leaveChannel();
    this.selected = name;
    this.unseen.delete(name);
    this.vfs.setChannel(name);
    this.ledger.setChannel(name);
    this.info.setChannel(name);
    const row = this.rows.find((r) => r.name === name);
    const history = row && !row.member ? null : new ChannelHistory(this.hub, name);
    this.history = history;
    this.renderSelection();
    if (!history) return false;
    const loaded = await this.attempt(`reading ${name}`, () => history.loadLatest(row?.last_seq ?? 0).then(() => true));
    if (this.history !== history) return false;
    if (loaded) this.live.noteSeq(name, history.newest);
    this.renderThread();
    return loaded === true;
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

  private async openFile(channel: string, path: string): Promise<void> {
    if (channel !== this.selected) await this.select(channel);
    this.tabs.show('files', false);
    await this.vfs.openPath(path);
  }

  /** Opens the direct message with `peer`: the existing channel, or a new one its first message creates. */
  private async startDm(peer: string): Promise<void> {
    const seat = this.state.seat;
    if (!seat || !peer) return;
    const name = dmChannelName(seat, peer);
    if (this.rows.some((r) => r.name === name)) {
      await this.select(name);
      return;
    }
    this.tabs.show('thread', false);
    this.leaveChannel();
    this.selected = name;
    this.pendingDm = peer;
    this.history = null;
    this.vfs.setChannel(null);
    this.ledger.setChannel(null);
    this.info.setChannel(null);
    this.setInfoOpen(false);
    this.renderSelection();
  }

  private async joinSelected(): Promise<void> {
    const name = this.selected;
    if (!name) return;
    const joined = await this.attempt(`joining ${name}`, () => this.hub.join_channel(name));
    if (joined === undefined) return;
    await this.loadChannels();
    if (this.selected === name) await this.select(name, true);
  }

  private async createChannel(name: string, isPrivate: boolean): Promise<boolean> {
    const created = await this.attempt(`creating ${name}`, () => this.hub.create_channel(name, isPrivate));
    if (!created) return false;
    await this.loadChannels();
    await this.select(created.name || name);
    return true;
  }

  private setInfoOpen(open: boolean): void {
    if (open === this.info.isOpen) return;
    this.info.setOpen(open);
    this.renderChannel();
  }

  // -------------------------------------------------------------------------------------------
  // Host focus

  private requestFocus(focus: FocusTarget | null): void {
    if (!focus || focus === this.lastFocus) return;
    this.pendingFocus = focus;
    if (this.state.seat) void this.applyFocus();
  }

  /** Selects the focused channel, scrolls to and highlights the focused message, then tells the host. */
  private async applyFocus(): Promise<void> {
    const focus = this.pendingFocus;
    if (!focus || !this.state.seat) return;
    this.pendingFocus = null;
    this.lastFocus = focus;
    let channel = false;
    let message = false;
    if (typeof focus.channel === 'string' && focus.channel !== '') {
      if (!this.rows.some((r) => r.name === focus.channel)) await this.loadChannels();
      channel = await this.select(focus.channel);
      if (channel && focus.message_id) message = await this.focusMessage(focus.channel, focus.message_id);
    }
    this.props.on_focus_consumed?.(focus, { channel, message });
  }

  private async focusMessage(channel: string, id: string): Promise<boolean> {
    const history = this.history;
    if (!history || history.channel !== channel) return false;
    let seq = history.byId(id)?.seq;
    if (seq === undefined) {
      // Outside the loaded window: the host asked for this message, so reading it (a recorded read) is the person's act.
      const read = await this.attempt(`reading message ${id}`, () => this.hub.read_message(channel, id));
      if (!read || this.history !== history) return false;
      const row = await this.quietly(`reading ${channel} #${read.seq}`, () => history.readOne(read.seq));
      if (!row) history.fold(read);
      seq = read.seq;
      this.renderThread();
    }
    return this.thread.focus(seq);
  }

  // -------------------------------------------------------------------------------------------
  // Acts: post, answer, rate, retract

  private async post(args: PostMessageArgs, files: File[]): Promise<boolean> {
    if (this.pendingDm) return this.sendFirstDm(this.pendingDm, args);
    const history = this.history;
    if (!history) return false;
    const channel = history.channel;
    if (files.length) {
      const refs: Array<{ id: string; filename: string }> = [];
      for (const file of files) {
        const uploaded = await this.attempt(`uploading ${file.name}`, () => this.hub.upload_attachment(channel, file, { filename: file.name }));
        if (!uploaded) return false;
        refs.push({ id: uploaded.id, filename: uploaded.filename || file.name });
      }
      args = { ...args, attachments: refs };
    }
    const posted = await this.attempt(`posting to ${channel}`, () => this.hub.post_message(channel, args), (refusal) => {
      if (CHARTER_GATE.test(refusal)) void this.owed.load();
    });
    if (!posted) return false;
    history.fold(posted);
    this.renderThread();
    void this.refreshSelected();
    return true;
  }

  /** The first message of a new direct message: `send_dm` creates the channel, which is then selected. */
  private async sendFirstDm(peer: string, args: PostMessageArgs): Promise<boolean> {
    const dm = { body: args.body, title: args.title, status: args.status };
    const sent = await this.attempt(`messaging ${peer}`, () => this.hub.send_dm(peer, dm), (refusal) => {
      if (CHARTER_GATE.test(refusal)) void this.owed.load();
    });
    if (!sent) return false;
    await this.loadChannels();
    const name = sent.channel || (this.selected ?? '');
    if (this.pendingDm === peer) await this.select(name, true);
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

  private armThread(message: MessageRow | null): void {
    this.armed = message?.id ?? null;
    this.renderThread();
  }

  /** Retracts a root and every reply under it in one act; the hub refuses it whole (nothing retracted) when it may not. */
  private async retractThread(message: MessageRow): Promise<void> {
    const history = this.history;
    this.armed = null;
    this.renderThread();
    if (!history) return;
    const result = await this.attempt(`retracting the thread of #${message.seq}`, () => this.hub.retract_thread(history.channel, message.id));
    if (!result) return;
    for (const row of result.messages ?? []) history.fold({ ...(history.byId(row.id) ?? {}), ...row, retracted: true } as MessageRow);
    const already = result.already_retracted?.length ?? 0;
    const skipped = result.skipped_non_messages?.length ?? 0;
    this.thread.say(`Retracted ${result.count} message${result.count === 1 ? '' : 's'} of the thread of #${message.seq}`
      + `${already ? `; ${already} already retracted` : ''}${skipped ? `; ${skipped} non-message rows left as they are` : ''}.`);
    this.renderThread();
    void this.refreshSelected(message.seq);
  }

  // -------------------------------------------------------------------------------------------
  // Host features: advisor, speech, board, attachments

  private async askAdvisor(question: string, purpose: 'assistant' | 'summary'): Promise<boolean> {
    const advisor = this.props.advisor;
    const history = this.history;
    if (!advisor || !history) return false;
    const request = Object.freeze({ question, channel: history.channel, messages: advisorMessages(history.list()), purpose });
    return this.advisorPanel.ask(advisor, request);
  }

  private speak(message: MessageRow): void {
    const speak = this.props.on_speak_message;
    if (!speak) return;
    this.speech.toggle(speak, { id: message.id, channel: message.channel || (this.selected ?? ''), seq: message.seq, sender: message.sender, title: message.title ?? '', body: message.body ?? '' });
  }

  private openBoard(workId?: string): void {
    const open = this.props.on_open_board;
    if (!open) return;
    if (workId === undefined) open();
    else open(workId);
  }

  private async download(message: MessageRow, ref: AttachmentRef): Promise<void> {
    const channel = message.channel || this.selected;
    if (!channel) return;
    await this.attempt(`downloading ${ref.filename}`, () => this.attachments.download(channel, ref));
  }

  // -------------------------------------------------------------------------------------------
  // Live updates and polling

  private onEnvelope(env: LiveEnvelope): void {
    if (env.channel === this.selected && this.history) {
      void this.refreshSelected(env.seq);
    } else if (!env.retracted) {
      this.unseen.set(env.channel, (this.unseen.get(env.channel) ?? 0) + 1);
      if (!this.rows.some((r) => r.name === env.channel)) void this.loadChannels().then(() => this.adoptCreatedDm());
      else this.renderRail();
    }
    if (this.badgeTimer) clearTimeout(this.badgeTimer);
    this.badgeTimer = setTimeout(() => void this.badgePass(), BADGE_DEBOUNCE_MS);
  }

  /** A pending direct message the peer created meanwhile becomes the real channel. */
  private async adoptCreatedDm(): Promise<void> {
    if (this.pendingDm && this.selected && this.rows.some((r) => r.name === this.selected)) await this.select(this.selected, true);
  }

  private async tick(slow: boolean): Promise<void> {
    await this.refreshSelected();
    if (!slow) return;
    await this.loadChannels();
    await this.adoptCreatedDm();
    await this.loadPresence();
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
    else if (key === 'ledger') await this.ledger.load();
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

  /** A probe whose failure means nothing to the person (who the client speaks as before sign-in). */
  private async silently<T>(call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch {
      return undefined;
    }
  }

  private setState(patch: Partial<IdentityState>): void {
    this.state = { ...this.state, ...patch };
    this.identity.render(this.state);
    this.renderComposerState();
  }

  private renderSelection(): void {
    this.renderRail();
    this.renderChannel();
    this.renderThread();
    this.renderComposerState();
  }

  private renderRail(): void {
    const rows = this.pendingDm && this.selected && !this.rows.some((r) => r.name === this.selected)
      ? [...this.rows, { name: this.selected, private: true, member: true, member_count: 2, last_seq: 0, last_at: null } as ChannelRow]
      : this.rows;
    this.rail.render(rows, this.selected, this.state.seat, this.unseen);
  }

  private renderChannel(): void {
    const name = this.selected;
    const row = name ? this.rows.find((r) => r.name === name) : undefined;
    const dm = name?.startsWith(DM_PREFIX) === true;
    this.bar.render({
      channel: name,
      title: name ? (dm ? `@${dmPeer(name, this.state.seat)}` : name) : '',
      member: this.pendingDm !== null || row?.member !== false,
      private: row?.private === true,
      dm,
      pendingDm: this.pendingDm !== null,
      infoOpen: this.info.isOpen,
      advisor: Boolean(this.props.advisor),
      board: Boolean(this.props.on_open_board) && this.state.seat !== null,
    });
  }

  private renderThread(): void {
    const row = this.selected ? this.rows.find((r) => r.name === this.selected) : undefined;
    const placeholder = this.pendingDm ? `No messages with ${this.pendingDm} yet. Your first message creates this direct channel.`
      : row && !row.member ? `You are not a member of #${row.name}. Join it to read and post.`
        : null;
    this.thread.render(this.selected, this.history?.list() ?? [], {
      seat: this.state.seat,
      operator: this.state.operator,
      features: { speak: Boolean(this.props.on_speak_message), board: Boolean(this.props.on_open_board) },
      speaking: this.speech?.speaking ?? null,
      armed: this.armed,
      placeholder,
    });
  }

  private renderComposerState(): void {
    if (!this.composer) return;
    const row = this.selected ? this.rows.find((r) => r.name === this.selected) : undefined;
    this.composer.setMode(this.pendingDm ? 'new-dm' : 'channel');
    if (this.state.paused) this.composer.setEnabled(false, 'The hub is paused by the operator; posting resumes when it is lifted.');
    else if (!this.selected) this.composer.setEnabled(false, 'Select a channel first.');
    else if (!this.pendingDm && row && !row.member) this.composer.setEnabled(false, `Join #${row.name} to post.`);
    else this.composer.setEnabled(true);
  }
}

/** Builds the team page inside `root` and starts it. Every prop is optional (see props.ts). */
export function mountTeamPage(root: HTMLElement, props: TeamPageProps = {}): TeamPage {
  const page = new TeamPage(props);
  root.replaceChildren(page.element);
  void page.start();
  return page;
}
