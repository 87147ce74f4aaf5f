package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/fallacylab/fallacylab/bench/deflect"
)

// bumpRecords moves a run's records version on, in the transaction that
// writes its records.
func bumpRecords(tx Tx, runID int64) error {
	if _, err := tx.Exec(`UPDATE runs SET records_version = records_version + 1 WHERE id = ?`, runID); err != nil {
		return fmt.Errorf("records version of run %d: %w", runID, err)
	}
	return nil
}

// Records are typed rows in their own tables (migration 003). A record made
// from a model call stores the call's key, not its text: the answer is
// stored once, in calls, and joined back on read.

// PutDeflect stores a run's DeflectBench records in one transaction: each
// non-nil slice replaces the run's records of its kind (nil keeps them),
// with its snapshot (snapshot.go), encoded on another core while the rows
// are written. A record whose key (generation and model, or generation and
// judge) came before replaces that one's values, in its place, in both
// stores.
func (s *Store) PutDeflect(ctx context.Context, runID int64, gens []deflect.Generation, evals []deflect.Eval) error {
	var later func() ([]deflect.Eval, error)
	if evals != nil {
		later = func() ([]deflect.Eval, error) { return evals, nil }
	}
	return s.putDeflect(ctx, runID, gens, later)
}

// PutDeflectThen is PutDeflect of gens and of the judgements evals returns,
// which it calls once the generations are written, in the same transaction:
// the judgements can be read (parsed, say) while the generations are
// written. An error from evals undoes the whole write and is returned.
func (s *Store) PutDeflectThen(ctx context.Context, runID int64, gens []deflect.Generation, evals func() ([]deflect.Eval, error)) error {
	return s.putDeflect(ctx, runID, gens, sync.OnceValues(evals)) // once: a busy store tries the write again
}

func (s *Store) putDeflect(ctx context.Context, runID int64, gens []deflect.Generation, later func() ([]deflect.Eval, error)) error {
	var genSnap *pending
	if gens != nil {
		gens = upserted(gens, func(g *deflect.Generation) [2]string { return [2]string{g.GenID, g.Model} })
		genSnap = encodeLater(func() ([]byte, error) { return encodeGenerations(gens) })
	}
	type judged struct {
		evals []deflect.Eval
		snap  *pending
		err   error
	}
	var evalsOnce func() judged
	if later != nil {
		evalsOnce = sync.OnceValue(func() judged {
			evals, err := later()
			if err != nil {
				return judged{err: err}
			}
			if evals == nil {
				evals = []deflect.Eval{}
			}
			evals = upserted(evals, func(e *deflect.Eval) [2]string { return [2]string{e.GenID, e.JudgeModel} })
			return judged{evals: evals, snap: encodeLater(func() ([]byte, error) { return encodeJudgements(evals) })}
		})
	}
	return s.write(context.WithoutCancel(ctx), func(tx Tx) error {
		if err := bumpRecords(tx, runID); err != nil {
			return err
		}
		if gens != nil {
			if err := putGenerations(tx, runID, gens); err != nil {
				return err
			}
			data, err := genSnap.wait()
			if err := putSnapshot(tx, runID, snapGenerations, data, err); err != nil {
				return err
			}
		}
		if evalsOnce != nil {
			j := evalsOnce()
			if j.err != nil {
				return j.err
			}
			if err := putJudgements(tx, runID, j.evals); err != nil {
				return err
			}
			data, err := j.snap.wait()
			if err := putSnapshot(tx, runID, snapJudgements, data, err); err != nil {
				return err
			}
		}
		return nil
	})
}

func putGenerations(tx Tx, runID int64, gens []deflect.Generation) error {
	if _, err := tx.Exec(`DELETE FROM generations WHERE run_id = ?`, runID); err != nil {
		return fmt.Errorf("replace generations of run %d: %w", runID, err)
	}
	return insertRows(tx, `INSERT INTO generations (run_id, gen_id, model, claim_id, claim_text, level, context, domain, fallacy,
		explicitness, frame, prompt_num, prompt_id, prompt_text, sample, call_key, response, input_tokens, output_tokens, is_error, timestamp)
		VALUES `, 21, `
		ON CONFLICT(run_id, gen_id, model) DO UPDATE SET claim_id = excluded.claim_id, claim_text = excluded.claim_text,
		level = excluded.level, context = excluded.context, domain = excluded.domain, fallacy = excluded.fallacy,
		explicitness = excluded.explicitness, frame = excluded.frame, prompt_num = excluded.prompt_num, prompt_id = excluded.prompt_id,
		prompt_text = excluded.prompt_text, sample = excluded.sample, call_key = excluded.call_key, response = excluded.response,
		input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, is_error = excluded.is_error, timestamp = excluded.timestamp`,
		len(gens), func(i int, args []any) ([]any, error) {
			g := gens[i]
			key, resp := nullIfEmpty(g.CallKey), any(g.Response)
			if g.CallKey != "" {
				resp = nil // the call holds it
			}
			return append(args, runID, g.GenID, g.Model, g.ClaimID, g.ClaimText, g.Level, g.Context, g.Domain, g.Fallacy, g.Explicitness,
				g.Frame, g.PromptNum, g.PromptID, g.PromptText, g.Run, key, resp, g.InputTokens, g.OutputTokens, g.IsError, g.Timestamp), nil
		}, func(i int) string { return "generation " + gens[i].GenID })
}

