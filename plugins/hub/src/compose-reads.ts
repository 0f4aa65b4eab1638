/**
 * The services of the hub-wide seat reads and the per-channel/per-seat routes of reference §8.3 and
 * §8.5 (board, supervise, activity, colleague notes, closing threads, handing rooms over), built by
 * the composition root over the core services.
 */
import { ActivityStats } from './attention/activity-stats.js';
import { SeatBoard } from './attention/seat-board.js';
import type { HubContent } from './content/hub-content.js';
import { OwnershipTransfer } from './governance/ownership-transfer.js';
import { Supervise } from './governance/supervise.js';
import type { Hub } from './hub.js';
import { ColleagueNotes } from './identity/colleague-notes.js';
import { ThreadCloser } from './messages/thread-closer.js';

export interface ReadServices {
  board: SeatBoard;
  supervise: Supervise;
  activity: ActivityStats;
  colleagues: ColleagueNotes;
  threads: ThreadCloser;
  ownership: OwnershipTransfer;
}

export function composeReads(hub: Hub, content: HubContent): ReadServices {
  const limits = hub.config.reads;
  return {
    board: new SeatBoard(hub, content, limits.boardMaxRows),
    supervise: new Supervise(hub, content.store, limits.superviseScanRows),
    activity: new ActivityStats(hub),
    colleagues: new ColleagueNotes(hub.db, limits),
    threads: new ThreadCloser(hub, content.store, limits.threadMaxRows),
    ownership: new OwnershipTransfer(hub),
  };
}
