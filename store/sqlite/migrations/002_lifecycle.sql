-- Run lifecycle: who owns a running run (to notice a dead process), what
-- identifies the command (to resume the same run), why a run ended as it did.
ALTER TABLE runs ADD COLUMN fingerprint TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN heartbeat_at TEXT;
ALTER TABLE runs ADD COLUMN reason TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_fingerprint ON runs(fingerprint);

-- What every phase of a run did, per model: answered (from cache included),
-- unusable answers (not parsable) with one raw example, failed jobs.
CREATE TABLE run_phases (
    run_id    INTEGER NOT NULL REFERENCES runs(id),
    seq       INTEGER NOT NULL,        -- phase order within the run
    phase     TEXT NOT NULL,
    model     TEXT NOT NULL,
    jobs      INTEGER NOT NULL,
    answered  INTEGER NOT NULL,
    cached    INTEGER NOT NULL,
    unusable  INTEGER NOT NULL,
    failed    INTEGER NOT NULL,
    skipped   INTEGER NOT NULL,
    example   TEXT NOT NULL DEFAULT '', -- one unusable raw answer
    PRIMARY KEY (run_id, phase, model)
);
