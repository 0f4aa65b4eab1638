/** Local ids (reference §1.12): `file_<32 hex>`, `conv_<32 hex>`; checked before any store lookup. */
import { randomBytes } from 'node:crypto';

export const FILE_ID = /^file_[0-9a-f]{32}$/;
export const CONVERSATION_ID = /^conv_[0-9a-f]{32}$/;

export const newFileId = () => `file_${randomBytes(16).toString('hex')}`;
export const newConversationId = () => `conv_${randomBytes(16).toString('hex')}`;
