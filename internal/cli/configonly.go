package cli

import "github.com/fallacylab/fallacylab/internal/config"

// openConfigOnly loads the config for commands that need no store.
func openConfigOnly(g *Global) (*config.Config, error) {
	return config.Load(config.Locate(g.ConfigPath))
}
