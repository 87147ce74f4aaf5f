package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/fallacylab/fallacylab/web"
	"github.com/spf13/cobra"
)

func newViewCmd(g *Global) *cobra.Command {
	var addr string
	var remote bool
	cmd := &cobra.Command{
		Use:   "view",
		Short: "Browse runs, reports and generations in a local web viewer",
		Example: `  fallacylab view                  # http://127.0.0.1:7411
  fallacylab view --db other.db --addr 127.0.0.1:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return fmt.Errorf("--addr %q: %w", addr, err)
			}
			ip := net.ParseIP(host)
			loopback := host == "localhost" || (ip != nil && ip.IsLoopback())
			if !loopback && !remote {
				return fmt.Errorf("--addr %s is not a loopback address: the viewer shows every model output in the store; pass --allow-remote to serve it anyway", addr)
			}
			if !loopback {
				fmt.Fprintf(g.Stderr, "WARNING: serving %s beyond this machine without authentication\n", g.DBPath)
			}
			s, err := openBrowse(g)
			if err != nil {
				return err
			}
			defer s.Close()
			v, err := web.New(s.st)
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen %s: %w (is another viewer running? pick another --addr)", addr, err)
			}
			srv := &http.Server{Handler: v.Handler(), ReadHeaderTimeout: 10 * time.Second}
			fmt.Fprintf(g.Stdout, "fallacylab viewer on http://%s (Ctrl-C to stop)\n", ln.Addr())
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
	cmd.Flags().BoolVar(&remote, "allow-remote", false, "allow a non-loopback --addr")
	return cmd
}
