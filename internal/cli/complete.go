package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/internal/config"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// completeValues registers shell completion of flag values on every command
// that has the flag: model specs (from the config and the price table),
// the values a Task's flag lists (bench.Choices), corpora, formats, tasks, cache modes and run ids.
func completeValues(root *cobra.Command, g *Global) {
	fixed := func(vals ...string) cobra.CompletionFunc {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		}
	}
	funcs := map[string]cobra.CompletionFunc{
		"models": g.completeSpecs, "judges": g.completeSpecs, "model": g.completeSpecs, "generator": g.completeSpecs,
		"judge": g.completeSpecs, "embedder": g.completeSpecs,
		"corpus":         fixed("reddit", "cocolofa", "argotario", "mafalda", "touche"),
		"format":         fixed("md", "csv", "json", "tex", "html"),
		"cache":          fixed("use", "refresh", "only"),
		"split":          fixed("dev", "test"),
		"consensus":      fixed("any", "all", "mean", "deflectbench-code"),
		"compat":         fixed("deflectbench-code"),
		"reddit-variant": fixed("annotated", "full"),
		"run":            g.completeRuns,
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		switch c.CommandPath() {
		case "fallacylab runs show", "fallacylab runs export", "fallacylab runs rm":
			c.ValidArgsFunction = g.completeRuns
		}
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			// A flag that lists its values (bench.Choices) completes with
			// them; others by their name.
			if vals, ok := f.Annotations[bench.ChoicesKey]; ok {
				c.RegisterFlagCompletionFunc(f.Name, fixed(vals...))
			} else if fn, ok := funcs[f.Name]; ok {
				c.RegisterFlagCompletionFunc(f.Name, fn)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeSpecs offers provider:model specs: each endpoint's name with a
// colon, and the models the price table knows.
func (g *Global) completeSpecs(_ *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
	cfg, err := config.Load(config.Locate(g.ConfigPath))
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	done, last := "", typed
	if i := strings.LastIndex(typed, ","); i >= 0 { // a list: complete its last element
		done, last = typed[:i+1], typed[i+1:]
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if strings.HasPrefix(s, last) && !seen[s] {
			seen[s] = true
			out = append(out, done+s)
		}
	}
	for spec := range cfg.PriceTable() {
		add(spec)
	}
	for _, n := range cfg.Names() {
		add(n + ":")
	}
	sort.Strings(out)
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeRuns offers the store's run ids, with their names.
func (g *Global) completeRuns(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	st, err := backend.Open(context.Background(), g.DBPath, g.storeOptions(sqlite.Options{ReadOnly: true}))
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer st.Close()
	runs, err := st.Runs(context.Background())
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, r := range runs {
		out = append(out, fmt.Sprintf("%d\t%s (%s)", r.ID, r.Name, r.Status))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
