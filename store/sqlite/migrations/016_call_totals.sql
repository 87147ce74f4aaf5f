-- (Written to run again over a store an older test or release left at an
-- earlier version: the table is refilled and the triggers remade.)
-- The cache's calls per provider and model — answered and failed calls,
-- tokens of answered calls, spend, answered calls without a price — kept
-- by triggers as calls are stored, replaced and deleted, so that `cache
-- stats` reads a row per model instead of every call (0.5 s per million
-- calls). Only SQLite keeps it: on the team store every worker's call would
-- update the same row, so PostgreSQL counts the calls when asked.
CREATE TABLE IF NOT EXISTS call_totals (
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    calls         INTEGER NOT NULL,
    ok            INTEGER NOT NULL,
    errors        INTEGER NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost          REAL NOT NULL,
    unpriced      INTEGER NOT NULL,
    PRIMARY KEY (provider, model)
);
DELETE FROM call_totals;
INSERT INTO call_totals
    SELECT provider, model, COUNT(*), SUM(status = 'ok'), SUM(status = 'error'),
        COALESCE(SUM(CASE WHEN status = 'ok' THEN input_tokens END), 0),
        COALESCE(SUM(CASE WHEN status = 'ok' THEN output_tokens END), 0),
        COALESCE(SUM(cost), 0), SUM(status = 'ok' AND cost IS NULL)
    FROM calls GROUP BY provider, model;

DROP TRIGGER IF EXISTS ct_call_insert;
CREATE TRIGGER ct_call_insert AFTER INSERT ON calls BEGIN
    INSERT INTO call_totals VALUES (NEW.provider, NEW.model, 1, NEW.status = 'ok', NEW.status = 'error',
        CASE WHEN NEW.status = 'ok' THEN NEW.input_tokens ELSE 0 END, CASE WHEN NEW.status = 'ok' THEN NEW.output_tokens ELSE 0 END,
        COALESCE(NEW.cost, 0), NEW.status = 'ok' AND NEW.cost IS NULL)
        ON CONFLICT (provider, model) DO UPDATE SET calls = calls + 1, ok = ok + excluded.ok, errors = errors + excluded.errors,
            input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
            cost = cost + excluded.cost, unpriced = unpriced + excluded.unpriced;
END;
DROP TRIGGER IF EXISTS ct_call_delete;
CREATE TRIGGER ct_call_delete AFTER DELETE ON calls BEGIN
    UPDATE call_totals SET calls = calls - 1, ok = ok - (OLD.status = 'ok'), errors = errors - (OLD.status = 'error'),
        input_tokens = input_tokens - CASE WHEN OLD.status = 'ok' THEN OLD.input_tokens ELSE 0 END,
        output_tokens = output_tokens - CASE WHEN OLD.status = 'ok' THEN OLD.output_tokens ELSE 0 END,
        cost = cost - COALESCE(OLD.cost, 0), unpriced = unpriced - (OLD.status = 'ok' AND OLD.cost IS NULL)
    WHERE provider = OLD.provider AND model = OLD.model;
    DELETE FROM call_totals WHERE provider = OLD.provider AND model = OLD.model AND calls = 0;
END;
-- A call's answer can change (an error replaced, --cache refresh): its old
-- row's part goes and its new one's comes.
DROP TRIGGER IF EXISTS ct_call_update;
CREATE TRIGGER ct_call_update AFTER UPDATE OF provider, model, status, input_tokens, output_tokens, cost ON calls BEGIN
    UPDATE call_totals SET calls = calls - 1, ok = ok - (OLD.status = 'ok'), errors = errors - (OLD.status = 'error'),
        input_tokens = input_tokens - CASE WHEN OLD.status = 'ok' THEN OLD.input_tokens ELSE 0 END,
        output_tokens = output_tokens - CASE WHEN OLD.status = 'ok' THEN OLD.output_tokens ELSE 0 END,
        cost = cost - COALESCE(OLD.cost, 0), unpriced = unpriced - (OLD.status = 'ok' AND OLD.cost IS NULL)
    WHERE provider = OLD.provider AND model = OLD.model;
    DELETE FROM call_totals WHERE provider = OLD.provider AND model = OLD.model AND calls = 0;
    INSERT INTO call_totals VALUES (NEW.provider, NEW.model, 1, NEW.status = 'ok', NEW.status = 'error',
        CASE WHEN NEW.status = 'ok' THEN NEW.input_tokens ELSE 0 END, CASE WHEN NEW.status = 'ok' THEN NEW.output_tokens ELSE 0 END,
        COALESCE(NEW.cost, 0), NEW.status = 'ok' AND NEW.cost IS NULL)
        ON CONFLICT (provider, model) DO UPDATE SET calls = calls + 1, ok = ok + excluded.ok, errors = errors + excluded.errors,
            input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
            cost = cost + excluded.cost, unpriced = unpriced + excluded.unpriced;
END;
