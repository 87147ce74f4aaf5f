-- Human validation studies of a run (package study): the definition —
-- questions, sampled items with their hidden fields, decoys, annotators
-- with their queues — as one JSON document, and one row per annotator's
-- latest answer to an item.
CREATE TABLE studies (
    id      INTEGER PRIMARY KEY,
    run_id  INTEGER NOT NULL REFERENCES runs(id),
    kind    TEXT NOT NULL,
    name    TEXT NOT NULL,
    spec    TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE INDEX studies_run ON studies(run_id);
CREATE TABLE annotations (
    study_id  INTEGER NOT NULL REFERENCES studies(id),
    annotator TEXT NOT NULL,
    item      TEXT NOT NULL,
    answers   TEXT NOT NULL,
    comment   TEXT NOT NULL DEFAULT '',
    skipped   INTEGER NOT NULL DEFAULT 0,
    at        TEXT NOT NULL,
    PRIMARY KEY (study_id, annotator, item)
);
