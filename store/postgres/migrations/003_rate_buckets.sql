-- Token buckets that hold a provider model's requests/min and tokens/min
-- across every worker sharing the store: a request takes a token under a
-- row lock; the bucket refills at the configured rate.
CREATE TABLE rate_buckets (
    scope    TEXT PRIMARY KEY,
    tokens   DOUBLE PRECISION NOT NULL,
    updated  TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
