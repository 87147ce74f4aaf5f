package all_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/corpus"
)

// module is the repository's module path.
const module = "github.com/fallacylab/fallacylab"

// TestNoPackageKnowsABenchmark: no package outside bench/<x> and bench/all
// imports a benchmark package, no non-test Go file outside them holds a
// benchmark's name (as registered, or its title) as a word of a string
// literal, and no page template outside them names a benchmark's title or
// command.
func TestNoPackageKnowsABenchmark(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// A benchmark's title is named anywhere in a literal; its name (often
	// a plain word: "prompts") when it is the whole literal, begins it as a
	// word or path ("deflect run", "foils/detect"), or follows the command
	// ("fallacylab missci report").
	//
	// A benchmark named like a corpus of the catalog (MAFALDA: a corpus
	// classify reads, and a benchmark of its own) is known only by its
	// command: the corpus's name, its files' paths and its title are the
	// data set's, which several benchmarks read.
	var titles, names, commands []string
	for _, b := range bench.All() {
		commands = append(commands, regexp.QuoteMeta(b.Name))
		if slices.Contains(corpus.Names, b.Name) {
			continue
		}
		titles, names = append(titles, regexp.QuoteMeta(b.Title)), append(names, regexp.QuoteMeta(b.Name))
	}
	names = append(names, "deflectbench", "schemefoils") // the old names
	alt, cmds := strings.Join(names, "|"), strings.Join(append(commands, "deflectbench", "schemefoils"), "|")
	named := regexp.MustCompile(`(?:^|[^A-Za-z0-9_-])(` + strings.Join(titles, "|") + `)(?:$|[^A-Za-z0-9_-])|^(` + alt + `)(?:$|[ /:.])|fallacylab (` + cmds + `)(?:$|[^A-Za-z0-9_-])`)
	// In a page's text a name is a word of the prose: only the titles and
	// the commands are looked for.
	inText := regexp.MustCompile(`(?:^|[^A-Za-z0-9_-])(` + strings.Join(titles, "|") + `)(?:$|[^A-Za-z0-9_-])|fallacylab (` + cmds + `)(?:$|[^A-Za-z0-9_-])`)
	knowing := map[string][]string{} // package → why
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		if rel == "bench/all" || isBenchmark(rel) {
			return nil
		}
		if ext := filepath.Ext(path); ext == ".html" || ext == ".tmpl" {
			// A page template outside a benchmark names none either: its
			// text, line by line, as a literal would.
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				if m := inText.FindStringSubmatch(line); m != nil {
					knowing[rel] = append(knowing[rel], fmt.Sprintf("%s:%d names %s", path, i+1, m[1]+m[2]))
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if pkg, ok := strings.CutPrefix(p, module+"/"); ok && isBenchmark(pkg) {
				knowing[rel] = append(knowing[rel], filepath.Base(path)+" imports "+pkg)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if isImportPath(f, lit) {
				return true
			}
			s, _ := strconv.Unquote(lit.Value)
			if m := named.FindStringSubmatch(s); m != nil {
				knowing[rel] = append(knowing[rel], fset.Position(lit.Pos()).String()+" names "+m[1]+m[2]+m[3])
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for p := range knowing {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		why := knowing[p]
		t.Errorf("%s knows a benchmark (%d places; first: %s): move that into the benchmark's package", p, len(why), why[0])
	}
}

// isBenchmark reports whether a package (relative to the module) is a
// benchmark's own: bench/<x> or below it, but not bench/all.
func isBenchmark(rel string) bool {
	rest, ok := strings.CutPrefix(rel, "bench/")
	return ok && rest != "" && rest != "all" && !strings.HasPrefix(rest, "all/")
}

func isImportPath(f *ast.File, lit *ast.BasicLit) bool {
	for _, im := range f.Imports {
		if im.Path == lit {
			return true
		}
	}
	return false
}

// TestTheBinaryRegistersEveryBenchmark: the command imports bench/all, so
// the registry the CLI, the viewer and the runner read is the whole one.
func TestTheBinaryRegistersEveryBenchmark(t *testing.T) {
	src, err := os.ReadFile("../../cmd/fallacylab/main.go")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range f.Imports {
		if im.Path.Value == strconv.Quote(module+"/bench/all") {
			return
		}
	}
	t.Fatal("cmd/fallacylab does not import bench/all: the binary's registry is not the whole one")
}

// TestStoreIsTheFloor (#43): the store's packages import nothing above the
// store (no benchmark, study, runner, lifecycle, viewer), and internal/
// holds the CLI only (internal/cli and its internal/config).
func TestStoreIsTheFloor(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "./store/...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(p, module+"/")
		if !ok {
			continue
		}
		for _, above := range []string{"bench", "study", "runner", "lifecycle", "view", "web", "internal"} {
			if rel == above || strings.HasPrefix(rel, above+"/") {
				t.Errorf("a store package depends on %s", rel)
			}
		}
	}
	entries, err := os.ReadDir(filepath.Join(root, "internal"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "cli" && e.Name() != "config" {
			t.Errorf("internal/%s: internal/ holds the CLI only (cli, config)", e.Name())
		}
	}
}
