package stats

import (
	"math"
	"testing"
)

func labelsFrom(data []byte, k int) ([]string, []string) {
	n := len(data) / 2
	a, b := make([]string, n), make([]string, n)
	for i := range n {
		a[i] = string(rune('a' + int(data[2*i])%k))
		b[i] = string(rune('a' + int(data[2*i+1])%k))
	}
	return a, b
}

func inRange(v, lo, hi float64) bool { return math.IsNaN(v) || (v >= lo-1e-9 && v <= hi+1e-9) }

func FuzzAgreement(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 0, 1}, uint8(2))
	f.Add([]byte{0, 0, 0, 0}, uint8(3))
	f.Add([]byte{}, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		cats := int(k%5) + 1
		a, b := labelsFrom(data, cats)
		kap, err := CohenKappa(a, b)
		if err == nil && !inRange(kap.Kappa, -1, 1) {
			t.Fatalf("κ = %v", kap.Kappa)
		}
		pairs, _ := Pairs(a, b)
		if ac, err := GwetAC1(pairs, max(2, cats)); err == nil && !inRange(ac.AC1, -1, 1) {
			t.Fatalf("AC1 = %v", ac.AC1)
		}
		if fk, err := FleissKappa(pairs); err == nil && !inRange(fk, -1, 1) {
			t.Fatalf("Fleiss κ = %v", fk)
		}
		units := make([][]float64, len(a))
		for i := range a {
			units[i] = []float64{float64(a[i][0]), float64(b[i][0])}
		}
		if al, err := KrippendorffAlpha(units, Nominal); err == nil && !inRange(al, -1, 1) {
			t.Fatalf("α = %v", al)
		}
		if ag, err := RawAgreement(a, b); err == nil && !inRange(ag.Raw, 0, 1) {
			t.Fatalf("raw agreement %v", ag.Raw)
		}
	})
}

func FuzzChiSquare(f *testing.F) {
	f.Add([]byte{3, 4, 5, 6}, uint8(2), false)
	f.Add([]byte{0, 0, 0, 9, 9, 9}, uint8(3), true)
	f.Fuzz(func(t *testing.T, data []byte, cols uint8, yates bool) {
		c := int(cols%5) + 1
		if len(data) < c {
			return
		}
		rows := len(data) / c
		table := make([][]float64, rows)
		for i := range rows {
			table[i] = make([]float64, c)
			for j := range c {
				table[i][j] = float64(data[i*c+j])
			}
		}
		r, err := ChiSquare(table, yates)
		if err != nil {
			return
		}
		if r.Stat < 0 || math.IsNaN(r.Stat) || !inRange(r.P, 0, 1) || math.IsNaN(r.P) || r.DF < 1 {
			t.Fatalf("table %v: %+v", table, r)
		}
	})
}
