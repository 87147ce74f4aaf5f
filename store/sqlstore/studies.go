package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/store"
)

// PutStudy stores a new study of a run and returns its id.
func (s *Store) PutStudy(ctx context.Context, st store.Study) (int64, error) {
	st.ID = 0
	spec, err := json.Marshal(st)
	if err != nil {
		return 0, fmt.Errorf("put study: %w", err)
	}
	var id int64
	err = s.write(context.WithoutCancel(ctx), func(tx Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM runs WHERE id = ?`, st.RunID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("put study: no run %d", st.RunID)
		}
		if err := tx.QueryRow(`INSERT INTO studies (run_id, kind, name, spec, created) VALUES (?,?,?,?,?) RETURNING id`,
			st.RunID, string(st.Kind), st.Name, string(spec), st.Created.UTC().Format(time.RFC3339Nano)).Scan(&id); err != nil {
			return fmt.Errorf("put study: %w", err)
		}
		return nil
	})
	return id, err
}

// Studies lists the studies of a run (runID 0: of every run), oldest first.
func (s *Store) Studies(ctx context.Context, runID int64) ([]store.Study, error) {
	q, args := `SELECT id, spec FROM studies ORDER BY id`, []any{}
	if runID != 0 {
		q, args = `SELECT id, spec FROM studies WHERE run_id = ? ORDER BY id`, []any{runID}
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("studies: %w", err)
	}
	defer rows.Close()
	var out []store.Study
	for rows.Next() {
		var id int64
		var spec string
		if err := rows.Scan(&id, &spec); err != nil {
			return nil, fmt.Errorf("studies: %w", err)
		}
		var st store.Study
		if err := json.Unmarshal([]byte(spec), &st); err != nil {
			return nil, fmt.Errorf("study %d: %w", id, err)
		}
		st.ID = id
		out = append(out, st)
	}
	return out, rows.Err()
}

// Study reads one study; ok is false when there is none with that id.
func (s *Store) Study(ctx context.Context, id int64) (store.Study, bool, error) {
	var spec string
	err := s.db.QueryRowContext(ctx, `SELECT spec FROM studies WHERE id = ?`, id).Scan(&spec)
	if err == sql.ErrNoRows {
		return store.Study{}, false, nil
	}
	if err != nil {
		return store.Study{}, false, fmt.Errorf("study %d: %w", id, err)
	}
	var st store.Study
	if err := json.Unmarshal([]byte(spec), &st); err != nil {
		return st, false, fmt.Errorf("study %d: %w", id, err)
	}
	st.ID = id
	return st, true, nil
}

// DeleteStudy removes a study and every answer to it, and returns how many
// answers went (store.ErrNotFound when there is no such study).
func (s *Store) DeleteStudy(ctx context.Context, id int64) (answers int, err error) {
	err = s.write(ctx, func(tx Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM studies WHERE id = ?`, id).Scan(&n); err != nil {
			return fmt.Errorf("delete study %d: %w", id, err)
		}
		if n == 0 {
			return fmt.Errorf("delete study %d: %w", id, store.ErrNotFound)
		}
		if err := tx.QueryRow(`SELECT count(*) FROM annotations WHERE study_id = ?`, id).Scan(&answers); err != nil {
			return fmt.Errorf("delete study %d: %w", id, err)
		}
		for _, q := range []string{`DELETE FROM annotations WHERE study_id = ?`, `DELETE FROM studies WHERE id = ?`} {
			if _, err := tx.Exec(q, id); err != nil {
				return fmt.Errorf("delete study %d: %w", id, err)
			}
		}
		return nil
	})
	return answers, err
}

