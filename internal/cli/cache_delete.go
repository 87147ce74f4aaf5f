package cli

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func newCachePruneCmd(g *Global) *cobra.Command {
	var older age
	var yes bool
	cmd := &cobra.Command{
		Use:     "prune",
		Short:   "Delete cached calls older than a duration that no run in the store made or uses (delete a run first to free its calls)",
		Example: `  fallacylab cache prune --older-than 30d --yes`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if older <= 0 {
				return fmt.Errorf("--older-than is required, e.g. --older-than 30d")
			}
			return deleteCalls(cmd, g, store.CallSelection{Before: time.Now().Add(-time.Duration(older))}, fmt.Sprintf("older than %s", older.String()), yes)
		},
	}
	cmd.Flags().Var(&older, "older-than", "delete calls made longer ago than this: 30d, 2w, 12h or 90m")
	cmd.Flags().BoolVar(&yes, "yes", false, "do not ask for confirmation")
	return cmd
}

func newCacheClearCmd(g *Global) *cobra.Command {
	var model string
	var yes bool
	cmd := &cobra.Command{
		Use:   "clear",
		Short: "Delete cached calls (of one model with --model) that no run in the store made or uses (delete a run first to free its calls)",
		Example: `  fallacylab cache clear --model openai:gpt-4.1-mini
  fallacylab cache clear --yes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sel, what := store.CallSelection{}, "of every model"
			if model != "" {
				spec, err := llm.ParseSpec(model)
				if err != nil {
					return fmt.Errorf("--model: %w", err)
				}
				sel.Provider, sel.Model, what = spec.Provider, spec.Model, "of "+spec.String()
			}
			return deleteCalls(cmd, g, sel, what, yes)
		},
	}
	cmd.Flags().StringVar(&model, "model", "", "only this model's calls (provider:model)")
	cmd.Flags().BoolVar(&yes, "yes", false, "do not ask for confirmation")
	return cmd
}

// deleteCalls counts a selection, asks (unless --yes), and deletes what no
// run made or uses; the runs' calls are kept and counted: a run's spend,
// calls and transcript are its own until it is deleted.
func deleteCalls(cmd *cobra.Command, g *Global, sel store.CallSelection, what string, yes bool) error {
	s, err := openSession(g)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := cmd.Context()
	n, bytes, kept, err := s.st.CountCallsFor(ctx, sel)
	if err != nil {
		return err
	}
	gone := n - kept
	fmt.Fprintf(g.Stdout, "%d cached calls %s in %s (%s); %d of them are runs' (made or used by a run in the store) and are kept\n", n, what, s.st.Path(), humanBytes(bytes), kept)
	if gone == 0 {
		fmt.Fprintln(g.Stdout, "nothing to delete")
		return nil
	}
	if !yes {
		if f, ok := cmd.InOrStdin().(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
			return fmt.Errorf("deleting %d calls needs --yes (no terminal to ask)", gone)
		}
		fmt.Fprintf(g.Stdout, "delete %s? re-running their commands pays for them again [y/N] ", plural(gone, "call", "calls"))
		line, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(g.Stdout, "nothing deleted")
			return nil
		}
	}
	deleted, err := s.st.DeleteCalls(ctx, sel)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.Stdout, "deleted %s\n", plural(deleted, "call", "calls"))
	return nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// age is a duration flag that also takes days and weeks (30d, 2w, 1d12h),
// which time.ParseDuration does not.
type age time.Duration

var ageUnit = regexp.MustCompile(`(\d+(?:\.\d+)?)([dw])`)

// Set implements pflag.Value.
func (a *age) Set(s string) error {
	t := ageUnit.ReplaceAllStringFunc(strings.TrimSpace(s), func(m string) string {
		p := ageUnit.FindStringSubmatch(m)
		n, _ := strconv.ParseFloat(p[1], 64)
		if p[2] == "w" {
			n *= 7
		}
		return strconv.FormatFloat(n*24, 'f', -1, 64) + "h"
	})
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 {
		return fmt.Errorf("%q: want a duration such as 30d, 2w, 12h or 90m", s)
	}
	*a = age(d)
	return nil
}

// String implements pflag.Value: whole days as days.
func (a *age) String() string {
	d := time.Duration(*a)
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

// Type implements pflag.Value.
func (a *age) Type() string { return "duration" }
