package study

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// breakAfter is the longest gap between two saves of an annotator that
// counts as time spent on an item: a longer one is a break.
const breakAfter = 10 * time.Minute

// speederShare: an annotator whose median time per item is under this
// share of the study's median (the median of the annotators' medians) is
// flagged as a speeder, the rule survey platforms use for completion times.
const speederShare = 1.0 / 3

// belowBar are the annotators whose decoy accuracy is under the bar (of
// those who answered a decoy), in the study's order.
func belowBar(s Study, ans answers, bar float64) []string {
	var out []string
	for _, a := range s.Annotators {
		n, right := decoyScore(s, ans, a.Name)
		if n > 0 && float64(right)/float64(n) < bar {
			out = append(out, a.Name)
		}
	}
	return out
}

// decoyScore is how many decoys the annotator answered and how many right
// (every known question as known).
// FewDecoys says, of a study with d decoys read at the decoy bar, that a
// single miss puts an annotator below it ("" when one miss is allowed, or
// there are no decoys): 3 of 4 is 75 %, below 80 %. An annotator flagged
// on so few has a wide interval, and a study whose every annotator missed
// one has no figure left but with --keep-flagged.
func FewDecoys(d int, bar float64) string {
	if d == 0 || float64(d-1)/float64(d) >= bar {
		return ""
	}
	need := d + 1
	for float64(need-1)/float64(need) < bar {
		need++
	}
	if d == 1 {
		return fmt.Sprintf("with 1 decoy, a miss puts an annotator below the %.0f %% bar; %d decoys or more allow one miss", 100*bar, need)
	}
	return fmt.Sprintf("with %d decoys, one miss puts an annotator below the %.0f %% bar (%d of %d is %.0f %%); %d decoys or more allow one",
		d, 100*bar, d-1, d, 100*float64(d-1)/float64(d), need)
}

func decoyScore(s Study, ans answers, name string) (n, right int) {
	for _, it := range s.Items {
		if !it.Decoy {
			continue
		}
		got, ok := ans[it.Key][name]
		if !ok {
			continue
		}
		n++
		ok = true
		for q, want := range it.Known {
			ok = ok && got[q] == want
		}
		if ok {
			right++
		}
	}
	return n, right
}

// Counted is the study and annotations a study's figures count: without
// the annotators below the decoy bar unless o.KeepFlagged, and who was
// left out.
func Counted(s Study, anns []Annotation, o AnalyzeOptions) (Study, []Annotation, []string) {
	o.defaults()
	if o.KeepFlagged {
		return s, anns, nil
	}
	out := belowBar(s, index(anns), o.DecoyBar)
	if len(out) == 0 {
		return s, anns, nil
	}
	kept := s
	kept.Annotators = slices.DeleteFunc(slices.Clone(s.Annotators), func(a Annotator) bool { return slices.Contains(out, a.Name) })
	keptAnns := slices.DeleteFunc(slices.Clone(anns), func(a Annotation) bool { return slices.Contains(out, a.Annotator) })
	return kept, keptAnns, out
}

// savedAtOnce is the gap under which two saves were one act (no one
// reads an item and answers it in a fifth of a second).
const savedAtOnce = 200 * time.Millisecond

// itemTimes are each annotator's seconds per item: the time from their
// previous save to each save (skips included), breaks left out.
func itemTimes(anns []Annotation) map[string][]float64 {
	by := map[string][]time.Time{}
	for _, a := range anns {
		if a.Annotator != Adjudicator {
			by[a.Annotator] = append(by[a.Annotator], a.At)
		}
	}
	out := map[string][]float64{}
	for name, ts := range by {
		slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
		for i := 1; i < len(ts); i++ {
			// Gaps over breakAfter are breaks; gaps under savedAtOnce are
			// answers saved together (a coding sheet imported, all at one
			// moment), not the time anyone took — counting them made an
			// offline annotator a 0.0 s "speeder" and hid the real one.
			if d := ts[i].Sub(ts[i-1]); d <= breakAfter && d >= savedAtOnce {
				out[name] = append(out[name], d.Seconds())
			}
		}
	}
	return out
}

