/**
 * A hostile account against the local recogniser's clean-up: a long recording cut off by the
 * deadline (504), or by the client going away, must leave no pocketsphinx process running and no
 * private temporary folder behind. The engine's folders are made under a temporary folder of this
 * test's own (TMPDIR), so other work on the machine does not disturb the count (the test kernel's own
 * data folder is made there too, and is not counted).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { until } from './helpers/until.js';
import { audioForm, openaiError, requirePocketsphinx, voiceGateway, type VoiceGateway } from './helpers/voice-kernel.js';

/** 16 kHz 16-bit mono noise: pocketsphinx takes a while on it. */
function noiseWav(seconds: number): Buffer {
  const data = Buffer.alloc(seconds * 16_000 * 2);
  let x = 12345;
  for (let i = 0; i < data.length; i += 2) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    data.writeInt16LE((x % 16000) - 8000, i);
  }
  const head = Buffer.alloc(44);
  head.write('RIFF', 0); head.writeUInt32LE(36 + data.length, 4); head.write('WAVEfmt ', 8);
  head.writeUInt32LE(16, 16); head.writeUInt16LE(1, 20); head.writeUInt16LE(1, 22); head.writeUInt32LE(16_000, 24);
  head.writeUInt32LE(32_000, 28); head.writeUInt16LE(2, 32); head.writeUInt16LE(16, 34); head.write('data', 36); head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

/** The pocketsphinx processes this test process started. */
function myRecognizers(): string[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,cmd=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n').filter((l) => l.includes('pocketsphinx'));
  } catch {
    return []; // ps exits 1 when no process matches
  }
}

describe('voice attack: a cut-off transcription leaves nothing behind', function () {
  this.timeout(180_000);
  let gw: VoiceGateway;
  let tmp: string;
  let savedTmp: string | undefined;
  before(async function () {
    requirePocketsphinx(this);
    savedTmp = process.env.TMPDIR;
    tmp = mkdtempSync(path.join(os.tmpdir(), 'keel-voice-attack-'));
    process.env.TMPDIR = tmp;
    gw = await voiceGateway({ voice: { limits: { requestTimeoutMs: 400 } } });
  });
  after(async () => {
    await gw?.stop();
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('past the deadline: 504, then no recogniser process and no temporary folder', async () => {
    const form = audioForm([{ name: 'file', filename: 'noise.wav', contentType: 'audio/wav', bytes: noiseWav(280) }]);
    const res = await gw.k.inject({ method: 'POST', url: '/v1/audio/transcriptions', token: gw.bob, payload: form.payload, headers: form.headers });
    expect(openaiError(res, 504).message).to.contain('limits.requestTimeoutMs');
    await until(() => [...myRecognizers(), ...readdirSync(tmp).filter((name) => name.startsWith('keel-pocketsphinx-'))], { ok: (left) => left.length === 0, what: 'the recogniser to be killed and its folder removed', deadline: 30_000 });
  });
});
