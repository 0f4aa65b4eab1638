/**
 * The voice plugin's node types in real flows (reference runtime-nodes §10 and the §11 parity line
 * for generate_voice / transcribe_audio): a run whose `generate_voice` node speaks with the local
 * espeak engine, the WAV it made listed among the run's artifacts and downloaded through the
 * artifacts routes, then a `transcribe_audio` node reading that artifact back with pocketsphinx in
 * grammar mode; the refusals (no text, a server path, another account's artifact, no artifacts
 * plugin) as the sentences the run fails with.
 */
import { expect } from 'chai';
import { decodeWaveToFloat32Channels } from '@echogarden/wave-codec';
import { chain, skipWithoutPocketsphinx, voiceKernel, voiceNode } from './helpers/voice-flows-kernel.js';
import { startVoiceRemote, type VoiceRemote } from './helpers/voice-remote.js';
import { until } from './helpers/until.js';

const PHRASE = 'open the door';
const GRAMMAR = `grammar: ${PHRASE} | turn the lights on | good morning`;

interface Ref {
  $artifact: string;
  artifact_id: string;
  content_type: string;
  size_bytes: number;
}

const speak = (id: string, values: Record<string, unknown>, data: Record<string, unknown> = {}) =>
  voiceNode(id, 'generate_voice', values, ['audio_artifact', 'artifact_ref', 'artifact_id', 'content_type', 'success', 'meta', 'outputs'], [], data);
const listen = (id: string, values: Record<string, unknown>, extra: string[] = []) =>
  voiceNode(id, 'transcribe_audio', values, ['text', 'success', 'meta'], extra);

