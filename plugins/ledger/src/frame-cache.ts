/**
 * Serialises each `step` frame once: subscribers of the same run at the same cursor get the
 * same bytes. A small LRU keeps the newest frames (what live subscribers read).
 */
import { encodeSse } from '@keel/plugin-sdk';
import type { StepRecord } from './records.js';

export class FrameCache {
  private readonly frames = new Map<string, Buffer>();

  constructor(private readonly capacity = 4096) {}

  step(runId: string, item: StepRecord & { cursor: number }): Buffer {
    const key = `${runId}:${item.cursor}`;
    let frame = this.frames.get(key);
    if (!frame) {
      frame = encodeSse({ event: 'step', id: item.cursor, data: item });
      this.frames.set(key, frame);
      if (this.frames.size > this.capacity) this.frames.delete(this.frames.keys().next().value as string);
    }
    return frame;
  }
}
