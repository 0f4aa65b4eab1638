/**
 * The memory plugin's door to the inference plugin's embedding models (as the hub's semantic search
 * uses them): the configured model (`embeddingModel`) embeds texts for the run's account. Without
 * the inference plugin or without a configured model there is none, and the nodes say so.
 */
import type { InferenceService } from '@keel/plugin-inference';

export class Embedder {
  constructor(private readonly inference: InferenceService, readonly model: string) {}

  async embed(account: string, inputs: string[], signal?: AbortSignal): Promise<{ model: string; vectors: number[][] }> {
    if (inputs.length === 0) return { model: this.model, vectors: [] };
    const out = await this.inference.embed(account, { model: this.model, inputs }, { signal });
    if (out.vectors.length !== inputs.length) throw new Error(`the model '${out.model}' returned ${out.vectors.length} vectors for ${inputs.length} texts`);
    return { model: out.model, vectors: out.vectors };
  }
}

/** Why semantic matching is off, said in the results that fall back to keywords. */
export function noEmbedderReason(inferenceLoaded: boolean): string {
  return inferenceLoaded
    ? "no embedding model is configured (the memory plugin's setting embeddingModel)"
    : 'the inference plugin (@keel/plugin-inference) is not loaded';
}

export function cosine(a: number[], b: number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
