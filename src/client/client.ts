import { existsSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { resolve } from 'node:path';
import { loadConfig, portOverride, readEnv } from '../config/load-config.js';
import { expertqApi } from './api.js';
import { httpCall } from './http.js';

/**
 * An API call that failed (the server's error code in `code`, or `unreachable`), with the exit code
 * the CLI ends with when it reports it.
 */
export class ClientError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    /** The API error code of the server's answer, when it gave one; `unreachable` when none came. */
    readonly code?: string,
    /** The server's list of what was wrong (`{path, message}`), when it gave one. */
    readonly details: ReadonlyArray<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}

export interface ClientOptions {
  url?: string | undefined;
  config: string;
  /** What chose the config file (for messages). */
  configFrom?: string;
  /** Per request (default 10 s). */
  timeoutMs?: number;
}

/**
 * The HTTP API client of the CLI's commands and the stdio MCP server (the web UI shares its `httpCall`
 * and `expertqApi`): the running server's URL and token come from the same config file and
 * environment variable the server uses, so `--config` is all a reviewer needs. `EXPERTQ_TOKEN`, when
 * set, is sent instead (a scoped token of `server.tokens`).
 */
export function createClient(options: ClientOptions, env: NodeJS.ProcessEnv = process.env) {
  const file = resolve(options.config);
  let port = 8776;
  let tokenEnv = 'SERVICE_API_TOKEN';
  let timeZone = 'UTC';
  if (existsSync(file)) {
    const config = loadConfig(file);
    port = config.server.port;
    tokenEnv = config.server.api_token_env;
    timeZone = config.org.timezone;
  }
  // EXPERTQ_TOKEN lets one person use a scoped token (server.tokens) without touching the admin variable.
  const vars = readEnv(file, env);
  const token = vars.EXPERTQ_TOKEN || vars[tokenEnv] || undefined;
  // PORT moves the server (`PORT=9000 npm start`); the client follows it the same way.
  const envPort = portOverride(vars.PORT, 'PORT');
  const base = (options.url ?? env.EXPERTQ_URL ?? `http://127.0.0.1:${envPort ?? port}`).replace(/\/+$/, '');
  const via = options.url
    ? '--url'
    : env.EXPERTQ_URL
      ? 'EXPERTQ_URL'
      : envPort !== undefined
        ? 'PORT'
        : existsSync(file)
          ? `server.port in ${file}`
          : `the default port, as there is no ${file}`;
  const timeoutMs = options.timeoutMs ?? 10_000;

  const call = httpCall({
    base,
    token,
    // The long-poll wait endpoint may take up to 50 s by design.
    signal: (path) => AbortSignal.timeout(path.includes('/wait?') ? timeoutMs + 55_000 : timeoutMs),
    fail: (failure) => {
      const asked = `${failure.method} ${failure.url}`;
      switch (failure.kind) {
        case 'unreachable': {
          const e = failure.error;
          const why = e.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s (--timeout)` : networkReason(e);
          return new ClientError(`Cannot reach expertq at ${base} (from ${via}): ${why}. Is "expertq serve" running there?`, 1, 'unreachable');
        }
        case 'unreadable':
          return new ClientError(`expertq at ${base} (from ${via}) stopped answering: ${failure.error.message}.`, 1, 'unreachable');
        case 'not_json':
          if (!failure.ok) return notExpertqFailure(failure.status, asked, via, 'a body that is not expertq\'s JSON');
          return new ClientError(`${base} (from ${via}) answered ${failure.status} with something that is not expertq's JSON; is another program listening there?`);
        case 'not_expertq':
          return notExpertqFailure(failure.status, asked, via, failure.empty ? 'an empty body' : 'no expertq error in its body');
        case 'api': {
          const err = failure.error;
          const details = Array.isArray(err.details) ? err.details.map((d) => `\n  ${d.path}: ${d.message}`).join('') : '';
          const hint =
            failure.status !== 401
              ? ''
              : token
                ? ` The token sent (from ${vars.EXPERTQ_TOKEN ? 'EXPERTQ_TOKEN' : `${tokenEnv}, server.api_token_env`}) is not one this server knows; check it matches the server's.`
                : ` No token was sent: set EXPERTQ_TOKEN, or ${tokenEnv} (server.api_token_env), to the server's token.`;
          return new ClientError(`${failure.status} ${err.code}: ${err.message}${details}${hint}`, 1, err.code, Array.isArray(err.details) ? err.details : []);
        }
      }
    },
  });

  return {
    base,
    /** The organisation's time zone (org.timezone) for printing times; UTC without a config file. */
    timeZone,
    /** The API's operations, typed by the wire contract. */
    api: expertqApi(call),
    get: <T>(path: string) => call<T>('GET', path),
    post: <T>(path: string, body: unknown = {}) => call<T>('POST', path, body),
    put: <T>(path: string, body: unknown) => call<T>('PUT', path, body),
    delete: <T>(path: string) => call<T>('DELETE', path),
  };
}

export type Client = ReturnType<typeof createClient>;

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing is listening there',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  ETIMEDOUT: 'the connection timed out',
};

/** fetch's "fetch failed" in words, with the system's code for searching: "nothing is listening there (ECONNREFUSED)". */
function networkReason(error: Error): string {
  const cause = error.cause as (Error & { code?: string }) | undefined;
  const code = cause?.code;
  if (code) return `${NETWORK_REASONS[code] ?? cause.message} (${code})`;
  return cause?.message ?? error.message;
}

/**
 * A failure answered without expertq's error body (a proxy's page, a bare 404 from another program):
 * the status with its standard reason phrase and what was asked, so the reason is never blank.
 */
function notExpertqFailure(status: number, asked: string, via: string, body: string): ClientError {
  return new ClientError(`${status} ${STATUS_CODES[status] ?? 'Unknown Status'} from ${asked} (from ${via}), with ${body}; is this expertq's address?`);
}
