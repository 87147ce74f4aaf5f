-- What the workers have booked for calls in flight, apart from what they
-- spent: a call that does not fit while others are booked waits for them
-- to settle (most cost far less than their worst case) instead of stopping
-- the run at a fraction of its budget (#42 item 2). spent is now what was
-- paid; spent + reserved never passes budget.
ALTER TABLE run_budgets ADD COLUMN IF NOT EXISTS reserved DOUBLE PRECISION NOT NULL DEFAULT 0;
