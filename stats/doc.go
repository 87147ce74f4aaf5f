// Package stats holds the pure statistical functions the three benchmarks
// use: proportions and their intervals, cluster (block) and percentile
// bootstraps, permutation tests, inter-rater agreement (Cohen's κ, Gwet's AC1,
// Krippendorff's α, Fleiss' κ), tests of association (χ², Fisher, McNemar,
// Pearson, Spearman), logistic and Firth-penalised logistic regression,
// classification metrics with scikit-learn semantics, and descriptives.
//
// Functions take plain slices and return plain structs. There is no I/O and no
// global state; random draws come from a seed passed in, and results do not
// depend on the number of goroutines. Every estimator is tested against values
// computed by scipy, scikit-learn or statsmodels (testdata/refs/make_refs.py).
// Distributions come from gonum.org/v1/gonum/stat/distuv.
package stats

import "errors"

// ErrEmpty is returned for an empty input.
var ErrEmpty = errors.New("stats: empty input")

// ErrNaN is returned when an input holds NaN.
var ErrNaN = errors.New("stats: NaN in input")

// ErrLength is returned when paired inputs differ in length.
var ErrLength = errors.New("stats: inputs differ in length")
