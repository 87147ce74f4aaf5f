-- (Written to run again over a store an older test or release left at an
-- earlier version: the table is refilled and the triggers remade.)
-- A run's calls, cache hits, tokens and spend per model, kept by triggers as
-- run_calls and calls change, so the run list and run pages read a few rows
-- per run instead of joining every link with its call. A link counts once
-- both its row and its call's exist; the columns are RunModelStats':
-- answered and failed calls, cache hits, tokens of answered calls, the cost
-- of calls not answered by the cache and how many of those have no price.
CREATE TABLE IF NOT EXISTS run_model_totals (
    run_id        INTEGER NOT NULL,
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    links         INTEGER NOT NULL,
    ok            INTEGER NOT NULL,
    errors        INTEGER NOT NULL,
    hits          INTEGER NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost          REAL NOT NULL,
    unpriced      INTEGER NOT NULL,
    PRIMARY KEY (run_id, provider, model)
);
CREATE INDEX IF NOT EXISTS run_calls_key ON run_calls(key);
DELETE FROM run_model_totals;
INSERT INTO run_model_totals
    SELECT rc.run_id, c.provider, c.model, COUNT(*),
        SUM(c.status = 'ok'), SUM(c.status = 'error'), SUM(rc.cached),
        COALESCE(SUM(CASE WHEN c.status = 'ok' THEN c.input_tokens END), 0),
        COALESCE(SUM(CASE WHEN c.status = 'ok' THEN c.output_tokens END), 0),
        COALESCE(SUM(CASE WHEN rc.cached = 0 THEN c.cost END), 0),
        SUM(c.status = 'ok' AND rc.cached = 0 AND c.cost IS NULL)
    FROM run_calls rc JOIN calls c ON c.key = rc.key GROUP BY rc.run_id, c.provider, c.model;

DROP TRIGGER IF EXISTS rmt_link_insert;
CREATE TRIGGER rmt_link_insert AFTER INSERT ON run_calls BEGIN
    INSERT INTO run_model_totals
        SELECT NEW.run_id, c.provider, c.model, 1, c.status = 'ok', c.status = 'error', NEW.cached,
            CASE WHEN c.status = 'ok' THEN c.input_tokens ELSE 0 END, CASE WHEN c.status = 'ok' THEN c.output_tokens ELSE 0 END,
            CASE WHEN NEW.cached = 0 THEN COALESCE(c.cost, 0) ELSE 0 END, c.status = 'ok' AND NEW.cached = 0 AND c.cost IS NULL
        FROM calls c WHERE c.key = NEW.key
        ON CONFLICT (run_id, provider, model) DO UPDATE SET links = links + excluded.links, ok = ok + excluded.ok,
            errors = errors + excluded.errors, hits = hits + excluded.hits, input_tokens = input_tokens + excluded.input_tokens,
            output_tokens = output_tokens + excluded.output_tokens, cost = cost + excluded.cost, unpriced = unpriced + excluded.unpriced;
END;
DROP TRIGGER IF EXISTS rmt_link_delete;
CREATE TRIGGER rmt_link_delete AFTER DELETE ON run_calls BEGIN
    UPDATE run_model_totals SET links = run_model_totals.links - 1, ok = run_model_totals.ok - (c.status = 'ok'), errors = run_model_totals.errors - (c.status = 'error'), hits = run_model_totals.hits - OLD.cached,
        input_tokens = run_model_totals.input_tokens - CASE WHEN c.status = 'ok' THEN c.input_tokens ELSE 0 END,
        output_tokens = run_model_totals.output_tokens - CASE WHEN c.status = 'ok' THEN c.output_tokens ELSE 0 END,
        cost = run_model_totals.cost - CASE WHEN OLD.cached = 0 THEN COALESCE(c.cost, 0) ELSE 0 END,
        unpriced = run_model_totals.unpriced - (c.status = 'ok' AND OLD.cached = 0 AND c.cost IS NULL)
    FROM calls c WHERE c.key = OLD.key AND run_model_totals.run_id = OLD.run_id
        AND run_model_totals.provider = c.provider AND run_model_totals.model = c.model;
    DELETE FROM run_model_totals WHERE run_id = OLD.run_id AND links = 0;
END;
DROP TRIGGER IF EXISTS rmt_call_insert;
CREATE TRIGGER rmt_call_insert AFTER INSERT ON calls BEGIN
    INSERT INTO run_model_totals
        SELECT rc.run_id, NEW.provider, NEW.model, COUNT(*), COUNT(*) * (NEW.status = 'ok'), COUNT(*) * (NEW.status = 'error'), SUM(rc.cached),
            SUM(CASE WHEN NEW.status = 'ok' THEN NEW.input_tokens ELSE 0 END), SUM(CASE WHEN NEW.status = 'ok' THEN NEW.output_tokens ELSE 0 END),
            SUM(CASE WHEN rc.cached = 0 THEN COALESCE(NEW.cost, 0) ELSE 0 END), SUM(NEW.status = 'ok' AND rc.cached = 0 AND NEW.cost IS NULL)
        FROM run_calls rc WHERE rc.key = NEW.key GROUP BY rc.run_id
        ON CONFLICT (run_id, provider, model) DO UPDATE SET links = links + excluded.links, ok = ok + excluded.ok,
            errors = errors + excluded.errors, hits = hits + excluded.hits, input_tokens = input_tokens + excluded.input_tokens,
            output_tokens = output_tokens + excluded.output_tokens, cost = cost + excluded.cost, unpriced = unpriced + excluded.unpriced;
