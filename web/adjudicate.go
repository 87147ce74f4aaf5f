package web

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/study"
)

// adjudicationView is one item the annotators disagree on, as the
// adjudication page shows it.
type adjudicationView struct {
	N         int
	Item      study.Item
	Rows      []adjudicationRow
	Questions []adjudicationQuestion
	Settled   bool
}

type adjudicationRow struct {
	Annotator string
	Answers   []string // per question, in the study's order ("" : none)
	// Excluded: below the decoy bar, so the report counts none of the
	// annotator's answers (study.Counted).
	Excluded bool
}

type adjudicationQuestion struct {
	ID, Text string
	Differ   bool // the annotators disagree on it
	// Majority is the answer more than half the counted annotators gave
	// (its label), "" on a tie: then only the adjudicator's answer gives
	// the item a human answer.
	Majority string
	Choices  []choiceView
}

// adjudicate is the page of a study's disagreements (loopback or the
// viewer's token, like every page but the studio's): each item the
// annotators disagree on, their answers side by side, and a form that sets
// its gold answer, which the study's report then uses in place of the
// majority.
func (s *Server) adjudicate(w http.ResponseWriter, r *http.Request) {
	st, ok := s.studyOf(w, r)
	if !ok {
		return
	}
	anns, err := s.st.Annotations(r.Context(), st.ID)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	_, _, excluded := study.Counted(st, anns, study.AnalyzeOptions{})
	var views []adjudicationView
	settled := 0
	for i, d := range study.Disagreements(st, anns) {
		v := adjudicationView{N: i + 1, Item: d.Item, Settled: len(d.Adjudicated) > 0}
		if v.Settled {
			settled++
		}
		for ai, a := range st.Annotators {
			row := adjudicationRow{Annotator: a.Name, Excluded: slices.Contains(excluded, a.Name)}
			for _, q := range st.Questions {
				row.Answers = append(row.Answers, choiceLabel(q, d.Answers[ai][q.ID]))
			}
			v.Rows = append(v.Rows, row)
		}
		for _, q := range st.Questions {
			qv := adjudicationQuestion{ID: q.ID, Text: q.Text, Majority: countedMajority(st, d, q, excluded)}
			for _, x := range d.Questions {
				qv.Differ = qv.Differ || x == q.ID
			}
			qv.Choices = choiceViews(q, d.Adjudicated[q.ID])
			v.Questions = append(v.Questions, qv)
		}
		views = append(views, v)
	}
	s.render(w, "adjudicate.html", map[string]any{"Study": st, "Items": views, "Settled": settled, "Saved": r.URL.Query().Get("saved")})
}

// countedMajority is the label of the answer to q more than half of the
// item's counted annotators (not excluded) gave, "" on a tie.
func countedMajority(st study.Study, d study.Disagreement, q study.Question, excluded []string) string {
	counts, n := map[string]int{}, 0
	for ai, a := range st.Annotators {
		if v := d.Answers[ai][q.ID]; v != "" && !slices.Contains(excluded, a.Name) {
			counts[v]++
			n++
		}
	}
	for v, c := range counts {
		if 2*c > n {
			return choiceLabel(q, v)
		}
	}
	return ""
}

// choiceLabel is how a stored choice reads ("—": not answered).
func choiceLabel(q study.Question, key string) string {
	if key == "" {
		return "—"
	}
	if q.Type == study.Multi {
		var labels []string
		for _, k := range q.Picks(key) {
			labels = append(labels, choiceLabel(study.Question{Choices: q.Choices}, k))
		}
		return strings.Join(labels, ", ")
	}
	for _, c := range q.Choices {
		if c.Key == key {
			return c.Label
		}
	}
	return key
}

// saveAdjudication stores the gold answer an adjudicator set to one item:
// only from the viewer's own page (the same-origin rule), only answers the
// study's questions offer.
func (s *Server) saveAdjudication(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		s.fail(w, 403, fmt.Errorf("refused: an adjudication must come from the viewer's own page"))
		return
	}
	st, ok := s.studyOf(w, r)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		s.fail(w, 400, fmt.Errorf("adjudication: %w", err))
		return
	}
	gold := map[string]string{}
	for k := range r.PostForm {
		if id, ok := strings.CutPrefix(k, "q:"); ok {
			q := study.Question{ID: id}
			for _, x := range st.Questions {
				if x.ID == id {
					q = x
				}
			}
			if v := formAnswer(q, r.PostForm, k); v != "" {
				gold[id] = v
			}
		}
	}
	key := r.PostForm.Get("item")
	a, err := study.Adjudication(st, key, gold, time.Now().UTC())
	if err != nil {
		s.fail(w, 400, err)
		return
	}
	if err := s.st.PutAnnotations(r.Context(), []study.Annotation{a}); err != nil {
		s.fail(w, 500, err)
		return
	}
	n := r.PostForm.Get("n")
	if _, err := strconv.Atoi(n); err != nil {
		n = "1"
	}
	http.Redirect(w, r, fmt.Sprintf("/studies/%d/adjudicate?saved=%s#item-%s", st.ID, n, n), http.StatusSeeOther)
}

// studyOf is the study the path names, or a page saying why there is none.
func (s *Server) studyOf(w http.ResponseWriter, r *http.Request) (study.Study, bool) {
	id, err := strconv.ParseInt(r.PathValue("sid"), 10, 64)
	if err != nil {
		s.fail(w, 400, fmt.Errorf("study id %q is not a number", r.PathValue("sid")))
		return study.Study{}, false
	}
	st, ok, err := s.st.Study(r.Context(), id)
	if err != nil || !ok {
		s.fail(w, 404, fmt.Errorf("no study %d in %s", id, s.st.Path()))
		return study.Study{}, false
	}
	return st, true
}
