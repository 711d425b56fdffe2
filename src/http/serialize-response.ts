import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { ResponseSerializationError } from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';

/**
 * Every response is checked against its route's schema (unknown fields dropped, a wrong one a 500
 * rather than a broken contract), then written as JSON. The schemas convert nothing (the lint rule
 * on src/http says so), so parsing gives what encoding would, in about a third of the time: the
 * registry of 600 experts took 0.55 ms to encode and 0.19 ms to parse, on every refresh of the page.
 */
export const serializeResponse: FastifySerializerCompiler<ZodType | { properties: ZodType }> = ({ schema, method, url }) =>
  checkedJson('properties' in schema ? schema.properties : schema, method, url);

/** The serializer of one route's answers: `data` checked against `schema`, then written as JSON. */
export function checkedJson(schema: ZodType, method: string, url: string): (data: unknown) => string {
  return (data) => {
    const result = schema.safeParse(data);
    if (!result.success) throw new ResponseSerializationError(method, url, { cause: result.error });
    return JSON.stringify(result.data);
  };
}
