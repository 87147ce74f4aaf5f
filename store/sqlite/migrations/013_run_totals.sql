-- (Written to run again over a store an older test or release left at an
-- earlier version: the table is refilled and the triggers remade.)
-- A run's count of calls and of cache answers, kept by triggers as run_calls
-- changes, so listing runs reads one row per run instead of every link
-- (a store of a million calls lists its runs in milliseconds).
CREATE TABLE IF NOT EXISTS run_totals (
    run_id INTEGER PRIMARY KEY,
    calls  INTEGER NOT NULL,
    cached INTEGER NOT NULL
);
DELETE FROM run_totals;
INSERT INTO run_totals (run_id, calls, cached)
    SELECT run_id, COUNT(*), COALESCE(SUM(cached), 0) FROM run_calls GROUP BY run_id;
DROP TRIGGER IF EXISTS run_totals_insert;
CREATE TRIGGER run_totals_insert AFTER INSERT ON run_calls BEGIN
    INSERT INTO run_totals (run_id, calls, cached) VALUES (NEW.run_id, 1, NEW.cached)
        ON CONFLICT (run_id) DO UPDATE SET calls = calls + 1, cached = cached + excluded.cached;
END;
DROP TRIGGER IF EXISTS run_totals_delete;
CREATE TRIGGER run_totals_delete AFTER DELETE ON run_calls BEGIN
    UPDATE run_totals SET calls = calls - 1, cached = cached - OLD.cached WHERE run_id = OLD.run_id;
    DELETE FROM run_totals WHERE run_id = OLD.run_id AND calls = 0;
END;
DROP TRIGGER IF EXISTS run_totals_update;
CREATE TRIGGER run_totals_update AFTER UPDATE OF run_id, cached ON run_calls BEGIN
    UPDATE run_totals SET calls = calls - 1, cached = cached - OLD.cached WHERE run_id = OLD.run_id;
    DELETE FROM run_totals WHERE run_id = OLD.run_id AND calls = 0;
    INSERT INTO run_totals (run_id, calls, cached) VALUES (NEW.run_id, 1, NEW.cached)
        ON CONFLICT (run_id) DO UPDATE SET calls = calls + 1, cached = cached + excluded.cached;
END;
