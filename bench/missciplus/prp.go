package missciplus

import (
	"fmt"
	"io/fs"
	"strings"
)

// Pairwise ranking prompting (PRP, Qin et al. 2023) as upstream's
// missci/ranking/prp_sliding.py does it: iterations of a backward sliding
// window — from the last passage to the front, each passage is compared
// with the one before it and moved before it when the model prefers it —
// so that after iteration i the first i+1 places are settled. Each
// comparison depends on the one before (the preferred passage travels on),
// so one argument's calls are made one at a time; arguments go in
// parallel.

// Slider is one argument's PRP ranking in progress.
type Slider struct {
	passages   []string
	iterations int
	it, ptr    int
	// Rankings holds the ranking after each iteration done.
	Rankings [][]string
}

// NewSlider starts a sliding-window ranking of passages (the initial
// order) over iterations.
func NewSlider(passages []string, iterations int) *Slider {
	s := &Slider{passages: append([]string(nil), passages...), iterations: iterations, ptr: len(passages) - 1}
	s.settle()
	return s
}

// settle closes the iterations that need no comparison.
func (s *Slider) settle() {
	for s.it < s.iterations && s.ptr <= s.it {
		s.Rankings = append(s.Rankings, append([]string(nil), s.passages...))
		s.it++
		s.ptr = len(s.passages) - 1
	}
}

// Next is the comparison to make (passage a, the one nearer the back, and
// b, the one before it); ok false when the ranking is done.
func (s *Slider) Next() (a, b string, ok bool) {
	if s.it >= s.iterations {
		return "", "", false
	}
	return s.passages[s.ptr], s.passages[s.ptr-1], true
}

// Answer applies the model's preference of the last comparison: a moves
// before b when moveA.
func (s *Slider) Answer(moveA bool) {
	if moveA {
		s.passages[s.ptr], s.passages[s.ptr-1] = s.passages[s.ptr-1], s.passages[s.ptr]
	}
	s.ptr--
	s.settle()
}

// Iterations is how many iterations the ranking does.
func (s *Slider) Iterations() int { return s.iterations }

// Comparisons is how many comparisons a ranking of n passages over
// iterations makes: Σ_i max(0, n − 1 − i).
func Comparisons(n, iterations int) int {
	c := 0
	for i := range iterations {
		c += max(0, n-1-i)
	}
	return c
}

// MoveAToFront reads a pairwise answer as upstream's BasicPRPFiller: the
// passage named first ("Passage A" or "Passage B") wins; neither named:
// def (upstream's False).
func MoveAToFront(answer string, def bool) bool {
	a, b := strings.Index(answer, "Passage A"), strings.Index(answer, "Passage B")
	switch {
	case a < 0 && b < 0:
		return def
	case a < 0:
		return false
	case b < 0:
		return true
	}
	return a < b
}

// PRPTemplates are the pairwise templates (prompt_templates/prp/).
func PRPTemplates() ([]string, error) {
	ents, err := fs.ReadDir(data, "data/prompt_templates/prp")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".txt"))
	}
	return out, nil
}

// PRPPrompt fills a pairwise template as upstream's BasicPRPFiller for a
// chat model: the template read and stripped, the claim, then passage a's
// text, then b's, put in (with their sections when addSection), the system
// slot emptied, stripped again; any @@ left is an error.
func PRPPrompt(template, claim string, a, b Passage, addSection bool) (string, error) {
	raw, err := fs.ReadFile(data, "data/prompt_templates/prp/"+template+".txt")
	if err != nil {
		names, _ := PRPTemplates()
		return "", fmt.Errorf("PRP template %q: want one of %s", template, strings.Join(names, ", "))
	}
	t := strings.TrimSpace(string(raw))
	t = strings.ReplaceAll(t, "@@query@@", claim)
	t = strings.ReplaceAll(t, "@@passage_a@@", a.Text(addSection))
	t = strings.ReplaceAll(t, "@@passage_b@@", b.Text(addSection))
	t = strings.TrimSpace(strings.ReplaceAll(t, "@@system_prompt@@", ""))
	if strings.Contains(t, "@@") {
		return "", fmt.Errorf("PRP template %s: a field is left unfilled", template)
	}
	return t, nil
}
