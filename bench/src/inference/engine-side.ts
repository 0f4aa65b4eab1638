/**
 * The engine side: the llama and onnx engines alone, each in its own piscina worker in this
 * process, called exactly as the inference plugin calls them, with the same settings as the
 * kernel child.
 */
import { LlamaEngine, llamaWorkerFile } from '@keel/engine-llama';
import { OnnxEngine, onnxWorkerFile } from '@keel/engine-onnx';
import { Piscina } from 'piscina';
import { ENGINE_SETTINGS } from './kernel-settings.js';
import { DeltaClock, type GenerationSample } from './timing.js';

export class EngineSide {
  private readonly llamaPool = new Piscina({ filename: llamaWorkerFile.href, maxThreads: 1 });
  private readonly onnxPool = new Piscina({ filename: onnxWorkerFile.href, maxThreads: 1 });
  private readonly llama = new LlamaEngine(this.llamaPool, { threads: ENGINE_SETTINGS.llamaThreads, contextSize: ENGINE_SETTINGS.contextSize });
  private readonly onnx = new OnnxEngine(this.onnxPool, { threads: ENGINE_SETTINGS.onnxThreads, batchSize: ENGINE_SETTINGS.onnxBatchSize });

  async chat(modelPath: string, prompt: string, maxTokens: number): Promise<GenerationSample> {
    const clock = new DeltaClock();
    const result = await this.llama.chat(modelPath, [{ role: 'user', content: prompt }], { temperature: 0, maxTokens }, {
      onDelta: (text, channel) => {
        if (channel === 'content') clock.delta(text);
      },
    });
    return clock.finish(result.usage.completion_tokens);
  }

  /** Resolves with the number of vectors. */
  async embed(modelDir: string, inputs: string[]): Promise<number> {
    return (await this.onnx.embed(modelDir, inputs)).vectors.length;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.llamaPool.destroy(), this.onnxPool.destroy()]);
  }
}
