-- A queued job of a run made with --cache refresh is made again by the
-- worker even when the cache holds its answer (engine.Job.Refresh).
ALTER TABLE queue ADD COLUMN IF NOT EXISTS refresh INTEGER NOT NULL DEFAULT 0;
