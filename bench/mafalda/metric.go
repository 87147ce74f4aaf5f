package mafalda

import (
	"math/bits"
	"slices"
)

// None is the label of a gold span no annotator marked (upstream's None):
// text between the labelled spans.
const None = -1

// Nothing is upstream's NOTHING_LABEL (0): a span marked as not fallacious,
// or an answer that says so.
const Nothing = 0

// Unknown is upstream's label of an answer that names no fallacy and does
// not say "none" (24 at level 2, 4 at level 1).
func Unknown(level int) int {
	if level == 1 {
		return 4
	}
	return 24
}

// GoldSpan is a span of the gold standard with its acceptable labels (a
// disjunction; None for the text between labelled spans), at character
// (code point) offsets [Start, End).
type GoldSpan struct {
	Labels     []int `json:"labels"`
	Start, End int
}

// PredSpan is a predicted span with its one label.
type PredSpan struct {
	Label      int `json:"label"`
	Start, End int
}

// classes is upstream's NbClasses: how many fallacy labels each level has
// (the label-only scores keep labels 1..classes).
func classes(level int) int {
	return [...]int{1, 3, 23}[level]
}

// Scores are one text's precision, recall and F1 (upstream's
// text_full_task_p_r_f1 of new_metrics.py, and text_label_only_p_r_f1 of
// metrics.py).
type Scores struct {
	P, R, F1 float64
}

// Variant is which version of upstream's span precision scores.
type Variant int

const (
	// Current is upstream's code as released (ChadiHelwe/MAFALDA @ 0df43447,
	// since ee4156e): a span predicted "nothing" scores 0 in precision.
	Current Variant = iota
	// Published is upstream's code when it made its published table
	// (result_subjective_metric.csv, commit 2528bbd, 18 Feb 2024): a span
	// predicted "nothing" scores what a gold span carrying "nothing" (at
	// level 0, any unannotated stretch) covers of it. The paper's figures
	// are this variant's.
	Published
)

// String names the variant as the report's --metric flag does.
func (v Variant) String() string {
	if v == Published {
		return "published"
	}
	return "current"
}

// SpanScores is upstream's text_full_task_p_r_f1: a predicted span scores
// the share of it that a gold span with its label covers (precision), a
// gold span the share of it that a prediction with one of its labels
// covers (recall); a text with nothing to find and nothing found scores 1.
func SpanScores(pred []PredSpan, gold []GoldSpan, v Variant) Scores {
	if len(pred) == 0 && len(gold) == 0 {
		return Scores{1, 1, 1}
	}
	p, r := spanPrecision(pred, gold, v), spanRecall(pred, gold)
	return Scores{p, r, f1(p, r)}
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * (p * r) / (p + r)
}

// overlap is the length of [a,b) ∩ [c,d).
func overlap(a, b, c, d int) int { return max(0, min(b, d)-max(a, c)) }

// spanPrecision is upstream's precision_score: the mean over predicted
// spans (those labelled Nothing count 0) of the best share of the span
// covered by a gold span carrying its label; 1 with no prediction.
func spanPrecision(pred []PredSpan, gold []GoldSpan, v Variant) float64 {
	if len(pred) == 0 {
		return 1
	}
	sum := 0.0
	for _, p := range pred {
		best := 0.0
		if p.Label != Nothing || v == Published {
			for _, g := range gold {
				if slices.Contains(g.Labels, p.Label) {
					best = max(best, share(overlap(p.Start, p.End, g.Start, g.End), p.End-p.Start))
				}
			}
			sum += best
		}
	}
	return sum / float64(len(pred))
}

// share is n/of, 0 when of is 0 (upstream's guard).
func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// spanRecall is upstream's recall_score: the mean over the gold spans that
// may not be "nothing" (None spans included, which no prediction carries)
// of the best share of the span a prediction with one of its labels
// covers; 1 when there is none.
func spanRecall(pred []PredSpan, gold []GoldSpan) float64 {
	sum, n := 0.0, 0
	for _, g := range gold {
		if slices.Contains(g.Labels, Nothing) {
			continue
		}
		n++
		best := 0.0
		for _, p := range pred {
			if slices.Contains(g.Labels, p.Label) {
				best = max(best, share(overlap(p.Start, p.End, g.Start, g.End), g.End-g.Start))
			}
		}
		sum += best
	}
	if n == 0 {
		return 1
	}
	return sum / float64(n)
}

// LabelScores is upstream's text_label_only_p_r_f1 (metrics.py): the set
// of fallacy labels predicted anywhere in the text against the gold's,
// where each gold span contributes one of its acceptable labels (recall)
// or any non-empty set of them (precision) — the best such reading counts.
func LabelScores(pred []PredSpan, gold []GoldSpan, level int) Scores {
	if len(pred) == 0 && len(gold) == 0 {
		return Scores{1, 1, 1}
	}
	nb := classes(level)
	keep := func(l int) bool { return l != None && l != Nothing && l-1 < nb }
	var predSet uint32
	for _, s := range pred {
		if keep(s.Label) {
			predSet |= 1 << uint(s.Label)
		}
	}
	// A reading with nothing in common with the prediction scores 0, or 1
	// when both are empty.
	bestOf := func(truths map[uint32]bool, missed func(truth uint32) uint32) float64 {
		out := 0.0
		for truth := range truths {
			tp := bits.OnesCount32(predSet & truth)
			v := 0.0
			switch {
			case tp == 0 && predSet == 0 && truth == 0:
				v = 1
			case tp > 0:
				v = float64(tp) / float64(tp+bits.OnesCount32(missed(truth)))
			}
			out = max(out, v)
		}
		return out
	}
	prec := bestOf(readings(gold, keep, true), func(truth uint32) uint32 { return predSet &^ truth })
	rec := bestOf(readings(gold, keep, false), func(truth uint32) uint32 { return truth &^ predSet })
	return Scores{prec, rec, f1(prec, rec)}
}

// readings are the label sets the gold can be read as (upstream's
// generate_label_conjunctions, as sets of kept labels): each span with
// labels (not only None) contributes one of them (recall) or any
// non-empty subset of them (precision). Upstream enumerates the readings
// span by span; the sets they make are the same.
func readings(gold []GoldSpan, keep func(int) bool, subsets bool) map[uint32]bool {
	out := map[uint32]bool{0: true}
	for _, g := range gold {
		if len(g.Labels) == 0 || len(g.Labels) == 1 && g.Labels[0] == None {
			continue
		}
		masks := map[uint32]bool{}
		if subsets {
			n := len(g.Labels)
			for sub := 1; sub < 1<<n; sub++ {
				var m uint32
				for i, l := range g.Labels {
					if sub&(1<<i) != 0 && keep(l) {
						m |= 1 << uint(l)
					}
				}
				masks[m] = true
			}
		} else {
			for _, l := range g.Labels {
				var m uint32
				if keep(l) {
					m = 1 << uint(l)
				}
				masks[m] = true
			}
		}
		next := map[uint32]bool{}
		for r := range out {
			for m := range masks {
				next[r|m] = true
			}
		}
		out = next
	}
	return out
}
