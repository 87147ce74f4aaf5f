-- A run's budget (--budget), kept with the run so that it bounds the run's
-- whole cost — every phase, every resume — and not one invocation's.
CREATE TABLE run_max_spend (
    run_id BIGINT PRIMARY KEY REFERENCES runs(id),
    usd    DOUBLE PRECISION NOT NULL
);
