/**
 * Review of issue 17: the plugin's `tts_stream` (reference B.13) — `voice.service`'s `ttsStream`
 * yields one `audio` event per segment (a complete WAV of that segment, 60/240 segmentation), then
 * one `done` event; a cancelled stream ends with `cancelled`; a format other than wav and
 * instructions are refused with the reference's sentences.
 */
import { expect } from 'chai';
import { decodeWaveToFloat32Channels } from '@echogarden/wave-codec';
import { embedPlugin, type EmbeddedPlugin } from '@keel/kernel';
import { voicePlugin, type TtsStreamEvent, type VoiceService } from '@keel/plugin-voice';
import { tempDir } from './helpers/paths.js';

const TEXT = 'Hello there. ' + 'This second sentence is long enough to be packed with the others after it. '.repeat(6);

describe('voice review: tts_stream events (reference B.13)', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let embedded: EmbeddedPlugin<VoiceService>;
  before(async () => {
    tmp = tempDir();
    embedded = await embedPlugin(voicePlugin, { dataDir: tmp.dir, config: {} });
  });
  after(async () => {
    await embedded?.stop();
    tmp?.remove();
  });

  it('yields audio events of complete WAV segments in sequence, then done', async () => {
    const events: TtsStreamEvent[] = [];
    for await (const event of embedded.exports.ttsStream('local', { text: TEXT })) events.push(event);
    const audio = events.filter((e) => e.type === 'audio');
    expect(audio.length).to.be.greaterThan(1);
    audio.forEach((e, i) => {
      expect(e).to.include({ type: 'audio', schema: 'abstractvoice.tts_stream.audio.v1', sequence: i, content_type: 'audio/wav', format: 'wav', channels: 1, provider: 'espeak', delivery: 'abstractvoice_audio_chunk' });
      if (e.type !== 'audio') return;
      expect(e.size_bytes).to.equal(e.audio.length);
      const decoded = decodeWaveToFloat32Channels(e.audio);
      expect(decoded.sampleRate).to.equal(e.sample_rate);
      expect(decoded.audioChannels[0]!.length).to.be.greaterThan(0);
      expect(e).to.have.property('model');
      expect(e).to.have.property('voice');
      expect(e).to.have.property('profile');
    });
    const done = events.at(-1)!;
    expect(events.filter((e) => e.type !== 'audio')).to.have.length(1);
    expect(done).to.include({ type: 'done', schema: 'abstractvoice.tts_stream.done.v1', ok: true, cancelled: false, chunks: audio.length, single_chunk: false, format: 'wav', content_type: 'audio/wav', delivery: 'abstractvoice_audio_chunks', native_streaming: null });
    if (done.type === 'audio') return;
    expect(done.metrics).to.include({ chunks: audio.length, streaming: true });
    expect(done.metrics.audio_s).to.be.greaterThan(0);
  });

  it('a cancelled stream ends with a cancelled event', async () => {
    const controller = new AbortController();
    const events: TtsStreamEvent[] = [];
    for await (const event of embedded.exports.ttsStream('local', { text: TEXT, signal: controller.signal })) {
      events.push(event);
      if (event.type === 'audio') controller.abort();
    }
    const last = events.at(-1)!;
    expect(last).to.include({ type: 'cancelled', schema: 'abstractvoice.tts_stream.done.v1', ok: false, cancelled: true });
    expect(events.filter((e) => e.type === 'audio').length).to.be.lessThan(3);
  });

  it('refuses another format and instructions', async () => {
    const first = async (input: Parameters<VoiceService['ttsStream']>[1]) => {
      try {
        for await (const event of embedded.exports.ttsStream('local', input)) return event;
      } catch (err) {
        return (err as Error).message;
      }
      return 'nothing';
    };
    expect(await first({ text: 'Hi.', format: 'mp3' })).to.equal('Voice TTS streaming currently emits wav segment chunks only');
    expect(await first({ text: 'Hi.', instructions: 'whisper' })).to.equal('Voice TTS streaming does not support instructions yet; use buffered TTS');
  });
});
