// Command fallacylab runs LLM fallacy benchmarks end to end.
package main

import (
	"os"

	"github.com/fallacylab/fallacylab/internal/cli"
)

func main() { os.Exit(cli.Main()) }
