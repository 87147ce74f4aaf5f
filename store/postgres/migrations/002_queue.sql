-- The work queue of runs spread over workers (fallacylab worker): one row per
-- call to make, keyed by the call's cache key, so a call two runs need is
-- made once. A worker leases rows (FOR UPDATE SKIP LOCKED) for a while and
-- renews the lease while it works; a dead worker's rows return to the queue
-- when their lease runs out.
CREATE TABLE queue (
    key          TEXT PRIMARY KEY,
    seq          BIGSERIAL,
    run_id       BIGINT NOT NULL,
    job_id       TEXT NOT NULL,
    job          TEXT NOT NULL,          -- engine.Job.Canonical()
    status       TEXT NOT NULL,          -- queued | leased | done | failed
    worker       TEXT NOT NULL DEFAULT '',
    lease_until  TIMESTAMPTZ,
    leases       INTEGER NOT NULL DEFAULT 0,
    error        TEXT NOT NULL DEFAULT '',
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX queue_ready ON queue (status, seq);
CREATE INDEX queue_run ON queue (run_id);
