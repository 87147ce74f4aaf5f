package cli_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// openPTY opens a pseudo-terminal: the CLI's stdout on its slave is a
// terminal as a person's would be.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	return m, s
}

// TestRunEndsWithItsFigures (#41 item 18): at a terminal, a run of a Task
// ends with its headline figures and the command for the whole report;
// piped, with the command only.
func TestRunEndsWithItsFigures(t *testing.T) {
	_, dir := guaranteeEnv(t, func(llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "none"} })
	args := []string{"--config", "fallacylab.yaml", "classify", "run", "--model", "openai:gpt-4.1-mini", "--limit", "6"}
	master, slave := openPTY(t)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1")
	cmd.Stdout, cmd.Stderr = slave, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var out bytes.Buffer
	io.Copy(&out, master) // until the CLI exits (EIO)
	master.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	term := strings.ReplaceAll(out.String(), "\r\n", "\n")
	for _, want := range []string{"Accuracy and F1\n", "  model", "openai:gpt-4.1-mini", "run 1 done. The whole report: fallacylab classify report --run 1"} {
		if !strings.Contains(term, want) {
			t.Errorf("at a terminal the run ends without %q:\n%s", want, term)
		}
	}
	// Piped, and on a store named by --db (a file name with a space): the
	// command names the store, quoted, so that pasted into a shell it
	// reports this run — without --db it read ./fallacylab.db, another
	// store, whose run 1 is another run (or none).
	db := filepath.Join(dir, "my runs.db")
	piped, _, err := runCLI2(t, dir, db, args[2:]...)
	hint := "fallacylab --db '" + db + "' classify report --run 1"
	if err != nil || strings.Contains(piped, "Accuracy and F1") || !strings.Contains(piped, "done. The whole report: "+hint+" (") {
		t.Fatalf("piped: %v\n%s", err, piped)
	}
	sh := exec.Command("sh", "-c", `fallacylab() { "$FL" --config fallacylab.yaml "$@"; }; `+hint+` --format csv`)
	sh.Dir = dir
	sh.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1", "FL="+os.Args[0])
	rep, err := sh.CombinedOutput()
	if err != nil || !strings.Contains(string(rep), "openai:gpt-4.1-mini") {
		t.Fatalf("the command it names, pasted into a shell: %v\n%s", err, rep)
	}
}

// TestProgressFitsTheTerminal (#41 item 20): at a terminal 60 columns
// wide, the progress line redrawn in place is cut to fit ("…"): a longer
// one wrapped, and each redraw left its end on a line of its own
// ("answere" / "d").
func TestProgressFitsTheTerminal(t *testing.T) {
	_, dir := guaranteeEnv(t, func(llmtest.Call) llmtest.Reply {
		time.Sleep(150 * time.Millisecond) // long enough for the line to be redrawn
		return llmtest.Reply{Text: "none"}
	})
	master, slave := openPTY(t)
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 60}); err != nil {
		t.Skipf("cannot size the pseudo-terminal: %v", err)
	}
	cmd := exec.Command(os.Args[0], "--config", "fallacylab.yaml", "--concurrency", "1", "classify", "run", "--model", "openai:gpt-4.1-mini", "--limit", "8")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1")
	cmd.Stdout, cmd.Stderr = io.Discard, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var out bytes.Buffer
	io.Copy(&out, master)
	master.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	redraws := 0
	for _, seg := range strings.Split(strings.ReplaceAll(out.String(), "\r\n", "\n"), "\r") {
		line, _, _ := strings.Cut(seg, "\x1b[K")
		if !strings.HasPrefix(line, "[") || strings.Contains(seg, "\n") {
			continue // not a redrawn progress line (the last one ends the run, whole)
		}
		redraws++
		if n := len([]rune(line)); n >= 60 {
			t.Fatalf("a redrawn progress line of %d runes on a terminal 60 wide: %q", n, line)
		}
	}
	if redraws == 0 {
		t.Fatalf("no progress line was redrawn:\n%q", out.String())
	}
}
