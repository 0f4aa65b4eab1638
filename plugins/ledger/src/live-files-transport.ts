/**
 * Live traffic between a separate runner (`keel runner`) and the server (`keel serve --no-runner`)
 * on one data directory, through files under `<data>/live/` (seed 000 §6 rule 8), owner-only:
 * - `<root_run_id>.jsonl`: the producer's appends, deltas, ends and terminal marks of one run tree,
 *   one `LiveMessage` per line; deleted when the root run ends; every file is removed when a
 *   producer starts (what is left is from runs a crash interrupted).
 * - `_wake.jsonl`: the consumers' nudges to the producer.
 * Writes are asynchronous and batched (`LiveFileWriter`); readers follow the files with fs.watch
 * (`LiveFileFollower`). A consumer started while the producer is mid-run replays the files first,
 * so its late subscribers get the open calls' whole text as snapshots.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { LiveRole } from './live-bus.js';
import { LiveFileFollower } from './live-file-follower.js';
import { LiveFileWriter } from './live-file-writer.js';
import { rootOf, type LiveMessage, type LiveNudge, type LiveReceiver, type LiveTransport } from './live-transport.js';

export const WAKE_FILE = '_wake.jsonl';
const TREE_SUFFIX = '.jsonl';

export type LiveFileErrors = (file: string, err: unknown) => void;

/** The files transport for `role`, in `dir` (made owner-only if missing). */
export function liveFilesTransport(dir: string, role: LiveRole, receiver: LiveReceiver, onError: LiveFileErrors): LiveTransport {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return role === 'producer' ? new LiveFilesProducer(dir, receiver, onError) : new LiveFilesConsumer(dir, receiver, onError);
}

/** The process that executes runs: its traffic goes to the run trees' files; it follows the nudges. */
class LiveFilesProducer implements LiveTransport {
  private readonly writer: LiveFileWriter;
  private readonly follower: LiveFileFollower;

  constructor(dir: string, private readonly receiver: LiveReceiver, onError: LiveFileErrors) {
    for (const name of readdirSync(dir)) rmSync(path.join(dir, name), { force: true });
    this.writer = new LiveFileWriter(dir, onError);
    this.follower = new LiveFileFollower(dir, onError);
    this.follower.follow((f) => f === WAKE_FILE, (_file, nudge) => receiver.nudged(nudge as LiveNudge));
  }

  send(message: LiveMessage): void {
    this.receiver.deliver(message);
    const file = `${rootOf(message)}${TREE_SUFFIX}`;
    this.writer.append(file, message);
    if (message.t === 'terminal' && message.run_id === message.root) this.writer.remove(file);
  }

  nudge(nudge: LiveNudge): void {
    this.receiver.nudged(nudge);
  }

  async close(): Promise<void> {
    this.follower.stop();
    await this.writer.flush();
  }
}

/** A process that serves streams of runs the producer executes: it follows the run trees' files; its nudges go to the producer. */
class LiveFilesConsumer implements LiveTransport {
  private readonly writer: LiveFileWriter;
  private readonly follower: LiveFileFollower;

  constructor(dir: string, private readonly receiver: LiveReceiver, onError: LiveFileErrors) {
    this.writer = new LiveFileWriter(dir, onError);
    this.follower = new LiveFileFollower(dir, onError);
    const isTree = (f: string) => f.endsWith(TREE_SUFFIX) && f !== WAKE_FILE;
    const gone = (file: string) => {
      // The producer deletes a tree's file when its root run ends: whatever its last lines said, the tree is over.
      const root = file.slice(0, -TREE_SUFFIX.length);
      receiver.deliver({ t: 'terminal', root, run_id: root });
    };
    this.follower.follow(isTree, (_file, message) => receiver.deliver(message as LiveMessage), gone, true);
  }

  /** This process's own traffic (a run it marks terminal) stays here: the producer does not read it. */
  send(message: LiveMessage): void {
    this.receiver.deliver(message);
  }

  nudge(nudge: LiveNudge): void {
    this.writer.append(WAKE_FILE, nudge);
  }

  async close(): Promise<void> {
    this.follower.stop();
    await this.writer.flush();
  }
}
