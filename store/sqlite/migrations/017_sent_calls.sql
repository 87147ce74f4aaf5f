-- Calls on their way to a provider: a row is written just before a
-- request is sent and deleted when the call's outcome is stored. A process
-- killed while its calls are in flight leaves its rows, so a resumed run
-- counts what those calls may have cost (usd: the worst case booked for
-- them) in its spend and its budget, and the call made again counts the
-- dead process's attempts (#41 items 7 and 10).
CREATE TABLE IF NOT EXISTS sent_calls (
    key      TEXT NOT NULL,
    owner    TEXT NOT NULL,
    run_id   INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    usd      REAL NOT NULL,
    PRIMARY KEY (key, owner)
);
CREATE INDEX IF NOT EXISTS sent_calls_run ON sent_calls (run_id);
