/** How the stream benchmark parent talks to its subscriber child over the fork IPC channel. */
import type { ConnectedMessage, Percentiles } from '../common/child-messages.js';
import type { PublishResult } from './publisher.js';

/** Parent → child: open `count` subscriptions to `url` and report once all have their headers. */
export interface ConnectMessage {
  type: 'connect';
  url: string;
  headers: Record<string, string>;
  count: number;
  batch: number;
  /** Events the run will carry: cursors 1..expected. */
  expected: number;
}

/** Parent → child: the server's send and ack times; wait for every stream to end, then report. */
export interface CollectMessage {
  type: 'collect';
  times: PublishResult;
  timeoutMs: number;
}

export interface DeliveryReport {
  type: 'report';
  subscribers: number;
  /** Subscribers whose stream ended with `done` after every cursor 1..N in order. */
  complete: number;
  /** Expected step events never received, over all subscribers. */
  lost: number;
  /** Step events whose cursor was not one more than the previous one's (duplicates, out of order). */
  reordered: number;
  /** Subscribers whose stream ended without `done` (cut off, error, timeout). */
  unfinished: number;
  firstProblem: string | null;
  /** Ack → received, ms, over every (subscriber, event). */
  ackToReceive: Percentiles;
  /** Sent (record submitted) → received, ms. */
  sendToReceive: Percentiles;
  /** The spread of one event over subscribers: last receive - first receive, ms, percentiles over events. */
  spread: Percentiles;
  /** Checked on one subscriber: every step's data parses and carries its cursor and the bench clock. */
  payloadChecked: boolean;
  bytesPerEvent: number;
  /** The subscriber process's CPU (user + system) per event, from connected to every stream ended. */
  clientCpuMsPerEvent: number;
}

export type ToChild = ConnectMessage | CollectMessage;
export type FromChild = ConnectedMessage | DeliveryReport;
