/**
 * The voice plugin embedded alone in a plain Koa app (plugin README "Embedding"): the audio routes
 * serve without the inference plugin (its audio slot is an optional dependency), behind the embedded
 * kernel's bearer token, and the exported service speaks for an account directly.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { embedPlugin, type EmbeddedPlugin } from '@keel/kernel';
import { voicePlugin, type VoiceService } from '@keel/plugin-voice';
import { tempDir } from './helpers/paths.js';

describe('voice http: the plugin embedded in another host', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let embedded: EmbeddedPlugin<VoiceService>;
  let server: http.Server;
  let base: string;
  before(async () => {
    tmp = tempDir();
    embedded = await embedPlugin(voicePlugin, { dataDir: tmp.dir, config: { voice_language: 'en' } });
    const app = new Koa();
    app.use(embedded.middleware('/'));
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await embedded?.stop();
    tmp?.remove();
  });

  it('speaks on /v1/audio/speech with the embedded kernel\'s token, and refuses without it', async () => {
    const res = await fetch(`${base}/v1/audio/speech`, { method: 'POST', headers: { authorization: `Bearer ${embedded.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ input: 'Embedded.' }) });
    expect(res.status, await res.clone().text()).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('audio/wav');
    expect(Buffer.from(await res.arrayBuffer()).subarray(0, 4).toString('latin1')).to.equal('RIFF');
    const anonymous = await fetch(`${base}/v1/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":"x"}' });
    expect(anonymous.status).to.equal(401);
  });

  it('exports the voice service', async () => {
    const audio = await embedded.exports.speak('local', { text: 'Hello.' });
    expect(audio.contentType).to.equal('audio/wav');
    expect(audio.provider).to.equal('espeak');
    expect(audio.bytes.length).to.be.greaterThan(1000);
  });
});
