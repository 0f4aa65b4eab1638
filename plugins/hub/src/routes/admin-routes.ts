/**
 * The hub's admin and operator routes (reference §8.2): the charter and rules as the admin key sees
 * and sets them, the charter's receipts, the live delegations, the noise report, the slow-request
 * ring, the doctor and the fleet status (`/admin/status` for the admin key, `/status` for operators and
 * reporting delegates). Each keeps the reference's gate and refusal sentence (§8.0).
 */
import {
  adminCharterPublishedResponse, adminCharterResponse, hubCharterReceiptsResponse, charterReplaceBody, delegationListResponse, doctorQuery, doctorResponse, fleetStatusResponse,
  hubRulesBody, hubRulesResponse, hubRulesSetResponse, noiseQuery, noiseResponse, slowRequestsResponse,
} from '@keel/hub-client/wire';
import { badRequest, defineSchema, forbidden, payloadTooLarge, route } from '@keel/plugin-sdk';
import { adminKeyOnly } from '../admin/admin-key-gate.js';
import { noiseHours, noiseReport } from '../admin/noise-report.js';
import type { HubServices } from '../compose-hub.js';
import { charterCoverage } from '../content/charter/charter-coverage.js';
import { ROLES } from '../content/charter/charter-views.js';
import { CHARTER_TEXT_CAP_BYTES } from '../content/charter/hub-charter.js';
import type { HubContent } from '../content/hub-content.js';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import { operatorAct } from './operator-act.js';

const charterBody = defineSchema(charterReplaceBody);
const rulesBody = defineSchema(hubRulesBody);
const noiseQuerySchema = defineSchema(noiseQuery);
const doctorQuerySchema = defineSchema(doctorQuery);

export function adminRoutes(hub: Hub, content: HubContent, admin: HubServices['admin']) {
  const charter = content.hubCharter;
  return [
    route({
      method: 'GET', path: '/admin/charter', auth: adminKeyOnly(hub.auth, 'reading the hub charter via admin requires the admin key'), tags: ['hub'],
      summary: 'The hub charter in force, whole (admin key; records no receipt)',
      responses: { 200: { schema: defineSchema(adminCharterResponse) } },
      handler: () => {
        const c = charter.current();
        return { version: c.version, text: c.text, updated_by: c.version === 0 ? '' : c.updated_by, updated_at: c.updated_at ?? 0, packaged: c.version === 0 };
      },
    }),
    route({
      method: 'PUT', path: '/admin/charter', auth: adminKeyOnly(hub.auth, 'setting the hub charter requires the admin key'), tags: ['hub'],
      summary: 'Publish the next hub charter version (admin key); says which seat kinds it leaves out',
      body: charterBody, responses: { 200: { schema: defineSchema(adminCharterPublishedResponse) } },
      handler: async ({ body }) => {
        if (!body.text.trim()) throw badRequest('hub charter text must be a non-empty string');
        if (Buffer.byteLength(body.text) > CHARTER_TEXT_CAP_BYTES) throw payloadTooLarge(`hub charter exceeds ${CHARTER_TEXT_CAP_BYTES} bytes`);
        const { version } = await charter.replace(body.text, 'operator', false);
        return { version, ...charterCoverage(body.text) };
      },
    }),
    route({
      method: 'GET', path: '/admin/charter/receipts', auth: adminKeyOnly(hub.auth, 'hub charter receipts require the admin key'), tags: ['hub'],
      summary: "Who read which hub charter version, and in which view (admin key)",
      responses: { 200: { schema: defineSchema(hubCharterReceiptsResponse) } },
      handler: () => {
        const { version } = charter.current();
        const readers = charter.receiptRows()
          .map((r) => ({ agent_id: r.agent_id, version: r.version, read_at: r.read_at, view: r.view.length ? ROLES.filter((role) => r.view.includes(role)).join('+') : null, current: r.version >= version }))
          .sort((a, b) => b.version - a.version || b.read_at - a.read_at);
        return { scope: 'hub' as const, version, readers };
      },
    }),
    route({
      method: 'GET', path: '/admin/rules', auth: adminKeyOnly(hub.auth, 'reading hub rules via admin requires the admin key'), tags: ['hub'],
      summary: 'The hub rules every seat sees in whoami (admin key)',
      responses: { 200: { schema: defineSchema(hubRulesResponse) } },
      handler: () => content.hubRules.current(),
    }),
    route({
      method: 'PUT', path: '/admin/rules', auth: adminKeyOnly(hub.auth, 'setting hub rules requires the admin key'), tags: ['hub'],
      summary: 'Replace the hub rules with the next version (admin key; no history, no notice)',
      body: rulesBody, responses: { 200: { schema: defineSchema(hubRulesSetResponse) } },
      handler: ({ body }) => content.hubRules.replace(body.text),
    }),
    route({
      method: 'GET', path: '/admin/delegations', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Live delegations (operator or admin key)',
      responses: { 200: { schema: defineSchema(delegationListResponse) } },
      handler: operatorAct('listing delegations here is an operator view', () => hub.delegations.active()),
    }),
    route({
      method: 'GET', path: '/admin/noise', auth: hub.auth.seatOrAdminKey, tags: ['hub'],
      summary: 'Per room: open questions and the seats they woke, old rule against addressed rule (operator or admin key)',
      query: noiseQuerySchema, responses: { 200: { schema: defineSchema(noiseResponse) } },
      handler: operatorAct('the noise report is an operator instrument', (_actor, { query }) => noiseReport(hub.db, noiseHours(query.hours), nowSeconds())),
    }),
    route({
      method: 'GET', path: '/admin/slow', auth: adminKeyOnly(hub.auth, 'the slow-request ring requires the admin key', true), tags: ['hub'],
      summary: 'The slow-request ring, oldest first (admin key)',
      responses: { 200: { schema: defineSchema(slowRequestsResponse) } },
      handler: () => admin.slow.list(),
    }),
    route({
      method: 'GET', path: '/admin/status', auth: adminKeyOnly(hub.auth, 'status overview requires the admin key'), tags: ['hub'],
      summary: 'Fleet liveness and, per seat, reachability, debts and refused sends (admin key)',
      responses: { 200: { schema: defineSchema(fleetStatusResponse) } },
      handler: () => admin.fleet.report(false),
    }),
    route({
      method: 'GET', path: '/admin/doctor', auth: adminKeyOnly(hub.auth, 'doctor requires the admin key'), tags: ['hub'],
      summary: "Why work is stuck: the hub's state, each seat's reach, work, debts and blockers, operators' open questions (admin key; agent= narrows it)",
      query: doctorQuerySchema, responses: { 200: { schema: defineSchema(doctorResponse) } },
      handler: ({ query }) => admin.doctor.report(query.agent),
    }),
    route({
      method: 'GET', path: '/status', auth: hub.auth.seatKey, tags: ['hub'],
      summary: 'The fleet status, for operators and reporting delegates (a delegate sees no refusal details)',
      responses: { 200: { schema: defineSchema(fleetStatusResponse) } },
      handler: ({ principal: seat }) => {
        if (seat.operator) return admin.fleet.report(false);
        if (hub.delegations.activeFor(seat.id).some((d) => d.powers.includes('reporting'))) return admin.fleet.report(true);
        throw forbidden('fleet status is for operators and reporting delegates (whoami.delegations is the proof)');
      },
    }),
  ];
}
