-- Scheme Foils audits move to the records of the kinds its Task declares
-- (009): one record per audit (foils/audit, key: its number) and one per
-- detection (foils/detection, key: audit/condition/item id), encoded as the
-- Task encodes them; an LLM detector's detection names its call, whose
-- answer is its raw label. The store's own tables go.
INSERT INTO records (run_id, kind, seq, rec_key, call_key, body)
SELECT run_id, 'foils/audit', seq, seq::text, NULL,
    json_build_object('seed_label', seed_label, 'corpus', corpus, 'detector', detector, 'binary', "binary" <> 0,
        'seed', seed, 'resamples', resamples, 'permutations', permutations, 'meta', meta::json, 'report', report::json)::text
FROM audits;
INSERT INTO records (run_id, kind, seq, rec_key, call_key, body)
SELECT run_id, 'foils/detection', ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY seq, row_no),
    seq::text || '/' || condition || '/' || item_id, call_key,
    json_build_object('audit', seq, 'condition', condition, 'id', item_id, 'text', text, 'gold', gold, 'source', source,
        'target', target, 'pred', pred, 'raw', CASE WHEN call_key IS NULL THEN raw END)::text
FROM detections;
DROP TABLE detections;
DROP TABLE audits;
