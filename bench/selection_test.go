package bench

import (
	"strings"
	"testing"
)

// --sample-id with ids the items lack names them all, sorted, the same
// every time (it named one of them, whichever a map gave first).
func TestSelectNamesEveryMissingID(t *testing.T) {
	items := []string{"a1", "a2", "a3", "a4"}
	for range 10 {
		_, err := Select(Selection{IDs: "z9, a2, b7, c3"}, "texts", items, func(s string) string { return s })
		if err == nil || !strings.Contains(err.Error(), "--sample-id b7, c3, z9: no such text (ids look like a1, a2, a3)") {
			t.Fatal(err)
		}
	}
	got, err := Select(Selection{IDs: "a3,a1"}, "texts", items, func(s string) string { return s })
	if err != nil || strings.Join(got, ",") != "a1,a3" {
		t.Fatalf("%v %v", got, err)
	}
}
