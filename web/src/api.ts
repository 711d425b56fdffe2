import type { AnswerFilters, RequestFilters } from './routes.js';
import { SseParser } from './sse.js';
import type { Answer, AnswerStats, AuditEntry, ErrorBody, Expert, Proposal, QueueItem, RequestRecord } from './wire.js';

const BASE = '/api/v1';
const TOKEN_KEY = 'expertq.token';

/** The bearer token lives in this tab's sessionStorage only: never localStorage, never a URL. */
export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string): void => sessionStorage.setItem(TOKEN_KEY, token),
  clear: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

/** A 401: the token is missing or wrong. Every view sends the reviewer back to the prompt on it. */
export class Unauthorized extends Error {
  constructor() {
    super('The server answered 401 Unauthorized.');
  }
}

/** Any other non-2xx answer, with the message of the server's error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function failure(res: Response): Promise<Error> {
  if (res.status === 401) return new Unauthorized();
  const body = (await res.json().catch(() => null)) as ErrorBody | null;
  return new ApiError(res.status, body?.error.code ?? 'http_error', body?.error.message ?? `The server answered ${res.status}.`);
}

function headers(token: string | null, extra: Record<string, string> = {}): Record<string, string> {
  return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
}

async function call<T>(token: string | null, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const res = await fetch(BASE + path, {
    method,
    headers: headers(token, body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    // A signed-in reviewer's session cookie goes with every call to this origin (and nowhere else).
    credentials: 'same-origin',
  });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/** `GET /me`: who the token or the signed-in person is, and what they may call. */
export interface Me {
  name: string | null;
  /** `none`: signed in, but in no group that may review. */
  role: 'none' | 'consumer' | 'reviewer' | 'admin';
  /** How the caller proved who they are: a bearer token, the sign-in cookie, or nothing (authentication off). */
  via?: 'token' | 'session' | 'none';
  routes: '*' | string[];
}

/** Sign-in through the organisation's identity provider, when the server offers it. */
export interface SignInOffer {
  label: string;
  login_url: string;
}

/** `GET /auth/session`: whether sign-in is offered, and who is signed in with this browser. */
export interface SignInState {
  sign_in: SignInOffer | null;
  session: { name: string; role: 'none' | 'reviewer' | 'admin'; expires_at: string } | null;
}

/** Asks the server whether it offers sign-in and whether this browser is signed in (a server without the route offers none). */
export async function signInState(): Promise<SignInState> {
  const res = await fetch('/auth/session', { cache: 'no-store', credentials: 'same-origin' });
  if (res.status === 404) return { sign_in: null, session: null };
  if (!res.ok) throw await failure(res);
  return (await res.json()) as SignInState;
}

/** Ends this browser's sign-in (the browser sends its Origin with the POST, as the server requires). */
export async function signOutSession(): Promise<void> {
  const res = await fetch('/auth/logout', { method: 'POST', cache: 'no-store', credentials: 'same-origin' });
  if (!res.ok && res.status !== 401) throw await failure(res);
}

