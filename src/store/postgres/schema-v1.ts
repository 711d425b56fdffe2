/**
 * Version 1 of the PostgreSQL schema: everything SQLite reached by its version 10. Shipped: never edit;
 * later versions are the steps of `migrations.ts`.
 */
export const PG_SCHEMA_V1 = `
  CREATE TABLE requests (
    id TEXT COLLATE "C" PRIMARY KEY,
    consumer_id TEXT COLLATE "C" NOT NULL,
    kind TEXT COLLATE "C" NOT NULL,
    topic TEXT COLLATE "C" NOT NULL,
    question TEXT COLLATE "C" NOT NULL,
    context TEXT COLLATE "C" NOT NULL,
    target_experts TEXT COLLATE "C",
    routing_policy TEXT COLLATE "C" NOT NULL,
    own_policy TEXT COLLATE "C",
    dedup_key TEXT COLLATE "C",
    status TEXT COLLATE "C" NOT NULL,
    reason_code TEXT COLLATE "C",
    reason_message TEXT COLLATE "C",
    proposal_id TEXT COLLATE "C",
    held INTEGER NOT NULL DEFAULT 0,
    drafting INTEGER NOT NULL DEFAULT 0,
    asked_question TEXT COLLATE "C",
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
    request_id TEXT COLLATE "C" NOT NULL REFERENCES requests (id),
    consumer_id TEXT COLLATE "C" NOT NULL,
    via TEXT COLLATE "C" NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (request_id, consumer_id)
  );

  CREATE TABLE asks (
    id TEXT COLLATE "C" PRIMARY KEY,
    request_id TEXT COLLATE "C" NOT NULL REFERENCES requests (id),
    expert_id TEXT COLLATE "C" NOT NULL,
    state TEXT COLLATE "C" NOT NULL,
    via TEXT COLLATE "C" NOT NULL,
    instructions TEXT COLLATE "C",
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
    id TEXT COLLATE "C" PRIMARY KEY,
    request_id TEXT COLLATE "C" NOT NULL REFERENCES requests (id),
    status TEXT COLLATE "C" NOT NULL,
    answer TEXT COLLATE "C" NOT NULL,
    original_answer TEXT COLLATE "C",
    structured TEXT COLLATE "C" NOT NULL,
    confidence DOUBLE PRECISION,
    provenance TEXT COLLATE "C" NOT NULL,
    decided_by TEXT COLLATE "C",
    note TEXT COLLATE "C",
    reason TEXT COLLATE "C",
    decided_at BIGINT,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX proposals_pending ON proposals (id) WHERE status = 'pending';
  CREATE INDEX proposals_request ON proposals (request_id);

  CREATE TABLE expert_state (
    expert_id TEXT COLLATE "C" PRIMARY KEY,
    muted INTEGER NOT NULL DEFAULT 0,
    updated_at BIGINT NOT NULL
  );

  CREATE TABLE audit (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    request_id TEXT COLLATE "C" NOT NULL,
    at BIGINT NOT NULL,
    type TEXT COLLATE "C" NOT NULL,
    actor TEXT COLLATE "C" NOT NULL,
    data TEXT COLLATE "C" NOT NULL
  );
  CREATE INDEX audit_request ON audit (request_id, seq);

  CREATE TABLE events (
    id TEXT COLLATE "C" PRIMARY KEY,
    request_id TEXT COLLATE "C" NOT NULL,
    type TEXT COLLATE "C" NOT NULL,
    body TEXT COLLATE "C" NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX events_request ON events (request_id);
  CREATE INDEX events_created ON events (created_at);

  CREATE TABLE messages (
    id TEXT COLLATE "C" PRIMARY KEY,
    expert_id TEXT COLLATE "C" NOT NULL,
    request_id TEXT COLLATE "C",
    ask_id TEXT COLLATE "C",
    proposal_id TEXT COLLATE "C",
    purpose TEXT COLLATE "C" NOT NULL,
    text TEXT COLLATE "C" NOT NULL,
    elements TEXT COLLATE "C",
    state TEXT COLLATE "C" NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    claimed_by TEXT COLLATE "C",
    lease_until BIGINT,
    last_error TEXT COLLATE "C",
    created_at BIGINT NOT NULL,
    sent_at BIGINT
  );
  CREATE INDEX messages_due ON messages (next_attempt_at, id) WHERE state = 'pending';
  CREATE INDEX messages_sent ON messages (sent_at) WHERE state = 'sent';
  CREATE INDEX messages_request ON messages (request_id) WHERE request_id IS NOT NULL;

  CREATE TABLE consumers (
    id TEXT COLLATE "C" PRIMARY KEY,
    handles_kinds TEXT COLLATE "C" NOT NULL,
    delivery_type TEXT COLLATE "C" NOT NULL,
    delivery TEXT COLLATE "C" NOT NULL,
    secret TEXT COLLATE "C",
    dedup_window TEXT COLLATE "C" NOT NULL,
    dedup_window_ms BIGINT NOT NULL,
    auto_accept INTEGER NOT NULL DEFAULT 0,
    kind_schemas TEXT COLLATE "C",
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    -- The order consumers registered in, for those registered in the same millisecond (SQLite's rowid).
    seq BIGINT GENERATED ALWAYS AS IDENTITY
  );

  CREATE TABLE deliveries (
    id TEXT COLLATE "C" PRIMARY KEY,
    event_id TEXT COLLATE "C" NOT NULL REFERENCES events (id),
    consumer_id TEXT COLLATE "C" NOT NULL,
    request_id TEXT COLLATE "C" NOT NULL,
    state TEXT COLLATE "C" NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    claimed_by TEXT COLLATE "C",
    lease_until BIGINT,
    last_status INTEGER,
    last_error TEXT COLLATE "C",
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
    ask_id TEXT COLLATE "C" PRIMARY KEY,
    channel TEXT COLLATE "C" NOT NULL,
    ts TEXT COLLATE "C" NOT NULL,
    thread_ts TEXT COLLATE "C"
  );
  CREATE INDEX chat_asks_thread ON chat_asks (channel, thread_ts) WHERE thread_ts IS NOT NULL;
  CREATE UNIQUE INDEX chat_asks_message ON chat_asks (channel, ts);

  CREATE TABLE chat_events (
    id TEXT COLLATE "C" PRIMARY KEY,
    at BIGINT NOT NULL
  );

  CREATE TABLE review_cards (
    proposal_id TEXT COLLATE "C" PRIMARY KEY,
    channel TEXT COLLATE "C" NOT NULL,
    ts TEXT COLLATE "C" NOT NULL,
    overdue INTEGER NOT NULL DEFAULT 0
  );

  CREATE TABLE service_state (
    key TEXT COLLATE "C" PRIMARY KEY,
    value TEXT COLLATE "C" NOT NULL
  );

  CREATE TABLE llm_jobs (
    id TEXT COLLATE "C" PRIMARY KEY,
    stage TEXT COLLATE "C" NOT NULL,
    request_id TEXT COLLATE "C" NOT NULL REFERENCES requests (id),
    proposal TEXT COLLATE "C",
    state TEXT COLLATE "C" NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    deadline_at BIGINT,
    claimed_by TEXT COLLATE "C",
    lease_until BIGINT,
    created_at BIGINT NOT NULL,
    finished_at BIGINT
  );
  CREATE INDEX llm_jobs_pending ON llm_jobs (created_at, id) WHERE state = 'pending';
  CREATE INDEX llm_jobs_deadline ON llm_jobs (deadline_at) WHERE state = 'pending' AND deadline_at IS NOT NULL;
  CREATE INDEX llm_jobs_request ON llm_jobs (request_id);
  `;
