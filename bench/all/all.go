// Package all registers every benchmark: import it (for its side effect)
// where the whole registry is needed. One line per benchmark.
package all

import (
	_ "github.com/fallacylab/fallacylab/bench/classify"
	_ "github.com/fallacylab/fallacylab/bench/deflect"    // DeflectBench
	_ "github.com/fallacylab/fallacylab/bench/foils"      // Scheme Foils (audit and generation)
	_ "github.com/fallacylab/fallacylab/bench/inspectlog" // inspect_ai logs imported as runs
	_ "github.com/fallacylab/fallacylab/bench/mafalda"    // MAFALDA
	_ "github.com/fallacylab/fallacylab/bench/missci"     // Missci
	_ "github.com/fallacylab/fallacylab/bench/missciplus" // MissciPlus
	_ "github.com/fallacylab/fallacylab/bench/prompts"    // your own prompt sets
)