/** The API calls the UI makes, with the reviewer's token, or with none (signed in by cookie, or authentication off). */
export function apiClient(token: string | null) {
  return {
    me: () => call<Me>(token, 'GET', '/me'),
    queue: () => call<QueueItem[]>(token, 'GET', '/queue'),
    returnProposal: (id: string, body: { decided_by: string; instructions?: string }) =>
      call<Proposal>(token, 'POST', `/proposals/${encodeURIComponent(id)}/return`, body),
    accept: (id: string, body: { decided_by: string; note?: string; answer?: string; structured?: unknown }) => call<Proposal>(token, 'POST', `/proposals/${encodeURIComponent(id)}/accept`, body),
    reject: (id: string, body: { decided_by: string; reason: string }) => call<Proposal>(token, 'POST', `/proposals/${encodeURIComponent(id)}/reject`, body),
    proposal: (id: string) => call<Proposal>(token, 'GET', `/proposals/${encodeURIComponent(id)}`),
    request: (id: string) => call<RequestRecord>(token, 'GET', `/requests/${encodeURIComponent(id)}`),
    audit: (requestId: string) => call<AuditEntry[]>(token, 'GET', `/audit?request_id=${encodeURIComponent(requestId)}`),
    experts: () => call<Expert[]>(token, 'GET', '/experts'),
    unmute: (id: string) => call<Expert>(token, 'POST', `/experts/${encodeURIComponent(id)}/unmute`),
    setAway: (id: string, body: { until: string; delegate_to: string | null; note: string | null }) =>
      call<Expert>(token, 'PUT', `/experts/${encodeURIComponent(id)}/away`, body),
    endAway: (id: string) => call<Expert>(token, 'DELETE', `/experts/${encodeURIComponent(id)}/away`),
    mute: (id: string, mutedBy: string | null) =>
      call<Expert>(token, 'POST', `/experts/${encodeURIComponent(id)}/mute`, mutedBy ? { muted_by: mutedBy } : {}),
    /** `GET /requests` with the history filters; empty values are left out. */
    requests: (filters: RequestFilters, cursor: string | null, limit = 25) => {
      const query = new URLSearchParams({ limit: String(limit) });
      for (const [key, value] of Object.entries(filters)) if (value.trim()) query.set(key, value.trim());
      if (cursor) query.set('cursor', cursor);
      return call<{ items: RequestRecord[]; next_cursor: string | null }>(token, 'GET', `/requests?${query}`);
    },
    /** `GET /answers`: ranked by relevance with `q`; status empty means active, `any` every status. */
    answers: (filters: AnswerFilters, cursor: string | null, limit = 20) => {
      const query = new URLSearchParams({ limit: String(limit) });
      if (filters.q.trim()) query.set('q', filters.q.trim());
      if (filters.topic.trim()) query.set('topic', filters.topic.trim());
      const status = filters.status || 'active';
      if (status !== 'any') query.set('status', status);
      if (cursor) query.set('cursor', cursor);
      return call<{ items: Answer[]; next_cursor: string | null }>(token, 'GET', `/answers?${query}`);
    },
    answerStats: () => call<AnswerStats>(token, 'GET', '/answers/stats'),
    retireAnswer: (id: string, body: { decided_by: string; reason: string }) => call<Answer>(token, 'POST', `/answers/${encodeURIComponent(id)}/retire`, body),

    /**
     * Reads `GET /queue/events` until it ends, the signal aborts, or nothing (not even a heartbeat)
     * arrives for `silenceMs`; calls `onQueue` with every queue it announces. Throws Unauthorized on 401.
     */
    async streamQueue(onQueue: (items: QueueItem[]) => void, signal: AbortSignal, silenceMs = 25_000): Promise<void> {
      const stop = new AbortController();
      const abort = () => stop.abort();
      signal.addEventListener('abort', abort, { once: true });
      let timer = setTimeout(abort, silenceMs);
      try {
        const res = await fetch(`${BASE}/queue/events`, { headers: headers(token, { accept: 'text/event-stream' }), cache: 'no-store', credentials: 'same-origin', signal: stop.signal });
        if (!res.ok) throw await failure(res);
        if (!res.body) throw new Error('This browser cannot read a streamed response.');
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        const parser = new SseParser();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          clearTimeout(timer);
          timer = setTimeout(abort, silenceMs);
          for (const event of parser.feed(value)) {
            if (event.event === 'queue') onQueue(JSON.parse(event.data) as QueueItem[]);
          }
        }
      } catch (error) {
        if (stop.signal.aborted && !signal.aborted) throw new Error('The live queue went silent.', { cause: error });
        if (!signal.aborted) throw error;
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', abort);
      }
    },
  };
}

export type Api = ReturnType<typeof apiClient>;

/**
 * Asks the server who this token is (a 200 without one means authentication is off), so the UI can
 * show what the token may not do.
 */
export async function probe(token: string | null): Promise<Me | 'unauthorized'> {
  try {
    return await apiClient(token).me();
  } catch (error) {
    if (error instanceof Unauthorized) return 'unauthorized';
    throw error;
  }
}
