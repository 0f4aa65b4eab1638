/**
 * Voice modes and playback as an explicit state machine (reference B.5, seed §3). The mode only changes
 * behaviour while a recognizer listens and speech plays; `listenerPolicy()` is what a recognizer obeys
 * at each moment (process the microphone, interrupt speech on detected voice, deliver transcriptions,
 * watch for stop phrases).
 */

export type VoiceMode = 'full' | 'wait' | 'stop' | 'ptt';
export const VOICE_MODES: readonly VoiceMode[] = ['full', 'wait', 'stop', 'ptt'];
export const DEFAULT_VOICE_MODE: VoiceMode = 'wait';

/** `idle` before any speech; `stopped` after stop or a stop phrase, until the next speech starts. */
export type PlaybackState = 'idle' | 'playing' | 'paused' | 'stopped';

export interface ListenerPolicy {
  processMicrophone: boolean;
  /** Barge-in: detected speech interrupts playback. */
  interruptOnSpeech: boolean;
  deliverTranscriptions: boolean;
  detectStopPhrases: boolean;
}

const LISTENING: ListenerPolicy = { processMicrophone: true, interruptOnSpeech: true, deliverTranscriptions: true, detectStopPhrases: true };

/** What each mode does while speech plays (B.5 table, "On TTS start" column). */
const WHILE_SPEAKING: Record<VoiceMode, ListenerPolicy> = {
  full: LISTENING,
  wait: { processMicrophone: false, interruptOnSpeech: false, deliverTranscriptions: false, detectStopPhrases: false },
  stop: { processMicrophone: true, interruptOnSpeech: false, deliverTranscriptions: false, detectStopPhrases: true },
  ptt: { processMicrophone: true, interruptOnSpeech: false, deliverTranscriptions: false, detectStopPhrases: true },
};

export type VoiceEvent =
  | { type: 'set_mode'; mode: string }
  | { type: 'tts_start' }
  | { type: 'tts_end' }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'stop' }
  | { type: 'stop_phrase' }
  | { type: 'listen_start' }
  | { type: 'listen_stop' };

/** The stop phrases of `listen` (reference B.2), matched tolerantly. */
export const STOP_PHRASES: readonly string[] = ['stop', 'ok stop', 'okay stop'];

/** True when a transcript is a stop phrase: case, punctuation and extra spaces are ignored. */
export function isStopPhrase(transcript: string): boolean {
  const words = transcript.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, ' ').trim().split(/\s+/).join(' ');
  return STOP_PHRASES.includes(words);
}

export class VoiceModeMachine {
  private currentMode: VoiceMode = DEFAULT_VOICE_MODE;
  private playbackState: PlaybackState = 'idle';
  private listeningNow = false;
  private readonly listeners = new Set<(state: VoiceMachineState) => void>();

  get mode(): VoiceMode {
    return this.currentMode;
  }

  get playback(): PlaybackState {
    return this.playbackState;
  }

  get listening(): boolean {
    return this.listeningNow;
  }

  get isSpeaking(): boolean {
    return this.playbackState === 'playing';
  }

  get isPaused(): boolean {
    return this.playbackState === 'paused';
  }

  /** Applies an event; answers whether it was accepted (a refused event changes nothing). */
  send(event: VoiceEvent): boolean {
    const accepted = this.transition(event);
    if (accepted) for (const listener of this.listeners) listener(this.snapshot());
    return accepted;
  }

  setMode(mode: string): boolean {
    return this.send({ type: 'set_mode', mode });
  }

  /** Called on every accepted transition (a recognizer re-reads `listenerPolicy()` there). */
  onChange(listener: (state: VoiceMachineState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What a recognizer must do now: the mode matters only while speech is playing (paused counts). */
  listenerPolicy(): ListenerPolicy {
    if (this.playbackState === 'playing' || this.playbackState === 'paused') return { ...WHILE_SPEAKING[this.currentMode] };
    return { ...LISTENING };
  }

  snapshot(): VoiceMachineState {
    return { mode: this.currentMode, playback: this.playbackState, listening: this.listeningNow, policy: this.listenerPolicy() };
  }

  private transition(event: VoiceEvent): boolean {
    switch (event.type) {
      case 'set_mode': {
        const mode = event.mode.trim().toLowerCase();
        if (!(VOICE_MODES as readonly string[]).includes(mode)) return false;
        this.currentMode = mode as VoiceMode;
        return true;
      }
      case 'tts_start':
        this.playbackState = 'playing';
        return true;
      case 'tts_end':
        if (this.playbackState !== 'playing' && this.playbackState !== 'paused') return false;
        this.playbackState = 'idle';
        return true;
      case 'pause':
        if (this.playbackState !== 'playing') return false;
        this.playbackState = 'paused';
        return true;
      case 'resume':
        if (this.playbackState !== 'paused') return false;
        this.playbackState = 'playing';
        return true;
      case 'stop':
        if (this.playbackState !== 'playing' && this.playbackState !== 'paused') return false;
        this.playbackState = 'stopped';
        return true;
      case 'stop_phrase':
        // A stop phrase always stops speech (B.2) but never stops listening by itself; it is heard
        // only where the policy detects stop phrases.
        if (!this.listeningNow || !this.listenerPolicy().detectStopPhrases) return false;
        if (this.playbackState === 'playing' || this.playbackState === 'paused') this.playbackState = 'stopped';
        return true;
      case 'listen_start':
        if (this.listeningNow) return false;
        this.listeningNow = true;
        return true;
      case 'listen_stop':
        if (!this.listeningNow) return false;
        this.listeningNow = false;
        return true;
    }
  }
}

export interface VoiceMachineState {
  mode: VoiceMode;
  playback: PlaybackState;
  listening: boolean;
  policy: ListenerPolicy;
}
