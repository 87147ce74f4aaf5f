package sqlite_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/fallacylab/fallacylab/store/sqlite"
)

// The test binary plays the other processes of TestLocksSurviveOtherProcesses.
const (
	// writerEnv makes it a long-lived writer of the store it names (as
	// `fallacylab view` is): one call written per line of its stdin, "ack
	// N" printed once the write has returned.
	writerEnv = "FALLACYLAB_TEST_LOCK_WRITER"
	// otherEnv makes it another fallacylab command: it browses the store,
	// then writes one call to it, and exits.
	otherEnv = "FALLACYLAB_TEST_LOCK_OTHER"
)

func init() {
	if path := os.Getenv(writerEnv); path != "" {
		os.Exit(lockWriter(path))
	}
	if spec := os.Getenv(otherEnv); spec != "" {
		path, key, _ := strings.Cut(spec, "|")
		os.Exit(otherCommand(path, key))
	}
}

func lockWriter(path string) int {
	s, err := sqlite.Open(path)
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	// A second store of the same file, opened and closed in the process
	// while the first is open, must not cost the first its locks either.
	if r, err := sqlite.OpenWith(context.Background(), path, sqlite.Options{ReadOnly: true}); err == nil {
		r.Close()
	}
	sqlite.CanWrite(path)
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		n := strings.TrimSpace(in.Text())
		if err := s.PutCall(context.Background(), call("k"+n, "ok", "answer "+n)); err != nil {
			fmt.Println("put:", err)
			return 1
		}
		fmt.Println("ack", n)
	}
	return 0
}

func otherCommand(path, key string) int {
	r, err := sqlite.OpenWith(context.Background(), path, sqlite.Options{ReadOnly: true})
	if err != nil {
		fmt.Println("browse:", err)
		return 1
	}
	if _, err := r.CountCalls(context.Background(), "ok"); err != nil {
		fmt.Println("count:", err)
		return 1
	}
	r.Close()
	w, err := sqlite.Open(path)
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	defer w.Close()
	if err := w.PutCall(context.Background(), call(key, "ok", "other")); err != nil {
		fmt.Println("put:", err)
		return 1
	}
	return 0
}

// TestLocksSurviveOtherProcesses: a long-lived process writes to the store
// while other processes (Python's sqlite3, another fallacylab) open, read,
// write and close it; once it is killed, every write it acknowledged is in
// the store. SQLite's locks are POSIX advisory locks, which a process loses
// when it closes any descriptor of the file: a process that opened the
// database file itself while SQLite had it open lost its locks, and the
// next process to close the store took itself for the last one and deleted
// the write-ahead log under the writer.
func TestLocksSurviveOtherProcesses(t *testing.T) {
	python, _ := exec.LookPath("python3")
	if python == "" {
		t.Log("no python3: the other processes are fallacylab's only")
	}
	for round := range 3 {
		t.Run(strconv.Itoa(round), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.db")
			// Opened and closed once, as every store has been before a
			// viewer serves it: its check is remembered.
			s, err := sqlite.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.PutCall(context.Background(), call("seed", "ok", "seed")); err != nil {
				t.Fatal(err)
			}
			s.Close()

			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), writerEnv+"="+path)
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			acks := bufio.NewScanner(stdout)
			acked, others := 0, 0
			for i := 1; i <= 30; i++ {
				fmt.Fprintln(stdin, i)
				if !acks.Scan() || acks.Text() != fmt.Sprint("ack ", i) {
					t.Fatalf("writer: %q %v", acks.Text(), acks.Err())
				}
				acked = i
				switch {
				case i%3 == 0 && python != "":
					out, err := exec.Command(python, "-c", "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute('SELECT count(*) FROM calls').fetchone()\nc.close()", path).CombinedOutput()
					if err != nil {
						t.Fatalf("python3: %v\n%s", err, out)
					}
				case i%3 == 1:
					other := exec.Command(os.Args[0], "-test.run=^$")
					other.Env = append(os.Environ(), otherEnv+"="+path+"|o"+strconv.Itoa(i))
					if out, err := other.CombinedOutput(); err != nil {
						t.Fatalf("another fallacylab: %v\n%s", err, out)
					}
					others++
				}
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			db, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var n, o int
			if err := db.QueryRow(`SELECT count(*) FROM calls WHERE key LIKE 'k%'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow(`SELECT count(*) FROM calls WHERE key LIKE 'o%'`).Scan(&o); err != nil {
				t.Fatal(err)
			}
			if n != acked || o != others {
				t.Fatalf("after the writer was killed the store holds %d of its %d acknowledged writes and %d of the other commands' %d", n, acked, o, others)
			}
		})
	}
}
