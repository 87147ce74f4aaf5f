package judge

import (
	"fmt"
	"math"
)

// Mode is a rule for combining several judges' values of one field.
type Mode string

// Consensus modes (SPEC B.4, G.1).
const (
	// Any: drop Missing values; 1 if any remaining judge says 1 (with two
	// judges, the mean ≥ ½ rule is logical OR); undefined with no valid value.
	Any Mode = "any"
	// All: drop Missing values; 1 only if every remaining judge says 1.
	All Mode = "all"
	// Mean: drop Missing values; the mean of the remaining values (fractional).
	Mean Mode = "mean"
	// Code reproduces the released DeflectBench code: the mean over available
	// judges with −1 counted as a value, ≥ 0.5 → 1; with no judge the NaN mean
	// compares false, so the value is 0 and the row is kept.
	Code Mode = "deflectbench-code"
)

// ParseMode validates a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Any, All, Mean, Code:
		return m, nil
	}
	return "", fmt.Errorf("consensus %q: use any, all, mean or deflectbench-code", s)
}

// Combine merges one field's values from several judges (Missing for an
// invalid value; judges without a parsed row are simply absent from vals).
// ok is false when the mode leaves the value undefined (no valid judge), in
// which case the caller excludes the row (the Code mode never does).
func Combine(vals []int, mode Mode) (v float64, ok bool) {
	if mode == Code {
		if len(vals) == 0 {
			return 0, true // NaN ≥ 0.5 is False in pandas
		}
		s := 0.0
		for _, x := range vals {
			s += float64(x)
		}
		if s/float64(len(vals)) >= 0.5 {
			return 1, true
		}
		return 0, true
	}
	var valid []int
	for _, x := range vals {
		if x != Missing {
			valid = append(valid, x)
		}
	}
	if len(valid) == 0 {
		return math.NaN(), false
	}
	switch mode {
	case All:
		for _, x := range valid {
			if x != 1 {
				return 0, true
			}
		}
		return 1, true
	case Mean:
		s := 0.0
		for _, x := range valid {
			s += float64(x)
		}
		return s / float64(len(valid)), true
	default: // Any
		for _, x := range valid {
			if x == 1 {
				return 1, true
			}
		}
		return 0, true
	}
}

// Violation is a broken consistency rule.
type Violation struct {
	Rule string // "R1" or "R2"
	Msg  string
}

// Rule is a consistency rule over one judge's scores: it reports a violation
// or nil. Rules are diagnostics only; scores are never changed.
type Rule func(Scores) *Violation

// Check applies rules to parsed (non-error) scores.
func Check(s Scores, rules []Rule) []Violation {
	if s.ParseError {
		return nil
	}
	var out []Violation
	for _, r := range rules {
		if v := r(s); v != nil {
			out = append(out, *v)
		}
	}
	return out
}
