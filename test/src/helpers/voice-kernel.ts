/**
 * A gateway for the voice tests on the real boot path: the inference plugin (owner of `/v1`) and,
 * unless `voice: false`, the voice plugin with `voice` as its config; a non-admin account `bob`;
 * a real listener for the official `openai` client and for raw sockets.
 */
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import OpenAI from 'openai';
import { createTestKernel, type InjectResponse, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { voicePlugin } from '@keel/plugin-voice';
import { createAccount } from './accounts.js';

export interface VoiceGateway {
  k: TestKernel;
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  admin: string;
  bob: string;
  /** The official client on `/v1`, signed in with `token` (default: bob's). */
  openai(token?: string): OpenAI;
  /** `POST /v1/audio/speech` with a JSON body, as bob unless `token` says otherwise (`null`: no token). */
  speech(body: unknown, token?: string | null): Promise<InjectResponse>;
  stop(): Promise<void>;
}

export async function voiceGateway(options: { voice?: Record<string, unknown> | false } = {}): Promise<VoiceGateway> {
  const plugins = [inferencePlugin, ...(options.voice === false ? [] : [{ plugin: voicePlugin, config: options.voice ?? {} }])];
  const k = await createTestKernel({ plugins, config: { server: { logLevel: 'silent' } } });
  const bob = await createAccount(k, 'bob');
  const { url, port } = await k.listen();
  return {
    k, url, port, bob,
    admin: k.adminToken,
    openai: (token = bob) => new OpenAI({ baseURL: `${url}/v1`, apiKey: token, maxRetries: 0, timeout: 120_000 }),
    speech: (body, token = bob) =>
      k.inject({ method: 'POST', url: '/v1/audio/speech', payload: JSON.stringify(body), headers: { 'content-type': 'application/json' }, ...(token ? { token } : {}) }),
    stop: () => k.stop(),
  };
}

/** An OpenAI-shaped error with this status; answers its `error` object. */
export function openaiError(res: InjectResponse, status: number): { message: string; type: string; code: string | null; param: string | null } {
  expect(res.statusCode, res.body).to.equal(status);
  const body = res.json<{ error: { message: string; type: string; code: string | null; param: string | null } }>();
  expect(body.error, res.body).to.be.an('object');
  expect(body.error.message).to.be.a('string').and.not.equal('');
  expect(Object.keys(body.error).sort()).to.deep.equal(['code', 'message', 'param', 'type']);
  return body.error;
}

/** A multipart body of these parts, in order (built by hand so a test can send exactly what it means). */
export function audioForm(parts: Array<{ name: string; value?: string; filename?: string; contentType?: string; bytes?: Buffer }>, boundary = `----keelvoice${Math.random().toString(16).slice(2)}`): { payload: Buffer; headers: Record<string, string> } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), part.bytes ?? Buffer.from(part.value ?? ''), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** The Debian packages the local recognition engine needs (issue 17 item 8). */
export const POCKETSPHINX_INSTALL = 'apt-get install pocketsphinx pocketsphinx-en-us';

/** Skips the calling test, with the sentence naming the Debian packages, when pocketsphinx or its English model is missing. */
export function requirePocketsphinx(ctx: Mocha.Context): void {
  if (existsSync('/usr/bin/pocketsphinx_continuous') && existsSync('/usr/share/pocketsphinx/model/en-us')) return;
  console.log(`      (skipped: pocketsphinx or its English model is not installed; ${POCKETSPHINX_INSTALL})`);
  ctx.skip();
}
