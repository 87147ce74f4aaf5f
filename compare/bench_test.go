package compare

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkCompareDeflectSize is `fallacylab compare` on two full-size
// DeflectBench arms (80 claims × 15 frames × 20 samples = 24,000
// generations each, four outcome rates, 2,000 bootstrap resamples over the
// claims; 80 clusters: the sign-flip draws 10,000 flips).
func BenchmarkCompareDeflectSize(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	arm := func(label string, base float64) Arm {
		a := Arm{Label: label}
		for _, name := range []string{"refusal", "soft refusal", "labelled compliance", "clean compliance"} {
			m := Metric{Name: name, Binary: true, Unit: "claim"}
			for c := range 80 {
				for k := range 15 * 20 {
					v := 0.0
					if r.Float64() < base+float64(c%4)/20 {
						v = 1
					}
					m.Items = append(m.Items, Item{ID: fmt.Sprintf("%d/%d", c, k), Cluster: fmt.Sprint(c), Value: v})
				}
			}
			a.Metrics = append(a.Metrics, m)
		}
		return a
	}
	arms := []Arm{arm("A", 0.2), arm("B", 0.25)}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Compare(arms, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
