package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version returns the module version and VCS revision of this binary.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev + modified
	}
	return v
}

func newVersionCmd(g *Global) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the fallacylab version and VCS revision",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi, _ := debug.ReadBuildInfo()
			goVer := ""
			if bi != nil {
				goVer = bi.GoVersion
			}
			fmt.Fprintf(g.Stdout, "fallacylab %s (%s)\n", Version(), goVer)
			return nil
		},
	}
}
