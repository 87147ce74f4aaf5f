-- (Written to run again over a store an older test or release left at an
-- earlier version: the table is refilled and the triggers remade.)
-- A run's count of calls and of cache answers, kept by a trigger as
-- run_calls changes, so listing runs reads one row per run instead of every
-- link (as store/sqlite's 013).
CREATE TABLE IF NOT EXISTS run_totals (
    run_id BIGINT PRIMARY KEY,
    calls  BIGINT NOT NULL,
    cached BIGINT NOT NULL
);
DELETE FROM run_totals;
INSERT INTO run_totals (run_id, calls, cached)
    SELECT run_id, COUNT(*), COALESCE(SUM(cached), 0) FROM run_calls GROUP BY run_id;
CREATE OR REPLACE FUNCTION run_totals_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE run_totals SET calls = calls - 1, cached = cached - OLD.cached WHERE run_id = OLD.run_id;
        DELETE FROM run_totals WHERE run_id = OLD.run_id AND calls = 0;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO run_totals (run_id, calls, cached) VALUES (NEW.run_id, 1, NEW.cached)
            ON CONFLICT (run_id) DO UPDATE SET calls = run_totals.calls + 1, cached = run_totals.cached + EXCLUDED.cached;
    END IF;
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS run_totals_keep ON run_calls;
CREATE TRIGGER run_totals_keep AFTER INSERT OR DELETE OR UPDATE OF run_id, cached ON run_calls
    FOR EACH ROW EXECUTE FUNCTION run_totals_keep();
