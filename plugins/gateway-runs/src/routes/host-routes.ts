/**
 * The runner's host state (seed 000 §2.1): `GET /host/runner`, admin only, the last event-loop hang
 * of the process that executes runs: this one, or a separate `keel runner` whose dumps it reads.
 */
import { defineSchema, route, type HangRecord, type Watchdog } from '@keel/plugin-sdk';

const lastHangSchema = defineSchema({
  type: 'object',
  required: ['last_hang'],
  properties: {
    last_hang: {
      type: ['object', 'null'],
      required: ['at', 'process', 'blocked_s', 'reason', 'top_frame', 'dump_path', 'file', 'line'],
      properties: {
        at: { type: 'string' }, process: { type: 'string' }, blocked_s: { type: 'number' }, reason: { type: 'string' }, top_frame: { type: ['string', 'null'] },
        dump_path: { type: ['string', 'null'] }, file: { type: ['string', 'null'] }, line: { type: ['integer', 'null'] },
      },
    },
  },
});

/** `separateRunner` names the process whose dumps count too (a `keel runner` beside `--no-runner`), or null. */
export function hostRoutes(deps: { watchdog: Watchdog; separateRunner: string | null }) {
  const lastHang = (): HangRecord | null => {
    const own = deps.watchdog.lastHang();
    const other = deps.separateRunner ? deps.watchdog.lastHangOf(deps.separateRunner) : null;
    if (!other) return own;
    return !own || other.at > own.at ? other : own;
  };
  return [
    route({
      method: 'GET',
      path: '/host/runner',
      auth: 'admin',
      tags: ['host'],
      summary: 'The last event-loop hang the watchdog recorded in the process that executes runs',
      responses: { 200: { schema: lastHangSchema } },
      handler: () => ({ last_hang: lastHang() }),
    }),
  ];
}
