/** Schemas shared by the hub's route modules. */
import { schema } from '@keel/plugin-sdk';

export const channelParams = schema<{ channel: string }>({ type: 'object', required: ['channel'], properties: { channel: { type: 'string', minLength: 1, maxLength: 200 } } });
export const messageParams = schema<{ channel: string; id: string }>({
  type: 'object', required: ['channel', 'id'], properties: { channel: { type: 'string', minLength: 1, maxLength: 200 }, id: { type: 'string', minLength: 1, maxLength: 200 } },
});
export const agentParams = schema<{ id: string }>({ type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 200 } } });
/** Bodies the client may send as `{}` or not at all. */
export const emptyBody = schema<Record<string, unknown>>({ type: 'object' });
