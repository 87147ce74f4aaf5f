-- DeflectBench's generations and judgements move to the records of the
-- kinds its Task declares (009): deflect/generation (key: model|gen_id) and
-- deflect/eval (key: gen_id|judge), encoded as the Task encodes them, in
-- the order they were written; a record made from a call names it, and the
-- call holds its answer. Their snapshots keep their encoding under the
-- records' kinds. The store's own tables go.
INSERT INTO records (run_id, kind, seq, rec_key, call_key, body)
SELECT run_id, 'deflect/generation', ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY row_no), model || '|' || gen_id, call_key,
    json_build_object('gen_id', gen_id, 'claim_id', claim_id, 'claim_text', claim_text, 'controversy_level', level, 'context', context,
        'domain', domain, 'fallacy', fallacy, 'explicitness', explicitness, 'frame', frame, 'prompt_num', prompt_num,
        'prompt_id', prompt_id, 'prompt_text', prompt_text, 'model', model, 'run', sample,
        'response', CASE WHEN call_key IS NULL THEN response ELSE '' END, 'input_tokens', input_tokens,
        'output_tokens', output_tokens, 'is_error', is_error, 'timestamp', timestamp)::text
FROM generations;
INSERT INTO records (run_id, kind, seq, rec_key, call_key, body)
SELECT run_id, 'deflect/eval', ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY row_no), gen_id || '|' || judge, call_key,
    json_build_object('eval_id', eval_id, 'gen_id', gen_id, 'judge_model', judge, 'gen_model', gen_model, 'reasoning', reasoning,
        'parse_error', parse_error, 'raw', CASE WHEN call_key IS NULL THEN raw END,
        'scores', json_build_array(refusal, soft_refusal, wa_present, ah_present, rh_present, any_fallacy_present, compliance_clean, fallacy_labeled),
        'detected_fallacies', detected_fallacies::json, 'consistency_flag', consistency_flag, 'timestamp', timestamp)::text
FROM judgements;
UPDATE record_snapshots SET kind = 'deflect/generation' WHERE kind = 'deflect-generations';
UPDATE record_snapshots SET kind = 'deflect/eval' WHERE kind = 'deflect-judgements';
DROP TABLE generations;
DROP TABLE judgements;
