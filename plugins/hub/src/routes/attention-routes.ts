/** Attention: what a seat owes and is owed (`/owed`), and the operators' desk (`/desk`). */
import { forbidden, route } from '@keel/plugin-sdk';
import type { Desk } from '../attention/desk.js';
import type { OwedReporter } from '../attention/owed-report.js';
import type { Hub } from '../hub.js';

const DESK_REFUSAL = 'the desk is for operators and reporting delegates (whoami.delegations is the proof)';

export function attentionRoutes(hub: Hub, owed: OwedReporter, desk: Desk) {
  return [
    route({
      method: 'GET', path: '/owed', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Asks to answer, answers to consume, threads to close, asks you wait on',
      handler: ({ principal: seat, koa }) => {
        // A reception loop polling /owed keeps its seat `active` for presence's reception window.
        if (koa.get('x-agora-reception')) hub.presence.received(seat.id);
        return owed.report(seat);
      },
    }),
    route({
      method: 'GET', path: '/desk', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Operators: open asks and unanswered messages addressed to operators, oldest first',
      handler: ({ principal: seat }) => {
        if (!seat.operator && !hub.delegations.hasPower(seat.id, 'reporting')) throw forbidden(DESK_REFUSAL);
        return desk.report(seat);
      },
    }),
  ];
}
