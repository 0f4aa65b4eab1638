import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { canonicalText, chainHash, chainPayload, pythonFloat, sha256Hex, turnHash, verifyLedger, type Ledger, type LedgerTurn } from '@keel/hub-client';
import { sha256Bytes } from '../../packages/hub-client/dist/sha256.js';

// Golden vectors of the hub's hash chain (hub-protocol reference §4.1, prev = "").
const golden: Array<{ name: string; value: unknown; floatKeys?: string[]; text: string; sha256: string }> = [
  { name: 'integral created_at is a float', value: { created_at: 2.0, seq: 1, body: 'x' }, text: '{"body":"x","created_at":2.0,"seq":1}', sha256: '12b0c0cb42b8521a588397514a4635ca48dbff619e6f4637e70be95b48cee5a9' },
  { name: 'small float exponent', value: { v: 1e-7 }, floatKeys: ['created_at', 'v'], text: '{"v":1e-07}', sha256: '8eb2adb3e7840964f4f4e1bb564f7737f5f9a5a1813f6f394ffde85beb55f841' },
  { name: 'large float exponent', value: { v: 1e16 }, floatKeys: ['created_at', 'v'], text: '{"v":1e+16}', sha256: '71027c43c6388cbc3ed1463e2cee29ee33aca97b4dfabb33ac3a393626831f24' },
  { name: 'negative zero', value: { v: -0 }, floatKeys: ['created_at', 'v'], text: '{"v":-0.0}', sha256: 'cabee4e2dbe1f13e73a57ed5e6fa673015cade6cded4b8932f95beb5b7854664' },
  { name: 'nested, sorted, escaped', value: { b: { z: 1, a: 'é' }, a: [1, 2.5, null, true] }, text: '{"a":[1,2.5,null,true],"b":{"a":"\\u00e9","z":1}}', sha256: 'f5a22342a232ec97fca871d262572344229a13209f7b5ed7b27b2a93c42b5133' },
];

describe('hub chain: canonical text and hashes', () => {
  for (const vector of golden) {
    it(`golden: ${vector.name}`, async () => {
      const text = canonicalText(vector.value, vector.floatKeys ? { floatKeys: vector.floatKeys } : undefined);
      expect(text).to.equal(vector.text);
      expect(await chainHash('', text)).to.equal(vector.sha256);
    });
  }

  it('escapes like Python ensure_ascii: astral as two escapes, control characters, quotes, no slash escape', () => {
    expect(canonicalText('😀')).to.equal('"\\ud83d\\ude00"');
    expect(canonicalText('é')).to.equal('"\\u00e9"');
    expect(canonicalText('a"b\\c/d')).to.equal('"a\\"b\\\\c/d"');
    expect(canonicalText('\b\t\n\f\r')).to.equal('"\\b\\t\\n\\f\\r"');
    expect(canonicalText('\u0000\u0001\u001f\u007f')).to.equal('"\\u0000\\u0001\\u001f\\u007f"');
    expect(canonicalText('\u2028\uFFFF')).to.equal('"\\u2028\\uffff"');
  });

  it('sorts keys by code point at every level (astral after U+FFFF, unlike a UTF-16 sort)', () => {
    const value = { '\uffff': 1, '😀': 2, b: { d: 1, c: [{ y: 1, x: 2 }] }, a: 0 };
    expect(canonicalText(value)).to.equal('{"a":0,"b":{"c":[{"x":2,"y":1}],"d":1},"\\uffff":1,"\\ud83d\\ude00":2}');
  });

  it('formats numbers: integral as integers, others in Python float repr; float keys always floats', () => {
    expect(canonicalText({ n: 2, f: 0.5, big: 1e20, neg: -3 })).to.equal('{"big":100000000000000000000,"f":0.5,"n":2,"neg":-3}');
    expect(canonicalText({ data: { created_at: 3 }, created_at: 3 })).to.equal('{"created_at":3.0,"data":{"created_at":3}}');
    const cases: Array<[number, string]> = [
      [0.0001, '0.0001'], [0.00001, '1e-05'], [123.456, '123.456'], [1e15, '1000000000000000.0'],
      [1.5e16, '1.5e+16'], [1e22, '1e+22'], [-2.5e-10, '-2.5e-10'], [0.1 + 0.2, '0.30000000000000004'],
      [1767225600.123, '1767225600.123'], [5e-324, '5e-324'], [1.7976931348623157e308, '1.7976931348623157e+308'],
    ];
    for (const [value, text] of cases) expect(pythonFloat(value), String(value)).to.equal(text);
    expect(() => canonicalText({ v: NaN })).to.throw(RangeError);
    expect(() => canonicalText([Infinity])).to.throw(RangeError);
    expect(() => canonicalText({ created_at: -Infinity })).to.throw(RangeError);
  });

  it('hashes with WebCrypto, and the pure fallback agrees with node:crypto', async () => {
    for (const text of ['', 'abc', '\né😀', 'x'.repeat(55), 'y'.repeat(56), 'z'.repeat(64), 'w'.repeat(1000)]) {
      const expected = createHash('sha256').update(text, 'utf8').digest('hex');
      expect(await sha256Hex(text)).to.equal(expected);
      expect(Buffer.from(sha256Bytes(new TextEncoder().encode(text))).toString('hex')).to.equal(expected);
    }
  });

  it('builds the 15-key payload from a served turn (absent -> null, channel from the ledger)', () => {
    const payload = chainPayload({ seq: 1, id: 'm1', sender: 'ann', hash: 'h', retracted: false } as Partial<LedgerTurn>, 'room');
    expect(Object.keys(payload).sort()).to.deep.equal(['body', 'channel', 'created_at', 'critical', 'data', 'downgraded', 'id', 'kind', 'reply_to', 'sender', 'seq', 'status', 'title', 'to', 'urgency']);
    expect(payload).to.include({ channel: 'room', seq: 1, id: 'm1', sender: 'ann', body: null, data: null });
  });
});

