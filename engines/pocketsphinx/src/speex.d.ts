/** The parts of the Emscripten build of the Speex resampler this engine uses (the package ships no types). */
declare module '@echogarden/speex-resampler-wasm' {
  export interface SpeexModule {
    HEAPF32: Float32Array;
    HEAPU32: Uint32Array;
    _malloc(bytes: number): number;
    _free(ptr: number): void;
    _speex_resampler_init(channels: number, inRate: number, outRate: number, quality: number, errPtr: number): number;
    _speex_resampler_destroy(state: number): void;
    _speex_resampler_skip_zeros(state: number): number;
    _speex_resampler_get_input_latency(state: number): number;
    _speex_resampler_process_float(state: number, channel: number, inPtr: number, inLenPtr: number, outPtr: number, outLenPtr: number): number;
  }
  const factory: () => Promise<SpeexModule>;
  export default factory;
}
