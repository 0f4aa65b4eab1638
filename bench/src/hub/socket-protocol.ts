/** How the hub benchmark parent talks to its sockets child over the fork IPC channel. */
import type { ConnectedMessage, Percentiles } from '../common/child-messages.js';

/** Parent → child: open one socket per url; the frames will come from `sender` in `channel`. */
export interface ConnectMessage {
  type: 'connect';
  urls: string[];
  batch: number;
  channel: string;
  sender: string;
}

/** Parent → child: the next phase posts messages with indices first..first+count-1; reset the counts. */
export interface ExpectMessage {
  type: 'expect';
  first: number;
  count: number;
}

/** Parent → child: wait until every socket has every message of the phase (or the timeout), then report. */
export interface CollectMessage {
  type: 'collect';
  timeoutMs: number;
}

export interface ExpectingMessage {
  type: 'expecting';
}

export interface PhaseReport {
  type: 'report';
  sockets: number;
  /** Sockets that got every message of the phase exactly once, with no seq gap or reversal. */
  complete: number;
  /** Expected (socket, message) deliveries that never came. */
  lost: number;
  /** Frames of a message the socket already had. */
  duplicates: number;
  /** Frames whose seq was not one more than the socket's previous frame's. */
  reordered: number;
  /** Frames that were not a benchmark envelope of this phase (other frames, other indices). */
  stray: number;
  /** Sockets that closed before the report. */
  closed: number;
  firstProblem: string | null;
  /** Send (poster, just before the request is written) → receive (this child, frame event), ms, over every delivery. */
  latency: Percentiles;
  /** Wall-clock ms of the delivery that completed the phase (the last socket's last message); NaN if incomplete. */
  completedAt: number;
  /** The child's CPU (user + system) from `expect` to the report, ms. */
  cpuMs: number;
  /** Mean frame size, bytes. */
  frameBytes: number;
}

export type ToChild = ConnectMessage | ExpectMessage | CollectMessage;
export type FromChild = ConnectedMessage | ExpectingMessage | PhaseReport;
