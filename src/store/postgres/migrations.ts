/**
 * The PostgreSQL schema, one entry per version (index 0 is version 1). It mirrors the SQLite schema
 * table for table: JSON kept as text, flags as 0/1 integers and times as epoch milliseconds (BIGINT),
 * so both engines turn rows into records the same way. Never edit an entry that has shipped: append.
 */
export const PG_MIGRATIONS: string[] = [
  // 1: everything SQLite reached by its version 10.
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
    own_policy TEXT,
    dedup_key TEXT,
    status TEXT NOT NULL,
    reason_code TEXT,
    reason_message TEXT,
    proposal_id TEXT,
    held INTEGER NOT NULL DEFAULT 0,
    drafting INTEGER NOT NULL DEFAULT 0,
    asked_question TEXT,
    give_up_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX requests_dedup ON requests (dedup_key, created_at) WHERE dedup_key IS NOT NULL;
  CREATE INDEX requests_give_up ON requests (give_up_at, id) WHERE status IN ('queued', 'asked', 'escalated');
  CREATE INDEX requests_held ON requests (created_at) WHERE held = 1;
  CREATE INDEX requests_status ON requests (status, id);
  CREATE INDEX requests_consumer ON requests (consumer_id, id);
  CREATE INDEX requests_finished ON requests (updated_at) WHERE status IN ('accepted', 'rejected', 'failed');

  CREATE TABLE request_subscribers (
    request_id TEXT NOT NULL REFERENCES requests (id),
    consumer_id TEXT NOT NULL,
    via TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (request_id, consumer_id)
  );

  CREATE TABLE asks (
    id TEXT PRIMARY KEY,
    request_id TEXT NOT NULL REFERENCES requests (id),
    expert_id TEXT NOT NULL,
    state TEXT NOT NULL,
    via TEXT NOT NULL,
    instructions TEXT,
    created_at BIGINT NOT NULL,
    sent_at BIGINT,
    escalate_at BIGINT,
    closed_at BIGINT,
    send_after BIGINT
  );
  CREATE INDEX asks_request ON asks (request_id);
  CREATE INDEX asks_expert_state ON asks (expert_id, state);
  CREATE INDEX asks_expert_sent ON asks (expert_id, sent_at) WHERE sent_at IS NOT NULL;
  CREATE INDEX asks_escalate ON asks (escalate_at, id) WHERE state = 'open';
  CREATE INDEX asks_queued ON asks (created_at) WHERE state = 'queued';
  CREATE INDEX asks_live ON asks (expert_id, state) WHERE state IN ('open', 'queued');
  CREATE INDEX asks_sent ON asks (sent_at) WHERE sent_at IS NOT NULL;
  CREATE INDEX asks_send_after ON asks (send_after) WHERE state = 'queued';

  CREATE TABLE proposals (
    id TEXT PRIMARY KEY,
    request_id TEXT NOT NULL REFERENCES requests (id),
    status TEXT NOT NULL,
    answer TEXT NOT NULL,
    original_answer TEXT,
    structured TEXT NOT NULL,
    confidence DOUBLE PRECISION,
    provenance TEXT NOT NULL,
    decided_by TEXT,
    note TEXT,
    reason TEXT,
    decided_at BIGINT,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX proposals_pending ON proposals (id) WHERE status = 'pending';
  CREATE INDEX proposals_request ON proposals (request_id);

  CREATE TABLE expert_state (
    expert_id TEXT PRIMARY KEY,
    muted INTEGER NOT NULL DEFAULT 0,
    updated_at BIGINT NOT NULL
  );

  CREATE TABLE audit (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    request_id TEXT NOT NULL,
    at BIGINT NOT NULL,
    type TEXT NOT NULL,
    actor TEXT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX audit_request ON audit (request_id, seq);

  CREATE TABLE events (
    id TEXT PRIMARY KEY,
    request_id TEXT NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX events_request ON events (request_id);
  CREATE INDEX events_created ON events (created_at);

  CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    expert_id TEXT NOT NULL,
    request_id TEXT,
    ask_id TEXT,
    proposal_id TEXT,
    purpose TEXT NOT NULL,
    text TEXT NOT NULL,
    elements TEXT,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    claimed_by TEXT,
    lease_until BIGINT,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    sent_at BIGINT
  );
  CREATE INDEX messages_due ON messages (next_attempt_at, id) WHERE state = 'pending';
  CREATE INDEX messages_sent ON messages (sent_at) WHERE state = 'sent';
  CREATE INDEX messages_request ON messages (request_id) WHERE request_id IS NOT NULL;

  CREATE TABLE consumers (
    id TEXT PRIMARY KEY,
    handles_kinds TEXT NOT NULL,
    delivery_type TEXT NOT NULL,
    delivery TEXT NOT NULL,
    secret TEXT,
    dedup_window TEXT NOT NULL,
    dedup_window_ms BIGINT NOT NULL,
    auto_accept INTEGER NOT NULL DEFAULT 0,
    kind_schemas TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    -- The order consumers registered in, for those registered in the same millisecond (SQLite's rowid).
    seq BIGINT GENERATED ALWAYS AS IDENTITY
  );

  CREATE TABLE deliveries (
    id TEXT PRIMARY KEY,
    event_id TEXT NOT NULL REFERENCES events (id),
    consumer_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    claimed_by TEXT,
    lease_until BIGINT,
    last_status INTEGER,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    delivered_at BIGINT
  );
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE state = 'pending';
  CREATE INDEX deliveries_pending_consumer ON deliveries (consumer_id, next_attempt_at, id) WHERE state = 'pending';
  CREATE INDEX deliveries_consumer ON deliveries (consumer_id, state, id);
  CREATE INDEX deliveries_state ON deliveries (state, id);
  CREATE INDEX deliveries_event ON deliveries (event_id);
  CREATE INDEX deliveries_request ON deliveries (request_id);
  CREATE INDEX deliveries_delivered ON deliveries (delivered_at) WHERE state = 'delivered';

  CREATE TABLE chat_asks (
    ask_id TEXT PRIMARY KEY,
    channel TEXT NOT NULL,
    ts TEXT NOT NULL,
    thread_ts TEXT
  );
  CREATE INDEX chat_asks_thread ON chat_asks (channel, thread_ts) WHERE thread_ts IS NOT NULL;
  CREATE UNIQUE INDEX chat_asks_message ON chat_asks (channel, ts);

  CREATE TABLE chat_events (
    id TEXT PRIMARY KEY,
    at BIGINT NOT NULL
  );

  CREATE TABLE review_cards (
    proposal_id TEXT PRIMARY KEY,
    channel TEXT NOT NULL,
    ts TEXT NOT NULL,
    overdue INTEGER NOT NULL DEFAULT 0
  );

  CREATE TABLE service_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE llm_jobs (
    id TEXT PRIMARY KEY,
    stage TEXT NOT NULL,
    request_id TEXT NOT NULL REFERENCES requests (id),
    proposal TEXT,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    deadline_at BIGINT,
    claimed_by TEXT,
    lease_until BIGINT,
    created_at BIGINT NOT NULL,
    finished_at BIGINT
  );
  CREATE INDEX llm_jobs_pending ON llm_jobs (created_at, id) WHERE state = 'pending';
  CREATE INDEX llm_jobs_deadline ON llm_jobs (deadline_at) WHERE state = 'pending' AND deadline_at IS NOT NULL;
  CREATE INDEX llm_jobs_request ON llm_jobs (request_id);
  `,
  // 2: the instances serving from this database (\`GET /instances\`), each refreshing its row.
  `
  CREATE TABLE instances (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    version TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    last_seen BIGINT NOT NULL,
    registry_hash TEXT NOT NULL
  );
  `,
];
