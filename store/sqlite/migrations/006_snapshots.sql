-- An analysis copy of a run's DeflectBench records, column by column in one
-- value per kind (package sqlstore, snapshot.go): written with the rows, in
-- their transaction, and read by the analysis in place of 72,000 rows. The
-- rows stay the records; a missing snapshot, or one of another format, is
-- read from them.
CREATE TABLE record_snapshots (
    run_id  INTEGER NOT NULL REFERENCES runs(id),
    kind    TEXT NOT NULL,
    format  INTEGER NOT NULL,
    data    BLOB NOT NULL,
    PRIMARY KEY (run_id, kind)
);
