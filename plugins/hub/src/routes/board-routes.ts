/** `GET /board` (reference §8.3): the caller's work across its channels. */
import { boardResponse } from '@keel/hub-client/wire';
import { defineSchema, route } from '@keel/plugin-sdk';
import type { SeatBoard } from '../attention/seat-board.js';
import type { Hub } from '../hub.js';

export function seatBoardRoutes(hub: Hub, board: SeatBoard) {
  return [
    route({
      method: 'GET', path: '/board', auth: hub.auth.seatKey, tags: ['hub'], summary: 'What waits on the caller, open proposals, its queue, claims in progress or in review, recent decisions',
      responses: { 200: { schema: defineSchema(boardResponse) } },
      handler: ({ principal: seat }) => board.report(seat),
    }),
  ];
}
