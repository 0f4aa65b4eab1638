// Path parameters of the hub's routes. Every id that becomes part of a storage key is capped, so an
// oversized one is a validation error naming the field rather than a storage failure.

const id = { type: 'string', minLength: 1, maxLength: 200 } as const;

export const channelParams = { type: 'object', required: ['channel'], properties: { channel: id } } as const;
export const messageParams = { type: 'object', required: ['channel', 'id'], properties: { channel: id, id } } as const;
export const agentParams = { type: 'object', required: ['id'], properties: { id } } as const;
export const peerParams = { type: 'object', required: ['peer'], properties: { peer: id } } as const;
export const blockedAgentParams = { type: 'object', required: ['agent'], properties: { agent: id } } as const;
export const roomAgentParams = { type: 'object', required: ['channel', 'agent'], properties: { channel: id, agent: id } } as const;
export const joinTokenParams = { type: 'object', required: ['token_id'], properties: { token_id: id } } as const;
export const workItemParams = { type: 'object', required: ['item_id'], properties: { item_id: id } } as const;
/** `path` is the rest of the URL (`/fs/*path`); the hub checks it by its own rules. */
export const fileParams = { type: 'object', required: ['channel', 'path'], properties: { channel: id, path: { type: 'string' } } } as const;
export const storeKeyParams = { type: 'object', required: ['channel', 'key'], properties: { channel: id, key: { type: 'string' } } } as const;
export const attachmentParams = { type: 'object', required: ['channel', 'id'], properties: { channel: id, id: { type: 'string' } } } as const;
/** A target is a seat id (at most 64 characters), which also keeps lookups within the store's key size. */
export const voteTargetParams = { type: 'object', required: ['channel', 'target'], properties: { channel: id, target: { type: 'string', minLength: 1, maxLength: 64 } } } as const;
