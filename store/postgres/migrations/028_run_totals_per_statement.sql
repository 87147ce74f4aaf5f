-- A run's totals (013's run_totals, 014's run_model_totals) are kept once
-- per statement that links calls to runs or unlinks them, from the rows it
-- linked or unlinked (a transition table), where 013 and 014 kept them
-- once per row: a queuing run links a poll's answers in one statement, and
-- a trigger per row ran five statements of its own for each (about 0.4 ms
-- of the server's time a call, a third of it on a busy team). Each link
-- counts as 014's rmt_add counted it. A call changed after it is linked
-- keeps 014's trigger on calls (rmt_call); run_calls rows are still never
-- changed.
DROP TRIGGER IF EXISTS run_totals_keep ON run_calls;
DROP TRIGGER IF EXISTS rmt_link ON run_calls;

CREATE OR REPLACE FUNCTION run_calls_totals() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    sign INTEGER := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END;
BEGIN
    INSERT INTO run_totals AS t (run_id, calls, cached)
        SELECT l.run_id, sign * COUNT(*), sign * SUM(l.cached) FROM links l GROUP BY l.run_id
        ON CONFLICT (run_id) DO UPDATE SET calls = t.calls + EXCLUDED.calls, cached = t.cached + EXCLUDED.cached;
    INSERT INTO run_model_totals AS t
        SELECT l.run_id, c.provider, c.model, sign * COUNT(*),
            sign * COUNT(*) FILTER (WHERE c.status = 'ok'), sign * COUNT(*) FILTER (WHERE c.status = 'error'),
            sign * SUM(l.cached),
            sign * COALESCE(SUM(c.input_tokens) FILTER (WHERE c.status = 'ok'), 0),
            sign * COALESCE(SUM(c.output_tokens) FILTER (WHERE c.status = 'ok'), 0),
            sign * COALESCE(SUM(COALESCE(c.cost, 0)) FILTER (WHERE l.cached = 0), 0),
            sign * COUNT(*) FILTER (WHERE c.status = 'ok' AND l.cached = 0 AND c.cost IS NULL)
        FROM links l JOIN calls c ON c.key = l.key GROUP BY l.run_id, c.provider, c.model
        ON CONFLICT (run_id, provider, model) DO UPDATE SET links = t.links + EXCLUDED.links,
            ok = t.ok + EXCLUDED.ok, errors = t.errors + EXCLUDED.errors, hits = t.hits + EXCLUDED.hits,
            input_tokens = t.input_tokens + EXCLUDED.input_tokens, output_tokens = t.output_tokens + EXCLUDED.output_tokens,
            cost = t.cost + EXCLUDED.cost, unpriced = t.unpriced + EXCLUDED.unpriced;
    IF sign < 0 THEN
        DELETE FROM run_totals t WHERE t.calls = 0 AND t.run_id IN (SELECT l.run_id FROM links l);
        DELETE FROM run_model_totals t WHERE t.links = 0 AND t.run_id IN (SELECT l.run_id FROM links l);
    END IF;
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS run_calls_added ON run_calls;
CREATE TRIGGER run_calls_added AFTER INSERT ON run_calls REFERENCING NEW TABLE AS links
    FOR EACH STATEMENT EXECUTE FUNCTION run_calls_totals();
DROP TRIGGER IF EXISTS run_calls_removed ON run_calls;
CREATE TRIGGER run_calls_removed AFTER DELETE ON run_calls REFERENCING OLD TABLE AS links
    FOR EACH STATEMENT EXECUTE FUNCTION run_calls_totals();

CREATE OR REPLACE FUNCTION run_calls_unchanged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'run_calls rows are inserted or deleted, never changed';
END $$;
DROP TRIGGER IF EXISTS run_calls_unchanged ON run_calls;
CREATE TRIGGER run_calls_unchanged BEFORE UPDATE OF run_id, key, cached ON run_calls
    FOR EACH ROW EXECUTE FUNCTION run_calls_unchanged();