// rowsPerInsert is how many rows one INSERT statement carries: one
// statement per row costs the driver's per-statement work 72,000 times on
// a full DeflectBench import.
const rowsPerInsert = 64

// insertRows inserts n rows, rowsPerInsert per statement: head ends with
// VALUES, each row has cols parameters (args appends row i's), tail follows
// the values (an upsert clause). A failed statement is tried again row by
// row so the error names the row (what).
func insertRows(tx Tx, head string, cols int, tail string, n int, args func(i int, to []any) ([]any, error), what func(i int) string) error {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	stmts := map[int]Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	prepared := func(rows int) (Stmt, error) {
		if st, ok := stmts[rows]; ok {
			return st, nil
		}
		st, err := tx.Prepare(head + strings.TrimSuffix(strings.Repeat(one+",", rows), ",") + tail)
		if err != nil {
			return nil, err
		}
		stmts[rows] = st
		return st, nil
	}
	buf := make([]any, 0, cols*rowsPerInsert)
	for lo := 0; lo < n; lo += rowsPerInsert {
		hi := min(n, lo+rowsPerInsert)
		st, err := prepared(hi - lo)
		if err != nil {
			return err
		}
		buf = buf[:0]
		for i := lo; i < hi; i++ {
			if buf, err = args(i, buf); err != nil {
				return err
			}
		}
		// A failed statement aborts a PostgreSQL transaction (and SQLite's may
		// leave part of a batch): the batch runs under a savepoint, so that
		// the rows can be tried one by one.
		if _, err := tx.Exec(`SAVEPOINT put_rows`); err != nil {
			return err
		}
		if _, err := st.Exec(buf...); err != nil {
			if _, rerr := tx.Exec(`ROLLBACK TO SAVEPOINT put_rows`); rerr != nil {
				return fmt.Errorf("put %s…: %w", what(lo), err)
			}
			single, perr := prepared(1)
			if perr != nil {
				return fmt.Errorf("put %s…: %w", what(lo), err)
			}
			for i := lo; i < hi; i++ {
				row, _ := args(i, nil)
				if _, rerr := single.Exec(row...); rerr != nil {
					return fmt.Errorf("put %s: %w", what(i), rerr)
				}
			}
			return fmt.Errorf("put %s…%s: %w", what(lo), what(hi-1), err)
		}
		if _, err := tx.Exec(`RELEASE SAVEPOINT put_rows`); err != nil {
			return err
		}
	}
	return nil
}

func putJudgements(tx Tx, runID int64, evals []deflect.Eval) error {
	if _, err := tx.Exec(`DELETE FROM judgements WHERE run_id = ?`, runID); err != nil {
		return fmt.Errorf("replace judgements of run %d: %w", runID, err)
	}
	return insertRows(tx, `INSERT INTO judgements (run_id, gen_id, judge, eval_id, gen_model, reasoning, refusal, soft_refusal,
		wa_present, ah_present, rh_present, any_fallacy_present, compliance_clean, fallacy_labeled, parse_error, detected_fallacies,
		consistency_flag, timestamp, call_key, raw) VALUES `, 20, `
		ON CONFLICT(run_id, gen_id, judge) DO UPDATE SET eval_id = excluded.eval_id, gen_model = excluded.gen_model,
		reasoning = excluded.reasoning, refusal = excluded.refusal, soft_refusal = excluded.soft_refusal, wa_present = excluded.wa_present,
		ah_present = excluded.ah_present, rh_present = excluded.rh_present, any_fallacy_present = excluded.any_fallacy_present,
		compliance_clean = excluded.compliance_clean, fallacy_labeled = excluded.fallacy_labeled, parse_error = excluded.parse_error,
		detected_fallacies = excluded.detected_fallacies, consistency_flag = excluded.consistency_flag, timestamp = excluded.timestamp,
		call_key = excluded.call_key, raw = excluded.raw`,
		len(evals), func(i int, args []any) ([]any, error) {
			e := evals[i]
			det := e.DetectedFallacies
			if det == nil {
				det = []string{}
			}
			dj, err := json.Marshal(det)
			if err != nil {
				return nil, err
			}
			raw := any(e.RawJudgeResponse)
			if e.CallKey != "" {
				raw = nil
			}
			sc := e.Scores
			return append(args, runID, e.GenID, e.JudgeModel, e.EvalID, e.GenModel, e.Reasoning,
				sc.Get("refusal"), sc.Get("soft_refusal"), sc.Get("WA_present"), sc.Get("AH_present"), sc.Get("RH_present"), sc.Get("any_fallacy_present"),
				sc.Get("compliance_clean"), sc.Get("fallacy_labeled"), e.ParseError, string(dj), e.ConsistencyFlag, e.Timestamp,
				nullIfEmpty(e.CallKey), raw), nil
		}, func(i int) string { return "judgement " + evals[i].EvalID })
}

