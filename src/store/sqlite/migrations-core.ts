/**
 * Migrations 1 to 12 (see `migrations.ts`): the core schema, the outbox, the scheduler, chat, review,
 * the LLM, leases, instances and the indexes that keep lists a page's work.
 */
export const CORE_MIGRATIONS: readonly string[] = [
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
];
