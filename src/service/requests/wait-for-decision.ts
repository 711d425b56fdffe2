import type { ChangeFeed } from '../../store/change-feed.js';
import type { RequestView } from './views.js';

/** What a wait needs from the service: the current record and the signal that something committed. */
export interface WaitSource {
  getRequest(id: string): Promise<RequestView>;
  readonly changes: ChangeFeed;
}

const DECIDED: ReadonlyArray<string> = ['accepted', 'rejected', 'failed'];

/**
 * Resolves with the request once it is accepted, rejected or failed, or with its state then at
 * `timeoutMs` or when any of `signals` aborts (the caller hung up; the server is shutting down).
 * With `changedFrom` (an `updated_at` the caller has seen), any change of the request ends the wait
 * too, so a client can follow each step. Woken by the change feed (no polling loop), with a
 * re-read every few seconds for changes another process makes on the same database. Unknown id:
 * throws 404 at once.
 */
export async function waitForDecision(
  source: WaitSource,
  id: string,
  timeoutMs: number,
  signals: ReadonlyArray<AbortSignal | undefined>,
  changedFrom?: string,
): Promise<RequestView> {
  const settled = (view: RequestView) => DECIDED.includes(view.status) || (changedFrom !== undefined && view.updated_at !== changedFrom);
  const first = await source.getRequest(id);
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  if (settled(first) || live.some((s) => s.aborted)) return first;
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      unsubscribe();
      clearInterval(safety);
      clearTimeout(timer);
      for (const s of live) s.removeEventListener('abort', finish);
      source.getRequest(id).then(resolve, reject);
    };
    const check = () => {
      if (done) return;
      source.getRequest(id).then(
        (view) => settled(view) && finish(),
        () => finish(),
      );
    };
    const unsubscribe = source.changes.subscribe(check);
    const safety = setInterval(check, 5_000);
    const timer = setTimeout(finish, timeoutMs);
    for (const s of live) s.addEventListener('abort', finish, { once: true });
  });
}
