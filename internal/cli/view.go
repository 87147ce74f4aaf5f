package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/web"
	"github.com/spf13/cobra"
)

// minViewToken is the shortest token --allow-remote accepts: 16 random
// hex characters are 64 bits, beyond guessing at network speed.
const minViewToken = 16

func newViewCmd(g *Global) *cobra.Command {
	var addr, hosts string
	var remote, queue bool
	var bundle string
	var bundleRun int64
	cmd := &cobra.Command{
		Use:   "view",
		Short: "Browse runs, reports and generations in a local web viewer",
		Example: `  fallacylab view                  # http://127.0.0.1:7411
  fallacylab view --db other.db --addr 127.0.0.1:8080
  fallacylab view --bundle run12/ --run 12    # run 12's pages as static files, to share or publish`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (bundle != "") != (bundleRun > 0) {
				return fmt.Errorf("--bundle DIR and --run N go together: fallacylab view --bundle DIR --run N")
			}
			access, err := viewAccess(addr, hosts, remote, queue)
			if err != nil {
				return err
			}
			// Writable where it can be, so that annotators' answers are
			// saved; a store this user cannot write is browsed read-only.
			open := openBrowse
			if cfg, err := openConfigOnly(g); err == nil {
				resolveDB(g, cfg)
				if sqlite.CanWrite(g.DBPath) {
					open = openSession
				}
			}
			s, err := open(g)
			if err != nil {
				return err
			}
			defer s.Close()
			v, err := web.New(s.st)
			if err != nil {
				return err
			}
			v.SetCommand(g.command) // the commands its pages suggest name a store chosen by --db
			if queue {
				if err := mountQueue(cmd.Context(), v, s.st); err != nil {
					return err
				}
			}
			if bundle != "" {
				return writeViewBundle(cmd.Context(), g, v, bundle, bundleRun)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen %s: %w (is another viewer running? pick another --addr)", addr, err)
			}
			srv := &http.Server{Handler: v.HandlerWith(access), ReadHeaderTimeout: 10 * time.Second}
			if access.Token != "" {
				names := strings.Join(access.Hosts, ", ")
				if names == "" {
					names = "none besides loopback: add them with --allow-host"
				}
				fmt.Fprintf(g.Stdout, "fallacylab viewer on http://%s/?token=%s (Ctrl-C to stop)\nhost names accepted: %s; the token is needed once per browser\n", ln.Addr(), access.Token, names)
			} else {
				fmt.Fprintf(g.Stdout, "fallacylab viewer on http://%s (Ctrl-C to stop)\n", ln.Addr())
			}
			if queue {
				fmt.Fprintf(g.Stdout, "the work queue (River UI) on http://%s%s\n", ln.Addr(), queuePrefix)
			}
			go func() {
				<-cmd.Context().Done()
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
				defer cancel()
				srv.Shutdown(ctx)
			}()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:7411", "listen address")
	cmd.Flags().BoolVar(&remote, "allow-remote", false, "allow a non-loopback --addr; the viewer then needs a token (printed, or $FALLACYLAB_VIEW_TOKEN)")
	cmd.Flags().StringVar(&bundle, "bundle", "", "write the viewer's pages of --run N into this folder as static files (no server, no script) and exit")
	cmd.Flags().Int64Var(&bundleRun, "run", 0, "with --bundle: the run whose pages to write")
	cmd.Flags().BoolVar(&queue, "queue", false, "a postgres:// store: serve the work queue's River UI under /queue/ (jobs by state and queue; cancel, retry, delete); loopback only")
	cmd.Flags().StringVar(&hosts, "allow-host", "", "with --allow-remote: host names the viewer may be reached by, comma-separated (requests naming other hosts are refused)")
	return cmd
}

// viewAccess is who may reach a viewer on addr: on a loopback address,
// this machine; beyond it (--allow-remote), the host names it may be
// reached by and a token (FALLACYLAB_VIEW_TOKEN, or a new random one).
func viewAccess(addr, hosts string, remote, queue bool) (web.Access, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return web.Access{}, fmt.Errorf("--addr %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || (ip != nil && ip.IsLoopback())
	if !loopback && !remote {
		return web.Access{}, fmt.Errorf("--addr %s is not a loopback address: the viewer shows every model output in the store; pass --allow-remote to serve it anyway", addr)
	}
	if queue && !loopback {
		return web.Access{}, fmt.Errorf("--queue: the River UI cancels, retries and deletes jobs: it is served on a loopback --addr only")
	}
	access := web.Access{}
	if !remote {
		return access, nil
	}
	for _, h := range strings.Split(hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			access.Hosts = append(access.Hosts, h)
		}
	}
	if !loopback && ip == nil && host != "" {
		access.Hosts = append(access.Hosts, host)
	}
	if ip != nil && !ip.IsUnspecified() && !ip.IsLoopback() {
		access.Hosts = append(access.Hosts, host)
	}
	access.Token = os.Getenv("FALLACYLAB_VIEW_TOKEN")
	if n := len(access.Token); n > 0 && n < minViewToken {
		return web.Access{}, fmt.Errorf("FALLACYLAB_VIEW_TOKEN has %d characters: a token that guards a viewer open to the network needs at least %d (e.g. openssl rand -hex 16), or leave it unset for a random one", n, minViewToken)
	}
	if access.Token == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return web.Access{}, err
		}
		access.Token = hex.EncodeToString(b)
	}
	return access, nil
}

// writeViewBundle writes run's pages into dir as static files, saying how
// far it is unless --quiet.
func writeViewBundle(ctx context.Context, g *Global, v *web.Server, dir string, run int64) error {
	var progress func(int, int)
	if !g.Quiet {
		progress = func(rendered, left int) {
			if left == 0 {
				fmt.Fprintf(g.Stderr, "%s bundle: %d pages rendered; writing them\n", time.Now().Format("15:04:05"), rendered)
				return
			}
			fmt.Fprintf(g.Stderr, "%s bundle: %d pages rendered, %d more found so far\n", time.Now().Format("15:04:05"), rendered, left)
		}
	}
	res, err := v.Bundle(ctx, dir, run, 0, progress)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.Stdout, "wrote run %d's %d pages to %s: open %s (no server needed); %d links lead to pages a bundle leaves out (other runs, searches, sorts, exports)\n",
		run, res.Pages, dir, filepath.Join(dir, "index.html"), res.Skipped)
	return nil
}
