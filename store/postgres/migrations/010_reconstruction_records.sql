-- Missci's reconstruction runs move to the records of the kinds its Task
-- declares (009): a run's setup (missci/setup, key "run") and one record per
-- reasoning line, its ranked predictions (missci/line, key: the line id),
-- encoded as the Task encodes them. The store's own tables go.
INSERT INTO records (run_id, kind, seq, rec_key, call_key, body)
SELECT run_id, 'missci/setup', 1, 'run', NULL, json_build_object('split', split, 'source', source, 'unknown', unknown::json)::text
FROM reconstruction_runs;
INSERT INTO records (run_id, kind, seq, rec_key, call_key, body)
SELECT run_id, 'missci/line', ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY line_id), line_id, MAX(call_key),
    json_agg(json_build_object('premise', premise, 'class', class) ORDER BY rank)::text
FROM reconstructions GROUP BY run_id, line_id;
DROP TABLE reconstructions;
DROP TABLE reconstruction_runs;
