/**
 * Renewing the leases `owner` holds on pending rows of an outbox table, the same in both engines but
 * for how a list of ids is passed (`inList`: SQLite reads a JSON array with json_each, PostgreSQL takes
 * an array). Its values: the new lease end, the ids (as `inList` takes them), the owner.
 */
export const renewLeases = (table: 'deliveries' | 'messages' | 'llm_jobs', inList: string) =>
  `UPDATE ${table} SET lease_until = ? WHERE id ${inList} AND state = 'pending' AND claimed_by = ?`;

/** The ids of a JSON array in `?`, as SQLite reads them. */
export const SQLITE_IN_JSON = 'IN (SELECT value FROM json_each(?))';
