/**
 * Voice modes and playback as a state machine (reference B.5, seed §3): the transitions, the refused
 * events, and the listener policy each mode imposes while speech plays; stop phrases.
 */
import { expect } from 'chai';
import { VoiceModeMachine, isStopPhrase, type ListenerPolicy } from '@keel/voice';

const listening: ListenerPolicy = { processMicrophone: true, interruptOnSpeech: true, deliverTranscriptions: true, detectStopPhrases: true };

describe('voice manager: voice modes and playback state machine', () => {
  it('starts in wait, idle, not listening; modes full|wait|stop|ptt only', () => {
    const m = new VoiceModeMachine();
    expect(m.snapshot()).to.deep.equal({ mode: 'wait', playback: 'idle', listening: false, policy: listening });
    for (const mode of ['full', 'stop', 'ptt', 'WAIT']) expect(m.setMode(mode)).to.equal(true);
    expect(m.mode).to.equal('wait');
    expect(m.setMode('loud')).to.equal(false);
    expect(m.setMode('')).to.equal(false);
    expect(m.mode).to.equal('wait');
  });

  it('playback: idle → playing ⇄ paused → stopped; refused events change nothing', () => {
    const m = new VoiceModeMachine();
    expect(m.send({ type: 'pause' })).to.equal(false);
    expect(m.send({ type: 'resume' })).to.equal(false);
    expect(m.send({ type: 'stop' })).to.equal(false);
    expect(m.send({ type: 'tts_end' })).to.equal(false);
    expect(m.playback).to.equal('idle');
    expect(m.send({ type: 'tts_start' })).to.equal(true);
    expect([m.isSpeaking, m.isPaused]).to.deep.equal([true, false]);
    expect(m.send({ type: 'pause' })).to.equal(true);
    expect([m.isSpeaking, m.isPaused]).to.deep.equal([false, true]);
    expect(m.send({ type: 'pause' })).to.equal(false);
    expect(m.send({ type: 'resume' })).to.equal(true);
    expect(m.playback).to.equal('playing');
    expect(m.send({ type: 'stop' })).to.equal(true);
    expect(m.playback).to.equal('stopped');
    expect(m.send({ type: 'resume' })).to.equal(false);
    expect(m.send({ type: 'tts_start' })).to.equal(true);
    expect(m.send({ type: 'tts_end' })).to.equal(true);
    expect(m.playback).to.equal('idle');
  });

  it('the listener policy while speaking follows the B.5 table; after speech, listening resumes fully', () => {
    const expectations: Record<string, ListenerPolicy> = {
      full: listening,
      wait: { processMicrophone: false, interruptOnSpeech: false, deliverTranscriptions: false, detectStopPhrases: false },
      stop: { processMicrophone: true, interruptOnSpeech: false, deliverTranscriptions: false, detectStopPhrases: true },
      ptt: { processMicrophone: true, interruptOnSpeech: false, deliverTranscriptions: false, detectStopPhrases: true },
    };
    for (const [mode, whileSpeaking] of Object.entries(expectations)) {
      const m = new VoiceModeMachine();
      m.setMode(mode);
      expect(m.listenerPolicy(), `${mode} before speech`).to.deep.equal(listening);
      m.send({ type: 'tts_start' });
      expect(m.listenerPolicy(), `${mode} while speaking`).to.deep.equal(whileSpeaking);
      m.send({ type: 'pause' });
      expect(m.listenerPolicy(), `${mode} while paused`).to.deep.equal(whileSpeaking);
      m.send({ type: 'resume' });
      m.send({ type: 'tts_end' });
      expect(m.listenerPolicy(), `${mode} after speech`).to.deep.equal(listening);
    }
  });

  it('a mode change during speech takes effect at once', () => {
    const m = new VoiceModeMachine();
    m.send({ type: 'tts_start' });
    expect(m.listenerPolicy().processMicrophone).to.equal(false);
    m.setMode('full');
    expect(m.listenerPolicy()).to.deep.equal(listening);
  });

  it('a stop phrase stops speech but not listening, and is heard only where the mode detects it', () => {
    const m = new VoiceModeMachine();
    expect(m.send({ type: 'stop_phrase' })).to.equal(false); // not listening
    m.send({ type: 'listen_start' });
    expect(m.send({ type: 'listen_start' })).to.equal(false);
    m.send({ type: 'tts_start' });
    expect(m.send({ type: 'stop_phrase' })).to.equal(false); // wait: microphone paused while speaking
    expect(m.playback).to.equal('playing');
    m.setMode('stop');
    expect(m.send({ type: 'stop_phrase' })).to.equal(true);
    expect(m.playback).to.equal('stopped');
    expect(m.listening).to.equal(true);
    expect(m.send({ type: 'listen_stop' })).to.equal(true);
    expect(m.listening).to.equal(false);
  });

  it('observers see every accepted transition and none of the refused ones', () => {
    const m = new VoiceModeMachine();
    const seen: string[] = [];
    const off = m.onChange((s) => seen.push(`${s.mode}/${s.playback}`));
    m.setMode('ptt');
    m.send({ type: 'pause' });
    m.send({ type: 'tts_start' });
    off();
    m.send({ type: 'tts_end' });
    expect(seen).to.deep.equal(['ptt/idle', 'ptt/playing']);
  });

  it('stop phrases match tolerantly', () => {
    for (const phrase of ['stop', 'Stop.', 'ok stop', 'OK, stop!', 'okay   stop']) expect(isStopPhrase(phrase), phrase).to.equal(true);
    for (const phrase of ['stop it', 'nonstop', 'okay', '']) expect(isStopPhrase(phrase), phrase).to.equal(false);
  });
});
