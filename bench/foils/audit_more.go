package foils

import (
	"fmt"
	"math"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// shareNone is SPEC C.6's statistic: among errors on fallacious items, the
// share predicted "none"; -Inf (never extreme) when there is no error.
func shareNone(gold, pred []string, perm []int) float64 {
	errs, none := 0, 0
	for i := range gold {
		p := pred[perm[i]]
		if gold[i] != None && p != gold[i] {
			errs++
			if p == None {
				none++
			}
		}
	}
	if errs == 0 {
		return math.Inf(-1)
	}
	return float64(none) / float64(errs)
}

// errorsLand reports where errors land on the unmodified test set, with the
// two permutation tests of SPEC C.6.
func errorsLand(rep *report.Report, in AuditInput, o AuditOptions, sum *Summary) error {
	sec := rep.AddSection("Where errors land", "On the unmodified test set, among fallacious items the detector gets wrong, the share it calls \"none\". "+
		"The permutation test shuffles the predicted labels (keeping every label's count, the none count among them); "+
		"p = (1 + #{share ≥ observed}) / (1 + B). The variant shuffles only among the fallacious items.")
	var gold, pred []string
	var fg, fp []string
	for i, it := range in.Test {
		if in.TestPred[i] == Unparsed {
			continue
		}
		gold, pred = append(gold, it.Gold), append(pred, in.TestPred[i])
		if it.Gold != None {
			fg, fp = append(fg, it.Gold), append(fp, in.TestPred[i])
		}
	}
	t := sec.Add(&report.Table{ID: "errors_land", Title: "Errors on fallacious test items", Columns: report.Cols("test items", "fallacious", "errors", "share called none", "permutation p (all items)", "permutation p (fallacious only)")})
	if len(fg) == 0 {
		t.Rows = append(t.Rows, []report.Cell{report.I(len(gold)), report.I(0), report.I(0), report.NA("no fallacious test items"), report.NA(""), report.NA("")})
		sum.ShareNone, sum.PermP, sum.PermPFallacious = math.NaN(), math.NaN(), math.NaN()
		return nil
	}
	id := all(len(fg))
	obs := shareNone(fg, fp, id)
	errs := 0
	for i := range fg {
		if fp[i] != fg[i] {
			errs++
		}
	}
	reps, err := stats.Bootstrap(len(fg), o.Resamples, o.Seed*7+5, func(idx []int) ([]float64, bool) {
		g, p := make([]string, len(idx)), make([]string, len(idx))
		for k, i := range idx {
			g[k], p[k] = fg[i], fp[i]
		}
		v := shareNone(g, p, all(len(idx)))
		if math.IsInf(v, -1) {
			v = math.NaN()
		}
		return []float64{v}, true
	})
	if err != nil {
		return err
	}
	lo, hi := reps.Percentile(0, o.Level)
	pAll, err := stats.PermutationTest(len(gold), o.Perms, 0, o.Seed*7+6, func(perm []int) float64 { return shareNone(gold, pred, perm) })
	if err != nil {
		return err
	}
	pFal, err := stats.PermutationTest(len(fg), o.Perms, 0, o.Seed*7+7, func(perm []int) float64 { return shareNone(fg, fp, perm) })
	if err != nil {
		return err
	}
	if math.IsInf(obs, -1) {
		obs = math.NaN()
	}
	sum.ShareNone, sum.ShareNoneLo, sum.ShareNoneHi = obs, lo, hi
	sum.PermP, sum.PermPFallacious = pAll.P, pFal.P
	t.Rows = append(t.Rows, []report.Cell{report.I(len(gold)), report.I(len(fg)), report.I(errs), report.PCI(obs, lo, hi, errs),
		report.PV(pAll.P), report.PV(pFal.P)})
	return nil
}

// firth fits y = 1[ŷ = source type] on condition (matched = 1) and
// readability over the constructed items (SPEC C.7).
func firth(rep *report.Report, M, W cond, o AuditOptions, sum *Summary) error {
	sec := rep.AddSection("Item-level Firth regression", "Flag-as-source-type on condition (matched = 1, wrong-scheme = 0) and readability "+
		"(Flesch reading ease of the item), Firth-penalised logistic regression; p-values from the penalised likelihood-ratio test and from Wald.")
	var X [][]float64
	var y []float64
	for _, c := range []struct {
		c   cond
		val float64
	}{{M, 1}, {W, 0}} {
		for i := range c.c.asSrc {
			X = append(X, []float64{1, c.val, o.Readability(c.c.text[i])})
			y = append(y, c.c.asSrc[i])
		}
	}
	f, err := stats.Firth(X, y, true)
	t := sec.Add(&report.Table{ID: "firth", Title: "Firth logistic regression", Columns: report.Cols("term", "coefficient", "SE", "odds ratio", "Wald p", "penalised LR p")})
	if err != nil {
		sec.Intro += fmt.Sprintf(" Not estimable: %v.", err)
		sum.FirthOR = math.NaN()
		return nil
	}
	for j, name := range []string{"intercept", "condition (matched)", "readability (Flesch)"} {
		t.Rows = append(t.Rows, []report.Cell{report.T(name), report.F(f.Coef[j], 4), report.F(f.SE[j], 4), report.F(f.OddsRatio[j], 3),
			report.PV(f.PWald[j]), report.PV(f.PLR[j])})
	}
	sum.FirthOR, sum.FirthWald, sum.FirthPLR = f.OddsRatio[1], f.PWald[1], f.PLR[1]
	return nil
}