// timing adds each annotator's time per item — median and fastest 5 %
// (the 5th percentile) — and flags speeders.
func timing(rep *report.Report, s Study, anns []Annotation) {
	times := itemTimes(anns)
	medians := map[string]float64{}
	var all []float64
	for name, ts := range times {
		if len(ts) > 0 {
			m, _ := stats.Quantile(ts, 0.5)
			medians[name] = m
			all = append(all, m)
		}
	}
	sort.Float64s(all)
	study := 0.0
	median := "no save timed yet: answers from a coding sheet carry no times"
	if len(all) > 0 {
		study, _ = stats.Quantile(all, 0.5)
		median = seconds(study)
	}
	sec := rep.AddSection("Time per item", fmt.Sprintf("Seconds from an annotator's previous save to each save (gaps over %.0f minutes are breaks, not counted). "+
		"A speeder's median is under a third of the study's median (the median of the annotators' medians: %s); speeders are flagged, not excluded.", breakAfter.Minutes(), median))
	t := sec.Add(&report.Table{ID: "time_per_item", Title: "Time per item by annotator", Columns: report.Cols("annotator", "items timed", "median (s)", "fastest 5 % (s)", "flag")})
	for _, a := range s.Annotators {
		ts := times[a.Name]
		if len(ts) == 0 {
			t.Rows = append(t.Rows, []report.Cell{report.T(a.Name), report.I(0), report.NA("nothing timed"), report.NA(""), report.T("")})
			continue
		}
		p5, _ := stats.Quantile(ts, 0.05)
		flag := ""
		if len(all) >= 2 && medians[a.Name] < speederShare*study {
			flag = "speeder: check this annotator's answers"
		}
		t.Rows = append(t.Rows, []report.Cell{report.T(a.Name), report.I(len(ts)), report.F(medians[a.Name], 1), report.F(p5, 1), report.T(flag)})
	}
}

func seconds(v float64) string { return fmt.Sprintf("%.1f s", v) }

// mostCommon is the most common answer of counts and its count (ties: the
// first in sorted order).
func mostCommon(counts map[string]int) (string, int) {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	top, most := "", -1
	for _, k := range keys {
		if counts[k] > most {
			top, most = k, counts[k]
		}
	}
	return top, most
}

// withFlagged appends the figures of every annotator, flagged ones
// included, after the report's own (which leave them out): each section's
// title says so and each table's ID ends in "_with_flagged".
func withFlagged(rep, all *report.Report, out []string) {
	for _, sec := range all.Sections {
		sec.Title = "With the flagged annotators: " + sec.Title
		sec.Intro = strings.TrimSpace(fmt.Sprintf("Counting %s, whom the figures above leave out. %s", strings.Join(out, ", "), sec.Intro))
		for _, t := range sec.Tables {
			t.ID += "_with_flagged"
		}
		rep.Sections = append(rep.Sections, sec)
	}
}

// OnePolarity says which questions every planted decoy knows the same
// answer to ("" : none): there, one who gives that answer to everything
// passes every decoy, and only the straight-lining table catches them.
func OnePolarity(s Study) string {
	known := map[string]map[string]bool{}
	for _, it := range s.Items {
		if !it.Decoy {
			continue
		}
		for q, v := range it.Known {
			if known[q] == nil {
				known[q] = map[string]bool{}
			}
			known[q][v] = true
		}
	}
	var one []string
	for _, q := range s.Questions {
		if vs := known[q.ID]; len(vs) == 1 {
			for v := range vs {
				one = append(one, fmt.Sprintf("%s (%q)", q.ID, v))
			}
		}
	}
	if len(one) == 0 {
		return ""
	}
	return "Every decoy has the same known answer to " + strings.Join(one, ", ") + ": an annotator who gives it to everything passes them all (see straight-lining)."
}

// straightMin is how many items an annotator must have answered before one
// answer to all of them flags them.
const straightMin = 10

