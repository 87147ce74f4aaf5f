package study

import (
	"fmt"
	"math"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// MinValidated is how many validated items each side (people's yes, and
// no) needs before a corrected rate is given without a warning.
const MinValidated = 10

// Confusion counts a rater (an LLM judge) against the people's majority
// on the validated items: yes and no by both, by the rater only, by
// people only.
type Confusion struct{ TP, FN, TN, FP int }

// Add counts one item: people's majority h and the rater's r ("1", "0").
func (c *Confusion) Add(h, r string) {
	switch {
	case h == "1" && r == "1":
		c.TP++
	case h == "1":
		c.FN++
	case r == "1":
		c.FP++
	default:
		c.TN++
	}
}

// Corrected is a judged rate corrected by a study: the rater's
// sensitivity and specificity, the Rogan–Gladen rate with its
// delta-method interval and its bootstrap over both samples (NA with the
// reason when undefined), and a warning when few items were validated.
type Corrected struct {
	Se, Sp          float64
	Validated       string // "yes / no" counts
	Rate, Bootstrap report.Cell
	Note            string
}

// Correct corrects judged rate p (its variance varP and its cluster
// bootstrap replicates pReps from the run) by the confusion c; seed
// seeds the validation sample's resampling.
func Correct(p, varP float64, pReps []float64, c Confusion, seed uint64) Corrected {
	ratio := func(a, b int) float64 {
		if b == 0 {
			return math.NaN()
		}
		return float64(a) / float64(b)
	}
	nPos, nNeg := c.TP+c.FN, c.TN+c.FP
	out := Corrected{Se: ratio(c.TP, nPos), Sp: ratio(c.TN, nNeg), Validated: fmt.Sprintf("%d / %d", nPos, nNeg)}
	rg := stats.RoganGladen(p, varP, out.Se, nPos, out.Sp, nNeg, 0.95)
	out.Rate, out.Bootstrap = report.NA(rg.Reason), report.NA(rg.Reason)
	if !rg.Defined {
		out.Note = rg.Reason // a "–" in a table says nothing of why
		return out
	}
	out.Rate = report.NCI(rg.Rate, rg.Lo, rg.Hi, 3)
	if lo, hi, ok := stats.RoganGladenBootstrap(pReps, c.TP, nPos, c.TN, nNeg, seed, 0.95); ok {
		out.Bootstrap = report.NCI(rg.Rate, lo, hi, 3)
	}
	if nPos < MinValidated || nNeg < MinValidated {
		out.Note = fmt.Sprintf("rests on few validated items (fewer than %d on a side): treat it as indicative", MinValidated)
	}
	return out
}
