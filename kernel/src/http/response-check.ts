/**
 * Checks a route's JSON responses against the response schemas it declares (`server.validateResponses`,
 * on in `createTestKernel`): a declared schema is a promise to clients and to `/openapi.json`, so a
 * test that gets an answer breaking it fails loudly with a 500 naming the fields, instead of passing.
 */
import { Stream } from 'node:stream';
import type Koa from 'koa';
import { HttpError, type AnyRoute } from '@keel/plugin-sdk';
import type { SchemaValidator } from '../validation/validator.js';

export type ResponseCheck = (ctx: Koa.Context) => void;

/** The check for one route, or null when it declares no JSON response schema. */
export function responseCheck(route: AnyRoute, fullPath: string, validator: SchemaValidator): ResponseCheck | null {
  const declared = Object.entries(route.responses ?? {}).filter(([, spec]) => spec.schema && !spec.contentType);
  if (!declared.length) return null;
  const schemas = new Map(declared.map(([status, spec]) => [Number(status), spec.schema!]));
  return (ctx) => {
    const schema = schemas.get(ctx.status);
    const body: unknown = ctx.body;
    if (!schema || !isJsonBody(body)) return;
    // Checked as the client will read it: `toJSON` applied, undefined members gone.
    const sent: unknown = JSON.parse(JSON.stringify(body));
    const problems = validator.checkResponse(schema, sent, 'response');
    if (!problems.length) return;
    const list = problems.map((p) => `${p.field} ${p.message}`).join('; ');
    throw new HttpError(500, `The ${ctx.status} response of ${route.method} ${fullPath} does not match the schema the route declares: ${list}. Fix the handler or the schema (checked because server.validateResponses is on).`, { code: 'response_schema_mismatch' });
  };
}

function isJsonBody(body: unknown): boolean {
  if (body === undefined || body === null || typeof body === 'string') return false;
  return !Buffer.isBuffer(body) && !(body instanceof Stream) && !(body instanceof Uint8Array);
}
