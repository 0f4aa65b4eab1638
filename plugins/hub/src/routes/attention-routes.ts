/** Attention: what a seat owes and is owed (`/owed`), and the operators' desk (`/desk`). */
import { forbidden, route } from '@keel/plugin-sdk';
import { Desk } from '../attention/desk.js';
import { OwedReporter } from '../attention/owed-report.js';
import { phaseRows } from '../content/board/phases.js';
import { HubContent } from '../content/hub-content.js';
import type { Hub } from '../hub.js';

const DESK_REFUSAL = 'the desk is for operators and reporting delegates (whoami.delegations is the proof)';

export function attentionRoutes(hub: Hub) {
  const content = HubContent.of(hub);
  const owed = new OwedReporter(hub, {
    charters: (seat) => content.charterDebts(seat),
    // A phase is owed by its steward while it is open.
    phases: (seat) => hub.db.channelsOf(seat.id).flatMap((c) => phaseRows(content.store, c)).filter((p) => p.status === 'open' && p.steward === seat.id),
  });
  const desk = new Desk(hub);
  return [
    route({
      method: 'GET', path: '/owed', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Asks to answer, answers to consume, threads to close, asks you wait on',
      handler: ({ principal: seat }) => owed.report(seat),
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
