import { CORE_MIGRATIONS } from './migrations-core.js';
import { insightMigration, SQLITE_DIALECT } from '../shared/insight-fill-sql.js';

/**
 * Numbered migrations; `PRAGMA user_version` records how many have run. Append only: a shipped
 * migration is never edited, so every database reaches the same schema by the same steps. 1 to 12
 * are in `migrations-core.ts`; from 13 on: text search, the answer library, availability.
 */
export const MIGRATIONS: readonly string[] = [
  ...CORE_MIGRATIONS,
  // 13: text search (`GET /requests?q=`) on a full-text index instead of reading every question. The
  // index holds only each request's words as expertq defines them (src/core/search-words.ts), joined by
  // spaces: contentless (the text is in `requests`), keyed by the request's rowid (backups copy pages,
  // and expertq never runs VACUUM), no positions (a search is words, not phrases), and the `ascii`
  // tokenizer, which splits only at the spaces and folds nothing more, so FTS5 sees the very words
  // PostgreSQL does. A deleted request (retention) leaves the index by the trigger. The requests kept
  // so far are indexed after start, in the background (migration 15): the marker table says so.
  `
  CREATE VIRTUAL TABLE requests_search USING fts5(words, content='', contentless_delete=1, detail=none, tokenize='ascii');
  CREATE TABLE requests_search_unfilled (unused INTEGER);
  CREATE TRIGGER requests_search_delete AFTER DELETE ON requests BEGIN
    DELETE FROM requests_search WHERE rowid = old.rowid;
  END;
  `,
  // 14: the answer library. Its full-text index holds only the words of \`core/search-words.ts\`, space
  // separated, so the \`ascii\` tokenizer (which splits on ASCII punctuation and spaces only) keeps them as
  // they are: SQLite and PostgreSQL search the same words. The index row shares the entry's rowid.
  `
  CREATE TABLE answers (
    id TEXT PRIMARY KEY,
    topic TEXT NOT NULL,
    kind TEXT NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    structured TEXT,
    expert_id TEXT NOT NULL,
    expert_name TEXT NOT NULL,
    consumer_id TEXT,
    request_id TEXT,
    proposal_id TEXT,
    accepted_at INTEGER NOT NULL,
    accepted_by TEXT NOT NULL,
    verified_at INTEGER NOT NULL,
    status TEXT NOT NULL,
    reuse_count INTEGER NOT NULL DEFAULT 0,
    retired_reason TEXT,
    retired_by TEXT,
    retired_at INTEGER,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX answers_topic ON answers (topic, id);
  CREATE INDEX answers_consumer ON answers (consumer_id, id) WHERE consumer_id IS NOT NULL;
  CREATE INDEX answers_request ON answers (request_id) WHERE request_id IS NOT NULL;
  CREATE VIRTUAL TABLE answers_fts USING fts5 (question, answer, tokenize = 'ascii');
  `,
  // 15: requests reach the text index in batches, after they are written (writing one request's words
  // at a time cost a submit more than its own row). \`indexed_through\`: every request up to this rowid
  // is indexed, none after it; a search reads the requests after it directly. Deleting the newest
  // request lowers it, since SQLite may give the next request that rowid again. A database that ran
  // migration 13 before it left its filling to the background starts from nothing indexed.
  `
  CREATE TABLE search_progress (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    indexed_through INTEGER NOT NULL
  ) STRICT;
  INSERT INTO search_progress (id, indexed_through) VALUES (1, CASE
    WHEN EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'requests_search_unfilled') THEN 0
    ELSE (SELECT coalesce(max(rowid), 0) FROM requests) END);
  DROP TABLE IF EXISTS requests_search_unfilled;
  CREATE TRIGGER requests_search_through AFTER DELETE ON requests
    WHEN old.rowid > (SELECT coalesce(max(rowid), 0) FROM requests) BEGIN
    UPDATE search_progress SET indexed_through = (SELECT coalesce(max(rowid), 0) FROM requests)
      WHERE indexed_through > (SELECT coalesce(max(rowid), 0) FROM requests);
  END;
  `,
  // 16: a consumer's daily request quota, and the index that counts a consumer's requests since a
  // local midnight (a range of one consumer's rows, not its whole history).
  `
  ALTER TABLE consumers ADD COLUMN max_requests_per_day INTEGER;
  CREATE INDEX requests_consumer_created ON requests (consumer_id, created_at);
  `,
  // 17: when an open request warns its subscribers that it will give up soon (\`defaults.warn_before\`);
  // cleared once the warning is queued, so it goes out once whatever the instances and restarts.
  `
  ALTER TABLE requests ADD COLUMN warn_at INTEGER;
  CREATE INDEX requests_warn ON requests (warn_at) WHERE warn_at IS NOT NULL AND status IN ('queued', 'asked', 'escalated');
  `,
  // 18: away spells, kept beside the mute (one row per expert with any state). An expert is away while
  // away_until is set; the scheduler ends a spell by clearing it once its time has come.
  `
  ALTER TABLE expert_state ADD COLUMN away_until INTEGER;
  ALTER TABLE expert_state ADD COLUMN away_delegate TEXT;
  ALTER TABLE expert_state ADD COLUMN away_note TEXT;
  ALTER TABLE expert_state ADD COLUMN away_set_by TEXT;
  ALTER TABLE expert_state ADD COLUMN away_set_at INTEGER;
  CREATE INDEX expert_state_away ON expert_state (away_until) WHERE away_until IS NOT NULL;
  `,
  // 19: the stale library entry a request's asks show (the expert may confirm it with \`same\`).
  `
  ALTER TABLE requests ADD COLUMN refreshes TEXT;
  `,
  // 20: the words of each active library entry's question, as matching splits them, by topic and kind:
  // a new request looks up only the entries of its own topic holding one of its rarer words, where the
  // full-text index found every entry sharing any word across all topics and filtered the topic after.
  // A retired entry's words are deleted with its retirement. \`answers_fts_vocab\` tells how many entries
  // hold a word: a search ranks only the entries found by words that are not in half the library. The
  // entries kept so far are listed after start, in the background (migration 22): the marker says so.
  `
  CREATE TABLE answer_words (
    topic TEXT NOT NULL,
    kind TEXT NOT NULL,
    word TEXT NOT NULL,
    answer_id TEXT NOT NULL,
    PRIMARY KEY (topic, kind, word, answer_id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX answer_words_entry ON answer_words (answer_id);
  CREATE TABLE answer_words_unfilled (unused INTEGER);
  CREATE VIRTUAL TABLE answers_fts_vocab USING fts5vocab(answers_fts, 'row');
  `,
  // 21: how many active library entries each topic and kind has, kept with every entry written or
  // retired: a submit asks whether its topic has any, and reading every entry for that (every 10 s,
  // growing with each accepted answer) cost more each day.
  `
  CREATE TABLE answer_topics (
    topic TEXT NOT NULL,
    kind TEXT NOT NULL,
    active INTEGER NOT NULL,
    PRIMARY KEY (topic, kind)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO answer_topics (topic, kind, active)
    SELECT topic, kind, count(*) FROM answers WHERE status = 'active' GROUP BY topic, kind;
  `,
  // 22: the library entries kept before migration 20 get their words after start, a few at a time (at
  // a million requests, listing them all in the migration held start-up for over a minute). They are
  // listed in the order of \`answers_topic\` (a topic's words lie together in \`answer_words\`, so each
  // slice rewrites few pages); those up to (topic, answer_id) are listed, and a lookup reads the rest
  // directly. Entries after rowid \`fill_end\` were written with their words; 0 once all are listed,
  // as in a database whose migration 20 listed them itself.
  `
  CREATE TABLE answer_words_progress (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    topic TEXT NOT NULL,
    answer_id TEXT NOT NULL,
    fill_end INTEGER NOT NULL
  ) STRICT;
  INSERT INTO answer_words_progress (id, topic, answer_id, fill_end) VALUES (1, '', '', CASE
    WHEN EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'answer_words_unfilled') THEN (SELECT coalesce(max(rowid), 0) FROM answers)
    ELSE 0 END);
  DROP TABLE IF EXISTS answer_words_unfilled;
  `,
  // 23: every expert's asks today (\`GET /experts\`, the Experts page) as one range of the asks sent
  // since the earliest day start, read from the index alone: a count per expert cost a step through
  // the index for each expert ever asked, and a lookup of that expert's own day start.
  `
  CREATE INDEX asks_sent_expert ON asks (sent_at, expert_id) WHERE sent_at IS NOT NULL;
  DROP INDEX asks_sent;
  `,
  // 24: sign-ins through the identity provider, one row each, so signing out ends a session for good
  // (its cookie replayed later is refused). Every cookie-authenticated request reads its row by id;
  // revoking reads a person's by name, and pruning the expired ones by expiry.
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    last_seen INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX sessions_name ON sessions (name);
  CREATE INDEX sessions_expires ON sessions (expires_at);
  `,
  // 25: the channel each ask went out on (slack, email, …) and the channel each message goes out on;
  // null on rows from before, which went out on the one transport there was.
  `
  ALTER TABLE asks ADD COLUMN channel TEXT;
  ALTER TABLE messages ADD COLUMN channel TEXT;
  `,
  // 26: reviewers' votes on proposals that a review rule covers, one per person and proposal (the
  // key): a second vote by the same person is ignored, and a proposal's votes are read by its id.
  `
  CREATE TABLE votes (
    proposal_id TEXT NOT NULL,
    person TEXT NOT NULL,
    by_name TEXT NOT NULL,
    decision TEXT NOT NULL,
    note TEXT,
    reason TEXT,
    required INTEGER NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (proposal_id, person)
  ) STRICT, WITHOUT ROWID;
  `,
  // 27: the insight rollups (\`GET /insights\`), per hour × topic × expert × consumer with the times in
  // fixed buckets, kept with each event from now on and filled here from the history kept: a read of
  // requests, asks, proposals and the audit trail, each once per figure (estimated with the others).
  insightMigration(SQLITE_DIALECT),
];
