/** One call to the running relay with its token: the answer, or `unreachable` when nothing listens there. */
import type { RelayCliServices } from './relay-cli-services.js';

export type RelayAnswer =
  | { kind: 'answer'; status: number; text: string; body: unknown }
  | { kind: 'unreachable'; reason: string };

export async function relayRequest(cli: RelayCliServices, baseUrl: string, method: 'GET' | 'POST', path: string, timeoutMs: number): Promise<RelayAnswer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (cli.token.value) headers.authorization = `Bearer ${cli.token.value}`;
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, { method, headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    return { kind: 'unreachable', reason: (err as Error).message };
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    // not JSON: the text is shown
  }
  return { kind: 'answer', status: response.status, text, body };
}
