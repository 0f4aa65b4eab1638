/**
 * Deterministic ids (reference gateway-surfaces §3.1): RFC 4122 version-5 UUIDs (SHA-1 of a namespace
 * and a name), so the same request always names the same automation, occurrence or discussion.
 */
import { createHash } from 'node:crypto';

/** The namespace of automation ids (a fixed v4 UUID of Keel's own; the origin's namespace is not published). */
export const AUTOMATION_NAMESPACE = '6f0c1d3e-5b7a-4c2e-9d8f-2a1b3c4d5e6f';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `uuid5(namespace, name)` as RFC 4122 §4.3 defines it (the same bytes as Python's `uuid.uuid5`). */
export function uuid5(namespace: string, name: string): string {
  if (!UUID.test(namespace)) throw new TypeError(`uuid5: '${namespace}' is not a UUID`);
  const hash = createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `automation_id = uuid5(namespace, "<tenant>:<account>:<request_id>")`: same request → same automation. */
export function automationIdFor(tenant: string, account: string, requestId: string): string {
  return uuid5(AUTOMATION_NAMESPACE, `${tenant}:${account}:${requestId}`);
}

/** True for a canonical UUID string (ids in paths are checked before they become keys). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
