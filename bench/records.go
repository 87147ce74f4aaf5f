package bench

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fallacylab/fallacylab/store"
)

// ReadOne decodes a run's record of kind (a Task's setup) into v; found
// is false when the run holds none.
func ReadOne(ctx context.Context, rs RecordReader, runID int64, kind string, v any) (found bool, err error) {
	err = rs.Records(ctx, runID, kind, func(r store.Record) error {
		found = true
		return json.Unmarshal(r.Body, v)
	})
	return found, err
}

// ReadAll decodes every record of kind of a run, in the order written; a
// record that does not decode is an error naming it (what and its key).
func ReadAll[T any](ctx context.Context, rs RecordReader, runID int64, kind, what string) ([]T, error) {
	var out []T
	err := rs.Records(ctx, runID, kind, func(r store.Record) error {
		var v T
		if err := json.Unmarshal(r.Body, &v); err != nil {
			return fmt.Errorf("%s %s: %w", what, r.Key, err)
		}
		out = append(out, v)
		return nil
	})
	return out, err
}
