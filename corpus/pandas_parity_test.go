package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"sort"
	"testing"
)

// TestPandasParity checks that every Reddit text parses exactly as pandas
// parses it: testdata/pandas_digest.json holds pandas' digest, made by
// testdata/pandas_digest.py.
func TestPandasParity(t *testing.T) {
	if _, err := os.Stat(sharedData + "/reddit_fallacy"); err != nil {
		t.Skip("shared data not present")
	}
	var want struct {
		Keys   int
		Sha256 string
	}
	data, err := os.ReadFile("testdata/pandas_digest.json")
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &want)
	items, err := LoadReddit(os.DirFS(sharedData), "reddit_fallacy", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string]string{}
	for _, it := range items {
		pairs[it.ID+"|"+it.Source] = it.Text
	}
	keys := make([]string, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k + "\x00" + pairs[k] + "\x00"))
	}
	if len(keys) != want.Keys || hex.EncodeToString(h.Sum(nil)) != want.Sha256 {
		t.Fatalf("parse differs from pandas: %d keys (pandas %d), digest mismatch", len(keys), want.Keys)
	}
}
