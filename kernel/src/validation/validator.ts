/**
 * The shared ajv instances. Bodies are validated strictly (JSON types as sent); path parameters,
 * query strings and multipart fields arrive as strings, so their validator coerces types.
 * Every error of a value is reported at once; the first one names the field.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { badRequest, type JsonSchema, type Schema, type Validator } from '@keel/plugin-sdk';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean, useDefaults = true): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults,
    coerceTypes: coerce ? 'array' : false,
    strict: false,
    removeAdditional: false,
  });
  addFormats(ajv);
  return ajv;
}

export interface ValidationProblem {
  /** Dotted path of the field at fault, prefixed by where it was found (`body.input_data.prompt`). */
  field: string;
  message: string;
}

/** Renders ajv errors as `where.field message` sentences. */
export function describeAjvErrors(errors: ErrorObject[] | null | undefined, where: string): ValidationProblem[] {
  const all = errors ?? [];
  // "must match a schema in anyOf" only repeats what the alternatives already said.
  const specific = all.filter((e) => e.keyword !== 'anyOf' || !all.some((o) => o !== e && o.instancePath === e.instancePath));
  const seen = new Set<string>();
  return specific.map((e) => {
    const segments = e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const params = e.params as Record<string, unknown>;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') segments.push(String(params.missingProperty));
    if (e.keyword === 'additionalProperties') {
      segments.push(String(params.additionalProperty));
      message = 'is not an allowed field';
    } else if (e.keyword === 'required') {
      message = 'is required';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    }
    const path = segments.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join('');
    const field = (where + path).replace(/^\./, '');
    return { field, message };
  }).filter((p) => {
    const key = `${p.field} ${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export class SchemaValidator implements Validator {
  private readonly strictAjv = makeAjv(false);
  private readonly coercingAjv = makeAjv(true);
  private readonly cache = new WeakMap<object, ValidateFunction>();
  private readonly coercingCache = new WeakMap<object, ValidateFunction>();
  /** Responses are checked as sent: no defaults filled in (that would change the answer), no coercion. */
  private readonly responseAjv = makeAjv(false, false);
  private readonly responseCache = new WeakMap<object, ValidateFunction>();

  compile<T>(schema: Schema<T> | JsonSchema, where = 'body'): (value: unknown) => T {
    return this.build<T>(schema, where, false);
  }

  /** For strings from the URL or a form: `"3"` becomes 3, `"true"` becomes true. */
  compileCoercing<T>(schema: Schema<T> | JsonSchema, where: string): (value: unknown) => T {
    return this.build<T>(schema, where, true);
  }

  /** Validates without throwing; returns the problems (empty when valid). Defaults are applied in place. */
  check(schema: JsonSchema, value: unknown, where: string): ValidationProblem[] {
    const fn = this.fn(schema, false);
    return fn(value) ? [] : describeAjvErrors(fn.errors, where);
  }

  /** Checks a response body against its declared schema; returns the problems (empty when it matches). */
  checkResponse(schema: Schema<unknown> | JsonSchema, value: unknown, where = 'response'): ValidationProblem[] {
    const json = isSchema(schema) ? schema.json : schema;
    let fn = this.responseCache.get(json);
    if (!fn) {
      fn = this.responseAjv.compile(json);
      this.responseCache.set(json, fn);
    }
    return fn(value) ? [] : describeAjvErrors(fn.errors, where);
  }

  private build<T>(schema: Schema<T> | JsonSchema, where: string, coerce: boolean): (value: unknown) => T {
    const json = isSchema(schema) ? schema.json : schema;
    const fn = this.fn(json, coerce);
    return (value: unknown) => {
      if (fn(value)) return value as T;
      const problems = describeAjvErrors(fn.errors, where);
      const message = problems.map((p) => `${p.field} ${p.message}`).join('; ');
      throw badRequest(`Invalid request: ${message}.`, { code: 'invalid_request', field: problems[0]?.field });
    };
  }

  private fn(json: JsonSchema, coerce: boolean): ValidateFunction {
    const cache = coerce ? this.coercingCache : this.cache;
    let fn = cache.get(json);
    if (!fn) {
      fn = (coerce ? this.coercingAjv : this.strictAjv).compile(json);
      cache.set(json, fn);
    }
    return fn;
  }
}

function isSchema<T>(value: Schema<T> | JsonSchema): value is Schema<T> {
  return typeof (value as Schema<T>).json === 'object' && Object.keys(value).length === 1;
}
