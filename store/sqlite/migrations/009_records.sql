-- Records of the kinds a benchmark declares (bench.Task), stored the same way
-- for every benchmark: the store knows no benchmark. A record is the Task's
-- own encoding (JSON, kept byte for byte) under its kind and its key within
-- the kind, in the order it was written; a record made from a model call
-- names the call (call_key), whose answer is stored once, in calls.
CREATE TABLE records (
    run_id   INTEGER NOT NULL REFERENCES runs(id),
    kind     TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    rec_key  TEXT NOT NULL,
    call_key TEXT,
    body     TEXT NOT NULL,
    PRIMARY KEY (run_id, kind, rec_key)
);
CREATE INDEX records_order ON records(run_id, kind, seq);
CREATE INDEX records_call ON records(call_key) WHERE call_key IS NOT NULL;
