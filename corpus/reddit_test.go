package corpus

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

const sharedData = "../../shared/data"

func TestLoadRedditQuirks(t *testing.T) {
	if _, err := os.Stat(sharedData + "/reddit_fallacy"); err != nil {
		t.Skip("shared data not present")
	}
	items, err := LoadReddit(os.DirFS(sharedData), "reddit_fallacy", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string]int{}
	fallacious := 0
	for _, it := range items {
		if strings.Contains(it.Source, "negative") {
			byFile["negative"]++
			if it.Gold != None {
				t.Fatalf("negative sample with gold %q", it.Gold)
			}
		} else {
			byFile["annotated"]++
			if it.Gold != None {
				fallacious++
			}
		}
		if it.Split != "train" && it.Split != "dev" && it.Split != "test" {
			t.Fatalf("split %q", it.Split)
		}
	}
	// data README: 3,358 annotated rows (1,708 fallacious), 800 negatives per type.
	if byFile["annotated"] != 3358 || fallacious != 1708 || byFile["negative"] != 6400 {
		t.Fatalf("counts %v, fallacious %d", byFile, fallacious)
	}
	// Multi-line quoted fields survive (the CSV has them).
	multi := 0
	for _, it := range items {
		if strings.Contains(it.Text, "\n") {
			multi++
		}
	}
	if multi == 0 {
		t.Fatal("no multi-line text: quoted newlines were lost")
	}
	c := Counts(items)
	if c["test"][None] == 0 || c["train"]["appeal to authority"] == 0 {
		t.Fatalf("%v", c)
	}
}

func redditFS(annotated, negative string) fstest.MapFS {
	fs := fstest.MapFS{"r/splits.tsv": {Data: []byte("comment_id\traw_file\tfallacy_type\tfallacy_exists\tannotated_dataset_split\tfull_dataset_split\n" +
		"a1\tauthority_annotated.csv\tauthority\t1\ttest\ttest\nn1\tauthority_negative-samples.csv\tauthority\t0\t\ttrain\n")}}
	hdrA := ",comment_id,title,comment,parent,grandparent,child,fallacy_exists,fallacy_highlighted,fallacy_highlighted_indices,claim\n"
	hdrN := "comment_id\ttitle\tcomment\tparent\tgrandparent\tchild\tfallacy_exists\n"
	for raw := range RedditRaw {
		fs["r/raw/"+raw+"_annotated.csv"] = &fstest.MapFile{Data: []byte(hdrA)}
		fs["r/raw/"+raw+"_negative-samples.csv"] = &fstest.MapFile{Data: []byte(hdrN)}
	}
	fs["r/raw/authority_annotated.csv"] = &fstest.MapFile{Data: []byte(hdrA + annotated)}
	fs["r/raw/authority_negative-samples.csv"] = &fstest.MapFile{Data: []byte(hdrN + negative)}
	return fs
}

func TestLoadRedditMalformed(t *testing.T) {
	good := "0,a1,T,c,\"multi\nline\",g,ch,1,,,cl\n"
	neg := "n1\tT\tc\tplain text\tg\tch\t0\n"
	items, err := LoadReddit(redditFS(good, neg), "r", LoadOptions{})
	if err != nil || len(items) != 2 || items[0].Text != "multi\nline" || items[0].Gold != "appeal to authority" || items[0].Split != "test" {
		t.Fatalf("%+v %v", items, err)
	}
	bad := good + "1,zz,T,c,p,g,ch,1,,,cl\n2,a1,T,c,p,g,ch,maybe,,,cl\n"
	_, err = LoadReddit(redditFS(bad, neg), "r", LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "authority_annotated.csv line 4: field comment_id: zz is not in splits.tsv") {
		t.Fatalf("%v", err)
	}
	var br BadRows
	items, err = LoadReddit(redditFS(bad, neg), "r", LoadOptions{SkipBadRows: true, Bad: &br})
	if err != nil || len(items) != 2 || br.Count != 2 || !strings.Contains(br.Errors[1], "fallacy_exists") {
		t.Fatalf("%v %d %v", err, br.Count, br.Errors)
	}
	_, err = LoadReddit(redditFS("", "n1\tT\tc\n"), "r", LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "fields") {
		t.Fatalf("short row: %v", err)
	}
}

func TestNormalizeLabel(t *testing.T) {
	for in, want := range map[string]string{"blackwhite": "false dilemma", "Appeal to Authority": "appeal to authority",
		"worse_problems": "appeal to worse problems", " None ": None, "hasty_generalization": "hasty generalization"} {
		if got, ok := NormalizeLabel(in); !ok || got != want {
			t.Errorf("%q → %q", in, got)
		}
	}
	if _, ok := NormalizeLabel("strawman"); ok {
		t.Error("unknown label accepted")
	}
}
