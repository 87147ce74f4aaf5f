-- The work queue moves onto River (github.com/riverqueue/river): its own
-- tables (river_job, river_queue, river_leader, …) come from River's
-- migrations, applied after these; what fallacylab keeps beside them:
--
-- queue_names: every River queue a run has put calls in, with what it
-- serves (a provider endpoint and model, and whether its runs hold a
-- budget), so that a worker learns which queues exist and which of them
-- it can serve.
CREATE TABLE IF NOT EXISTS queue_names (
    name       TEXT PRIMARY KEY,
    provider   TEXT NOT NULL,
    model      TEXT NOT NULL,
    endpoint   TEXT NOT NULL DEFAULT '',
    budgeted   BOOLEAN NOT NULL DEFAULT false,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- run_queues: which queues a run has used (`fallacylab queue`, and a
-- worker's --until-empty: a live run between two phases holds no open job).
CREATE TABLE IF NOT EXISTS run_queues (
    run_id BIGINT NOT NULL,
    queue  TEXT NOT NULL,
    PRIMARY KEY (run_id, queue)
);
-- workers: each worker process (its River client id), its label, what it
-- serves and its last heartbeat (`fallacylab queue` lists those alive).
CREATE TABLE IF NOT EXISTS workers (
    id           TEXT PRIMARY KEY,
    label        TEXT NOT NULL,
    serves       TEXT NOT NULL DEFAULT '',
    working      INTEGER NOT NULL DEFAULT 0,
    started_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
