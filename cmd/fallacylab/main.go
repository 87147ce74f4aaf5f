// Command fallacylab runs LLM fallacy benchmarks end to end.
package main

import (
	"os"

	_ "github.com/fallacylab/fallacylab/bench/all" // every benchmark, registered
	"github.com/fallacylab/fallacylab/internal/cli"
)

func main() { os.Exit(cli.Main()) }