describe('voice plugin: generate_voice and transcribe_audio in flows (runtime-nodes §10)', function () {
  this.timeout(300_000);
  const gw = voiceKernel();
  before(() => gw.boot());
  after(() => gw.stop());

  let spoken: { runId: string; ref: Ref; wav: Buffer } | undefined;

  it('generate_voice speaks with espeak: the origin payload in the ledger, the WAV an artifact of the run, downloadable', async () => {
    const flow = chain([speak('say', { text: PHRASE })], ['audio_artifact', 'artifact_id', 'content_type', 'success', 'meta'], [
      'say.audio_artifact -> end.audio_artifact', 'say.artifact_id -> end.artifact_id', 'say.content_type -> end.content_type', 'say.success -> end.success', 'say.meta -> end.meta',
    ]);
    const { runId, run, ledger } = await gw.runFlow(gw.bob, flow);
    expect(run.status, run.error ?? '').to.equal('completed');
    const out = run.output as { audio_artifact: Ref; artifact_id: string; content_type: string; success: boolean; meta: Record<string, unknown> };
    expect(out.success).to.equal(true);
    expect(out.content_type).to.equal('audio/wav');
    expect(out.audio_artifact.$artifact).to.equal(out.artifact_id);
    expect(out.audio_artifact).to.include({ artifact_id: out.artifact_id, content_type: 'audio/wav' });
    expect(out.meta).to.include({ schema: 'abstractflow.generate_voice.v1.meta', version: 1, modality: 'voice', provider: 'espeak' });

    // The ledger pair carries the origin's llm_call payload with the output selector.
    const records = ledger.filter((r) => r.effect?.type === 'generate_voice');
    expect(records.map((r) => r.status)).to.deep.equal(['started', 'completed']);
    expect(records[0]!.effect!.payload).to.deep.equal({ prompt: PHRASE, system_prompt: '', tools: [], params: {}, output: { modality: 'voice', task: 'tts', format: 'wav' } });
    const item = (records[1]!.result as { outputs: { voice: Array<Record<string, unknown>> } }).outputs.voice[0]!;
    expect(item).to.include({ modality: 'voice', task: 'tts', format: 'wav', content_type: 'audio/wav', provider: 'espeak', artifact_id: out.artifact_id });

    // The run's artifact list has it, made by the node; its content is the WAV.
    const listed = (await gw.get(gw.bob, `/api/gateway/runs/${runId}/artifacts`)).json<{ items: Array<Record<string, unknown>> }>().items;
    const row = listed.find((a) => a.artifact_id === out.artifact_id);
    expect(row, JSON.stringify(listed)).to.not.equal(undefined);
    expect(row).to.include({ content_type: 'audio/wav', size_bytes: out.audio_artifact.size_bytes });
    const content = await gw.get(gw.bob, `/api/gateway/runs/${runId}/artifacts/${out.artifact_id}/content?access_action=download`);
    expect(content.statusCode).to.equal(200);
    const wav = content.rawPayload;
    expect(wav.length).to.equal(out.audio_artifact.size_bytes);
    expect(wav.subarray(0, 4).toString('ascii')).to.equal('RIFF');
    const decoded = decodeWaveToFloat32Channels(wav);
    const seconds = decoded.audioChannels[0]!.length / decoded.sampleRate;
    expect(seconds, 'a three-word phrase lasts more than half a second').to.be.greaterThan(0.5);
    expect(decoded.audioChannels[0]!.some((s) => Math.abs(s) > 0.05), 'the audio is not silence').to.equal(true);
    spoken = { runId, ref: out.audio_artifact, wav };

    // Another account sees neither the run nor its artifact.
    expect((await gw.get(gw.eve, `/api/gateway/runs/${runId}/artifacts/${out.artifact_id}/content`)).statusCode).to.equal(404);
  });

  it('transcribe_audio reads the artifact back (pocketsphinx, grammar mode) to the exact words', async function () {
    skipWithoutPocketsphinx(this);
    const flow = chain([speak('say', { text: PHRASE }), listen('hear', { prompt: GRAMMAR, language: 'en' }, ['audio'])], ['text', 'success', 'meta'], [
      'say.audio_artifact -> hear.audio', 'hear.text -> end.text', 'hear.success -> end.success', 'hear.meta -> end.meta',
    ]);
    const { run, ledger } = await gw.runFlow(gw.bob, flow);
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output).to.deep.include({ text: PHRASE, success: true, meta: { schema: 'abstractflow.transcribe_audio.v1.meta', version: 1, modality: 'text', task: 'transcription' } });
    const started = ledger.find((r) => r.effect?.type === 'transcribe_audio' && r.status === 'started')!;
    const payload = started.effect!.payload as { prompt: string; output: Record<string, unknown>; media: Array<Record<string, unknown>> };
    expect(payload.prompt).to.equal(GRAMMAR);
    expect(payload.output).to.deep.equal({ modality: 'text', task: 'transcription', language: 'en', prompt: GRAMMAR });
    expect(payload.media).to.have.length(1);
    expect(payload.media[0]).to.include({ type: 'audio', content_type: 'audio/wav' });
    expect(payload.media[0]!.$artifact).to.be.a('string');
  });

  it('transcribe_audio takes an artifact id as a string, and inline base64 bytes', async function () {
    skipWithoutPocketsphinx(this);
    const { ref, wav } = spoken!;
    const byId = await gw.runFlow(gw.bob, chain([listen('hear', { audio: ref.artifact_id, prompt: GRAMMAR })], ['text'], ['hear.text -> end.text']));
    expect(byId.run.status, byId.run.error ?? '').to.equal('completed');
    expect(byId.run.output!.text).to.equal(PHRASE);
    const media = (byId.ledger.find((r) => r.status === 'started')!.effect!.payload as { media: unknown[] }).media;
    expect(media).to.deep.equal([{ $artifact: ref.artifact_id, type: 'audio' }]);

    const inline = await gw.runFlow(gw.bob, chain([listen('hear', { audio: { content: wav.toString('base64'), filename: 'say.wav', content_type: 'audio/wav' }, prompt: GRAMMAR })], ['text'], ['hear.text -> end.text']));
    expect(inline.run.status, inline.run.error ?? '').to.equal('completed');
    expect(inline.run.output!.text).to.equal(PHRASE);
  });

  it('refusals fail the run with a sentence: no text, a bad format, a server path, another account\'s artifact', async () => {
    const { ref } = spoken!;
    const empty = await gw.runFlow(gw.bob, chain([speak('say', { text: '   ' })], ['success'], ['say.success -> end.success']));
    expect(empty.run.status).to.equal('failed');
    expect(empty.run.error).to.include('generate_voice requires a non-empty text');

    const format = await gw.runFlow(gw.bob, chain([speak('say', { text: 'hi', format: 'midi' })], ['success'], ['say.success -> end.success']));
    expect(format.run.status).to.equal('failed');
    expect(format.run.error).to.include("generate_voice format 'midi' is not supported");

    const path = await gw.runFlow(gw.bob, chain([listen('hear', { audio: '/etc/passwd' })], ['text'], ['hear.text -> end.text']));
    expect(path.run.status).to.equal('failed');
    expect(path.run.error).to.include('transcribe_audio does not read server paths (/etc/passwd)');

    // Eve names Bob's artifact: it is not found in her account (and nothing of it is read).
    const theirs = await gw.runFlow(gw.eve, chain([listen('hear', { audio: ref.artifact_id })], ['text'], ['hear.text -> end.text']));
    expect(theirs.run.status).to.equal('failed');
    expect(theirs.run.error).to.include(`transcribe_audio: artifact ${ref.artifact_id} was not found.`);
  });

  it('effectConfig fields and aliases fill the payload when the pins are empty (tts_provider, quality, speed)', async () => {
    const node = speak('say', { text: 'good morning', speed: '' }, { effectConfig: { tts_provider: 'espeak', quality: 'fast', speed: 1.25 } });
    const { run, ledger } = await gw.runFlow(gw.bob, chain([node], ['success', 'meta'], ['say.success -> end.success', 'say.meta -> end.meta']));
    expect(run.status, run.error ?? '').to.equal('completed');
    const payload = ledger.find((r) => r.effect?.type === 'generate_voice')!.effect!.payload as { output: Record<string, unknown> };
    expect(payload.output).to.deep.equal({ modality: 'voice', task: 'tts', format: 'wav', quality_preset: 'fast', provider: 'espeak', speed: 1.25 });
  });
});

