import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig, readEnv } from '../config/load-config.js';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    /** The SPEC error code of the server's answer, when it gave one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  url?: string;
  config: string;
}

/**
 * The CLI's HTTP client: the running server's URL and token come from the same config file and
 * environment variable the server uses, so `--config` is all a reviewer needs. `EXPERTQ_TOKEN`, when
 * set, is sent instead (a scoped token of `server.tokens`).
 */
export function createClient(options: ClientOptions, env: NodeJS.ProcessEnv = process.env) {
  const file = resolve(options.config);
  let port = 8776;
  let tokenEnv = 'SERVICE_API_TOKEN';
  if (existsSync(file)) {
    const config = loadConfig(file);
    port = config.server.port;
    tokenEnv = config.server.api_token_env;
  }
  // EXPERTQ_TOKEN lets one person use a scoped token (server.tokens) without touching the admin variable.
  const vars = readEnv(file, env);
  const token = vars.EXPERTQ_TOKEN || vars[tokenEnv] || undefined;
  const base = (options.url ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${base}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      throw new CliError(`Cannot reach expertq at ${base}: ${(error as Error).cause ?? (error as Error).message}. Is "expertq serve" running?`);
    }
    const text = await response.text();
    const data = text ? JSON.parse(text) : undefined;
    if (!response.ok) {
      const err = data?.error;
      const details = Array.isArray(err?.details) ? err.details.map((d: { path: string; message: string }) => `\n  ${d.path}: ${d.message}`).join('') : '';
      throw new CliError(`${response.status} ${err?.code ?? 'error'}: ${err?.message ?? text}${details}`, 1, err?.code);
    }
    return data as T;
  }

  return {
    base,
    get: <T>(path: string) => call<T>('GET', path),
    post: <T>(path: string, body: unknown = {}) => call<T>('POST', path, body),
    put: <T>(path: string, body: unknown) => call<T>('PUT', path, body),
  };
}

export type Client = ReturnType<typeof createClient>;
