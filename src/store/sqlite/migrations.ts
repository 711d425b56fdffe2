/**
 * Numbered migrations; `PRAGMA user_version` records how many have run. Append only: a shipped
 * migration is never edited, so every database reaches the same schema by the same steps.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE requests (
    id TEXT PRIMARY KEY,
    consumer_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    topic TEXT NOT NULL,
    question TEXT NOT NULL,
    context TEXT NOT NULL,
    target_experts TEXT,
    routing_policy TEXT NOT NULL,
    dedup_key TEXT,
    status TEXT NOT NULL,
    reason_code TEXT,
    reason_message TEXT,
    proposal_id TEXT,
    held INTEGER NOT NULL DEFAULT 0,
    give_up_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX requests_dedup ON requests (dedup_key, created_at) WHERE dedup_key IS NOT NULL;
  CREATE INDEX requests_give_up ON requests (give_up_at) WHERE status IN ('queued', 'asked', 'escalated');
  CREATE INDEX requests_held ON requests (created_at) WHERE held = 1;
  CREATE INDEX requests_status ON requests (status, id);
  CREATE INDEX requests_consumer ON requests (consumer_id, id);

  CREATE TABLE request_subscribers (
    request_id TEXT NOT NULL REFERENCES requests (id),
    consumer_id TEXT NOT NULL,
    via TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (request_id, consumer_id)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE asks (
    id TEXT PRIMARY KEY,
    request_id TEXT NOT NULL REFERENCES requests (id),
    expert_id TEXT NOT NULL,
    state TEXT NOT NULL,
    via TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    sent_at INTEGER,
    escalate_at INTEGER,
    closed_at INTEGER
  ) STRICT;
  CREATE INDEX asks_request ON asks (request_id);
  CREATE INDEX asks_expert_state ON asks (expert_id, state);
  CREATE INDEX asks_expert_sent ON asks (expert_id, sent_at) WHERE sent_at IS NOT NULL;
  CREATE INDEX asks_escalate ON asks (escalate_at) WHERE state = 'open';
  CREATE INDEX asks_queued ON asks (created_at) WHERE state = 'queued';

  CREATE TABLE proposals (
    id TEXT PRIMARY KEY,
    request_id TEXT NOT NULL REFERENCES requests (id),
    status TEXT NOT NULL,
    answer TEXT NOT NULL,
    structured TEXT NOT NULL,
    confidence REAL,
    provenance TEXT NOT NULL,
    decided_by TEXT,
    note TEXT,
    reason TEXT,
    decided_at INTEGER,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX proposals_pending ON proposals (id) WHERE status = 'pending';
  CREATE INDEX proposals_request ON proposals (request_id);

  CREATE TABLE expert_state (
    expert_id TEXT PRIMARY KEY,
    muted INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    request_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    type TEXT NOT NULL,
    actor TEXT NOT NULL,
    data TEXT NOT NULL
  ) STRICT;
  CREATE INDEX audit_request ON audit (request_id, seq);

  CREATE TABLE events (
    id TEXT PRIMARY KEY,
    request_id TEXT NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX events_request ON events (request_id);

  CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    expert_id TEXT NOT NULL,
    request_id TEXT,
    ask_id TEXT,
    purpose TEXT NOT NULL,
    text TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    lease_until INTEGER,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    sent_at INTEGER
  ) STRICT;
  CREATE INDEX messages_due ON messages (next_attempt_at) WHERE state = 'pending';
  `,
  // 2: consumers and webhook/in-process deliveries (transactional outbox).
  `
  CREATE TABLE consumers (
    id TEXT PRIMARY KEY,
    handles_kinds TEXT NOT NULL,
    delivery_type TEXT NOT NULL,
    delivery TEXT NOT NULL,
    secret TEXT,
    dedup_window TEXT NOT NULL,
    dedup_window_ms INTEGER NOT NULL,
    auto_accept INTEGER NOT NULL DEFAULT 0,
    kind_schemas TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE deliveries (
    id TEXT PRIMARY KEY,
    event_id TEXT NOT NULL REFERENCES events (id),
    consumer_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    lease_until INTEGER,
    last_status INTEGER,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    delivered_at INTEGER
  ) STRICT;
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE state = 'pending';
  CREATE INDEX deliveries_consumer ON deliveries (consumer_id, state, id);
  CREATE INDEX deliveries_state ON deliveries (state, id);

  -- Live state of every expert (GET /experts) without scanning finished asks.
  CREATE INDEX asks_live ON asks (expert_id, state) WHERE state IN ('open', 'queued');
  CREATE INDEX asks_sent ON asks (sent_at) WHERE sent_at IS NOT NULL;
  `,
  // 3: scheduler. A queued ask waiting for quiet hours to end carries the instant they end, so the
  // scheduler finds asks due to go out with one indexed range instead of re-checking every queued ask.
  `
  ALTER TABLE asks ADD COLUMN send_after INTEGER;
  CREATE INDEX asks_send_after ON asks (send_after) WHERE state = 'queued';
  `,
  // 4: chat transport (Slack). Where each ask was posted (its thread and the message to update when it
  // closes), the six elements of an ask message (Block Kit shows them one block each), and the chat
  // event ids already processed, so a retried or redelivered event never makes a second reply.
  `
  ALTER TABLE messages ADD COLUMN elements TEXT;
  CREATE TABLE chat_asks (
    ask_id TEXT PRIMARY KEY,
    channel TEXT NOT NULL,
    ts TEXT NOT NULL,
    thread_ts TEXT
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX chat_asks_thread ON chat_asks (channel, thread_ts) WHERE thread_ts IS NOT NULL;
  CREATE UNIQUE INDEX chat_asks_message ON chat_asks (channel, ts);
  CREATE TABLE chat_events (
    id TEXT PRIMARY KEY,
    at INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  `,
  // 5: review. A reviewer's edit keeps the expert's own text; an ask made by "send back"
  // carries the reviewer's instructions until it is sent (it may wait for quiet hours or a cap).
  `
  ALTER TABLE proposals ADD COLUMN original_answer TEXT;
  ALTER TABLE asks ADD COLUMN instructions TEXT;
  -- The Slack review channel: a card per pending proposal, updated by whatever decides it. Channel
  -- messages have no expert (expert_id ''); they name their proposal.
  ALTER TABLE messages ADD COLUMN proposal_id TEXT;
  CREATE TABLE review_cards (
    proposal_id TEXT PRIMARY KEY,
    channel TEXT NOT NULL,
    ts TEXT NOT NULL,
    overdue INTEGER NOT NULL DEFAULT 0
  ) STRICT, WITHOUT ROWID;
  -- Small facts the service keeps across restarts (when reviewers were last reminded).
  CREATE TABLE service_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
  `,
  // 6: LLM: the drafted question on the request, and durable drafting and structuring jobs,
  // written with the submit or reply that causes them, so a restart or kill -9 resumes them.
  `
  ALTER TABLE requests ADD COLUMN drafting INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE requests ADD COLUMN asked_question TEXT;

  CREATE TABLE llm_jobs (
    id TEXT PRIMARY KEY,
    stage TEXT NOT NULL,
    request_id TEXT NOT NULL REFERENCES requests (id),
    proposal TEXT,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    deadline_at INTEGER,
    created_at INTEGER NOT NULL,
    finished_at INTEGER
  ) STRICT;
  CREATE INDEX llm_jobs_pending ON llm_jobs (created_at, id) WHERE state = 'pending';
  CREATE INDEX llm_jobs_deadline ON llm_jobs (deadline_at) WHERE state = 'pending' AND deadline_at IS NOT NULL;
  `,  // 7: retention (storage.retention, storage.retention_requests). Pruning finds old rows by index, and
  // "is this event still needed by a delivery" is an index probe rather than a scan.
  `
  CREATE INDEX deliveries_event ON deliveries (event_id);
  CREATE INDEX deliveries_request ON deliveries (request_id);
  CREATE INDEX deliveries_delivered ON deliveries (delivered_at) WHERE state = 'delivered';
  CREATE INDEX messages_sent ON messages (sent_at) WHERE state = 'sent';
  CREATE INDEX messages_request ON messages (request_id) WHERE request_id IS NOT NULL;
  CREATE INDEX events_created ON events (created_at);
  CREATE INDEX llm_jobs_request ON llm_jobs (request_id);
  CREATE INDEX requests_finished ON requests (updated_at) WHERE status IN ('accepted', 'rejected', 'failed');
  `,
  // 8: the routing_policy fields a request set itself, so a held request follows the current defaults
  // for the rest (raising a limit and restarting releases it). Null on older rows: all kept as stored.
  `
  ALTER TABLE requests ADD COLUMN own_policy TEXT;
  `,
  // 9: leases for every kind of outside work, so several processes can share one queue. Messages and
  // deliveries had a lease column (messages never used it); LLM jobs get one. \`claimed_by\` names the
  // process holding the lease: it renews only its own, and a lease past \`lease_until\` is anyone's.
  `
  ALTER TABLE messages ADD COLUMN claimed_by TEXT;
  ALTER TABLE deliveries ADD COLUMN claimed_by TEXT;
  ALTER TABLE llm_jobs ADD COLUMN claimed_by TEXT;
  ALTER TABLE llm_jobs ADD COLUMN lease_until INTEGER;
  `,
  // 10: each consumer's due deliveries in order, so a claim reads at most a few rows per consumer
  // instead of ranking every pending delivery (a claim follows every batch of finished attempts).
  `
  CREATE INDEX deliveries_pending_consumer ON deliveries (consumer_id, next_attempt_at, id) WHERE state = 'pending';
  `,
  // 11: the instances serving from this database (\`GET /instances\`), each refreshing its row.
  `
  CREATE TABLE instances (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    version TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    registry_hash TEXT NOT NULL
  ) STRICT;
  `,
  // 12: lists that stay a page's work at any history size: one topic's requests, and a consumer's open
  // requests (the partial index holds only those; its condition is repeated by the query that uses it).
  `
  CREATE INDEX requests_topic ON requests (topic, id);
  CREATE INDEX requests_consumer_open ON requests (consumer_id, id) WHERE status IN ('queued', 'asked', 'escalated', 'proposed');
  `,
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
];