describe('hub chain: verifyLedger', () => {
  const channel = 'room';
  const base = (seq: number, body: string): Omit<LedgerTurn, 'hash'> => ({
    seq, id: `m${seq}`, sender: 'ann', kind: 'message', status: 'open', urgency: 'inbox', critical: 0, downgraded: 0,
    to: [], title: `t${seq}`, body, data: seq === 2 ? { asks: [{ id: 'a1', text: 'why?' }], n: 1.5 } : null,
    reply_to: seq > 1 ? `m${seq - 1}` : null, created_at: 1767225600 + seq + (seq === 3 ? 0.25 : 0), retracted: false,
  });

  async function chain(count: number): Promise<Ledger> {
    const turns: LedgerTurn[] = [];
    let prev = '';
    for (let seq = 1; seq <= count; seq++) {
      const turn = base(seq, `body ${seq}`);
      const hash = await turnHash(prev, turn, channel);
      turns.push({ ...turn, hash });
      prev = hash;
    }
    return { channel, count, head: prev, turns, verified: true, broken_at: null };
  }

  it('accepts a valid chain and reports its head', async () => {
    const ledger = await chain(4);
    expect(await verifyLedger(ledger)).to.deep.equal({ ok: true, broken_at: null, head_mismatch: false, computed_head: ledger.head, hashed: 4, legacy: 0, redacted: 0 });
  });

  it('finds the first tampered turn and ignores the served verdict', async () => {
    const ledger = await chain(4);
    ledger.turns[1] = { ...ledger.turns[1]!, body: 'edited' };
    const verdict = await verifyLedger(ledger);
    expect(verdict).to.include({ ok: false, broken_at: 2, head_mismatch: false, hashed: 4 });
  });

  it('links a retracted turn by its served hash without recomputing it', async () => {
    const ledger = await chain(4);
    ledger.turns[2] = { ...ledger.turns[2]!, retracted: true, title: '', body: '[retracted by ann]', data: null, status: 'fyi' };
    expect(await verifyLedger(ledger)).to.deep.equal({ ok: true, broken_at: null, head_mismatch: false, computed_head: ledger.head, hashed: 3, legacy: 0, redacted: 1 });
  });

  it('flags a served head that is not the last link', async () => {
    const ledger = await chain(3);
    const verdict = await verifyLedger({ ...ledger, head: 'f'.repeat(64) });
    expect(verdict).to.include({ ok: false, broken_at: null, head_mismatch: true, computed_head: ledger.head });
  });

  it('counts legacy turns: leading ones are fine, one after a hashed turn breaks the chain', async () => {
    const legacyFirst: LedgerTurn = { ...base(1, 'old'), hash: null };
    const second = base(2, 'new');
    const hash = await turnHash('', second, channel);
    expect(await verifyLedger({ channel, count: 2, head: hash, turns: [legacyFirst, { ...second, hash }] })).to.include({ ok: true, legacy: 1, hashed: 1 });
    const ledger = await chain(2);
    ledger.turns.push({ ...base(3, 'late legacy'), hash: null });
    expect(await verifyLedger(ledger)).to.include({ ok: false, broken_at: 3, legacy: 1 });
  });

  it('accepts an empty ledger with an empty head', async () => {
    expect(await verifyLedger({ channel, count: 0, head: '', turns: [] })).to.include({ ok: true, computed_head: '', hashed: 0 });
  });
});
