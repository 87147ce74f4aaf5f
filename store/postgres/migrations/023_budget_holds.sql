-- What each worker has booked against a run's budget for its calls in
-- flight, apart (#42): a worker killed with calls booked leaves its row,
-- and the next booking releases it once the worker has been silent past
-- its own lease (workers.lease_ms); what the dead worker had sent stays
-- booked through its sent_calls marks (most likely paid for) until the
-- call is made again and its cost, the dead attempts included, settled.
-- Before, one sum of bookings kept a killed worker's share for ever, and
-- a run whose budget was nearly spent waited for it without end.
CREATE TABLE IF NOT EXISTS budget_holds (
    run_id BIGINT NOT NULL,
    holder TEXT NOT NULL,
    usd    DOUBLE PRECISION NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, holder)
);
ALTER TABLE workers ADD COLUMN IF NOT EXISTS lease_ms BIGINT NOT NULL DEFAULT 10000;
ALTER TABLE run_budgets DROP COLUMN IF EXISTS reserved;
