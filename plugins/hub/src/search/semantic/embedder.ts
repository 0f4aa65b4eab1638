/**
 * The hub's door to the inference plugin's embedding models (its `inferenceToken`, an optional
 * dependency): resolve a model id to the one that runs, embed texts with it. Absent when the
 * inference plugin is not loaded; semantic search then reports itself unavailable with that reason.
 */
import type { InferenceService } from '@keel/plugin-inference';

/** The account the hub's own embedding calls run as: it sees local models and configured endpoints, not anyone's private profiles. */
const HUB_ACCOUNT = 'hub';

export class Embedder {
  constructor(private readonly inference: InferenceService) {}

  /** The full id of the model `model` stands for now (`default` follows the inference plugin's admin-set default). */
  async resolve(model: string): Promise<string> {
    return (await this.inference.resolve(HUB_ACCOUNT, model, 'embedding')).id;
  }

  async embed(model: string, inputs: string[], signal?: AbortSignal): Promise<{ model: string; vectors: number[][] }> {
    const out = await this.inference.embed(HUB_ACCOUNT, { model, inputs }, { signal });
    if (out.vectors.length !== inputs.length) throw new Error(`the model '${out.model}' returned ${out.vectors.length} vectors for ${inputs.length} texts`);
    return { model: out.model, vectors: out.vectors };
  }
}

export const INFERENCE_MISSING = 'the inference plugin (@keel/plugin-inference) is not loaded on this server — semantic search embeds with its models; add it to the config\'s plugins and restart';
