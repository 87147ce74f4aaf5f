package web_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/web"
)

// TestBundle (#27 item 12): a run's pages written as static files: the run
// page as index.html, its lists, records and the style sheet; every link in
// every page leads to a file of the bundle (another run's page, a search or
// a sort to the page that says it is left out); nothing is written outside
// the folder; model text stays escaped.
func TestBundle(t *testing.T) {
	st, id1, id2 := seed(t, []string{"model-a"}, 1)
	v, err := web.New(st)
	if err != nil {
		t.Fatal(err)
	}
	v.Resamples = 50
	// A file at the bundle's path is never replaced (it once was deleted).
	file := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(file, []byte("mine"), 0o644)
	if _, err := v.Bundle(context.Background(), file, id2, 0, nil); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Fatalf("a bundle over a file: %v", err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "mine" {
		t.Fatalf("the file at the bundle's path: %q %v", b, err)
	}
	dir := filepath.Join(t.TempDir(), "bundle")
	var heard [][2]int
	res, err := v.Bundle(context.Background(), dir, id2, 0, func(rendered, left int) { heard = append(heard, [2]int{rendered, left}) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Pages < 3 {
		t.Fatalf("%d pages bundled", res.Pages)
	}
	// #41 item 20: no form is left that goes nowhere from the disk.
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if b, _ := os.ReadFile(p); strings.HasSuffix(p, ".html") && bytes.Contains(b, []byte(`method="get"`)) {
			t.Errorf("%s keeps a search or filter form", p)
		}
		return nil
	})
	// The progress hears, at the least, that every page is
	// rendered (the pages, the style sheet) before they are written.
	if len(heard) == 0 || heard[len(heard)-1][1] != 0 || heard[len(heard)-1][0] < res.Pages {
		t.Fatalf("the bundle's progress: %v for %d pages", heard, res.Pages)
	}
	// Every page carries its own Content-Security-Policy: no server sends one.
	for _, f := range []string{"index.html", "not-in-bundle.html"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !bytes.Contains(b, []byte(`<meta http-equiv="Content-Security-Policy" content="`+web.BundleCSP+`">`)) {
			t.Fatalf("%s has no Content-Security-Policy of its own (%v)", f, err)
		}
	}
	href := regexp.MustCompile(`(?:href|src)="([^"#]+)`)
	files := 0
	err = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		files++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), "<script>alert") {
			t.Errorf("%s holds model text unescaped", p)
		}
		for _, m := range href.FindAllStringSubmatch(string(b), -1) {
			l := m[1]
			if strings.HasPrefix(l, "data:") || strings.HasPrefix(l, "http") {
				continue
			}
			if strings.HasPrefix(l, "/") {
				t.Errorf("%s links %s: an absolute link the bundle cannot follow", p, l)
				continue
			}
			target := filepath.Join(filepath.Dir(p), filepath.FromSlash(l))
			if rel, err := filepath.Rel(dir, target); err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s links %s, outside the bundle", p, l)
			} else if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links %s, which the bundle does not hold", p, l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil || !strings.Contains(string(index), "foils") {
		t.Fatalf("index.html: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "static", "app.css")); err != nil {
		t.Fatal("the style sheet is not in the bundle")
	}
	if _, err := os.Stat(filepath.Join(dir, "runs", strconv.FormatInt(id1, 10)+".html")); err == nil {
		t.Fatal("another run's page is in the bundle")
	}
	t.Logf("%d pages, %d links left out", files, res.Skipped)
	empty := t.TempDir()
	if _, err := v.Bundle(context.Background(), filepath.Join(empty, "b"), 999, 0, nil); err == nil {
		t.Fatal("a bundle of a run that does not exist")
	}
	if left, _ := os.ReadDir(empty); len(left) != 0 {
		t.Fatalf("a failed bundle left %d files", len(left))
	}
	if _, err := v.Bundle(context.Background(), dir, id2, 0, nil); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("a bundle into a folder that holds files: %v", err)
	}
}
