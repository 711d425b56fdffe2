import { cleanEnv, freePort, TEST_TOKEN } from './cli.js';
import { ServerChild } from './server-child.js';

/** A JSON answer of the API: tests read arbitrary bodies. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
export type Json = any;

/** A call whose outcome is unknown: the connection was refused or reset (a killed instance), or timed out. */
export function isNetworkError(error: unknown): boolean {
  const name = (error as Error | undefined)?.name;
  return error instanceof TypeError || name === 'TimeoutError' || name === 'AbortError';
}

/** An API answer outside 2xx: a failure of the test, never an effect of a kill. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
    what: string,
  ) {
    super(`${what} answered ${status}: ${JSON.stringify(body)}`);
  }
}

/**
 * Several `expertq serve` children on one config file (so one database), each on its own port
 * (`--port`). Calls go round-robin over the instances; a call that meets a dead instance is the
 * caller's to retry (`isNetworkError`), on the next instance in turn.
 */
export class InstancePool {
  readonly servers: ServerChild[] = [];
  readonly bases: string[] = [];
  private turn = 0;

  private constructor() {}

  static async start(configFile: string, count: number, env: Record<string, string>): Promise<InstancePool> {
    const pool = new InstancePool();
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      pool.bases.push(`http://127.0.0.1:${port}`);
      pool.servers.push(new ServerChild(configFile, cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN, ...env }), ['--port', String(port)]));
    }
    // One after the other: the first runs the migrations, the others find them done.
    for (const server of pool.servers) await server.start();
    return pool;
  }

  /** The instance the next round-robin call goes to. */
  next(): number {
    return this.turn++ % this.bases.length;
  }

  /** One call to one instance; answers the status and parsed body. Throws on network errors. */
  async call(instance: number, method: string, path: string, body?: unknown, timeoutMs = 15_000): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${this.bases[instance]}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  /** A call that must answer 2xx, on the given instance. */
  async ok(instance: number, method: string, path: string, body?: unknown): Promise<Json> {
    const res = await this.call(instance, method, path, body);
    if (res.status < 200 || res.status > 299) throw new HttpError(res.status, res.body, `${method} ${path} on instance ${instance}`);
    return res.body;
  }

  /**
   * A read (or any call safe to repeat) round-robin, moving to the next instance when one is down.
   * Writes whose outcome matters are not sent through here: the caller reads the state after a
   * network error and decides whether to write again.
   */
  async read(method: string, path: string, body?: unknown): Promise<Json> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.ok(this.next(), method, path, body);
      } catch (error) {
        if (!isNetworkError(error) || attempt >= 3 * this.bases.length) throw error;
      }
    }
  }

  /** Every page of a paginated list. */
  async readAll(path: string): Promise<Json[]> {
    const items: Json[] = [];
    let cursor: string | null = null;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const page: Json = await this.read('GET', `${path}${sep}limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      items.push(...(Array.isArray(page) ? page : page.items));
      cursor = Array.isArray(page) ? null : (page.next_cursor ?? null);
    } while (cursor);
    return items;
  }

  diagnostics(): string {
    return this.servers.map((s, i) => `=== instance ${i} (${this.bases[i]}, ${s.starts} starts) ===\n${s.diagnostics()}`).join('\n');
  }

  async killAll(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.kill9()));
  }
}
