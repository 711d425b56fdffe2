import type { ErrorBody } from '../wire/types.js';

/**
 * The one way an expertq client calls the HTTP API: the CLI, the stdio MCP server and the web UI all
 * send through this. It runs in Node and in the browser alike (fetch only, no Node modules), and turns
 * every way a call can fail into a `CallFailure` that the caller words as its own error.
 */

/** Sends one call: method, path under `/api/v1`, optional JSON body; resolves with the parsed answer. */
export type Call = <T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => Promise<T>;

/** How a call failed, with what the caller needs to say so. `url` is the full address that was asked. */
export type CallFailure = { method: string; url: string } & (
  /** No answer came: fetch threw (network, timeout, abort). */
  | { kind: 'unreachable'; error: Error }
  /** An answer started but its body could not be read. */
  | { kind: 'unreadable'; status: number; error: Error }
  /** The body is not JSON; `ok` tells a 2xx from a failure. */
  | { kind: 'not_json'; status: number; ok: boolean }
  /** A failure status whose body is not expertq's error (an empty body, another program's JSON). */
  | { kind: 'not_expertq'; status: number; empty: boolean }
  /** A failure status with expertq's error body. */
  | { kind: 'api'; status: number; error: ErrorBody['error'] }
);

export interface CallSettings {
  /** Where the server is (`http://host:port`), or '' for the page's own origin. */
  base: string;
  /** Sent as `authorization: Bearer …` when set. */
  token?: string | null | undefined;
  /** Further fetch settings: the browser sends its sign-in cookie and bypasses its cache. */
  init?: { credentials?: 'same-origin' | 'include' | 'omit'; cache?: 'no-store' | 'no-cache' | 'default' };
  /** A signal that ends the call (a timeout), per path. */
  signal?: (path: string) => AbortSignal | undefined;
  /** The error a failed call throws. */
  fail: (failure: CallFailure) => Error;
}

/** The headers of a call: the bearer token when there is one, plus `extra`. */
export function authHeaders(token: string | null | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
}

/** A `Call` with these settings. */
export function httpCall(settings: CallSettings): Call {
  const { base, token, init = {}, signal, fail } = settings;
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const url = `${base}/api/v1${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        ...(init as RequestInit),
        method,
        headers: authHeaders(token, body === undefined ? {} : { 'content-type': 'application/json' }),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal?.(path),
      });
    } catch (error) {
      throw fail({ method, url, kind: 'unreachable', error: error as Error });
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw fail({ method, url, kind: 'unreadable', status: response.status, error: error as Error });
    }
    let data;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      throw fail({ method, url, kind: 'not_json', status: response.status, ok: response.ok });
    }
    if (!response.ok) {
      const error = data?.error;
      if (typeof error?.code !== 'string' || typeof error?.message !== 'string') throw fail({ method, url, kind: 'not_expertq', status: response.status, empty: !text });
      throw fail({ method, url, kind: 'api', status: response.status, error });
    }
    return data as T;
  };
}
