-- Runs: one invocation of a benchmark or command.
CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    benchmark   TEXT NOT NULL,
    config      TEXT NOT NULL,          -- JSON snapshot, secrets excluded
    version     TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    status      TEXT NOT NULL           -- running | done | failed | interrupted
);

-- Calls: the content-addressed cache. key = SHA-256 of everything that changes the answer.
CREATE TABLE calls (
    key               TEXT PRIMARY KEY,
    namespace         TEXT NOT NULL,
    provider          TEXT NOT NULL,
    model             TEXT NOT NULL,
    request           TEXT NOT NULL,    -- llm.Request JSON plus sample index
    response          TEXT,             -- llm.Response JSON, NULL on error
    status            TEXT NOT NULL,    -- ok | error
    error             TEXT,
    attempts          INTEGER NOT NULL,
    input_tokens      INTEGER NOT NULL DEFAULT 0,
    output_tokens     INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens  INTEGER NOT NULL DEFAULT 0,
    cost              REAL,             -- NULL when the price is unknown
    latency_ms        INTEGER NOT NULL DEFAULT 0,
    batch_id          TEXT,
    created_at        TEXT NOT NULL
);
CREATE INDEX calls_model ON calls(provider, model);

-- Which calls a run used, and whether the cache answered.
CREATE TABLE run_calls (
    run_id  INTEGER NOT NULL REFERENCES runs(id),
    key     TEXT NOT NULL,
    cached  INTEGER NOT NULL,
    job     TEXT NOT NULL DEFAULT '',   -- the plan's own job id (claim/template/sample …)
    PRIMARY KEY (run_id, key)
);

-- Labels: judge outputs, parsed predictions and other derived values.
CREATE TABLE labels (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs(id),
    call_key    TEXT NOT NULL,
    kind        TEXT NOT NULL,
    source      TEXT NOT NULL,
    value       TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    UNIQUE (run_id, call_key, kind, source)
);

-- Provider batches: persisted before results arrive so a killed run resumes polling.
CREATE TABLE batches (
    id          TEXT PRIMARY KEY,
    provider    TEXT NOT NULL,
    status      TEXT NOT NULL,          -- submitted | done | failed | ingested
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE TABLE batch_items (
    batch_id    TEXT NOT NULL REFERENCES batches(id),
    key         TEXT NOT NULL,
    namespace   TEXT NOT NULL,
    model       TEXT NOT NULL,
    request     TEXT NOT NULL,
    PRIMARY KEY (batch_id, key)
);
CREATE INDEX batch_items_key ON batch_items(key);
