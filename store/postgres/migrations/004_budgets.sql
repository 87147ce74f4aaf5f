-- The budgets of runs spread over workers (--workers 0 --budget USD): every
-- worker books a call's estimated cost here before sending it and settles
-- the actual cost after, so the workers together never pass the run's
-- budget. stopped: a call was refused, so every later one is too (as a
-- local run stops at its budget).
CREATE TABLE run_budgets (
    run_id   BIGINT PRIMARY KEY,
    budget   DOUBLE PRECISION NOT NULL,
    spent    DOUBLE PRECISION NOT NULL DEFAULT 0,
    stopped  BOOLEAN NOT NULL DEFAULT false
);