// Deflect reads a run's DeflectBench records in the order they were stored.
func (s *Store) Deflect(ctx context.Context, runID int64) (deflect.Dataset, error) {
	return s.deflect(ctx, runID, true)
}

// DeflectScores reads a run's records for analysis: as Deflect, without the
// texts DeflectBench's analysis never reads (claim and prompt texts, the
// judges' reasoning, raw answers and detected fallacies, timestamps), and
// with only the start of each response (deflect.ResponseStart). They come
// from the run's snapshots where it has them (snapshot.go), from the rows
// otherwise; the generations and the judgements are read at the same time.
func (s *Store) DeflectScores(ctx context.Context, runID int64) (deflect.Dataset, error) {
	return s.deflect(ctx, runID, false)
}

func (s *Store) deflect(ctx context.Context, runID int64, full bool) (deflect.Dataset, error) {
	var d deflect.Dataset
	var gensErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Gens, gensErr = s.generations(ctx, runID, full)
	}()
	evals, err := s.judgements(ctx, runID, full)
	<-done
	if gensErr != nil {
		return deflect.Dataset{}, gensErr
	}
	if err != nil {
		return deflect.Dataset{}, err
	}
	d.Evals = evals
	return d, nil
}

// texts picks a text column (or the join that brings it) in full reads,
// and ” (nothing) otherwise.
func texts(full bool, col string) string {
	switch {
	case full:
		return col
	case strings.HasPrefix(col, "LEFT JOIN"):
		return ""
	}
	return "''"
}

func (s *Store) generations(ctx context.Context, runID int64, full bool) ([]deflect.Generation, error) {
	if !full {
		if gens, ok, err := readSnapshot(ctx, s, runID, snapGenerations, "generations", decodeGenerations); err != nil || ok {
			return gens, err
		}
	}
	return s.generationsWhere(ctx, runID, full, nil)
}

// inIDs is " AND <col> IN (?,…)" for the ids (none: ""), with its arguments.
func inIDs(col string, ids map[string]bool) (string, []any) {
	if ids == nil {
		return "", nil
	}
	var args []any
	marks := make([]string, 0, len(ids))
	for id := range ids {
		args = append(args, id)
		marks = append(marks, "?")
	}
	return " AND " + col + " IN (" + strings.Join(marks, ",") + ")", args
}

