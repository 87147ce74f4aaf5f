-- A queued job of a run made with --cache refresh is made again by the
-- worker even when the cache holds its answer (engine.Job.Refresh).
-- (The queue table went to River in 018; IF EXISTS lets a re-run pass.)
ALTER TABLE IF EXISTS queue ADD COLUMN IF NOT EXISTS refresh INTEGER NOT NULL DEFAULT 0;
