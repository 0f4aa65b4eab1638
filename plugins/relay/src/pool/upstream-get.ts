/**
 * One bounded `GET` of a JSON document from an upstream account (its catalog, its usage report),
 * over the account's own keep-alive agent.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { PoolAccount } from './accounts.js';

/** The largest catalog or usage report read (bytes). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface UpstreamGetResult {
  status: number;
  /** The parsed body, or null when it was not JSON. */
  body: unknown;
}

/** Resolves with the status and JSON body, rejects on a transport failure or after `timeoutMs`. */
export function upstreamGet(account: PoolAccount, path: string, timeoutMs: number): Promise<UpstreamGetResult> {
  const url = new URL(account.baseUrl + path);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'GET',
      agent: account.agent,
      headers: { authorization: `Bearer ${account.apiKey}`, accept: 'application/json' },
      timeout: timeoutMs,
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          req.destroy(new Error(`the answer of ${url.pathname} is larger than ${MAX_BODY_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: parseJson(Buffer.concat(chunks).toString('utf8')) });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url.host} within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end();
  });
}

/** The upstream's error sentence in a failed answer, else `status <code>`. */
export function upstreamErrorMessage(result: UpstreamGetResult): string {
  const error = (result.body as { error?: { message?: unknown } } | null)?.error;
  return typeof error?.message === 'string' ? `status ${result.status}: ${error.message.slice(0, 160)}` : `status ${result.status}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