// PutAnnotations stores annotators' answers, each in place of that
// annotator's earlier answer to the item, in one transaction.
func (s *Store) PutAnnotations(ctx context.Context, anns []store.Annotation) error {
	return s.write(context.WithoutCancel(ctx), func(tx Tx) error {
		st, err := tx.Prepare(`INSERT INTO annotations (study_id, annotator, item, answers, comment, skipped, at) VALUES (?,?,?,?,?,?,?)
			ON CONFLICT (study_id, annotator, item) DO UPDATE SET answers = excluded.answers, comment = excluded.comment, skipped = excluded.skipped, at = excluded.at`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, a := range anns {
			answers := a.Answers
			if answers == nil {
				answers = map[string]string{}
			}
			aj, err := json.Marshal(answers)
			if err != nil {
				return err
			}
			if _, err := st.Exec(a.StudyID, a.Annotator, a.Item, string(aj), a.Comment, a.Skipped, a.At.UTC().Format(time.RFC3339Nano)); err != nil {
				return fmt.Errorf("put annotation of %s on %s: %w", a.Annotator, a.Item, err)
			}
		}
		return nil
	})
}

// Annotations reads every answer of a study.
func (s *Store) Annotations(ctx context.Context, studyID int64) ([]store.Annotation, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT annotator, item, answers, comment, skipped, at FROM annotations WHERE study_id = ? ORDER BY annotator, item`, studyID)
	if err != nil {
		return nil, fmt.Errorf("annotations of study %d: %w", studyID, err)
	}
	defer rows.Close()
	var out []store.Annotation
	for rows.Next() {
		a := store.Annotation{StudyID: studyID}
		var answers, at string
		if err := rows.Scan(&a.Annotator, &a.Item, &answers, &a.Comment, &a.Skipped, &at); err != nil {
			return nil, fmt.Errorf("annotations of study %d: %w", studyID, err)
		}
		if err := json.Unmarshal([]byte(answers), &a.Answers); err != nil {
			return nil, fmt.Errorf("annotation of %s on %s: %w", a.Annotator, a.Item, err)
		}
		if a.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, fmt.Errorf("annotation of %s on %s: %w", a.Annotator, a.Item, err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// ReplaceStudy stores a study's new design in place of its old one — an
// annotator added, replaced or given a new token — keeping its id, run and
// answers (store.ErrNotFound when there is no such study).
func (s *Store) ReplaceStudy(ctx context.Context, st store.Study) error {
	spec, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("replace study %d: %w", st.ID, err)
	}
	return s.write(context.WithoutCancel(ctx), func(tx Tx) error {
		res, err := tx.Exec(`UPDATE studies SET spec = ? WHERE id = ?`, string(spec), st.ID)
		if err != nil {
			return fmt.Errorf("replace study %d: %w", st.ID, err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return fmt.Errorf("replace study %d: %w", st.ID, store.ErrNotFound)
		}
		return nil
	})
}

// ReplaceStudyIf stores next in place of the study as it was when read
// (prev): a compare-and-swap, false when someone changed the study since —
// another viewer on the same store, or another request — so that the caller
// reads it again and decides anew (two participants are never given one
// annotator's place).
func (s *Store) ReplaceStudyIf(ctx context.Context, prev, next store.Study) (bool, error) {
	want, err := json.Marshal(prev)
	if err != nil {
		return false, fmt.Errorf("replace study %d: %w", prev.ID, err)
	}
	spec, err := json.Marshal(next)
	if err != nil {
		return false, fmt.Errorf("replace study %d: %w", next.ID, err)
	}
	swapped := false
	err = s.write(context.WithoutCancel(ctx), func(tx Tx) error {
		swapped = false
		var raw string
		if err := tx.QueryRow(`SELECT spec FROM studies WHERE id = ?`, prev.ID).Scan(&raw); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("replace study %d: %w", prev.ID, store.ErrNotFound)
			}
			return fmt.Errorf("replace study %d: %w", prev.ID, err)
		}
		var cur store.Study
		if err := json.Unmarshal([]byte(raw), &cur); err != nil {
			return fmt.Errorf("replace study %d: %w", prev.ID, err)
		}
		cur.ID = prev.ID
		if now, err := json.Marshal(cur); err != nil || string(now) != string(want) {
			return err // changed since it was read
		}
		// The row as read, or nothing: a writer that got in between (on
		// PostgreSQL, whose UPDATE waits for the other's and then sees
		// the new row) leaves it unchanged.
		res, err := tx.Exec(`UPDATE studies SET spec = ? WHERE id = ? AND spec = ?`, string(spec), prev.ID, raw)
		if err != nil {
			return fmt.Errorf("replace study %d: %w", prev.ID, err)
		}
		n, err := res.RowsAffected()
		swapped = n == 1
		return err
	})
	return swapped, err
}
