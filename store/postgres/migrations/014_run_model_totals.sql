-- A run's calls, cache hits, tokens and spend per model, kept by triggers as
-- run_calls and calls change (as store/sqlite's 014, which says what each
-- column counts). Written to run again over an older store: the table is
-- refilled and the triggers remade.
CREATE TABLE IF NOT EXISTS run_model_totals (
    run_id        BIGINT NOT NULL,
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    links         BIGINT NOT NULL,
    ok            BIGINT NOT NULL,
    errors        BIGINT NOT NULL,
    hits          BIGINT NOT NULL,
    input_tokens  BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    cost          DOUBLE PRECISION NOT NULL,
    unpriced      BIGINT NOT NULL,
    PRIMARY KEY (run_id, provider, model)
);
CREATE INDEX IF NOT EXISTS run_calls_key ON run_calls(key);
DELETE FROM run_model_totals;
INSERT INTO run_model_totals
    SELECT rc.run_id, c.provider, c.model, COUNT(*),
        COUNT(*) FILTER (WHERE c.status = 'ok'), COUNT(*) FILTER (WHERE c.status = 'error'), SUM(rc.cached),
        COALESCE(SUM(c.input_tokens) FILTER (WHERE c.status = 'ok'), 0),
        COALESCE(SUM(c.output_tokens) FILTER (WHERE c.status = 'ok'), 0),
        COALESCE(SUM(c.cost) FILTER (WHERE rc.cached = 0), 0),
        COUNT(*) FILTER (WHERE c.status = 'ok' AND rc.cached = 0 AND c.cost IS NULL)
    FROM run_calls rc JOIN calls c ON c.key = rc.key GROUP BY rc.run_id, c.provider, c.model;

-- rmt_add adds sign × the contribution of one link (run, cached) to a call.
CREATE OR REPLACE FUNCTION rmt_add(p_run BIGINT, p_cached INTEGER, c calls, sign INTEGER) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    ok INTEGER := CASE WHEN c.status = 'ok' THEN 1 ELSE 0 END;
BEGIN
    INSERT INTO run_model_totals VALUES (p_run, c.provider, c.model, sign, sign * ok, sign * (CASE WHEN c.status = 'error' THEN 1 ELSE 0 END),
        sign * p_cached, sign * ok * c.input_tokens, sign * ok * c.output_tokens,
        sign * (CASE WHEN p_cached = 0 THEN COALESCE(c.cost, 0) ELSE 0 END),
        sign * (CASE WHEN ok = 1 AND p_cached = 0 AND c.cost IS NULL THEN 1 ELSE 0 END))
    ON CONFLICT (run_id, provider, model) DO UPDATE SET links = run_model_totals.links + EXCLUDED.links,
        ok = run_model_totals.ok + EXCLUDED.ok, errors = run_model_totals.errors + EXCLUDED.errors,
        hits = run_model_totals.hits + EXCLUDED.hits, input_tokens = run_model_totals.input_tokens + EXCLUDED.input_tokens,
        output_tokens = run_model_totals.output_tokens + EXCLUDED.output_tokens, cost = run_model_totals.cost + EXCLUDED.cost,
        unpriced = run_model_totals.unpriced + EXCLUDED.unpriced;
    DELETE FROM run_model_totals WHERE run_id = p_run AND provider = c.provider AND model = c.model AND links = 0;
END $$;

CREATE OR REPLACE FUNCTION rmt_link() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    c calls;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        RAISE EXCEPTION 'run_calls rows are inserted or deleted, never changed';
    END IF;
    IF TG_OP = 'INSERT' THEN
        SELECT * INTO c FROM calls WHERE key = NEW.key;
        IF FOUND THEN PERFORM rmt_add(NEW.run_id, NEW.cached, c, 1); END IF;
    ELSE
        SELECT * INTO c FROM calls WHERE key = OLD.key;
        IF FOUND THEN PERFORM rmt_add(OLD.run_id, OLD.cached, c, -1); END IF;
    END IF;
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS rmt_link ON run_calls;
CREATE TRIGGER rmt_link AFTER INSERT OR DELETE OR UPDATE OF run_id, key, cached ON run_calls
    FOR EACH ROW EXECUTE FUNCTION rmt_link();

CREATE OR REPLACE FUNCTION rmt_call() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    l RECORD;
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        FOR l IN SELECT run_id, cached FROM run_calls WHERE key = OLD.key LOOP
            PERFORM rmt_add(l.run_id, l.cached, OLD, -1);
        END LOOP;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        FOR l IN SELECT run_id, cached FROM run_calls WHERE key = NEW.key LOOP
            PERFORM rmt_add(l.run_id, l.cached, NEW, 1);
        END LOOP;
    END IF;
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS rmt_call ON calls;
CREATE TRIGGER rmt_call AFTER INSERT OR DELETE OR UPDATE OF provider, model, status, input_tokens, output_tokens, cost ON calls
    FOR EACH ROW EXECUTE FUNCTION rmt_call();
