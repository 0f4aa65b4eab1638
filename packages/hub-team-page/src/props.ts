/**
 * What a host passes to `mountTeamPage(root, props)` (seed §2.1). Every prop is optional: without
 * `hub` the page makes a same-origin client; without a callback the control it drives is not shown.
 * Callbacks are host-owned and get plain read-only copies of what the page shows, never the hub
 * client, so nothing a host callback does can act on the hub through the page.
 */
import type { TeamHub } from './hub-types.js';

/** One message as the advisor sees it (a frozen copy; retracted messages are left out). */
export interface AdvisorMessage {
  readonly id: string;
  readonly seq: number;
  readonly sender: string;
  readonly kind: string;
  readonly status: string;
  readonly title: string;
  readonly body: string;
  readonly reply_to: string | null;
  readonly created_at: number;
}

export interface AdvisorRequest {
  /** The `/assistant` question, or the summary request of the Summarise control. */
  readonly question: string;
  readonly channel: string;
  /** The visible thread, in thread order. */
  readonly messages: ReadonlyArray<AdvisorMessage>;
  /** `assistant` for the `/assistant` command, `summary` for Summarise. */
  readonly purpose: 'assistant' | 'summary';
}

/**
 * A host-owned, read-only AI function. Its answer is shown in the page and never posted to the hub.
 * The signal aborts when a newer question replaces it, the channel changes or the person dismisses it.
 */
export type Advisor = (request: AdvisorRequest, signal: AbortSignal) => string | Promise<string>;

/** What the speech callback receives for one message. */
export interface SpeakableMessage {
  readonly id: string;
  readonly channel: string;
  readonly seq: number;
  readonly sender: string;
  readonly title: string;
  readonly body: string;
}

/**
 * Speaks a message. Return a promise that settles when speech ends; the signal aborts on a second
 * press of the same Speak control, on speaking another message, on switching channel and on unmount.
 */
export type SpeakMessage = (message: SpeakableMessage, signal: AbortSignal) => void | Promise<unknown>;

/** A host-driven focus: select `channel` and, with `message_id`, scroll to and highlight that message. */
export interface FocusTarget {
  channel: string;
  message_id?: string | null;
}

export interface FocusOutcome {
  /** The channel was selected (false when it is unknown to the seat or the seat is signed out). */
  channel: boolean;
  /** The message was found and highlighted (false when no `message_id` was given or it was not found). */
  message: boolean;
}

export interface TeamPageProps {
  /** Hub client; default: a same-origin `HubClient` (hub base = the path before `/ui/`, or `<meta name="keel-hub-base">`). */
  hub?: TeamHub;
  /** Read-only AI function for the Summarise control and the `/assistant` composer command; both are hidden without it. */
  advisor?: Advisor;
  /** Speech callback; a Speak control per message is shown only when it is given. */
  on_speak_message?: SpeakMessage;
  /** Navigation for work-id chips (`<package>-<NNNN>`) and the Board control (called without an id). */
  on_open_board?: (workId?: string) => void;
  /** Channel or message to focus; applied after sign-in, and again whenever `update` passes a new object. */
  focus?: FocusTarget | null;
  /** Called once a focus has been applied (or could not be), so the host can clear it. */
  on_focus_consumed?: (focus: FocusTarget, outcome: FocusOutcome) => void;
  /** Channel selected after sign-in when the seat is a member (default `commons`). */
  defaultChannel?: string;
  /** Poll period in ms (default 5000); tests may shorten it. */
  pollMs?: number;
}

/** The props a host may change after mounting (the hub client and timings are fixed at mount). */
export type TeamPageUpdate = Pick<TeamPageProps, 'advisor' | 'on_speak_message' | 'on_open_board' | 'focus' | 'on_focus_consumed'>;
