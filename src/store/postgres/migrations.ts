import type pg from 'pg';
import { fillAnswerWords, fillSearchWords } from './fill-search-words.js';
import { PG_SCHEMA_V1 } from './schema-v1.js';
import { insightMigration, PG_DIALECT } from '../shared/insight-fill-sql.js';

/** A schema step: SQL, or work that needs expertq's own code (run in the step's transaction). */
export type PgMigration = string | ((client: pg.ClientBase) => Promise<void>);

/**
 * The PostgreSQL schema, one entry per version (index 0 is version 1). It mirrors the SQLite schema
 * table for table: JSON kept as text, flags as 0/1 integers and times as epoch milliseconds (BIGINT),
 * so both engines turn rows into records the same way. Text compares byte by byte (COLLATE "C"), as in
 * SQLite, whatever the database's locale: ids sort and page the same on both. Never edit an entry that has shipped: append.
 */
export const PG_MIGRATIONS: PgMigration[] = [
  // 1: everything SQLite reached by its version 10.
  PG_SCHEMA_V1,
  // 2: the instances serving from this database (\`GET /instances\`), each refreshing its row.
  `
  CREATE TABLE instances (
    id TEXT COLLATE "C" PRIMARY KEY,
    host TEXT COLLATE "C" NOT NULL,
    pid INTEGER NOT NULL,
    version TEXT COLLATE "C" NOT NULL,
    started_at BIGINT NOT NULL,
    last_seen BIGINT NOT NULL,
    registry_hash TEXT COLLATE "C" NOT NULL
  );
  `,
  // 3: lists that stay a page's work at any history size: one topic's requests, and a consumer's open
  // requests (the partial index holds only those; its condition is repeated by the query that uses it).
  `
  CREATE INDEX requests_topic ON requests (topic, id);
  CREATE INDEX requests_consumer_open ON requests (consumer_id, id) WHERE status IN ('queued', 'asked', 'escalated', 'proposed');
  `,
  // 4: text search (`GET /requests?q=`) on a full-text index instead of reading every question. Each
  // request's words as expertq defines them (src/core/search-words.ts), taken verbatim as lexemes: no
  // parser or dictionary of PostgreSQL's decides what a word is, so it finds what SQLite's index finds.
  // The store writes them with the request; NULL means not yet indexed (kept before this migration, or
  // inserted by an older instance during a rolling upgrade), and every start fills those.
  async (client) => {
    await client.query(`
      ALTER TABLE requests ADD COLUMN search_words tsvector;
      CREATE INDEX requests_unindexed ON requests (id) WHERE search_words IS NULL;
    `);
    await fillSearchWords(client);
    // Built once the words are in: one sorted build rather than an index update per row.
    await client.query('CREATE INDEX requests_search ON requests USING gin (search_words)');
  },
  // 5: references to a request are checked at commit, as SQLite checks them: a transaction may write
  // a request's rows before the request (a submit writes its request last, in its final state).
  `
  ALTER TABLE request_subscribers ALTER CONSTRAINT request_subscribers_request_id_fkey DEFERRABLE INITIALLY DEFERRED;
  ALTER TABLE asks ALTER CONSTRAINT asks_request_id_fkey DEFERRABLE INITIALLY DEFERRED;
  ALTER TABLE proposals ALTER CONSTRAINT proposals_request_id_fkey DEFERRABLE INITIALLY DEFERRED;
  ALTER TABLE llm_jobs ALTER CONSTRAINT llm_jobs_request_id_fkey DEFERRABLE INITIALLY DEFERRED;
  `,
  // 6: the answer library. \`search\` is built by expertq from the words of \`core/search-words.ts\`
  // (a tsvector literal, not parsed by a text search configuration), so PostgreSQL and SQLite search the
  // same words whatever the database's locale.
  `
  CREATE TABLE answers (
    id TEXT COLLATE "C" PRIMARY KEY,
    topic TEXT COLLATE "C" NOT NULL,
    kind TEXT COLLATE "C" NOT NULL,
    question TEXT COLLATE "C" NOT NULL,
    answer TEXT COLLATE "C" NOT NULL,
    structured TEXT COLLATE "C",
    expert_id TEXT COLLATE "C" NOT NULL,
    expert_name TEXT COLLATE "C" NOT NULL,
    consumer_id TEXT COLLATE "C",
    request_id TEXT COLLATE "C",
    proposal_id TEXT COLLATE "C",
    accepted_at BIGINT NOT NULL,
    accepted_by TEXT COLLATE "C" NOT NULL,
    verified_at BIGINT NOT NULL,
    status TEXT COLLATE "C" NOT NULL,
    reuse_count INTEGER NOT NULL DEFAULT 0,
    retired_reason TEXT COLLATE "C",
    retired_by TEXT COLLATE "C",
    retired_at BIGINT,
    created_at BIGINT NOT NULL,
    search TSVECTOR NOT NULL
  );
  CREATE INDEX answers_topic ON answers (topic, id);
  CREATE INDEX answers_consumer ON answers (consumer_id, id) WHERE consumer_id IS NOT NULL;
  CREATE INDEX answers_request ON answers (request_id) WHERE request_id IS NOT NULL;
  CREATE INDEX answers_search ON answers USING GIN (search);
  `,
  // 7: a consumer's daily request quota, and the index that counts a consumer's requests since a
  // local midnight (SQLite's 16).
  `
  ALTER TABLE consumers ADD COLUMN max_requests_per_day INTEGER;
  CREATE INDEX requests_consumer_created ON requests (consumer_id, created_at);
  `,
  // 8: when an open request warns its subscribers that it will give up soon (SQLite's 17).
  `
  ALTER TABLE requests ADD COLUMN warn_at BIGINT;
  CREATE INDEX requests_warn ON requests (warn_at) WHERE warn_at IS NOT NULL AND status IN ('queued', 'asked', 'escalated');
  `,
  // 9: away spells, kept beside the mute (one row per expert with any state). An expert is away while
  // away_until is set; the scheduler ends a spell by clearing it once its time has come.
  `
  ALTER TABLE expert_state ADD COLUMN away_until BIGINT;
  ALTER TABLE expert_state ADD COLUMN away_delegate TEXT COLLATE "C";
  ALTER TABLE expert_state ADD COLUMN away_note TEXT;
  ALTER TABLE expert_state ADD COLUMN away_set_by TEXT;
  ALTER TABLE expert_state ADD COLUMN away_set_at BIGINT;
  CREATE INDEX expert_state_away ON expert_state (away_until) WHERE away_until IS NOT NULL;
  `,
  // 10: the stale library entry a request's asks show (SQLite's 19).
  `
  ALTER TABLE requests ADD COLUMN refreshes TEXT COLLATE "C";
  `,
  // 11: the words of each active library entry's question, as matching splits them, by topic and kind
  // (SQLite's 20): a new request looks up only the entries of its own topic holding one of its rarer
  // words. Filled for the entries kept so far; every start fills those an older instance wrote.
  async (client) => {
    await client.query(`
      CREATE TABLE answer_words (
        topic TEXT COLLATE "C" NOT NULL,
        kind TEXT COLLATE "C" NOT NULL,
        word TEXT COLLATE "C" NOT NULL,
        answer_id TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (topic, kind, word, answer_id)
      );
      CREATE INDEX answer_words_entry ON answer_words (answer_id);
    `);
    await fillAnswerWords(client);
  },
  // 12: how many active library entries each topic and kind has, kept with every entry written or
  // retired (SQLite's 21). Each start adds the pairs an older instance created during a rolling upgrade.
  `
  CREATE TABLE answer_topics (
    topic TEXT COLLATE "C" NOT NULL,
    kind TEXT COLLATE "C" NOT NULL,
    active INTEGER NOT NULL,
    PRIMARY KEY (topic, kind)
  );
  INSERT INTO answer_topics (topic, kind, active)
    SELECT topic, kind, count(*) FROM answers WHERE status = 'active' GROUP BY topic, kind;
  `,
  // 13: an expert's asks sent today counted in two parts that never overlap: the live ones from the same
  // index range that counts them as open or queued (this one also holds when each was sent), and the
  // closed ones from an index of closed asks only. Routing reads each candidate's counts on every
  // submit, and a busy expert's live asks were read twice before (once per count), each read a visit
  // to the table. asks_live_sent serves an older instance's live count as asks_live did (same rows,
  // same leading columns); asks_expert_sent stays for an older instance's today count during a rolling
  // upgrade (this version no longer reads it: a later version's migration may drop it).
  `
  CREATE INDEX asks_live_sent ON asks (expert_id, state, sent_at) WHERE state IN ('open', 'queued');
  DROP INDEX asks_live;
  CREATE INDEX asks_closed_sent ON asks (expert_id, sent_at) WHERE sent_at IS NOT NULL AND state NOT IN ('open', 'queued');
  `,
  // 14: two indexes no statement of this version or the one before reads (an expert's asks by state,
  // and by when each was sent: asks_live_sent and asks_closed_sent serve both), each an entry to write
  // for every ask placed.
  `
  DROP INDEX asks_expert_sent;
  DROP INDEX asks_expert_state;
  `,
  // 15: a statement's way to fail its transaction when routing decisions made on hints no longer hold
  // (the experts it names were muted, set away or filled meanwhile): the check goes out with the
  // commit, and the commit then rolls back. Takes the experts' ids (a JSON array, which becomes the
  // error's detail), or null when every decision holds.
  `
  CREATE FUNCTION expertq_hints_hold(stale TEXT) RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $$
  BEGIN
    IF stale IS NOT NULL THEN
      RAISE EXCEPTION 'routing hints no longer hold for %', stale USING ERRCODE = 'XQ409', DETAIL = stale;
    END IF;
    RETURN TRUE;
  END
  $$;
  `,
  // 16: what each instance reads and writes of this database (src/store/postgres/generation.ts), so a
  // newer one keeps writing what an older one still serving reads; the rows of older instances say 0.
  `
  ALTER TABLE instances ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
  `,
  // 17: the audit trail keyed by what reads it. Every statement reads or deletes one request's entries
  // (request_id, then seq for their order); the key on seq alone was an index nothing read, written
  // for every entry (three per submitted request). The key is now (request_id, seq), in place of the
  // index that served those reads (rebuilt: about 2 s per 3 million entries; writes to audit wait).
  `
  ALTER TABLE audit DROP CONSTRAINT audit_pkey;
  DROP INDEX audit_request;
  ALTER TABLE audit ADD CONSTRAINT audit_pkey PRIMARY KEY (request_id, seq);
  `,
  // 18: an ask's request is no longer looked up and share-locked for every ask at commit. Every
  // statement that writes an ask runs in a transaction that has just written or locked its request,
  // and retention removes a request's asks with it, so the check never failed; it ran once per
  // submitted request, inside the commit every submit waits for (docs/decisions/storage/).
  `
  ALTER TABLE asks DROP CONSTRAINT asks_request_id_fkey;
  `,
  // 19: sign-ins through the identity provider, one row each, so signing out on one instance ends the
  // session on all of them (its cookie replayed later is refused). Every cookie-authenticated request
  // reads its row by id; revoking reads a person's by name, and pruning the expired ones by expiry.
  `
  CREATE TABLE sessions (
    id TEXT COLLATE "C" PRIMARY KEY,
    name TEXT COLLATE "C" NOT NULL,
    role TEXT COLLATE "C" NOT NULL,
    started_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    last_seen BIGINT NOT NULL
  );
  CREATE INDEX sessions_name ON sessions (name);
  CREATE INDEX sessions_expires ON sessions (expires_at);
  `,
  // 20: the channel each ask went out on (slack, email, …) and the channel each message goes out on;
  // null on rows from before, which went out on the one transport there was.
  `
  ALTER TABLE asks ADD COLUMN channel TEXT COLLATE "C";
  ALTER TABLE messages ADD COLUMN channel TEXT COLLATE "C";
  `,
  // 21: reviewers' votes on proposals that a review rule covers, one per person and proposal (the
  // key): a second vote by the same person is ignored, even when two instances take it at once.
  `
  CREATE TABLE votes (
    proposal_id TEXT COLLATE "C" NOT NULL,
    person TEXT COLLATE "C" NOT NULL,
    by_name TEXT COLLATE "C" NOT NULL,
    decision TEXT COLLATE "C" NOT NULL,
    note TEXT,
    reason TEXT,
    required INTEGER NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (proposal_id, person)
  );
  `,
  // 22: the insight rollups (\`GET /insights\`), per hour × topic × expert × consumer with the times in
  // fixed buckets, kept with each event from now on and filled here from the history kept.
  insightMigration(PG_DIALECT),
  // 23: the time buckets per day and week carry their count in their key's index, so a long window's
  // are read from the index alone, in key order, rather than one table page per row wherever a
  // rebuild or a fold left each (three years by week after a rebuild: 5,700 pages, 28 ms, against 11).
  `ALTER TABLE insight_period_times DROP CONSTRAINT insight_period_times_pkey, ADD PRIMARY KEY (unit, dim, value, start, metric, bucket) INCLUDE (n);`,
];
