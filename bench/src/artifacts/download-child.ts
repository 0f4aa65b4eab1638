/**
 * The client of the streaming benchmark, in its own process so it never shares an event loop with
 * the servers: downloads a URL `downloads` times, `concurrency` at a time, over keep-alive
 * connections, counting the bytes and throwing them away; answers the bytes, the wall time and its
 * own CPU time.
 */
import http from 'node:http';

export interface DownloadTask {
  type: 'download';
  url: string;
  token: string | null;
  downloads: number;
  concurrency: number;
}
export interface DownloadResult {
  type: 'downloaded';
  bytes: number;
  ms: number;
  cpuMs: number;
  statuses: number[];
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function once(url: string, token: string | null): Promise<{ bytes: number; status: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ bytes, status: res.statusCode ?? 0 }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

process.on('message', (task: DownloadTask) => {
  void (async () => {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    let next = 0;
    let bytes = 0;
    const statuses: number[] = [];
    await Promise.all(Array.from({ length: task.concurrency }, async () => {
      while (next < task.downloads) {
        next += 1;
        const got = await once(task.url, task.token);
        bytes += got.bytes;
        statuses.push(got.status);
      }
    }));
    const used = process.cpuUsage(cpu);
    const result: DownloadResult = { type: 'downloaded', bytes, ms: performance.now() - t0, cpuMs: (used.user + used.system) / 1000, statuses };
    process.send!(result);
  })();
});

// The parent disconnects when it is done: go (keep-alive sockets would hold the process open).
process.on('disconnect', () => process.exit(0));
