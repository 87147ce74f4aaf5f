-- fl_claim claims a call's key for its owner, as store/sqlstore's
-- ClaimCall does (a claim of the same owner, or one whose lease ran out
-- before p_now, is taken), and, when it got the claim, reads the key's
-- answer: the one stored between the job's look-up and its claim (an
-- answer ends the claim, so a claim got may come after one). Each
-- statement of a function sees what committed before it began, so the
-- read sees an answer committed while the claim waited on its row — one
-- statement of both would read from before it. One round trip where a
-- claim and a read took two, which a worker paid for every call. Its one
-- row: got, answered, and the answer's columns (store/sqlstore's
-- CallColumns; placeholders, with a response of JSON null, when there is
-- none).
CREATE OR REPLACE FUNCTION fl_claim(p_key TEXT, p_owner TEXT, p_expires BIGINT, p_now BIGINT)
RETURNS TABLE (got BOOLEAN, answered BOOLEAN, key TEXT, namespace TEXT, provider TEXT, model TEXT, request TEXT,
    response TEXT, status TEXT, attempts INTEGER, input_tokens INTEGER, output_tokens INTEGER, reasoning_tokens INTEGER,
    cost DOUBLE PRECISION, latency_ms BIGINT, batch_id TEXT, created_at TEXT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    n INTEGER;
BEGIN
    INSERT INTO call_claims AS cc (key, owner, expires) VALUES (p_key, p_owner, p_expires)
        ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
        WHERE cc.owner = excluded.owner OR cc.expires < p_now;
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN
        RETURN QUERY SELECT true, true, c.key, c.namespace, c.provider, c.model, c.request, c.response, c.status,
            c.attempts, c.input_tokens, c.output_tokens, c.reasoning_tokens, c.cost, c.latency_ms, c.batch_id, c.created_at
            FROM calls c WHERE c.key = p_key AND c.status = 'ok';
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    RETURN QUERY SELECT n > 0, false, p_key, ''::TEXT, ''::TEXT, ''::TEXT, '{}'::TEXT, 'null'::TEXT, ''::TEXT,
        0, 0, 0, 0, NULL::DOUBLE PRECISION, 0::BIGINT, ''::TEXT, ''::TEXT;
END $$;
