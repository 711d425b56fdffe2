import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * JSON Schema validation with Ajv ("a real JSON Schema validator"). Draft-07 by default,
 * 2020-12 when the schema's `$schema` says so. Unknown keywords and formats are tolerated (a consumer's
 * schema may carry annotations), but a schema Ajv cannot compile is refused.
 */
const options = { allErrors: true, strict: false, logger: false, addUsedSchema: false } as const;
const draft07 = new Ajv(options);
const draft2020 = new Ajv2020(options);

const cache = new Map<string, ValidateFunction>();
const CACHE_LIMIT = 200;

/** Compiles (once per distinct schema) a validator; throws with Ajv's message when the schema is invalid. */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    const ajv = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12') ? draft2020 : draft07;
    validate = ajv.compile(schema);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, validate);
  }
  return validate;
}

/** Why a schema cannot be used, or null when it compiles. */
export function schemaProblem(schema: Record<string, unknown>): string | null {
  try {
    compileSchema(schema);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Validates `value`; returns null when valid, else the errors as one line (`/facts must be array, …`). */
export function validationProblem(validate: ValidateFunction, value: unknown): string | null {
  if (validate(value)) return null;
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join(', ');
}
