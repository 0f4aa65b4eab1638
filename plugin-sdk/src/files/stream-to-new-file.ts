/**
 * Writes a stream into a new file, and on any failure leaves no file behind. The file is opened
 * (`wx`: O_EXCL, so a planted link or an existing name is refused) before a byte is read, because
 * `pipeline()` rejects before a destroyed file stream has finished opening: removing the file right
 * after such a rejection raced the late open and left the file on disk.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export async function streamToNewFile(source: Readable, through: Transform[], file: string, mode = 0o600): Promise<void> {
  const out = createWriteStream(file, { flags: 'wx', mode });
  try {
    await once(out, 'ready');
    await pipeline([source, ...through, out]);
  } catch (err) {
    // pipeline() destroyed `out` with the error too: wait for its close, not for an error event.
    if (!out.closed) await new Promise<void>((closed) => out.once('close', () => closed()).destroy());
    // Only a file this call created is removed (an open refused with EEXIST created nothing).
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || out.bytesWritten > 0) await rm(file, { force: true });
    throw err;
  }
}
