-- A worker's engine name (its call claims' owner), so that another worker
-- given the job of a worker silent past its lease takes the dead one's
-- claim over at once (engine.Options.DeadOwner) rather than after the
-- claim's 45 s lease.
ALTER TABLE workers ADD COLUMN IF NOT EXISTS proc TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS workers_proc ON workers (proc);
