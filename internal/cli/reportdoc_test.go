package cli_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/report"
)

// docs/report-json.md is checked against the code: every table id a report
// can hold — each one written literally in the code, and each in the
// reports the golden tests keep — is documented, there or, for a
// benchmark's own tables, in its package's report-json.md (a benchmark
// documents itself), and report JSON never holds a null list.
func TestReportJSONDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/report-json.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := func(id, where string) bool {
		if bytes.Contains(doc, []byte("`"+id+"`")) {
			return true
		}
		own, err := os.ReadFile(filepath.Join(filepath.Dir(where), "report-json.md"))
		return err == nil && strings.HasPrefix(filepath.ToSlash(where), "../../bench/") && bytes.Contains(own, []byte("`"+id+"`"))
	}
	ids := map[string]string{} // id → where it was seen
	for _, root := range []string{"../../bench", "../../study", "."} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				if sel, ok := lit.Type.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Table" {
					return true
				}
				for _, e := range lit.Elts {
					kv, ok := e.(*ast.KeyValueExpr)
					if k, _ := kv.Key.(*ast.Ident); !ok || k == nil || k.Name != "ID" {
						continue
					}
					if b, ok := kv.Value.(*ast.BasicLit); ok && b.Kind == token.STRING {
						id, _ := strconv.Unquote(b.Value)
						ids[id] = path
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	goldens, _ := filepath.Glob("testdata/golden/*.json")
	legacy, _ := filepath.Glob("testdata/legacy/*.json")
	for _, g := range append(goldens, legacy...) {
		b, _ := os.ReadFile(g)
		var rep struct {
			Sections []struct {
				Tables json.RawMessage
			}
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		for _, s := range rep.Sections {
			var tables []struct {
				ID      string
				Columns json.RawMessage
				Rows    json.RawMessage
			}
			if string(s.Tables) == "null" {
				t.Errorf("%s: a section's tables are null", g)
			}
			json.Unmarshal(s.Tables, &tables)
			for _, tb := range tables {
				ids[tb.ID] = g
				if string(tb.Rows) == "null" || string(tb.Columns) == "null" {
					t.Errorf("%s: table %s has a null list", g, tb.ID)
				}
			}
		}
	}
	if len(ids) < 50 {
		t.Fatalf("only %d table ids found: the scan is broken", len(ids))
	}
	for id, where := range ids {
		if !documented(id, where) {
			t.Errorf("table id %s (%s) is not in docs/report-json.md (nor in its benchmark's report-json.md)", id, where)
		}
	}
	// A section without tables and a table without rows are empty lists.
	rep := &report.Report{Title: "x"}
	rep.AddSection("χ²", "one model: nothing to compare")
	rep.AddSection("s", "").Add(&report.Table{ID: "t"})
	var buf bytes.Buffer
	if err := report.Render(&buf, rep, report.JSON); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("null")) {
		t.Fatalf("null in report JSON:\n%s", buf.String())
	}
}
