package corpus

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func TestArgotario(t *testing.T) {
	items, err := EmbeddedArgotario()
	if err != nil {
		t.Fatal(err)
	}
	multi := 0
	c := map[string]int{}
	for _, it := range items {
		c[it.Gold]++
		multi += strings.Count(it.Text, "\n")
	}
	// data README: 1,338 EN rows; 6 raw newlines inside Text (one row has two).
	if len(items) != 1338 || multi != 6 || c[None] == 0 || c["appeal to authority"] == 0 || c[OutOfSpace] == 0 {
		t.Fatalf("%d items, %d multi-line, labels %v", len(items), multi, c)
	}
	_, err = ParseArgotario(strings.NewReader("Row number\tMongo ID\tAuthor\tTopic\tStance\tIntended Fallacy\tVoted Fallacy\tNumber of Votes\tText\n0\ta\tb\tT\tpro\t\t-\t0\ttext\n"), "x.tsv")
	if err == nil || !strings.Contains(err.Error(), "x.tsv line 2: field Intended Fallacy") {
		t.Fatal(err)
	}
}

func TestMAFALDAAndTouche(t *testing.T) {
	f, err := os.Open(sharedData + "/mafalda/gold_standard_dataset.jsonl")
	if err != nil {
		t.Skip("shared data not present")
	}
	items, err := ParseMAFALDA(f, "gold.jsonl")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	none := goldCount(items, None)
	// 200 texts, 63 without span labels (more are none once "nothing" spans count as none).
	if len(items) != 200 || none < 63 {
		t.Fatalf("%d items, %d none", len(items), none)
	}
	f, _ = os.Open(sharedData + "/touche2026_fallacy/touchefallacy_2026_train.jsonl")
	tou, err := ParseTouche(f, "touche.jsonl")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	neg := goldCount(tou, None)
	if len(tou) != 938 || neg != 473 {
		t.Fatalf("%d items, %d negatives (README: 938, 473)", len(tou), neg)
	}
	reddit, _ := EmbeddedReddit()
	test := Split(reddit, "test")
	if n := Overlap(tou, test); n == 0 {
		t.Fatal("Touché train should overlap Sahai test")
	}
	_, err = ParseTouche(strings.NewReader(`{"id":"x","text_raw":"t","fallacy_exists":1,"fallacy_type":"strawman"}`), "t.jsonl")
	if err == nil || !strings.Contains(err.Error(), "t.jsonl line 1: field fallacy_type") {
		t.Fatal(err)
	}
}

func TestCoCoLoFa(t *testing.T) {
	f, err := os.Open(sharedData + "/cocolofa/test.json")
	if err != nil {
		t.Skip("shared data not present")
	}
	defer f.Close()
	items, err := ParseCoCoLoFa(f, "test.json", "test")
	if err != nil {
		t.Fatal(err)
	}
	none := goldCount(items, None)
	if len(items) != 798 || none != 317 {
		t.Fatalf("%d comments, %d none (README: 798 and 317)", len(items), none)
	}
	_, err = ParseCoCoLoFa(strings.NewReader(`[{"id":1,"title":"t","comments":[{"id":"9","fallacy":"strawman","comment":"x"}]}]`), "bad.json", "test")
	if err == nil || !strings.Contains(err.Error(), "bad.json: article 1 (id 1) comment 1: field fallacy") {
		t.Fatal(err)
	}
}

// goldCount is how many items have that gold label.
func goldCount(items []Item, gold string) int {
	n := 0
	for _, it := range items {
		if it.Gold == gold {
			n++
		}
	}
	return n
}

// TestTextsNoModelShouldGet (#41 item 12): an item whose text is empty,
// not UTF-8 or holds a NUL byte is refused when the corpus loads — named,
// before anything is sent — or left out and counted with SkipBadRows.
func TestTextsNoModelShouldGet(t *testing.T) {
	line := func(id, text string) string {
		b, _ := json.Marshal(map[string]any{"id": id, "text_raw": text, "fallacy_exists": 0, "fallacy_type": "none"})
		return string(b) + "\n"
	}
	for _, c := range []struct{ text, why string }{{"   ", "empty"}, {"a\x00b", "NUL"}} {
		data := fstest.MapFS{"touche2026_fallacy/touchefallacy_2026_train.jsonl": {Data: []byte(line("ok:1", "a fine text") + line("bad:2", c.text))}}
		if _, err := Load(data, "touche", LoadOptions{}); err == nil || !strings.Contains(err.Error(), "bad:2") || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%q: %v", c.text, err)
		}
		var bad BadRows
		items, err := Load(data, "touche", LoadOptions{SkipBadRows: true, Bad: &bad})
		if err != nil || len(items) != 1 || bad.Count != 1 {
			t.Errorf("%q skipped: %d items, %d bad (%v)", c.text, len(items), bad.Count, err)
		}
	}
}

// TestCSVTextNotUTF8: a CSV corpus whose text is not UTF-8 (a Windows code
// page) is refused, the item named.
func TestCSVTextNotUTF8(t *testing.T) {
	head := ",source_article,updated_label\n"
	data := fstest.MapFS{}
	for _, split := range []string{"train", "dev", "test"} {
		data["logic/edu_"+split+".csv"] = &fstest.MapFile{Data: []byte(head + "0,a fine text,ad hominem\n1,caf\xe9 society,ad hominem\n")}
	}
	if _, err := Load(data, "logic", LoadOptions{}); err == nil || !strings.Contains(err.Error(), "not UTF-8") {
		t.Fatalf("a Latin-1 text: %v", err)
	}
}
