// `GET /search` (seed §2.10 and §8). Words for `kind`, `sort` and `rated` are checked by the hub, which
// answers a wrong one with a teaching 400 rather than a schema error.

export const searchQuery = {
  type: 'object',
  properties: {
    q: { type: 'string', maxLength: 256, default: '' },
    // The real client repeats `channel`; the seed writes `channel[]`. Both are taken.
    channel: { type: 'array', items: { type: 'string' } },
    'channel[]': { type: 'array', items: { type: 'string' } },
    kind: { type: 'string' },
    sender: { type: 'string' },
    ref: { type: 'string' },
    since: { type: 'number' },
    until: { type: 'number' },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    cursor: { type: 'string' },
    sort: { type: 'string', default: 'relevance' },
    rated: { type: 'string' },
    min_votes: { type: 'integer', minimum: 0, default: 0 },
    mode: { type: 'string' },
  },
} as const;

// `PUT /admin/embedding`: the model the hub embeds with, as the Keel inference plugin names it
// (`local/<name>`, `<endpoint>/<model>`, `default`). `url` and `api_key` are the reference hub's
// (it calls an endpoint itself); Keel's hub reaches models only through the inference plugin, so a
// non-empty `url` is refused with a sentence saying where endpoints are configured.
export const embeddingSettingBody = {
  type: 'object',
  required: ['model'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 200 },
    url: { type: 'string', maxLength: 2000 },
    api_key: { type: 'string', maxLength: 2000 },
    accept_recompute: { type: 'boolean', default: false },
  },
} as const;

// `DELETE /admin/embedding?erase=true|false`.
export const embeddingDisableQuery = {
  type: 'object',
  properties: { erase: { type: 'boolean', default: false } },
} as const;
