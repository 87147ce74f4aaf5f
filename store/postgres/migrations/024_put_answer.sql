-- fl_put_answer stores a call's outcome as store/sqlstore's PutAnswer does
-- in its transaction — the sent marks of its key ended and counted, the
-- call inserted (or an answer stored first kept, and what this outcome
-- sent that nobody counted added to it), linked to its run, its claim
-- ended — in one statement: one round trip where that transaction took
-- six, which a worker paid for every call (each a wake-up of both
-- processes, or a network trip to a database elsewhere). Its outcome: the
-- attempts and cost the call was stored with, and whether an earlier
-- answer was kept.
CREATE OR REPLACE FUNCTION fl_put_answer(
    p_key TEXT, p_namespace TEXT, p_provider TEXT, p_model TEXT, p_request TEXT, p_response TEXT,
    p_status TEXT, p_error TEXT, p_attempts INTEGER, p_input INTEGER, p_output INTEGER,
    p_reasoning INTEGER, p_cost DOUBLE PRECISION, p_latency BIGINT, p_batch TEXT, p_created TEXT,
    p_owner TEXT, p_replace BOOLEAN, p_run BIGINT, p_job TEXT,
    OUT o_attempts INTEGER, OUT o_cost DOUBLE PRECISION, OUT o_kept BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
    m RECORD;
    others INTEGER := 0;
    own BOOLEAN := false;
    paid INTEGER;
    n INTEGER;
    add_cost DOUBLE PRECISION;
BEGIN
    -- The marks end; those of other processes count in this outcome (a
    -- call without an owner counts none: no mark tells a new attempt from
    -- a result stored again).
    FOR m IN DELETE FROM sent_calls s WHERE s.key = p_key RETURNING s.owner, s.attempts LOOP
        IF p_owner = '' THEN
            CONTINUE;
        ELSIF m.owner = p_owner THEN
            own := true;
        ELSE
            others := others + m.attempts;
        END IF;
    END LOOP;
    paid := others + 1;
    o_attempts := others + p_attempts;
    o_cost := p_cost;
    IF p_cost IS NOT NULL AND paid <> 1 THEN
        o_cost := p_cost * paid;
    END IF;
    INSERT INTO calls AS c (key, namespace, provider, model, request, response, status, error, attempts,
        input_tokens, output_tokens, reasoning_tokens, cost, latency_ms, batch_id, created_at)
    VALUES (p_key, p_namespace, p_provider, p_model, p_request, p_response, p_status, p_error, o_attempts,
        p_input, p_output, p_reasoning, o_cost, p_latency, p_batch, p_created)
    ON CONFLICT (key) DO UPDATE SET response = excluded.response, status = excluded.status, error = excluded.error,
        attempts = c.attempts + excluded.attempts, input_tokens = excluded.input_tokens,
        output_tokens = excluded.output_tokens, reasoning_tokens = excluded.reasoning_tokens, cost = excluded.cost,
        latency_ms = excluded.latency_ms, batch_id = excluded.batch_id, created_at = excluded.created_at
    WHERE (p_replace AND p_status = 'ok') OR c.status <> 'ok';
    GET DIAGNOSTICS n = ROW_COUNT;
    o_kept := n = 0;
    IF o_kept THEN
        -- An answer was there first: what this outcome sent that nobody
        -- counted yet counts in it.
        n := others;
        paid := others;
        IF own THEN
            n := n + p_attempts;
            paid := paid + 1;
        END IF;
        add_cost := p_cost;
        IF p_cost IS NOT NULL AND paid <> 1 THEN
            add_cost := p_cost * paid;
        END IF;
        IF add_cost IS NOT NULL THEN
            UPDATE calls c SET attempts = c.attempts + n, cost = COALESCE(c.cost, 0) + add_cost
                WHERE c.key = p_key AND NOT (n = 0 AND add_cost = 0);
        ELSIF n <> 0 THEN
            UPDATE calls c SET attempts = c.attempts + n WHERE c.key = p_key;
        END IF;
    END IF;
    IF p_run <> 0 THEN
        INSERT INTO run_calls (run_id, key, cached, job) VALUES (p_run, p_key, 0, p_job)
            ON CONFLICT (run_id, key) DO NOTHING;
    END IF;
    DELETE FROM call_claims cc WHERE cc.key = p_key;
END $$;