describe('voice plugin: generate_voice without the artifacts plugin', function () {
  this.timeout(120_000);
  const gw = voiceKernel({ withoutArtifacts: true });
  before(() => gw.boot());
  after(() => gw.stop());

  it('fails the run naming the artifacts plugin, before any audio is made', async () => {
    const { run } = await gw.runFlow(gw.bob, chain([speak('say', { text: 'hello' })], ['success'], ['say.success -> end.success']));
    expect(run.status).to.equal('failed');
    expect(run.error).to.include("the 'artifacts' plugin is not loaded (add it to the config's plugins)");
  });
});

describe('voice plugin: generate_voice and transcribe_audio through a remote (compatible) provider', function () {
  this.timeout(120_000);
  let remote: VoiceRemote;
  const gw = voiceKernel({
    get voice() {
      return { voice_remote_base_url: remote.baseUrl };
    },
  });
  before(async () => {
    remote = await startVoiceRemote();
    await gw.boot();
  });
  after(async () => {
    await gw.stop();
    await remote?.close();
  });

  it('a remote synthesis is external work: its started record is committed before the call', async () => {
    remote.hold();
    try {
      const runId = await gw.startFlow(gw.bob, chain([speak('say', { text: 'held words', tts_provider: 'compatible' })], ['success'], ['say.success -> end.success']));
      await until(() => remote.waiting, { what: 'the speech request at the remote', ok: (n) => n === 1, deadline: 60_000 });
      const ledger = (await gw.get(gw.bob, `/api/gateway/runs/${runId}/ledger`)).json<{ items: Array<{ status: string; effect: { type: string } | null }> }>().items;
      expect(ledger.filter((r) => r.effect?.type === 'generate_voice').map((r) => r.status)).to.deep.equal(['started']);
    } finally {
      remote.release();
    }
  });

  it('a node naming the provider speaks at the remote and keeps the audio as an artifact; the remote transcriber reads that artifact', async () => {
    const flow = chain([speak('say', { text: 'remote words', tts_provider: 'compatible', voice: 'remote-nova' }), listen('hear', { stt_provider: 'compatible' }, ['audio'])], ['audio_artifact', 'meta', 'text'], [
      'say.audio_artifact -> end.audio_artifact', 'say.meta -> end.meta', 'say.audio_artifact -> hear.audio', 'hear.text -> end.text',
    ]);
    const { runId, run, ledger } = await gw.runFlow(gw.bob, flow);
    expect(run.status, run.error ?? '').to.equal('completed');
    expect((run.output!.meta as Record<string, unknown>).provider).to.equal('compatible');
    const speech = remote.seen.filter((r) => r.path === '/audio/speech' && r.body.input === 'remote words');
    expect(speech).to.have.length(1);
    expect(speech[0]!.body).to.include({ input: 'remote words', voice: 'remote-nova' });
    // The remote transcriber answers what it was sent: the artifact's bytes reached it as a WAV file.
    const heard = remote.seen.filter((r) => r.path === '/audio/transcriptions');
    expect(heard).to.have.length(1);
    expect(heard[0]!.body.file_size).to.equal((run.output!.audio_artifact as Ref).size_bytes);
    const payload = ledger.find((r) => r.effect?.type === 'generate_voice')!.effect!.payload as { output: Record<string, unknown> };
    expect(payload.output).to.include({ provider: 'compatible', voice: 'remote-nova' });
    const listed = (await gw.get(gw.bob, `/api/gateway/runs/${runId}/artifacts`)).json<{ items: Array<{ artifact_id: string; content_type: string }> }>().items;
    expect(listed.map((a) => a.artifact_id)).to.include((run.output!.audio_artifact as Ref).artifact_id);
  });
});
