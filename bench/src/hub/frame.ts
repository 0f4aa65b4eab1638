/**
 * What a benchmark message carries and how a socket frame is read. The poster writes the
 * message's index and its send time into the body (`hubbench <index> <sent µs>`); both servers
 * push it back inside `{"type":"envelope","envelope":{...,"seq":N,...,"body":"..."}}`.
 *
 * The sockets child receives members × messages frames (100k/s at 1000 messages/s), so it does
 * not `JSON.parse` each: it finds `"seq":` and the body marker in the raw bytes. One frame per
 * socket and phase is also parsed in full and checked against the scan (`checkFrame`).
 */
const SEQ = Buffer.from('"seq":');
const BODY = Buffer.from('"body":"hubbench ');
const ENVELOPE_HEAD = Buffer.from('{"type":"envelope","envelope":{');

/** Send time as integer microseconds since the epoch (< 2^53, so exact in a double). */
export function messageBody(index: number, sentMs: number): string {
  return `hubbench ${index} ${Math.round(sentMs * 1000)}`;
}

export interface ScannedFrame {
  seq: number;
  index: number;
  sentMs: number;
}

/** The seq, index and send time of an envelope frame carrying a benchmark body; null for any other frame. */
export function scanFrame(data: Buffer): ScannedFrame | null {
  if (data.length < ENVELOPE_HEAD.length || data.compare(ENVELOPE_HEAD, 0, ENVELOPE_HEAD.length, 0, ENVELOPE_HEAD.length) !== 0) return null;
  const s = data.indexOf(SEQ, ENVELOPE_HEAD.length);
  const b = data.indexOf(BODY, ENVELOPE_HEAD.length);
  if (s < 0 || b < 0) return null;
  const seq = digitsAt(data, s + SEQ.length);
  const index = digitsAt(data, b + BODY.length);
  if (seq === null || index === null) return null;
  const micros = digitsAt(data, index.end + 1);
  if (micros === null) return null;
  return { seq: seq.value, index: index.value, sentMs: micros.value / 1000 };
}

function digitsAt(data: Buffer, at: number): { value: number; end: number } | null {
  let value = 0;
  let i = at;
  for (; i < data.length; i++) {
    const c = data[i]!;
    if (c < 48 || c > 57) break;
    value = value * 10 + (c - 48);
  }
  return i === at ? null : { value, end: i };
}

/** Parses a frame in full and says what is wrong with it (null when it is the envelope the scan read). */
export function checkFrame(data: Buffer, scanned: ScannedFrame, channel: string, sender: string): string | null {
  let frame: { type?: unknown; envelope?: { seq?: unknown; channel?: unknown; sender?: unknown; body?: unknown } };
  try {
    frame = JSON.parse(data.toString('utf8')) as typeof frame;
  } catch {
    return 'frame is not JSON';
  }
  const e = frame.envelope;
  if (frame.type !== 'envelope' || !e) return `not an envelope frame: ${data.toString('utf8', 0, 80)}`;
  if (e.seq !== scanned.seq) return `envelope seq ${String(e.seq)} but the scan read ${scanned.seq}`;
  if (e.channel !== channel || e.sender !== sender) return `envelope from ${String(e.sender)} in ${String(e.channel)}, expected ${sender} in ${channel}`;
  if (e.body !== messageBody(scanned.index, scanned.sentMs)) return `envelope body ${JSON.stringify(e.body)} does not match the scan`;
  return null;
}
