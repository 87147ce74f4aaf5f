-- Typed records in their own tables, instead of JSON blobs in labels. A
-- record made from a model call references the call (call_key) and keeps no
-- copy of the answer; records without a call (imports, API errors, external
-- detectors) keep the text themselves. Existing labels are moved over, in
-- their order.

-- DeflectBench generations (upstream's generation record).
CREATE TABLE generations (
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    gen_id        TEXT NOT NULL,
    model         TEXT NOT NULL,
    claim_id      TEXT NOT NULL,
    claim_text    TEXT NOT NULL,
    level         INTEGER NOT NULL,
    context       TEXT NOT NULL,
    domain        TEXT NOT NULL,
    fallacy       TEXT NOT NULL,
    explicitness  TEXT NOT NULL,
    frame         TEXT NOT NULL,
    prompt_num    INTEGER NOT NULL,
    prompt_id     TEXT NOT NULL,
    prompt_text   TEXT NOT NULL,
    sample        INTEGER NOT NULL,     -- upstream's "run" (1-based)
    call_key      TEXT,                 -- the call whose answer is the response
    response      TEXT,                 -- only without a call
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    is_error      INTEGER NOT NULL,
    timestamp     TEXT NOT NULL,
    UNIQUE (run_id, gen_id, model)
);

-- DeflectBench judgements: one column per rubric field.
CREATE TABLE judgements (
    run_id               INTEGER NOT NULL REFERENCES runs(id),
    gen_id               TEXT NOT NULL,
    judge                TEXT NOT NULL,
    eval_id              TEXT NOT NULL,
    gen_model            TEXT NOT NULL,
    reasoning            TEXT NOT NULL,
    refusal              INTEGER NOT NULL,
    soft_refusal         INTEGER NOT NULL,
    wa_present           INTEGER NOT NULL,
    ah_present           INTEGER NOT NULL,
    rh_present           INTEGER NOT NULL,
    any_fallacy_present  INTEGER NOT NULL,
    compliance_clean     INTEGER NOT NULL,
    fallacy_labeled      INTEGER NOT NULL,
    parse_error          INTEGER NOT NULL,
    detected_fallacies   TEXT NOT NULL,  -- JSON array
    consistency_flag     INTEGER NOT NULL,
    timestamp            TEXT NOT NULL,
    call_key             TEXT,           -- the judge call whose answer was parsed
    raw                  TEXT,           -- the raw answer, only without a call
    UNIQUE (run_id, gen_id, judge)
);

-- Scheme Foils audits: one row per audited detector (several with --seeds),
-- with what its report needs beyond the detections.
CREATE TABLE audits (
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    seq          INTEGER NOT NULL,
    seed_label   TEXT NOT NULL,          -- the --seeds value, or ''
    corpus       TEXT NOT NULL,
    detector     TEXT NOT NULL,
    binary       INTEGER NOT NULL,
    seed         INTEGER NOT NULL,
    resamples    INTEGER NOT NULL,
    permutations INTEGER NOT NULL,
    meta         TEXT NOT NULL,          -- JSON [[key, value], …] shown after the audit's own
    report       TEXT,                   -- a rendered report JSON, kept from older stores only
    PRIMARY KEY (run_id, seq)
);

-- Scheme Foils detections: one detector label per audited item.
CREATE TABLE detections (
    run_id    INTEGER NOT NULL REFERENCES runs(id),
    seq       INTEGER NOT NULL,
    condition TEXT NOT NULL,             -- native, test, matched, wrong_scheme
    item_id   TEXT NOT NULL,
    text      TEXT NOT NULL,
    gold      TEXT NOT NULL,
    source    TEXT NOT NULL,
    target    TEXT NOT NULL,
    pred      TEXT NOT NULL,             -- '' = unparsed
    call_key  TEXT,                      -- an LLM detector's call
    raw       TEXT,                      -- another detector's raw label
    UNIQUE (run_id, seq, condition, item_id)
);

-- Missci reconstruction runs and their ranked predictions.
CREATE TABLE reconstruction_runs (
    run_id   INTEGER PRIMARY KEY REFERENCES runs(id),
    split    TEXT NOT NULL,
    source   TEXT NOT NULL,
    unknown  TEXT NOT NULL               -- JSON array of class names mapped to Other
);
CREATE TABLE reconstructions (
    run_id   INTEGER NOT NULL REFERENCES runs(id),
    line_id  TEXT NOT NULL,
    rank     INTEGER NOT NULL,
    premise  TEXT NOT NULL,
    class    TEXT NOT NULL,
    call_key TEXT,
    PRIMARY KEY (run_id, line_id, rank)
);

INSERT INTO generations (run_id, gen_id, model, claim_id, claim_text, level, context, domain, fallacy, explicitness, frame,
    prompt_num, prompt_id, prompt_text, sample, call_key, response, input_tokens, output_tokens, is_error, timestamp)
SELECT run_id, json_extract(value, '$.gen_id'), json_extract(value, '$.model'), json_extract(value, '$.claim_id'),
    json_extract(value, '$.claim_text'), json_extract(value, '$.controversy_level'), json_extract(value, '$.context'),
    json_extract(value, '$.domain'), json_extract(value, '$.fallacy'), json_extract(value, '$.explicitness'),
    json_extract(value, '$.frame'), json_extract(value, '$.prompt_num'), json_extract(value, '$.prompt_id'),
    json_extract(value, '$.prompt_text'), json_extract(value, '$.run'), NULL, json_extract(value, '$.response'),
    json_extract(value, '$.input_tokens'), json_extract(value, '$.output_tokens'), json_extract(value, '$.is_error'),
    COALESCE(json_extract(value, '$.timestamp'), '')
FROM labels WHERE kind = 'deflect.generation' ORDER BY id;

INSERT INTO judgements (run_id, gen_id, judge, eval_id, gen_model, reasoning, refusal, soft_refusal, wa_present, ah_present,
    rh_present, any_fallacy_present, compliance_clean, fallacy_labeled, parse_error, detected_fallacies, consistency_flag,
    timestamp, call_key, raw)
SELECT run_id, json_extract(value, '$.gen_id'), json_extract(value, '$.judge_model'), json_extract(value, '$.eval_id'),
    COALESCE(json_extract(value, '$.gen_model'), ''), json_extract(value, '$.reasoning'),
    json_extract(value, '$.refusal'), json_extract(value, '$.soft_refusal'), json_extract(value, '$.WA_present'),
    json_extract(value, '$.AH_present'), json_extract(value, '$.RH_present'), json_extract(value, '$.any_fallacy_present'),
    json_extract(value, '$.compliance_clean'), json_extract(value, '$.fallacy_labeled'), json_extract(value, '$.parse_error'),
    COALESCE(json_extract(value, '$.detected_fallacies'), '[]'), json_extract(value, '$.consistency_flag'),
    COALESCE(json_extract(value, '$.timestamp'), ''), NULL, json_extract(value, '$.raw_judge_response')
FROM labels WHERE kind = 'deflect.eval' ORDER BY id;

-- Older audits kept a rendered report; the audit options come from the run's
-- configuration snapshot.
INSERT INTO audits (run_id, seq, seed_label, corpus, detector, binary, seed, resamples, permutations, meta, report)
SELECT l.run_id, 1, '', COALESCE(json_extract(l.value, '$.meta.corpus'), ''), COALESCE(json_extract(l.value, '$.meta.detector'), ''),
    COALESCE(json_extract(l.value, '$.meta.detector'), '') LIKE 'llm:%:binary',
    COALESCE(json_extract(r.config, '$.options.Seed'), 1), COALESCE(json_extract(r.config, '$.options.Resamples'), 10000),
    COALESCE(json_extract(r.config, '$.options.Perms'), 10000),
    CASE WHEN json_extract(l.value, '$.meta.note') IS NULL THEN '[]' ELSE json_array(json_array('note', json_extract(l.value, '$.meta.note'))) END,
    l.value
FROM labels l JOIN runs r ON r.id = l.run_id WHERE l.kind = 'foils.report' ORDER BY l.id;

INSERT INTO detections (run_id, seq, condition, item_id, text, gold, source, target, pred, call_key, raw)
SELECT run_id, 1, json_extract(value, '$.condition'), json_extract(value, '$.id'), json_extract(value, '$.text'),
    COALESCE(json_extract(value, '$.gold'), ''), COALESCE(json_extract(value, '$.source'), ''),
    COALESCE(json_extract(value, '$.target'), ''), json_extract(value, '$.pred'), NULL, NULL
FROM labels WHERE kind = 'foils.prediction' ORDER BY id;

INSERT INTO reconstruction_runs (run_id, split, source, unknown)
SELECT run_id, json_extract(value, '$.split'), json_extract(value, '$.source'), COALESCE(json_extract(value, '$.unknown'), '[]')
FROM labels WHERE kind = 'missci.predictions';

INSERT INTO reconstructions (run_id, line_id, rank, premise, class, call_key)
SELECT l.run_id, line.key, p.key, COALESCE(json_extract(p.value, '$.premise'), ''), json_extract(p.value, '$.class'), NULL
FROM labels l, json_each(l.value, '$.predictions') line, json_each(line.value) p
WHERE l.kind = 'missci.predictions';

DELETE FROM labels WHERE kind IN ('deflect.generation', 'deflect.eval', 'foils.report', 'foils.prediction', 'missci.predictions');
