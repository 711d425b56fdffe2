import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

const gzipAsync = promisify(gzip);

/**
 * The JSON body a route wrote last, written again while the route computes an equal value: the
 * Experts page asks for the whole registry every few seconds and it rarely changes in between, and
 * checking and writing 600 experts (143 KB) cost more than reading their live state. Only for values
 * built fresh on every call (a kept value changed in place would compare equal to itself).
 */
export class LastBody<T> {
  private last: { value: T; body: string; gzipped?: Promise<Buffer> } | null = null;

  constructor(private readonly serialize: (value: T) => string) {}

  /** The body of `value`: the last one when `value` equals the last value, else serialized anew. */
  bodyOf(value: T): string {
    return this.entryOf(value).body;
  }

  /**
   * The body of `value` gzipped, compressed once per distinct body, off the event loop (zlib's thread
   * pool): the registry's 143 KB for 600 experts is about 10 KB gzipped, and writing the whole body
   * took most of the route's time.
   */
  gzippedOf(value: T): Promise<Buffer> {
    const entry = this.entryOf(value);
    entry.gzipped ??= gzipAsync(entry.body);
    return entry.gzipped;
  }

  private entryOf(value: T): { value: T; body: string; gzipped?: Promise<Buffer> } {
    if (this.last !== null && sameJson(this.last.value, value)) return this.last;
    this.last = { value, body: this.serialize(value) };
    return this.last;
  }
}

/**
 * Answers `value` through `bodies`: gzipped for a client that takes gzip, else as JSON, each written
 * once per distinct value (see LastBody).
 */
export async function sendLastBody<T>(req: FastifyRequest, reply: FastifyReply, bodies: LastBody<T>, value: T): Promise<FastifyReply> {
  reply.header('vary', 'accept-encoding');
  if (!acceptsGzip(req.headers['accept-encoding'])) return reply.serializer((v: T) => bodies.bodyOf(v)).send(value);
  const gzipped = await bodies.gzippedOf(value);
  // A Buffer is written as it is, past the serializer (the type provider only knows the JSON shape).
  return reply.header('content-encoding', 'gzip').type('application/json; charset=utf-8').send(gzipped);
}

/**
 * Whether an `Accept-Encoding` header takes gzip: `gzip` (or `*`) listed without `q=0`. An explicit
 * `gzip;q=0` refuses it even when `*` is listed.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let any = false;
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const refused = q !== undefined && Number(q.slice(2)) === 0;
    if (name === 'gzip') return !refused;
    if (name === '*') any = !refused;
  }
  return any;
}

/** Whether two JSON values (plain objects, arrays, strings, numbers, booleans, null) are equal. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  for (const key in x) {
    // A field present as `undefined` is left out of JSON as an absent one is.
    if (x[key] === undefined) continue;
    if (!sameJson(x[key], y[key])) return false;
    keys++;
  }
  for (const key in y) if (y[key] !== undefined) keys--;
  return keys === 0;
}
