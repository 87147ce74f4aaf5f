-- Push-back signals between the processes sharing the store: each process
-- (proc) keeps its running count of a provider model's pushed-back calls
-- (429, 529, 503) and how long it was told to hold its calls; every other
-- process reads the others' counts into its adaptive concurrency and holds
-- its calls as long as the longest hold.
CREATE TABLE pushback (
    scope        TEXT NOT NULL,
    proc         TEXT NOT NULL,
    pushed       BIGINT NOT NULL DEFAULT 0,
    pause_until  TIMESTAMPTZ,
    updated      TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (scope, proc)
);
