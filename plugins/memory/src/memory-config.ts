/** Settings of the memory plugin (README "Settings"): every limit with a safe default. */
import { defineSchemaFor } from '@keel/plugin-sdk';

export interface MemoryConfig {
  /** Characters of one note (`memory_note`); a longer note fails the effect. */
  maxNoteChars: number;
  /** Tags one span may carry (`memory_note`, `memory_tag`). */
  maxTags: number;
  /** Characters of one tag key or value. */
  maxTagChars: number;
  /** Spans one owner (a run, a session, the account's global memory) may hold; a note beyond fails naming it. */
  maxSpansPerOwner: number;
  /** Spans a query's deep scan reads the archived messages of, and messages it reads per span. */
  deepScanMaxSpans: number;
  deepScanMaxMessages: number;
  /** Messages `memory_compact` sends to the summariser (the oldest beyond are left out of the transcript, not of the archive). */
  compactMaxMessages: number;
  /** Characters of one message in the summariser's transcript (longer ones are cut with `…`). */
  compactMessageChars: number;
  /** Output tokens the summary may take. */
  compactMaxOutputTokens: number;
  /** Assertions one `memory_kg_assert` may carry. */
  kgMaxAssertions: number;
  /** Triples one owner may hold. */
  kgMaxTriplesPerOwner: number;
  /** Triples a `memory_kg_query` scans per owner before filtering (newest first). */
  kgScanMax: number;
  /**
   * The embedding model (as the inference plugin names it, e.g. `local/glove-sif-50d` or `default`) used for
   * semantic KG queries (`query_text`), semantic label resolution and semantic note recall; null: none, the
   * nodes answer with keyword and tag matching and say so.
   */
  embeddingModel: string | null;
  /** Semantic note recall: spans embedded per query (newest first), and the cosine score a span needs to count as a match. */
  semanticMaxSpans: number;
  semanticMinScore: number;
  /** `GET /memory/...` lists: rows when no `limit` is asked, and the cap of `limit`. */
  listDefaultLimit: number;
  listMaxLimit: number;
}

export const memoryConfigSchema = defineSchemaFor<MemoryConfig>()({
  type: 'object',
  additionalProperties: false,
  properties: {
    maxNoteChars: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 100_000 },
    maxTags: { type: 'integer', minimum: 1, maximum: 1000, default: 64 },
    maxTagChars: { type: 'integer', minimum: 1, maximum: 100_000, default: 1000 },
    maxSpansPerOwner: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 100_000 },
    deepScanMaxSpans: { type: 'integer', minimum: 0, maximum: 10_000, default: 50 },
    deepScanMaxMessages: { type: 'integer', minimum: 0, maximum: 100_000, default: 400 },
    compactMaxMessages: { type: 'integer', minimum: 1, maximum: 100_000, default: 400 },
    compactMessageChars: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 4000 },
    compactMaxOutputTokens: { type: 'integer', minimum: 16, maximum: 100_000, default: 1024 },
    kgMaxAssertions: { type: 'integer', minimum: 1, maximum: 100_000, default: 1000 },
    kgMaxTriplesPerOwner: { type: 'integer', minimum: 1, maximum: 100_000_000, default: 1_000_000 },
    kgScanMax: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 100_000 },
    embeddingModel: { type: ['string', 'null'], maxLength: 512, default: null },
    semanticMaxSpans: { type: 'integer', minimum: 0, maximum: 100_000, default: 200 },
    semanticMinScore: { type: 'number', minimum: -1, maximum: 1, default: 0.5 },
    listDefaultLimit: { type: 'integer', minimum: 1, maximum: 100_000, default: 100 },
    listMaxLimit: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1000 },
  },
});
