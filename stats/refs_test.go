package stats

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"
)

// num is a float64 fixture value; the generator writes NaN as "NaN".
type num float64

func (n *num) UnmarshalJSON(b []byte) error {
	if string(b) == `"NaN"` {
		*n = num(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*n = num(f)
	return err
}

func fl(x []num) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

var refs struct {
	Proportions []struct {
		K, N   int
		Level  float64
		Method string
		Lo, Hi num
	}
	CohensH      []struct{ P1, P2, H num }
	Descriptives []struct {
		X, Q, Quantiles, Describe []num
		Mean, Sd0, Sd1            num
	}
	Kappa []struct {
		Name                             string
		A, B                             []string
		Q                                int
		Kappa, Ac1, Ac1Pa, Ac1Pe, Fleiss num
	}
	KappaUndefined struct {
		A, B  []string
		Kappa num
	}
	MultiRater struct {
		Complete, Missing                                  [][]string
		Fleiss, Ac1CompleteQ3, Ac1CompleteQ4, Ac1MissingQ3 num
	}
	Krippendorff struct {
		Units                             [][]num
		Published                         map[string]float64
		Nominal, Ordinal, Interval, Ratio num
	}
	Chi2 []struct {
		Name     string
		Table    [][]float64
		Yates    bool
		Stat, P  num
		Df       int
		Expected [][]num
	}
	Fisher []struct {
		Table        [][]int
		OddsRatio, P num
	}
	Mcnemar []struct {
		B, C                                            int
		ExactP, ExactStat, CcStat, CcP, NoccStat, NoccP num
	}
	Correlation []struct {
		X, Y                                     []num
		PearsonR, PearsonP, SpearmanR, SpearmanP num
	}
	Logistic struct {
		X              [][]num
		Y, Coef, Se, P []num
		Llf            num
	}
	Firth []struct {
		Name                     string
		X                        [][]num
		Y, Coef, Se, PWald, PPlr []num
		Loglik                   num
	}
	Classification struct {
		YTrue, YPred, Labels []string
		Accuracy             num
		Confusion            [][]int
		PerClass             struct {
			Precision, Recall, F1 []num
			Support               []int
		}
		Micro, Macro, Weighted []num
	}
	Multilabel struct {
		YTrue, YPred [][]string
		Labels       []string
		PerClass     struct {
			Precision, Recall, F1 []num
			Support               []int
		}
		Micro, Macro, Weighted, Samples []num
	}
}

func TestMain(m *testing.M) {
	data, err := os.ReadFile("testdata/refs/refs.json")
	if err != nil {
		panic(err)
	}
	// The generator writes snake_case keys; map them onto the struct above.
	if err := json.Unmarshal(snakeToCamel(data), &refs); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// snakeToCamel rewrites "snake_case": keys to "snakecase" so encoding/json's
// case-insensitive matching finds the Go field names.
func snakeToCamel(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inStr, key := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '"' && (i == 0 || b[i-1] != '\\') {
			if !inStr {
				// a key is a string followed (after its end) by ':'
				j := i + 1
				for j < len(b) && !(b[j] == '"' && b[j-1] != '\\') {
					j++
				}
				key = j+1 < len(b) && b[j+1] == ':'
			}
			inStr = !inStr
		}
		if inStr && key && c == '_' {
			continue
		}
		out = append(out, c)
	}
	return out
}

// close9 compares to 1e-9 absolute or relative, whichever is looser.
func close9(t *testing.T, what string, got, want float64) {
	t.Helper()
	closeTol(t, what, got, want, 1e-9)
}

func closeTol(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(want) {
		if !math.IsNaN(got) {
			t.Errorf("%s: got %.17g, want NaN", what, got)
		}
		return
	}
	if math.IsInf(want, 0) {
		if got != want {
			t.Errorf("%s: got %g, want %g", what, got, want)
		}
		return
	}
	if d := math.Abs(got - want); d > tol && d > tol*math.Abs(want) {
		t.Errorf("%s: got %.17g, want %.17g (diff %.3g)", what, got, want, d)
	}
}