END;
DROP TRIGGER IF EXISTS rmt_call_delete;
CREATE TRIGGER rmt_call_delete AFTER DELETE ON calls BEGIN
    UPDATE run_model_totals SET links = run_model_totals.links - x.n, ok = run_model_totals.ok - x.n * (OLD.status = 'ok'), errors = run_model_totals.errors - x.n * (OLD.status = 'error'),
        hits = run_model_totals.hits - x.xhits, input_tokens = run_model_totals.input_tokens - x.n * CASE WHEN OLD.status = 'ok' THEN OLD.input_tokens ELSE 0 END,
        output_tokens = run_model_totals.output_tokens - x.n * CASE WHEN OLD.status = 'ok' THEN OLD.output_tokens ELSE 0 END,
        cost = run_model_totals.cost - x.fresh * COALESCE(OLD.cost, 0), unpriced = run_model_totals.unpriced - x.fresh * (OLD.status = 'ok' AND OLD.cost IS NULL)
    FROM (SELECT run_id, COUNT(*) AS n, SUM(cached) AS xhits, SUM(cached = 0) AS fresh FROM run_calls WHERE key = OLD.key GROUP BY run_id) x
    WHERE run_model_totals.run_id = x.run_id AND run_model_totals.provider = OLD.provider AND run_model_totals.model = OLD.model;
    DELETE FROM run_model_totals WHERE links = 0 AND provider = OLD.provider AND model = OLD.model
        AND run_id IN (SELECT run_id FROM run_calls WHERE key = OLD.key);
END;
-- A call's answer can change (an error replaced, --cache refresh): its old
-- contribution goes and its new one comes, for every run that links it.
DROP TRIGGER IF EXISTS rmt_call_update;
CREATE TRIGGER rmt_call_update AFTER UPDATE OF provider, model, status, input_tokens, output_tokens, cost ON calls BEGIN
    UPDATE run_model_totals SET links = run_model_totals.links - x.n, ok = run_model_totals.ok - x.n * (OLD.status = 'ok'), errors = run_model_totals.errors - x.n * (OLD.status = 'error'),
        hits = run_model_totals.hits - x.xhits, input_tokens = run_model_totals.input_tokens - x.n * CASE WHEN OLD.status = 'ok' THEN OLD.input_tokens ELSE 0 END,
        output_tokens = run_model_totals.output_tokens - x.n * CASE WHEN OLD.status = 'ok' THEN OLD.output_tokens ELSE 0 END,
        cost = run_model_totals.cost - x.fresh * COALESCE(OLD.cost, 0), unpriced = run_model_totals.unpriced - x.fresh * (OLD.status = 'ok' AND OLD.cost IS NULL)
    FROM (SELECT run_id, COUNT(*) AS n, SUM(cached) AS xhits, SUM(cached = 0) AS fresh FROM run_calls WHERE key = OLD.key GROUP BY run_id) x
    WHERE run_model_totals.run_id = x.run_id AND run_model_totals.provider = OLD.provider AND run_model_totals.model = OLD.model;
    DELETE FROM run_model_totals WHERE links = 0 AND provider = OLD.provider AND model = OLD.model
        AND run_id IN (SELECT run_id FROM run_calls WHERE key = OLD.key);

    INSERT INTO run_model_totals
        SELECT rc.run_id, NEW.provider, NEW.model, COUNT(*), COUNT(*) * (NEW.status = 'ok'), COUNT(*) * (NEW.status = 'error'), SUM(rc.cached),
            SUM(CASE WHEN NEW.status = 'ok' THEN NEW.input_tokens ELSE 0 END), SUM(CASE WHEN NEW.status = 'ok' THEN NEW.output_tokens ELSE 0 END),
            SUM(CASE WHEN rc.cached = 0 THEN COALESCE(NEW.cost, 0) ELSE 0 END), SUM(NEW.status = 'ok' AND rc.cached = 0 AND NEW.cost IS NULL)
        FROM run_calls rc WHERE rc.key = NEW.key GROUP BY rc.run_id
        ON CONFLICT (run_id, provider, model) DO UPDATE SET links = links + excluded.links, ok = ok + excluded.ok,
            errors = errors + excluded.errors, hits = hits + excluded.hits, input_tokens = input_tokens + excluded.input_tokens,
            output_tokens = output_tokens + excluded.output_tokens, cost = cost + excluded.cost, unpriced = unpriced + excluded.unpriced;
END;
-- Links are only ever inserted or deleted; were one changed, it is as a
-- delete and an insert.
DROP TRIGGER IF EXISTS rmt_link_update;
CREATE TRIGGER rmt_link_update AFTER UPDATE OF run_id, key, cached ON run_calls BEGIN
    SELECT RAISE(ABORT, 'run_calls rows are inserted or deleted, never changed');
END;
