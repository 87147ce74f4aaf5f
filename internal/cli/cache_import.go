package cli

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/fallacylab/fallacylab/store"
	"github.com/spf13/cobra"
)

// importChunk is how many calls go into one store transaction.
const importChunk = 1000

func newCacheImportCmd(g *Global) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE.jsonl",
		Short: "Add calls exported by `runs export` (possibly on another machine) to this cache",
		Long: `Each line must be a call as written by ` + "`fallacylab runs export`" + `. The file is checked
whole before anything is written: every cache key must be the SHA-256 of its request, so an
edited or corrupted line is refused with its line number. Successful calls become cache answers
(a key already stored is kept); failed calls are skipped. Re-running the command that made the
calls, against this store, then pays for nothing and reproduces its results.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			total, skipped := 0, 0
			if err := scanExport(path, func(int, store.Call) error { total++; return nil }); err != nil {
				return err
			}
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			var chunk []store.Call
			added := 0
			flush := func() error {
				n, err := s.st.ImportCalls(cmd.Context(), chunk)
				added += n
				chunk = chunk[:0]
				return err
			}
			err = scanExport(path, func(_ int, c store.Call) error {
				if c.Status != store.StatusOK {
					skipped++
					return nil
				}
				chunk = append(chunk, c)
				if len(chunk) == importChunk {
					return flush()
				}
				return nil
			})
			if err == nil && len(chunk) > 0 {
				err = flush()
			}
			if err != nil {
				return fmt.Errorf("import %s (%d calls added before the failure; importing again is safe): %w", path, added, err)
			}
			fmt.Fprintf(g.Stdout, "imported %s: %d calls, %d new in the cache, %d already there, %d failed calls skipped\n",
				path, total, added, total-skipped-added, skipped)
			return nil
		},
	}
}

// scanExport reads a `runs export` file, checks every line and hands each call
// to fn with its line number.
func scanExport(path string, fn func(line int, c store.Call) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var e exportedCall
		if err := json.Unmarshal(b, &e); err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if err := checkExported(e); err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
		c := store.Call{Key: e.Key, Namespace: e.Namespace, Provider: e.Provider, Model: e.Model, Request: e.Request,
			Response: e.Response, Status: e.Status, Error: e.Error, Attempts: e.Attempts, Usage: e.Usage, Cost: e.Cost,
			BatchID: e.BatchID, CreatedAt: e.CreatedAt, Latency: time.Duration(e.LatencyMS) * time.Millisecond}
		if err := fn(line, c); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s line %d: %w", path, line+1, err)
	}
	return nil
}

// checkExported verifies that a line is a call whose key is the hash of its
// request and whose fields agree with the request.
func checkExported(e exportedCall) error {
	if e.Key == "" || len(e.Request) == 0 {
		return fmt.Errorf("field key or request: missing (not a `runs export` line)")
	}
	sum := sha256.Sum256(e.Request)
	if hex.EncodeToString(sum[:]) != e.Key {
		return fmt.Errorf("field key: %.12s… is not the SHA-256 of the request (edited or corrupted)", e.Key)
	}
	var doc struct {
		Namespace string `json:"namespace"`
		Provider  string `json:"provider"`
		Model     string `json:"model"`
	}
	if err := json.Unmarshal(e.Request, &doc); err != nil {
		return fmt.Errorf("field request: %w", err)
	}
	if doc.Namespace != e.Namespace || doc.Provider != e.Provider || doc.Model != e.Model {
		return fmt.Errorf("fields namespace/provider/model (%s, %s, %s) disagree with the request (%s, %s, %s)",
			e.Namespace, e.Provider, e.Model, doc.Namespace, doc.Provider, doc.Model)
	}
	switch e.Status {
	case store.StatusOK:
		if e.Response == nil {
			return fmt.Errorf("field response: missing for a successful call")
		}
	case store.StatusError:
	default:
		return fmt.Errorf("field status: %q (want ok or error)", e.Status)
	}
	return nil
}
