package prompts

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/fallacylab/fallacylab/store"
)

// A listed answer shows its text, a failed call its error.
func TestListingRows(t *testing.T) {
	l := Task{}.Listing()
	for _, c := range []struct {
		res  Result
		want []string
	}{
		{Result{Job: "openai:m/a/0", Model: "openai:m", ID: "a", Text: "yes"}, []string{"openai:m/a/0", "openai:m", "a", "0", "yes"}},
		{Result{Job: "openai:m/b/2", Model: "openai:m", ID: "b", Sample: 2, Error: "429"}, []string{"openai:m/b/2", "openai:m", "b", "2", "(failed: 429)"}},
	} {
		body, _ := json.Marshal(c.res)
		got, err := l.Row(store.Record{Key: c.res.Job, Body: body})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) || len(got) != len(l.Columns) {
			t.Errorf("row of %+v = %q, want %q", c.res, got, c.want)
		}
	}
	if _, err := l.Row(store.Record{Body: []byte("{")}); err == nil {
		t.Error("a broken record reads as a row")
	}
}
