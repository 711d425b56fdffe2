import { pgStatements } from '../shared/placeholders.js';
import { ASKS, WAITING_ASKS } from '../shared/asks-sql.js';

/**
 * The statements of `PgAsks`; those the same in SQLite are written once in `shared/asks-sql.ts`. The
 * scheduler's repeat the partial indexes' conditions word for word (`asks_escalate`, `asks_send_after`,
 * `asks_queued`), so the planner can use them: a plan on another index would read every open ask each
 * tick. The keyset form resumes a scan after the last row handled.
 */

// Several experts in one round trip (routing reads every candidate of a topic). Sent today = live
// asks sent today + closed asks sent today: each expert's live asks are read once, for all three counts.
const SOME_STATES = `SELECT e.id AS expert_id, live.open, live.queued, live.today + closed.today AS today,
      s.muted, s.away_until, s.away_delegate, s.away_note, s.away_set_by, s.away_set_at
    FROM unnest($1::text[], $2::bigint[]) AS e(id, day_start)
    CROSS JOIN LATERAL (SELECT COUNT(*) FILTER (WHERE state = 'open') AS open, COUNT(*) FILTER (WHERE state = 'queued') AS queued,
        COUNT(*) FILTER (WHERE sent_at >= e.day_start) AS today
      FROM asks WHERE expert_id = e.id AND state IN ('open', 'queued')) AS live
    CROSS JOIN LATERAL (SELECT COUNT(*) AS today FROM asks
      WHERE expert_id = e.id AND sent_at >= e.day_start AND state NOT IN ('open', 'queued')) AS closed
    LEFT JOIN expert_state AS s ON s.expert_id = e.id`;

export const SQL = {
  ...pgStatements(ASKS),
  listForMany: 'SELECT * FROM asks WHERE request_id = ANY($1::text[]) ORDER BY created_at, id',
  someStates: SOME_STATES,
  // The experts given asks on hints, read as `someStates` does (under their locks, this transaction's
  // asks counted), each against the caps its asks were sent under ($3, $4; null: none): if one is
  // muted, away at $5 or past a cap, expertq_hints_hold fails the statement, and so the transaction.
  // Its columns are named, not `*`, so it is prepared once per connection (see statement.ts).
  checkHints: `SELECT expert_id, open, queued, today, muted, away_until, away_delegate, away_note, away_set_by, away_set_at,
      expertq_hints_hold((json_agg(expert_id) FILTER (WHERE muted = 1 OR away_until > $5::bigint OR open > c.max_open OR today > c.max_today)
        OVER ())::text) AS hold
    FROM (${SOME_STATES}) AS s JOIN unnest($1::text[], $3::bigint[], $4::bigint[]) AS c(id, max_open, max_today) ON c.id = s.expert_id`,
  // The shared "every expert" lock, then each expert's, in the order given (sorted by the caller), in
  // one statement (a projection's columns are computed left to right).
  lockExperts: `SELECT pg_advisory_xact_lock_shared(hashtextextended('experts:all', 0)) AS shared,
    (SELECT COUNT(pg_advisory_xact_lock(hashtextextended('expert:' || id, 0)))
      FROM (SELECT id FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n) ORDER BY n OFFSET 0) AS sorted) AS experts`,
  // One expert's lock, as routing takes it: changing whether they can be asked waits for routing to
  // them in progress, and routing after it reads the change.
  lockExpert: `SELECT pg_advisory_xact_lock_shared(hashtextextended('experts:all', 0)) AS shared,
    pg_advisory_xact_lock(hashtextextended('expert:' || $1, 0)) AS expert`,
  // Every expert's open and queued asks (the live asks' index), asks today, mute and away, in one
  // statement: one connection and one round trip where four reads side by side took four of each. $1 is
  // the earliest of the day starts, so the range stays on the sent_at index; $2 holds the experts whose
  // day starts elsewhere (their own time zone), $3 everyone else's day start.
  allStates: `SELECT
      (SELECT COALESCE(json_agg(json_build_array(expert_id, open, queued)), '[]') FROM (SELECT expert_id,
        COUNT(*) FILTER (WHERE state = 'open') AS open, COUNT(*) FILTER (WHERE state = 'queued') AS queued
        FROM asks WHERE state IN ('open', 'queued') GROUP BY expert_id) live) AS live,
      (SELECT COALESCE(json_agg(json_build_array(expert_id, today)), '[]') FROM (SELECT expert_id, COUNT(*) AS today
        FROM asks WHERE sent_at >= $1 AND sent_at >= COALESCE(($2::jsonb ->> expert_id)::bigint, $3) GROUP BY expert_id) today) AS today,
      (SELECT COALESCE(json_agg(kept), '[]') FROM (SELECT expert_id, muted, away_until, away_delegate, away_note, away_set_by, away_set_at
        FROM expert_state WHERE muted = 1 OR away_until IS NOT NULL) kept) AS kept`,
  someAway: 'SELECT * FROM expert_state WHERE expert_id = ANY($1::text[]) AND away_until IS NOT NULL',
  escalations: `SELECT * FROM asks WHERE state = 'open' AND escalate_at <= $1 ORDER BY escalate_at, id LIMIT $2`,
  escalationsAfter: `SELECT * FROM asks WHERE state = 'open' AND escalate_at <= $1 AND escalate_at >= $2
      AND (escalate_at > $2 OR id > $3) ORDER BY escalate_at, id LIMIT $4`,
  // Asks of a request whose question is still being drafted are not waiting work yet (the draft's end places them).
  queuedDue: `${WAITING_ASKS} WHERE a.state = 'queued' AND a.send_after <= $1 AND r.drafting = 0`,
};
