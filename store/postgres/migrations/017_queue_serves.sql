-- Workers lease only the jobs they can serve (their providers, less the
-- models they skip): the job's provider and model as columns, and an index
-- of the open jobs in queue order, so that a lease reads the first open
-- jobs it can serve rather than every open job's document (366 ms with
-- 100,000 open jobs without it). (The queue table went to River in 018;
-- the guard lets a re-run pass.)
DO $$
BEGIN
    IF to_regclass('queue') IS NOT NULL THEN
        ALTER TABLE queue ADD COLUMN IF NOT EXISTS provider TEXT NOT NULL DEFAULT '';
        ALTER TABLE queue ADD COLUMN IF NOT EXISTS model TEXT NOT NULL DEFAULT '';
        UPDATE queue SET provider = job::jsonb->>'provider', model = job::jsonb->>'model' WHERE provider = '';
        CREATE INDEX IF NOT EXISTS queue_open ON queue (seq) WHERE status IN ('queued', 'leased');
    END IF;
END $$;
