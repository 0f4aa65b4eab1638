/**
 * Hub refusals are `{detail: "<one sentence>"}` (clients show the sentence verbatim); request
 * validation failures are 422 with `detail` as a list of `{type, loc, msg}` like the real hub.
 */
import type { ErrorFormatter } from '@keel/plugin-sdk';

export const hubErrorFormat: ErrorFormatter = (err) => {
  if (err.code === 'invalid_request' || err.code === 'invalid_json') {
    const loc = err.field ? err.field.split('.').filter(Boolean) : ['body'];
    return { status: 422, body: { detail: [{ type: err.code === 'invalid_json' ? 'json_invalid' : 'value_error', loc, msg: err.message }] } };
  }
  if (err.status === 404 && err.code === 'not_found') return { status: 404, body: { detail: 'Not Found' } };
  if (err.status === 405) return { status: 405, body: { detail: 'Method Not Allowed' }};
  return { status: err.status, body: { detail: err.message }};
};
