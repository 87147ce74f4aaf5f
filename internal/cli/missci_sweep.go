package cli

import (
	"fmt"
	"path"
	"strings"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/report"
)

// taskFamily is the template folder each task's templates live in.
var taskFamily = map[string]string{
	"reconstruct": "gen_cls/", "classify-gold": "cls_with_premise/", "classify-only": "cls_without_premise/", "consistency": "cls_with_premise/",
}

// expandTemplates turns --template into template names: a comma-separated
// list whose entries are names, globs ("gen_cls/p4-*") or "all" (every
// template of the task's family). Every name must belong to the family.
func expandTemplates(spec, task string) ([]string, error) {
	family := taskFamily[task]
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case part == "all":
			for _, t := range missci.Templates() {
				if strings.HasPrefix(t, family) {
					add(t)
				}
			}
		case strings.ContainsAny(part, "*?["):
			n := 0
			for _, t := range missci.Templates() {
				if ok, err := path.Match(part, t); err != nil {
					return nil, fmt.Errorf("--template %q: %w", part, err)
				} else if ok {
					add(t)
					n++
				}
			}
			if n == 0 {
				return nil, fmt.Errorf("--template %q matches no template", part)
			}
		default:
			if _, err := missci.Template(part); err != nil {
				return nil, err
			}
			add(part)
		}
	}
	for _, t := range out {
		if !strings.HasPrefix(t, family) {
			return nil, fmt.Errorf("--template %s: --task %s takes %s* templates", t, task, family)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--template %q names no template", spec)
	}
	return out, nil
}

// sweepReport compares reconstruction runs of several templates at k = 1,
// with METEOR over the matched premise pairs of each.
func sweepReport(data []missci.Argument, templates []string, preds []missci.Predictions, split, model string, x premiseExtras) (*report.Report, error) {
	rep := &report.Report{Title: "Missci reconstruction by template", Benchmark: "missci", Meta: [][2]string{{"split", split}, {"model", model}, {"templates", fmt.Sprint(len(templates))}}}
	var rs []missci.Reconstruction
	for _, p := range preds {
		r, err := missci.EvaluateReconstruction(data, p, 1)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	sec := rep.AddSection("Reconstruction", "One row per template at k = 1 (the paper's Tables 9–10 layout); HasPositive@1 is P@1. Each template is a run of its own: `missci report --run ID` gives its full report.")
	sec.Add(missci.ReconstructionTable("by_template", "Reconstruction by template (k = 1)", templates, rs))
	t := sec.Add(&report.Table{ID: "meteor_by_template", Title: "Premise METEOR by template (k = 1)", Columns: report.Cols("template", "pairs", "METEOR all", "METEOR correct class", "METEOR incorrect class")})
	for i, p := range preds {
		pairs, err := missci.MatchPairsWith(data, p, 1, x.embed)
		if err != nil {
			return nil, err
		}
		ps, err := missci.ScorePairs(pairs)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, []report.Cell{report.T(templates[i]), report.I(ps.N), report.F(ps.All, 4), report.F(ps.Correct, 4), report.F(ps.Incorrect, 4)})
	}
	return rep, nil
}
