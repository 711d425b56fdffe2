import { expertqApi } from '../../src/client/api.js';
import { authHeaders, httpCall, type CallFailure } from '../../src/client/http.js';
import type { AnswerFilters, RequestFilters } from './routes.js';
import { SseParser } from './sse.js';
import type { DecidedProposal, ErrorBody, InsightsQuery, InsightsView, Me, Page, QueueItem, RequestRecord, SignInState } from './wire.js';

export type { Me, SignInState } from './wire.js';
/** Sign-in through the organisation's identity provider, when the server offers it. */
export type SignInOffer = NonNullable<SignInState['sign_in']>;

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

/** The web UI's wording of a failed call: Unauthorized on 401, else ApiError with the server's message. */
function failureOf(failure: CallFailure): Error {
  if (failure.kind === 'unreachable') return failure.error;
  if (failure.status === 401) return new Unauthorized();
  if (failure.kind === 'unreadable') return failure.error;
  if (failure.kind === 'api') return new ApiError(failure.status, failure.error.code, failure.error.message);
  if (failure.kind === 'not_json' && failure.ok) return new SyntaxError(`The server answered ${failure.status} with something that is not JSON.`);
  return new ApiError(failure.status, 'http_error', `The server answered ${failure.status}.`);
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
  // A signed-in reviewer's session cookie goes with every call to this origin (and nowhere else).
  const call = httpCall({ base: '', token, init: { cache: 'no-store', credentials: 'same-origin' }, fail: failureOf });
  const api = expertqApi(call);
  return {
    me: api.me,
    /** `GET /queue`; with `mine`, only what still waits for this reviewer's vote. */
    queue: (mine = false) => call<QueueItem[]>('GET', mine ? '/queue?mine=true' : '/queue'),
    returnProposal: api.returnProposal,
    /** Accept and reject answer the proposal and, in words, what the decision did and what remains. */
    accept: (id: string, body: Parameters<typeof api.accept>[1]) => api.accept(id, body) as Promise<DecidedProposal>,
    reject: (id: string, body: Parameters<typeof api.reject>[1]) => api.reject(id, body) as Promise<DecidedProposal>,
    proposal: api.proposal,
    request: api.request,
    audit: api.audit,
    experts: api.experts,
    unmute: api.unmute,
    setAway: api.setAway,
    endAway: api.endAway,
    mute: (id: string, mutedBy: string | null) => api.mute(id, mutedBy ? { muted_by: mutedBy } : {}),
    /** `GET /requests` with the history filters; empty values are left out. */
    requests: (filters: RequestFilters, cursor: string | null, limit = 25): Promise<Page<RequestRecord>> => {
      const query: Record<string, string | number | undefined> = { limit };
      for (const [key, value] of Object.entries(filters)) if (value.trim()) query[key] = value.trim();
      query.cursor = cursor ?? undefined;
      return api.requests(query);
    },
    /** `GET /answers`: ranked by relevance with `q`; status empty means active, `any` every status. */
    answers: (filters: AnswerFilters, cursor: string | null, limit = 20) => {
      const status = filters.status || 'active';
      return api.answers({
        limit,
        q: filters.q.trim() || undefined,
        topic: filters.topic.trim() || undefined,
        status: status === 'any' ? undefined : status,
        cursor: cursor ?? undefined,
      });
    },
    answerStats: api.answerStats,
    retireAnswer: api.retireAnswer,
    /** `GET /insights` for one window, grouping and filters (unset ones left out). */
    insights: (query: InsightsQuery) => {
      const search = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, value);
      return call<InsightsView>('GET', `/insights?${search}`);
    },

    /**
     * Reads `GET /queue/events` (with `mine`, only what waits for this reviewer's vote) until it ends,
     * the signal aborts, or nothing (not even a heartbeat) arrives for `silenceMs`; calls `onQueue`
     * with every queue it announces. Throws Unauthorized on 401.
     */
    async streamQueue(onQueue: (items: QueueItem[]) => void, signal: AbortSignal, { mine = false, silenceMs = 25_000 } = {}): Promise<void> {
      const stop = new AbortController();
      const abort = () => stop.abort();
      signal.addEventListener('abort', abort, { once: true });
      let timer = setTimeout(abort, silenceMs);
      try {
        const res = await fetch(`${BASE}/queue/events${mine ? '?mine=true' : ''}`, { headers: authHeaders(token, { accept: 'text/event-stream' }), cache: 'no-store', credentials: 'same-origin', signal: stop.signal });
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
