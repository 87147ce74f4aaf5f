package cli

import (
	"fmt"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/spf13/cobra"
)

func newStoreCmd(g *Global) *cobra.Command {
	cmd := &cobra.Command{Use: "store", Short: "Move stores: a local SQLite file up to the team's PostgreSQL, or back"}
	var from, to string
	cp := &cobra.Command{
		Use:   "copy",
		Short: "Copy every call, run, record and study of one store into another (SQLite file or postgres:// URL)",
		Long: `Copies the call cache (answers and errors), then each run not already in the target (same name,
start time and fingerprint), with its links to calls, phase counts, typed records, studies and
annotations. Runs get new ids in the target; the source is only read. Copying again adds nothing.`,
		Example: `  fallacylab store copy --from fallacylab.db --to "$FALLACYLAB_DB"
  fallacylab store copy --from postgres://lab@db.internal/fallacylab --to backup.db`,
		Args: func(_ *cobra.Command, args []string) error {
			// cobra.NoArgs says "unknown command" of a store's name.
			switch len(args) {
			case 0:
				return nil
			case 2:
				return fmt.Errorf("store copy names its stores with flags, which say the direction: fallacylab store copy --from %s --to %s", args[0], args[1])
			}
			return fmt.Errorf("store copy takes no arguments (%q): name the stores with --from and --to", args[0])
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return fmt.Errorf("store copy needs --from and --to")
			}
			if from == to {
				return fmt.Errorf("--from and --to name the same store")
			}
			ctx := cmd.Context()
			src, err := backend.Open(ctx, from, g.storeOptions(sqlite.Options{ReadOnly: true, LockTimeout: g.LockTimeout}))
			if err != nil {
				return fmt.Errorf("--from: %w", err)
			}
			defer src.Close()
			dst, err := backend.Open(ctx, to, g.storeOptions(sqlite.Options{LockTimeout: g.LockTimeout}))
			if err != nil {
				return fmt.Errorf("--to: %w", err)
			}
			defer dst.Close()
			n, err := backend.Copy(ctx, src, dst, func(s string) {
				if !g.Quiet {
					fmt.Fprintf(g.Stderr, "copied %s\n", s)
				}
			})
			if err != nil {
				return fmt.Errorf("store copy %s → %s (stopped; what was copied stays, and copying again resumes): %w", src.Path(), dst.Path(), err)
			}
			fmt.Fprintf(g.Stdout, "copied %d calls (%d new, %d there already), %d runs (%d already there), %d studies with %d answers from %s to %s\n",
				n.Calls, n.NewCalls, n.Calls-n.NewCalls, n.Runs, n.SkippedRuns, n.Studies, n.Annotations, src.Path(), dst.Path())
			return nil
		},
	}
	cp.Flags().StringVar(&from, "from", "", "the store to copy: a SQLite file or a postgres:// URL")
	cp.Flags().StringVar(&to, "to", "", "the store to copy into (a SQLite file is made if missing)")
	cmd.AddCommand(cp)
	return cmd
}
