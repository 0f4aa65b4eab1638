/**
 * The longest id a route accepts where the id becomes part of a storage key. LMDB refuses keys over
 * its key size limit (1978 bytes) with an exception, so an unbounded id in a path or body would be a
 * 500; capped in the schema, an over-long id is a 400 naming the field. 256 characters leave room for
 * multi-byte text and the other parts of a key.
 */
export const KEY_ID_MAX_LENGTH = 256;