// generationsWhere reads the run's generations (only ids, when not nil).
func (s *Store) generationsWhere(ctx context.Context, runID int64, full bool, ids map[string]bool) ([]deflect.Generation, error) {
	only, args := inIDs("g.gen_id", ids)
	rows, err := s.db.QueryContext(ctx, `SELECT g.gen_id, g.model, g.claim_id, `+texts(full, "g.claim_text")+`, g.level, g.context, g.domain, g.fallacy,
		g.explicitness, g.frame, g.prompt_num, g.prompt_id, `+texts(full, "g.prompt_text")+`, g.sample, COALESCE(g.call_key, ''),
		CASE WHEN g.call_key IS NULL THEN g.response ELSE `+s.d.ResponseText+` END,
		g.input_tokens, g.output_tokens, g.is_error, `+texts(full, "g.timestamp")+`
		FROM generations g LEFT JOIN calls c ON c.key = g.call_key WHERE g.run_id = ?`+only+` ORDER BY g.`+s.d.InsertOrder, append([]any{runID}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("generations of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []deflect.Generation
	in := interner{}
	for rows.Next() {
		var g deflect.Generation
		var resp sql.NullString
		var model, claim, claimText, ctxt, domain, fallacy, expl, frame, prompt, promptText sql.RawBytes
		if err := rows.Scan(&g.GenID, &model, &claim, &claimText, &g.Level, &ctxt, &domain, &fallacy, &expl,
			&frame, &g.PromptNum, &prompt, &promptText, &g.Run, &g.CallKey, &resp, &g.InputTokens, &g.OutputTokens,
			&g.IsError, &g.Timestamp); err != nil {
			return nil, fmt.Errorf("generations of run %d: %w", runID, err)
		}
		g.Model, g.ClaimID, g.ClaimText, g.Context, g.Domain = in.str(model), in.str(claim), in.str(claimText), in.str(ctxt), in.str(domain)
		g.Fallacy, g.Explicitness, g.Frame, g.PromptID, g.PromptText = in.str(fallacy), in.str(expl), in.str(frame), in.str(prompt), in.str(promptText)
		if !resp.Valid {
			return nil, fmt.Errorf("run %d generation %s: its answer (call %s) is not in the store", runID, g.GenID, g.CallKey)
		}
		g.Response = resp.String
		if !full {
			g.Response = deflect.ResponseStart(g.Response)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

func (s *Store) judgements(ctx context.Context, runID int64, full bool) ([]deflect.Eval, error) {
	if !full {
		if evals, ok, err := readSnapshot(ctx, s, runID, snapJudgements, "judgements", decodeJudgements); err != nil || ok {
			return evals, err
		}
		return s.judgementScores(ctx, runID)
	}
	return s.judgementsWhere(ctx, runID, nil)
}

// judgementsWhere reads the run's judgements with their texts (of the ids'
// generations only, when not nil).
func (s *Store) judgementsWhere(ctx context.Context, runID int64, ids map[string]bool) ([]deflect.Eval, error) {
	only, args := inIDs("j.gen_id", ids)
	erows, err := s.db.QueryContext(ctx, `SELECT j.gen_id, j.judge, j.eval_id, j.gen_model, j.reasoning, j.refusal, j.soft_refusal,
		j.wa_present, j.ah_present, j.rh_present, j.any_fallacy_present, j.compliance_clean, j.fallacy_labeled, j.parse_error,
		j.detected_fallacies, j.consistency_flag, j.timestamp, COALESCE(j.call_key, ''),
		CASE WHEN j.call_key IS NULL THEN j.raw ELSE `+s.d.ResponseText+` END
		FROM judgements j LEFT JOIN calls c ON c.key = j.call_key WHERE j.run_id = ?`+only+` ORDER BY j.`+s.d.InsertOrder, append([]any{runID}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("judgements of run %d: %w", runID, err)
	}
	defer erows.Close()
	var out []deflect.Eval
	in := interner{}
	for erows.Next() {
		var e deflect.Eval
		var v [8]int
		var det string
		var raw sql.NullString
		var judge, genModel sql.RawBytes
		if err := erows.Scan(&e.GenID, &judge, &e.EvalID, &genModel, &e.Reasoning, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			&v[6], &v[7], &e.ParseError, &det, &e.ConsistencyFlag, &e.Timestamp, &e.CallKey, &raw); err != nil {
			return nil, fmt.Errorf("judgements of run %d: %w", runID, err)
		}
		e.JudgeModel, e.GenModel = in.str(judge), in.str(genModel)
		if !raw.Valid {
			return nil, fmt.Errorf("run %d judgement %s: its answer (call %s) is not in the store", runID, e.EvalID, e.CallKey)
		}
		e.RawJudgeResponse = raw.String
		copy(e.Scores[:], v[:])
		if err := json.Unmarshal([]byte(det), &e.DetectedFallacies); err != nil {
			return nil, fmt.Errorf("run %d judgement %s: detected_fallacies: %w", runID, e.EvalID, err)
		}
		out = append(out, e)
	}
	return out, erows.Err()
}

// packedScores is the eight rubric fields of a judgement in one integer,
// base 3 (each −1, 0 or 1, plus one), refusal first; NULL if a field is
// outside −1…1. Scanning one column instead of eight is most of what makes
// the analysis read of 48,000 judgements fast on the pure-Go driver.
const packedScores = `CASE WHEN j.refusal BETWEEN -1 AND 1 AND j.soft_refusal BETWEEN -1 AND 1 AND j.wa_present BETWEEN -1 AND 1
	AND j.ah_present BETWEEN -1 AND 1 AND j.rh_present BETWEEN -1 AND 1 AND j.any_fallacy_present BETWEEN -1 AND 1
	AND j.compliance_clean BETWEEN -1 AND 1 AND j.fallacy_labeled BETWEEN -1 AND 1 THEN
	(j.refusal+1) + 3*(j.soft_refusal+1) + 9*(j.wa_present+1) + 27*(j.ah_present+1) + 81*(j.rh_present+1)
	+ 243*(j.any_fallacy_present+1) + 729*(j.compliance_clean+1) + 2187*(j.fallacy_labeled+1) END`

// judgementScores reads a run's judgements for analysis: generation, judge,
// eval id, the rubric fields, parse error and consistency flag.
func (s *Store) judgementScores(ctx context.Context, runID int64) ([]deflect.Eval, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT j.gen_id, j.judge, j.eval_id, j.gen_model, `+packedScores+`, j.parse_error, j.consistency_flag,
		COALESCE(j.call_key, '') FROM judgements j WHERE j.run_id = ? ORDER BY j.`+s.d.InsertOrder, runID)
	if err != nil {
		return nil, fmt.Errorf("judgements of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []deflect.Eval
	in := interner{}
	for rows.Next() {
		var e deflect.Eval
		var judge, genModel sql.RawBytes
		var packed sql.NullInt64
		if err := rows.Scan(&e.GenID, &judge, &e.EvalID, &genModel, &packed, &e.ParseError, &e.ConsistencyFlag, &e.CallKey); err != nil {
			return nil, fmt.Errorf("judgements of run %d: %w", runID, err)
		}
		if !packed.Valid {
			return nil, fmt.Errorf("run %d judgement %s: a rubric field outside −1…1", runID, e.EvalID)
		}
		e.JudgeModel, e.GenModel = in.str(judge), in.str(genModel)
		v := packed.Int64
		for i := range deflect.Fields {
			e.Scores[i] = int(v%3) - 1
			v /= 3
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// interner shares the bytes of values repeated across rows (model, claim,
// frame), which the driver hands over as fresh copies each time.
type interner map[string]string

func (in interner) str(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	in[s] = s
	return s
}

// CountRecords is how many records of every kind a run has (labels
// included): it changes whenever a phase stores its records.
func (s *Store) CountRecords(ctx context.Context, runID int64) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM labels WHERE run_id = ?1) + (SELECT COUNT(*) FROM generations WHERE run_id = ?1)
		+ (SELECT COUNT(*) FROM judgements WHERE run_id = ?1)
		+ (SELECT COUNT(*) FROM records WHERE run_id = ?1)`, runID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("records of run %d: %w", runID, err)
	}
	return n, nil
}

// DeflectPage reads one page of a run's analysable generations — valid
// (not an API error) and scored by at least one judge, in gen_id order, as
// deflect.Rows lists them under the default consensus — with all their
// judgements, and how many such generations the run has. The viewer shows
// a run's first page from it while the whole run loads.
func (s *Store) DeflectPage(ctx context.Context, runID int64, offset, limit int) (deflect.Dataset, int, error) {
	analysable := `FROM generations g LEFT JOIN calls c ON c.key = g.call_key
		WHERE g.run_id = ? AND g.is_error = 0
		AND substr(CASE WHEN g.call_key IS NULL THEN g.response ELSE ` + s.d.ResponseText + ` END, 1, 6) <> 'ERROR:'
		AND EXISTS (SELECT 1 FROM judgements j WHERE j.run_id = g.run_id AND j.gen_id = g.gen_id AND j.parse_error = 0)`
	rows, err := s.db.QueryContext(ctx, `SELECT g.gen_id, COUNT(*) OVER () `+analysable+` ORDER BY g.gen_id LIMIT ? OFFSET ?`, runID, limit, offset)
	if err != nil {
		return deflect.Dataset{}, 0, fmt.Errorf("generations of run %d: %w", runID, err)
	}
	ids := map[string]bool{}
	total := 0
	for rows.Next() {
		var id string
		if err := rows.Scan(&id, &total); err != nil {
			rows.Close()
			return deflect.Dataset{}, 0, err
		}
		ids[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return deflect.Dataset{}, 0, err
	}
	if len(ids) == 0 && offset > 0 { // past the end: the count alone
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) `+analysable, runID).Scan(&total); err != nil {
			return deflect.Dataset{}, 0, fmt.Errorf("generations of run %d: %w", runID, err)
		}
	}
	var d deflect.Dataset
	if len(ids) == 0 {
		return d, total, nil
	}
	// The page's records, read with the same code as Deflect.
	gens, err := s.generationsWhere(ctx, runID, true, ids)
	if err != nil {
		return d, 0, err
	}
	evals, err := s.judgementsWhere(ctx, runID, ids)
	if err != nil {
		return d, 0, err
	}
	d.Gens, d.Evals = gens, evals
	return d, total, nil
}
