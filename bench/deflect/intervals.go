package deflect

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// claimSums are a ratio's numerator and denominator summed by claim: a
// rate (or a mean) whose interval comes from resampling claims, as the
// report's other intervals do (the claim is DeflectBench's unit).
type claimSums struct{ num, den []float64 }

// sums are empty claim sums of the run's claims.
func (p *prepared) sums() claimSums {
	return claimSums{num: make([]float64, len(p.claims)), den: make([]float64, len(p.claims))}
}

// add counts v (over weight 1) for a claim.
func (s claimSums) add(claim int, v float64) {
	s.num[claim] += v
	s.den[claim]++
}

// ratio is Σ num / Σ den with claim c counted w[c] times (nil: once).
func (s claimSums) ratio(w []int) float64 {
	var a, b float64
	for c := range s.num {
		k := 1.0
		if w != nil {
			k = float64(w[c])
		}
		a, b = a+k*s.num[c], b+k*s.den[c]
	}
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// n is how many values the sums hold.
func (s claimSums) n() int {
	var b float64
	for _, d := range s.den {
		b += d
	}
	return int(b)
}

// boot resamples claims for stat, with the report's resamples and seed:
// the claim weights stats.ClusterBootstrap draws, drawn once for every
// figure of the report (each figure drew the same ones), so the hundreds
// of small figures cost their sums, not the draws.
func (p *prepared) boot(stat func(w []int) []float64) (stats.Replicates, error) {
	p.weightsOnce.Do(func() {
		reps, err := stats.ClusterBootstrap(len(p.claims), p.opt.Resamples, p.opt.Seed, func(w []int) ([]float64, bool) {
			out := make([]float64, len(w))
			for i, x := range w {
				out[i] = float64(x)
			}
			return out, true
		})
		p.weightsErr = err
		for _, row := range reps.Values {
			w := make([]int, len(row))
			for i, x := range row {
				w[i] = int(x)
			}
			p.weights = append(p.weights, w)
		}
	})
	if p.weightsErr != nil {
		return stats.Replicates{}, p.weightsErr
	}
	out := stats.Replicates{Values: make([][]float64, len(p.weights))}
	for b, w := range p.weights {
		out.Values[b] = stat(w)
	}
	return out, nil
}

// claimsIn is how many claims the sums have values from.
func (s claimSums) claimsIn() int {
	k := 0
	for _, d := range s.den {
		if d > 0 {
			k++
		}
	}
	return k
}

// thin reports whether k claims are too few for the claim bootstrap
// (--min-clusters), as the cells' rule has it.
func (p *prepared) thin(k int) bool { return k < p.opt.MinClusters }

// thinNote is why a figure resting on k claims has no bootstrap interval.
func (p *prepared) thinNote(k int) string {
	return fmt.Sprintf("no interval: it rests on %d claims, fewer than the %d a claim bootstrap needs (--min-clusters)", k, p.opt.MinClusters)
}

// ratioInterval is the sums' ratio with its percentile bootstrap interval
// over claims (ok false: no interval could be drawn).
func (p *prepared) ratioInterval(s claimSums) (est, lo, hi float64, ok bool) {
	est = s.ratio(nil)
	reps, err := p.boot(func(w []int) []float64 { return []float64{s.ratio(w)} })
	if err != nil {
		return est, 0, 0, false
	}
	lo, hi = reps.Percentile(0, p.opt.Level)
	return est, lo, hi, true
}

// rateCell is the sums' rate with its percentile bootstrap interval over
// claims (Wilson's over the values when they come from too few claims).
func (p *prepared) rateCell(s claimSums) report.Cell {
	n := s.n()
	if n == 0 {
		return report.NA("no rows")
	}
	if k := s.claimsIn(); p.thin(k) {
		var sum float64
		for _, x := range s.num {
			sum += x
		}
		return wilsonCell(sum, float64(n), p.opt.Level, k, p.opt.MinClusters)
	}
	est, lo, hi, ok := p.ratioInterval(s)
	if !ok {
		return report.P(est, n)
	}
	return report.PCI(est, lo, hi, n)
}

// meanCell is the sums' mean (digits decimals) with its percentile
// bootstrap interval over claims.
func (p *prepared) meanCell(s claimSums, digits int) report.Cell {
	if s.n() == 0 {
		return report.NA("no rows")
	}
	if k := s.claimsIn(); p.thin(k) {
		return noInterval(report.F(s.ratio(nil), digits), p.thinNote(k))
	}
	est, lo, hi, ok := p.ratioInterval(s)
	if !ok {
		return report.F(est, digits)
	}
	return report.NCI(est, lo, hi, digits)
}

// pairCounts are two judges' 0/1 values of a field counted by claim: n[c]
// is claim c's 2×2 table (J1's value × 2 + J2's).
type pairCounts [][4]float64

// agreement is the raw agreement, Cohen's κ, Gwet's AC1 (two categories)
// and the prevalence (the mean of both judges' rates of 1) of the counts
// with claim c counted w[c] times (nil: once).
func (pc pairCounts) agreement(w []int) []float64 {
	var t [4]float64
	for c, x := range pc {
		k := 1.0
		if w != nil {
			k = float64(w[c])
		}
		for i := range t {
			t[i] += k * x[i]
		}
	}
	n := t[0] + t[1] + t[2] + t[3]
	if n == 0 {
		return []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	}
	po := (t[0] + t[3]) / n
	a1, b1 := (t[2]+t[3])/n, (t[1]+t[3])/n // each judge's rate of 1
	pe := a1*b1 + (1-a1)*(1-b1)
	kappa := math.NaN()
	if pe < 1-1e-15 {
		kappa = (po - pe) / (1 - pe)
	}
	pi := (a1 + b1) / 2
	pg := 2 * pi * (1 - pi)
	ac1 := math.NaN()
	if pg < 1-1e-15 {
		ac1 = (po - pg) / (1 - pg)
	}
	return []float64{po, kappa, ac1, pi}
}

// agreementCells are a field's raw agreement, κ, κ's asymptotic standard
// error, AC1 and prevalence over the rows both judges parsed with values
// 0 or 1, each estimate with a percentile bootstrap interval over claims.
func (p *prepared) agreementCells(f int, rows []*Row) (n int, cells []report.Cell) {
	pc := make(pairCounts, len(p.claims))
	for _, r := range rows {
		s1, s2 := r.scores[0], r.scores[1]
		if !s1.ok || !s2.ok {
			continue
		}
		a, b := s1.v[f], s2.v[f]
		if a == 0 || a == 1 {
			if b == 0 || b == 1 {
				pc[r.Claim][2*a+b]++
				n++
			}
		}
	}
	if n == 0 {
		return 0, nil
	}
	var t [4]float64
	for _, x := range pc {
		for i := range t {
			t[i] += x[i]
		}
	}
	_, se, _ := stats.KappaSE([][]float64{{t[0], t[1]}, {t[2], t[3]}})
	est := pc.agreement(nil)
	claims := 0
	for _, x := range pc {
		if x[0]+x[1]+x[2]+x[3] > 0 {
			claims++
		}
	}
	reps, err := p.boot(pc.agreement)
	cell := func(j int, v float64, prop bool) report.Cell {
		switch {
		case math.IsNaN(v):
			return report.NA("undefined: both judges gave one value only")
		case p.thin(claims) && prop:
			return wilsonCell(v*float64(n), float64(n), p.opt.Level, claims, p.opt.MinClusters)
		case p.thin(claims):
			return noInterval(report.F(v, 3), p.thinNote(claims))
		case err != nil:
			return report.F(v, 3)
		}
		lo, hi := reps.Percentile(j, p.opt.Level)
		if prop {
			return report.PCI(v, lo, hi, n)
		}
		return report.NCI(v, lo, hi, 3)
	}
	seCell := noInterval(report.F(se, 3), "a standard error: κ's interval is beside it")
	if math.IsNaN(se) {
		seCell = report.NA("undefined with κ")
	}
	return n, []report.Cell{cell(0, est[0], true), cell(1, est[1], false), seCell, cell(2, est[2], false), cell(3, est[3], true)}
}

// noInterval marks a figure that has no interval, saying why (the report's
// JSON carries the reason as the cell's note).
func noInterval(c report.Cell, why string) report.Cell {
	c.Note = why
	return c
}

// wilsonCell is a rate over generations with Wilson's interval, for a
// cell that rests on too few claims for the claim bootstrap.
func wilsonCell(k, n float64, level float64, claims, minClaims int) report.Cell {
	pr, err := stats.Prop(int(math.Round(k)), int(n), level, stats.Wilson)
	if err != nil || n == 0 {
		return report.P(k/n, int(n))
	}
	c := report.PCI(pr.Estimate, pr.Lo, pr.Hi, int(n))
	c.Note = fmt.Sprintf("Wilson interval over the cell's %d generations: it rests on %d claims, fewer than the %d a claim bootstrap needs (--min-clusters)", int(n), claims, minClaims)
	return c
}

// judgeDiffs are, by claim, the two first judges' differences on a field
// over the generations both parsed (−1 counting as a value, SPEC B.8):
// |J1 − J2| when abs, else whether they differ.
func (p *prepared) judgeDiffs(f int, rows []*Row, abs bool) claimSums {
	s := p.sums()
	for _, r := range rows {
		s1, s2 := r.scores[0], r.scores[1]
		if !s1.ok || !s2.ok {
			continue
		}
		d := math.Abs(float64(s1.v[f] - s2.v[f]))
		if !abs && d > 0 {
			d = 1
		}
		s.add(r.Claim, d)
	}
	return s
}

// bootItems resamples claims and gives stat the indices of the items
// drawn: a claim drawn k times brings its items k times (claimOf[i] is
// item i's claim). The resamples run one after another, and stat must not
// keep idx: its buffer is the next resample's.
func (p *prepared) bootItems(claimOf []int, stat func(idx []int) []float64) (stats.Replicates, error) {
	byClaim := make([][]int, len(p.claims))
	for i, c := range claimOf {
		byClaim[c] = append(byClaim[c], i)
	}
	var buf []int
	return p.boot(func(w []int) []float64 {
		idx := buf[:0]
		defer func() { buf = idx }()
		for c, n := range w {
			for range n {
				idx = append(idx, byClaim[c]...)
			}
		}
		return stat(idx)
	})
}

// numCells are estimates with the percentile intervals of reps (digits
// decimals); a NaN estimate is NA.
func (p *prepared) numCells(est []float64, reps stats.Replicates, err error, digits int) []report.Cell {
	out := make([]report.Cell, len(est))
	for j, v := range est {
		switch {
		case math.IsNaN(v):
			out[j] = report.NA("undefined")
		case p.thin(len(p.claims)):
			out[j] = noInterval(report.F(v, digits), p.thinNote(len(p.claims)))
		case err != nil:
			out[j] = report.F(v, digits)
		default:
			lo, hi := reps.Percentile(j, p.opt.Level)
			out[j] = report.NCI(v, lo, hi, digits)
		}
	}
	return out
}

// spreadOf is max − min of the finite values.
func spreadOf(vals []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if !math.IsNaN(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		return math.NaN()
	}
	return hi - lo
}

// wilsonNum is k/n shown as a number (digits decimals) with Wilson's
// interval, its note naming the method.
func wilsonNum(k, n int, level float64, digits int, method string) report.Cell {
	pr, err := stats.Prop(k, n, level, stats.Wilson)
	if err != nil || n == 0 {
		return report.NA("no rows")
	}
	return noInterval(report.NCI(pr.Estimate, pr.Lo, pr.Hi, digits), method)
}

// spreadReps resamples claims for the three refusal spreads of rows
// (content over claims, frame over prompt_num, fallacy swap over the
// explicit frames), each as a share.
func (p *prepared) spreadReps(rows []*Row) (stats.Replicates, error) {
	claim := p.sums()
	frames := map[int]claimSums{}
	swaps := map[int]map[string]claimSums{}
	for _, r := range rows {
		v, ok := r.has(fRefusal)
		if !ok {
			continue
		}
		claim.add(r.Claim, v)
		num := r.Gen.PromptNum
		if _, ok := frames[num]; !ok {
			frames[num] = p.sums()
		}
		frames[num].add(r.Claim, v)
		if fa := r.Gen.Fallacy; num >= 1 && num <= 4 && (fa == "whataboutism" || fa == "red_herring" || fa == "ad_hominem") {
			if swaps[num] == nil {
				swaps[num] = map[string]claimSums{}
			}
			if _, ok := swaps[num][fa]; !ok {
				swaps[num][fa] = p.sums()
			}
			swaps[num][fa].add(r.Claim, v)
		}
	}
	return p.boot(func(w []int) []float64 {
		var perClaim, perFrame []float64
		for c := range claim.num {
			if w[c] > 0 && claim.den[c] > 0 {
				perClaim = append(perClaim, claim.num[c]/claim.den[c])
			}
		}
		for _, s := range frames {
			perFrame = append(perFrame, s.ratio(w))
		}
		swap := math.NaN()
		for _, byF := range swaps {
			var rates []float64
			for _, s := range byF {
				rates = append(rates, s.ratio(w))
			}
			if v := spreadOf(rates); !math.IsNaN(v) && (math.IsNaN(swap) || v > swap) {
				swap = v
			}
		}
		return []float64{spreadOf(perClaim), spreadOf(perFrame), swap}
	})
}

// candidateReps resamples claims for the candidates (a) and (c) of "per-
// claim refusal varies by only 1 pp": the SD across claims of the pooled
// refusal rate, and the spread of the claim-level means.
func (p *prepared) candidateReps() (stats.Replicates, error) {
	claim := p.sums()
	levels := map[int]claimSums{}
	for _, r := range p.rows {
		v, ok := r.has(fRefusal)
		if !ok {
			continue
		}
		claim.add(r.Claim, v)
		if _, ok := levels[r.Gen.Level]; !ok {
			levels[r.Gen.Level] = p.sums()
		}
		levels[r.Gen.Level].add(r.Claim, v)
	}
	return p.boot(func(w []int) []float64 {
		var sw, swx float64
		for c := range claim.num {
			if claim.den[c] > 0 {
				sw += float64(w[c])
				swx += float64(w[c]) * claim.num[c] / claim.den[c]
			}
		}
		sd := math.NaN()
		if sw > 1 {
			mean, ss := swx/sw, 0.0
			for c := range claim.num {
				if claim.den[c] > 0 {
					d := claim.num[c]/claim.den[c] - mean
					ss += float64(w[c]) * d * d
				}
			}
			sd = math.Sqrt(ss / (sw - 1))
		}
		var rates []float64
		for _, s := range levels {
			rates = append(rates, s.ratio(w))
		}
		return []float64{sd, spreadOf(rates)}
	})
}

// pointsCell is a share shown in points (digits decimals) with replicate
// j's percentile interval.
func (p *prepared) pointsCell(v float64, reps stats.Replicates, err error, j, digits int) report.Cell {
	if p.thin(len(p.claims)) {
		return noInterval(report.F(100*v, digits), p.thinNote(len(p.claims)))
	}
	if math.IsNaN(v) || err != nil {
		return report.F(100*v, digits)
	}
	lo, hi := reps.Percentile(j, p.opt.Level)
	return report.NCI(100*v, 100*lo, 100*hi, digits)
}

// valueHist is a column of integer-valued figures (output tokens) counted
// by claim and distinct value: what describe computes pandas' describe()
// from under claim weights without sorting the resample.
type valueHist struct {
	values []float64 // distinct values, ascending
	// Claim c's (value index, count) pairs are idx[at[c]:at[c+1]] and
	// cnt[at[c]:at[c+1]]: flat, so that a resample walks two arrays.
	at  []int32
	idx []int32
	cnt []float64
	tot []float64 // describe's counts by value, made again each call
}

// newValueHist counts x (item i in claim claimOf[i]) over claims claims.
func newValueHist(x []float64, claimOf []int, claims int) *valueHist {
	vals := append([]float64(nil), x...)
	slices.Sort(vals)
	vals = slices.Compact(vals)
	idx := make(map[float64]int32, len(vals))
	for i, v := range vals {
		idx[v] = int32(i)
	}
	by := make([]map[int32]float64, claims)
	for i, v := range x {
		c := claimOf[i]
		if by[c] == nil {
			by[c] = map[int32]float64{}
		}
		by[c][idx[v]]++
	}
	h := &valueHist{values: vals, at: make([]int32, claims+1), tot: make([]float64, len(vals))}
	for c, m := range by {
		for u, n := range m {
			h.idx = append(h.idx, u)
			h.cnt = append(h.cnt, n)
		}
		h.at[c+1] = int32(len(h.idx))
	}
	return h
}

// describe is the mean, SD (ddof 1), min, quartiles (linear, as pandas)
// and max of the values with claim c counted w[c] times. Calls must not
// overlap (p.boot's are one after another): they share h's buffer.
func (h *valueHist) describe(w []int) []float64 {
	tot := h.tot
	clear(tot)
	var n float64 // every sum here is of whole numbers: exact in any order
	for c, k := range w {
		if k == 0 {
			continue
		}
		fk := float64(k)
		for e := h.at[c]; e < h.at[c+1]; e++ {
			t := fk * h.cnt[e]
			tot[h.idx[e]] += t
			n += t
		}
	}
	nan := math.NaN()
	if n == 0 {
		return []float64{nan, nan, nan, nan, nan, nan, nan}
	}
	var s, ss float64
	first, last := -1, -1
	for u, t := range tot {
		if t == 0 {
			continue
		}
		if first < 0 {
			first = u
		}
		last = u
		s += t * h.values[u]
	}
	mean := s / n
	for u := first; u <= last; u++ {
		if t := tot[u]; t > 0 {
			d := h.values[u] - mean
			ss += t * d * d
		}
	}
	sd := nan
	if n > 1 {
		sd = math.Sqrt(ss / (n - 1))
	}
	// The quartiles' neighbouring sorted positions (0-based) and the
	// values at them, found in one walk up the counts, in the positions'
	// order (a quartile's upper neighbour may pass the next one's lower).
	var pos, at [6]float64
	order := [6]int{0, 1, 2, 3, 4, 5}
	for j, p := range [3]float64{0.25, 0.5, 0.75} {
		lo := math.Floor((n - 1) * p)
		pos[2*j], pos[2*j+1] = lo, math.Min(lo+1, n-1)
	}
	slices.SortFunc(order[:], func(a, b int) int { return cmp.Compare(pos[a], pos[b]) })
	j := 0
	var cum float64
	for u, t := range tot[:last+1] {
		cum += t
		for j < len(order) && pos[order[j]] < cum {
			at[order[j]] = h.values[u]
			j++
		}
		if j == len(order) {
			break
		}
	}
	for ; j < len(order); j++ {
		at[order[j]] = h.values[last]
	}
	q := func(k int, p float64) float64 {
		x := (n - 1) * p
		a, b := at[2*k], at[2*k+1]
		t := x - math.Floor(x)
		if t >= 0.5 {
			return b - (b-a)*(1-t)
		}
		return a + (b-a)*t
	}
	return []float64{mean, sd, h.values[first], q(0, 0.25), q(1, 0.5), q(2, 0.75), h.values[last]}
}
