import { FINAL_STATUSES, OPEN_STATUSES, WAITING_STATUSES, type RequestStatus } from '../../domain/records.js';

/**
 * The domain's rules as SQL, for both engines: each is written once in `domain/` and only spelled
 * out here. (The partial indexes of the migrations repeat some of them: a migration is history and
 * is never edited.)
 */
const inList = (statuses: readonly RequestStatus[]) => `(${statuses.map((s) => `'${s}'`).join(', ')})`;

/** The statuses of a request still waiting for an expert (`isWaiting`). */
export const WAITING_LIST = inList(WAITING_STATUSES);
/** The statuses of an open request. */
export const OPEN_LIST = inList(OPEN_STATUSES);
/** The statuses a request ends in. */
export const FINAL_LIST = inList(FINAL_STATUSES);

/** A request (its status column unqualified) still waiting for an expert. */
export const WAITING = `status IN ${WAITING_LIST}`;
/** A request (its status column unqualified) that is open. */
export const OPEN = `status IN ${OPEN_LIST}`;

/**
 * A library entry `a` fresh or stale (`domain/answers.ts` `isFresh`) against the instant `staleBefore`,
 * its one value (`?`); `active`, as callers see it, is a fresh active entry.
 */
export const FRESH_ENTRY = "a.status = 'active' AND a.verified_at >= ?";
export const STALE_ENTRY = "a.status = 'active' AND a.verified_at < ?";

/** The library's entries by status as callers see them (`answerStatusAt`), in one pass; its values: `staleBefore` twice. */
export const ANSWER_STATS = `SELECT
  COUNT(*) FILTER (WHERE status = 'active' AND verified_at >= ?) AS active,
  COUNT(*) FILTER (WHERE status = 'active' AND verified_at < ?) AS stale,
  COUNT(*) FILTER (WHERE status = 'retired') AS retired,
  COALESCE(SUM(reuse_count), 0) AS reuse_accepted
  FROM answers`;

/** The filter on a listing of library entries by the status callers see: each clause with its one value (`?`). */
export function answerStatusFilter(query: { status?: string | undefined; staleBefore: number }): Array<[string, unknown]> {
  switch (query.status) {
    case 'active':
      return [[FRESH_ENTRY, query.staleBefore]];
    case 'stale':
      return [[STALE_ENTRY, query.staleBefore]];
    case 'retired':
      return [['a.status = ?', 'retired']];
    default:
      return [];
  }
}
