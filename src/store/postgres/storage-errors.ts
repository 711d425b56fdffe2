import { Conflict, StaleHints, StorageUnavailable, type StorageUnavailableCode } from '../errors.js';

/** SQLSTATE classes and codes that say the database, not the statement, failed. */
const UNAVAILABLE: Array<[RegExp, StorageUnavailableCode]> = [
  [/^53100$/, 'full'], // disk_full
  [/^25006$/, 'read_only'], // read_only_sql_transaction (a replica, or default_transaction_read_only)
  [/^(08|57P)/, 'cannot_open'], // connection exceptions; operator intervention (shutdown, restart)
  [/^(53|58)/, 'io_error'], // insufficient resources; system errors
  [/^(40001|40P01|55P03)$/, 'busy'], // serialization failure, deadlock, lock not available
  [/^XX/, 'corrupt'], // internal errors (data corrupted, index corrupted)
];

/** The SQLSTATE of `expertq_hints_hold` (migration 15): routing decisions made on hints no longer hold. */
const HINTS_STALE = 'XQ409';

/** The experts `expertq_hints_hold` names in its detail (a JSON array of their ids). */
function staleExperts(detail: unknown): string[] {
  try {
    const ids: unknown = JSON.parse(String(detail));
    return Array.isArray(ids) ? ids.map(String) : [];
  } catch {
    return [];
  }
}

/** Errors of the socket under a connection: the database is out of reach, not wrong. */
const NETWORK = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE)$/;

/** Whether the transaction may simply be run again: it lost a race, nothing is wrong with it. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof StaleHints) return true;
  const raw = error instanceof StorageUnavailable ? error.cause : error;
  const code = (raw as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

/**
 * The driver-neutral error for a node-postgres error (see `errors.ts`); any other error, including
 * one already translated, is returned as it is.
 */
export function toStoreError(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof StorageUnavailable || error instanceof Conflict) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK.test(code)) return new StorageUnavailable('cannot_open', `the database is out of reach: ${error.message}`, { cause: error });
  if (/Connection terminated|connection timeout|Client has encountered a connection error/i.test(error.message)) {
    return new StorageUnavailable('cannot_open', `the database connection was lost: ${error.message}`, { cause: error });
  }
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return error;
  if (code === '23505') return new Conflict(error.message, { cause: error });
  if (code === HINTS_STALE) return new StaleHints(staleExperts((error as { detail?: unknown }).detail));
  const unavailable = UNAVAILABLE.find(([pattern]) => pattern.test(code));
  if (unavailable) return new StorageUnavailable(unavailable[1], error.message, { cause: error });
  return error;
}
