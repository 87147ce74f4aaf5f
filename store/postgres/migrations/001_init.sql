-- The whole schema of store/sqlite's migrations 001–005, in PostgreSQL.
-- Columns keep SQLite's types where the store's SQL is shared (timestamps
-- as RFC 3339 text, flags as integers); ids are identities; tables whose
-- order SQLite read by rowid have an explicit row_no.
CREATE TABLE runs (
    id              BIGSERIAL PRIMARY KEY,
    name            TEXT NOT NULL,
    benchmark       TEXT NOT NULL,
    config          TEXT NOT NULL,
    version         TEXT NOT NULL,
    started_at      TEXT NOT NULL,
    ended_at        TEXT,
    status          TEXT NOT NULL,
    fingerprint     TEXT NOT NULL DEFAULT '',
    pid             INTEGER NOT NULL DEFAULT 0,
    host            TEXT NOT NULL DEFAULT '',
    heartbeat_at    TEXT,
    reason          TEXT NOT NULL DEFAULT '',
    records_version INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_fingerprint ON runs(fingerprint);

CREATE TABLE calls (
    key               TEXT PRIMARY KEY,
    namespace         TEXT NOT NULL,
    provider          TEXT NOT NULL,
    model             TEXT NOT NULL,
    request           TEXT NOT NULL,
    response          TEXT,
    status            TEXT NOT NULL,
    error             TEXT,
    attempts          INTEGER NOT NULL,
    input_tokens      INTEGER NOT NULL DEFAULT 0,
    output_tokens     INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens  INTEGER NOT NULL DEFAULT 0,
    cost              DOUBLE PRECISION,
    latency_ms        BIGINT NOT NULL DEFAULT 0,
    batch_id          TEXT,
    created_at        TEXT NOT NULL
);
CREATE INDEX calls_model ON calls(provider, model);

CREATE TABLE run_calls (
    run_id  BIGINT NOT NULL REFERENCES runs(id),
    key     TEXT NOT NULL,
    cached  INTEGER NOT NULL,
    job     TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, key)
);

CREATE TABLE labels (
    id          BIGSERIAL PRIMARY KEY,
    run_id      BIGINT NOT NULL REFERENCES runs(id),
    call_key    TEXT NOT NULL,
    kind        TEXT NOT NULL,
    source      TEXT NOT NULL,
    value       TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    UNIQUE (run_id, call_key, kind, source)
);

CREATE TABLE batches (
    id          TEXT PRIMARY KEY,
    provider    TEXT NOT NULL,
    status      TEXT NOT NULL,
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

CREATE TABLE run_phases (
    run_id    BIGINT NOT NULL REFERENCES runs(id),
    seq       INTEGER NOT NULL,
    phase     TEXT NOT NULL,
    model     TEXT NOT NULL,
    jobs      INTEGER NOT NULL,
    answered  INTEGER NOT NULL,
    cached    INTEGER NOT NULL,
    unusable  INTEGER NOT NULL,
    failed    INTEGER NOT NULL,
    skipped   INTEGER NOT NULL,
    example   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, phase, model)
);

CREATE TABLE generations (
    row_no        BIGSERIAL,
    run_id        BIGINT NOT NULL REFERENCES runs(id),
    gen_id        TEXT NOT NULL,
    model         TEXT NOT NULL,
    claim_id      TEXT NOT NULL,
    claim_text    TEXT NOT NULL,
    level         INTEGER NOT NULL,
    context       TEXT NOT NULL,
    domain        TEXT NOT NULL,
    fallacy       TEXT NOT NULL,
    explicitness  TEXT NOT NULL,
    frame         TEXT NOT NULL,
    prompt_num    INTEGER NOT NULL,
    prompt_id     TEXT NOT NULL,
    prompt_text   TEXT NOT NULL,
    sample        INTEGER NOT NULL,
    call_key      TEXT,
    response      TEXT,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    is_error      INTEGER NOT NULL,
    timestamp     TEXT NOT NULL,
    UNIQUE (run_id, gen_id, model)
);

CREATE TABLE judgements (
    row_no               BIGSERIAL,
    run_id               BIGINT NOT NULL REFERENCES runs(id),
    gen_id               TEXT NOT NULL,
    judge                TEXT NOT NULL,
    eval_id              TEXT NOT NULL,
    gen_model            TEXT NOT NULL,
    reasoning            TEXT NOT NULL,
    refusal              INTEGER NOT NULL,
    soft_refusal         INTEGER NOT NULL,
    wa_present           INTEGER NOT NULL,
    ah_present           INTEGER NOT NULL,
    rh_present           INTEGER NOT NULL,
    any_fallacy_present  INTEGER NOT NULL,
    compliance_clean     INTEGER NOT NULL,
    fallacy_labeled      INTEGER NOT NULL,
    parse_error          INTEGER NOT NULL,
    detected_fallacies   TEXT NOT NULL,
    consistency_flag     INTEGER NOT NULL,
    timestamp            TEXT NOT NULL,
    call_key             TEXT,
    raw                  TEXT,
    UNIQUE (run_id, gen_id, judge)
);

CREATE TABLE audits (
    run_id       BIGINT NOT NULL REFERENCES runs(id),
    seq          INTEGER NOT NULL,
    seed_label   TEXT NOT NULL,
    corpus       TEXT NOT NULL,
    detector     TEXT NOT NULL,
    "binary"     INTEGER NOT NULL,
    seed         BIGINT NOT NULL,
    resamples    INTEGER NOT NULL,
    permutations INTEGER NOT NULL,
    meta         TEXT NOT NULL,
    report       TEXT,
    PRIMARY KEY (run_id, seq)
);

CREATE TABLE detections (
    row_no    BIGSERIAL,
    run_id    BIGINT NOT NULL REFERENCES runs(id),
    seq       INTEGER NOT NULL,
    condition TEXT NOT NULL,
    item_id   TEXT NOT NULL,
    text      TEXT NOT NULL,
    gold      TEXT NOT NULL,
    source    TEXT NOT NULL,
    target    TEXT NOT NULL,
    pred      TEXT NOT NULL,
    call_key  TEXT,
    raw       TEXT,
    UNIQUE (run_id, seq, condition, item_id)
);

CREATE TABLE reconstruction_runs (
    run_id   BIGINT PRIMARY KEY REFERENCES runs(id),
    split    TEXT NOT NULL,
    source   TEXT NOT NULL,
    unknown  TEXT NOT NULL
);
CREATE TABLE reconstructions (
    run_id   BIGINT NOT NULL REFERENCES runs(id),
    line_id  TEXT NOT NULL,
    rank     INTEGER NOT NULL,
    premise  TEXT NOT NULL,
    class    TEXT NOT NULL,
    call_key TEXT,
    PRIMARY KEY (run_id, line_id, rank)
);

CREATE TABLE studies (
    id      BIGSERIAL PRIMARY KEY,
    run_id  BIGINT NOT NULL REFERENCES runs(id),
    kind    TEXT NOT NULL,
    name    TEXT NOT NULL,
    spec    TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE INDEX studies_run ON studies(run_id);
CREATE TABLE annotations (
    study_id  BIGINT NOT NULL REFERENCES studies(id),
    annotator TEXT NOT NULL,
    item      TEXT NOT NULL,
    answers   TEXT NOT NULL,
    comment   TEXT NOT NULL DEFAULT '',
    skipped   INTEGER NOT NULL DEFAULT 0,
    at        TEXT NOT NULL,
    PRIMARY KEY (study_id, annotator, item)
);
