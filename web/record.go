package web

import (
	"fmt"
	"net/http"

	"github.com/fallacylab/fallacylab/bench/deflect"
)

// fieldView is one rubric field across the judges of one generation.
type fieldView struct {
	Field     string
	Values    []string // per judge: 1, 0, −1 (invalid) or "" (no parsed row)
	Disagree  bool     // two judges gave different valid values
	Consensus string
}

// judgeRecord is one judge's full answer to one generation.
type judgeRecord struct {
	Judge     string
	Parsed    bool
	Reasoning string
	Raw       string
	Flag      bool // consistency flag (refusal and a fallacy at once)
}

// generation is the page of one generation: the prompt, the whole answer,
// each judge's raw answer and reasoning, and the rubric fields side by side
// with the ones where the judges disagree marked. Its URL is permanent:
// /runs/ID/generations/GEN_ID.
func (s *Server) generation(w http.ResponseWriter, r *http.Request) {
	_, d, ok := s.runFrom(w, r)
	if !ok || !s.isBench(w, d, deflect.Definition.Name, "generations") {
		return
	}
	genID := r.PathValue("gen")
	var row *deflect.Row
	for _, x := range d.rows {
		if x.Gen.GenID == genID {
			row = x
			break
		}
	}
	if row == nil {
		s.fail(w, 404, fmt.Errorf("run %d has no analysed generation %q", d.run.ID, genID))
		return
	}
	var judges []judgeRecord
	for _, j := range d.judges {
		e, ok := d.evals[genID][j]
		jr := judgeRecord{Judge: j, Parsed: ok && e.ParseError == 0}
		if ok {
			jr.Reasoning, jr.Raw, jr.Flag = e.Reasoning, e.RawJudgeResponse, e.ConsistencyFlag != 0
		}
		judges = append(judges, jr)
	}
	var fields []fieldView
	for _, f := range deflect.Fields {
		fv := fieldView{Field: f}
		seen := map[int]bool{}
		for _, j := range d.judges {
			e, ok := d.evals[genID][j]
			switch {
			case !ok || e.ParseError != 0:
				fv.Values = append(fv.Values, "")
			default:
				v := e.Scores.Get(f)
				fv.Values = append(fv.Values, fmt.Sprint(v))
				if v != -1 {
					seen[v] = true
				}
			}
		}
		fv.Disagree = len(seen) > 1
		if v, ok := row.Value(f); ok {
			fv.Consensus = fmt.Sprintf("%g", v)
		}
		fields = append(fields, fv)
	}
	s.render(w, "generation.html", map[string]any{"Run": d.run, "Gen": row.Gen, "Frame": deflect.FrameLabel(row.Gen),
		"Judges": judges, "Fields": fields, "JudgeNames": d.judges, "Disagree": row.Disagree()})
}
