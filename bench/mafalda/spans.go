package mafalda

import (
	"slices"
	"unicode/utf8"
)

// Answer is one sentence a model was asked about and its labels (Labels).
type Answer struct {
	Sentence string `json:"sentence"`
	Labels   []int  `json:"labels"`
}

// PredSpans is upstream's __concatenate_sentences_to_spans: consecutive
// sentences that share a label make one span of it. Offsets count each
// sentence's characters and one between sentences, as upstream does (the
// sentences joined by spaces, not their places in the text).
func PredSpans(answers []Answer) []PredSpan {
	var out []PredSpan
	for _, s := range sentenceSpans(answers) {
		out = append(out, s.PredSpan)
	}
	return out
}

// sentenceSpan is a predicted span and the sentences it joins
// (answers[From:To]).
type sentenceSpan struct {
	PredSpan
	From, To int
}

// sentenceSpans are PredSpans with the sentences each joins.
func sentenceSpans(answers []Answer) []sentenceSpan {
	left := make([]map[int]bool, len(answers))
	for i, a := range answers {
		left[i] = map[int]bool{}
		for _, l := range a.Labels {
			left[i][l] = true
		}
	}
	var out []sentenceSpan
	begin := 0
	for i, a := range answers {
		for _, l := range a.Labels {
			if !left[i][l] {
				continue // a span of an earlier sentence took it
			}
			end, j := begin+utf8.RuneCountInString(a.Sentence), i+1
			for ; j < len(answers) && left[j][l]; j++ {
				end += 1 + utf8.RuneCountInString(answers[j].Sentence)
				delete(left[j], l)
			}
			out = append(out, sentenceSpan{PredSpan{Label: l, Start: begin, End: end}, i, j})
		}
		begin += utf8.RuneCountInString(a.Sentence) + 1
	}
	return out
}

// Result is one text's scores at each level: the span scores (upstream's
// headline "P/R/F1 Level L") and the label-only ones ("Label … Level L").
// A level-1 run has level 1 only.
type Result struct {
	Span, Label [3]Scores
	// Has says which levels were scored.
	Has [3]bool
}

// Evaluate scores one text's answers against its gold as upstream's
// evaluate does for a run at level (2: every level, the level-1 and
// level-0 readings of the same spans; 1: level 1 only, evaluate_level_1),
// with the variant v of its span precision.
func Evaluate(answers []Answer, gold []GoldSpan, level int, v Variant) Result {
	pred := PredSpans(answers)
	var r Result
	for lv := level; lv >= 0; lv-- {
		if level == 1 && lv == 0 {
			break
		}
		p := make([]PredSpan, len(pred))
		for i, s := range pred {
			p[i] = s
			switch {
			case level == 2 && lv == 1:
				p[i].Label = ToLevel1(s.Label)
			case lv == 0:
				p[i].Label = toLevel0Pred(s.Label)
			}
		}
		g := make([]GoldSpan, len(gold))
		for i, s := range gold {
			g[i] = GoldSpan{Start: s.Start, End: s.End}
			for _, l := range s.Labels {
				m := l
				switch lv {
				case 1:
					m = ToLevel1(l)
				case 0:
					m = toLevel0Gold(l)
				}
				if !slices.Contains(g[i].Labels, m) {
					g[i].Labels = append(g[i].Labels, m)
				}
			}
		}
		r.Label[lv] = LabelScores(p, g, lv)
		r.Span[lv] = SpanScores(p, g, v)
		r.Has[lv] = true
	}
	return r
}