// straightLining adds, per annotator and question, the share of their
// answers to the sampled items (decoys left out) that are their most
// common one; one answer to every one of straightMin items or more is
// flagged.
func straightLining(rep *report.Report, s Study, ans answers) {
	sec := rep.AddSection("Straight-lining", fmt.Sprintf("Each annotator's most common answer to each question on the sampled items and its share: one answer to all of %d items or more is flagged.", straightMin))
	t := sec.Add(&report.Table{ID: "straight_lining", Title: "Most common answer by annotator and question", Columns: report.Cols("annotator", "question", "items answered", "most common", "share", "flag")})
	for _, a := range s.Annotators {
		for _, q := range s.Questions {
			if !q.Coded() {
				continue
			}
			count := map[string]int{}
			n := 0
			for _, it := range s.Items {
				if it.Decoy {
					continue
				}
				if v := ans[it.Key][a.Name][q.ID]; v != "" {
					count[v]++
					n++
				}
			}
			if n == 0 {
				t.Rows = append(t.Rows, []report.Cell{report.T(a.Name), report.T(q.ID), report.I(0), report.NA(""), report.NA(""), report.T("")})
				continue
			}
			top, most := "", -1
			for _, c := range q.Choices { // ties go to the scale's first choice
				if count[c.Key] > most {
					top, most = c.Key, count[c.Key]
				}
			}
			if q.Type == Multi {
				// A multi question's answer is its whole set of picks: the
				// same set to every item is straight-lining; one choice
				// among others picked often is not (a careful annotator
				// who ticks "a" on most items was flagged).
				top, most = mostCommon(count)
			}
			flag := ""
			if most == n && n >= straightMin {
				flag = fmt.Sprintf("answered %q to every item", top)
			}
			t.Rows = append(t.Rows, []report.Cell{report.T(a.Name), report.T(q.ID), report.I(n), report.T(top), report.F(float64(most)/float64(n), 3), report.T(flag)})
		}
	}
}

// byStratum adds, when the sample has two strata or more, each question's
// raw agreement and AC1 within each stratum, with item-bootstrap
// intervals: where the annotators agree less (a model, a frame, a source
// type).
func byStratum(sec *report.Section, s Study, ans answers, o AnalyzeOptions) error {
	var strata []string
	of := map[string]string{}
	for _, it := range s.Items {
		if it.Decoy {
			continue
		}
		if !slices.Contains(strata, it.Stratum) {
			strata = append(strata, it.Stratum)
		}
		of[it.Key] = it.Stratum
	}
	if len(strata) < 2 {
		return nil
	}
	sort.Strings(strata)
	t := sec.Add(&report.Table{ID: "agreement_by_stratum", Title: "Agreement by question and stratum", Columns: report.Cols("question", "stratum", "items", "raw agreement", "Gwet's AC1")})
	for qi, q := range s.Questions {
		if !q.Coded() {
			continue
		}
		keys, ratings := ratingsOf(s, ans, q.ID)
		for si, st := range strata {
			var rows [][]string
			for i, k := range keys {
				if of[k] == st {
					rows = append(rows, ratings[i])
				}
			}
			n := len(answeredTwice(rows))
			if n == 0 {
				t.Rows = append(t.Rows, []report.Cell{report.T(q.ID), report.T(st), report.I(0), report.NA("no item answered twice"), report.NA("")})
				continue
			}
			obs := agreeStats(rows, q)
			reps, err := stats.Bootstrap(len(rows), o.Resamples, o.Seed+uint64(1000*(qi+1)+si), func(idx []int) ([]float64, bool) {
				sub := make([][]string, len(idx))
				for i, k := range idx {
					sub[i] = rows[k]
				}
				return agreeStats(sub, q)[:2], true
			})
			if err != nil {
				return fmt.Errorf("agreement on %s in %s: %w", q.ID, st, err)
			}
			t.Rows = append(t.Rows, []report.Cell{report.T(q.ID), report.T(st), report.I(n), CICell(obs[0], reps, 0, o.Level), CICell(obs[1], reps, 1, o.Level)})
		}
	}
	return nil
}
