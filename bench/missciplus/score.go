package missciplus

import "fmt"

// Scores are a ranking run's per-argument scores: Rows[i][j] is argument
// IDs[i]'s score on metric Names[j].
type Scores struct {
	Names []string
	IDs   []string
	Rows  [][]float64
	N     int
}

// Mean is metric j averaged over the arguments (upstream's np.mean).
func (s Scores) Mean(j int) float64 {
	if s.N == 0 {
		return 0
	}
	sum := 0.0
	for _, r := range s.Rows {
		sum += r[j]
	}
	return sum / float64(len(s.Rows))
}

// Score scores rankings on subtask 1 or 2 as upstream's evaluators do:
// subtask 1 over the arguments whose p0 a passage states, subtask 2 over
// every argument; an argument without a ranking is an error (upstream
// stops).
func Score(subtask int, args []Argument, rankings []Ranking, full bool) (Scores, error) {
	by := map[string][]string{}
	for _, r := range rankings {
		by[r.ID] = r.Ranked
	}
	s := Scores{Names: Subtask1Metrics}
	if subtask == 2 {
		s.Names = Subtask2Metrics
	}
	for _, a := range args {
		if subtask == 1 && !a.HasMappedP0() {
			continue
		}
		ranked, ok := by[a.ID]
		if !ok {
			return Scores{}, fmt.Errorf("argument %s has no ranking", a.ID)
		}
		var row []float64
		var err error
		switch subtask {
		case 1:
			row, err = Subtask1Scores(a, ranked, full)
		case 2:
			row, err = Subtask2Scores(a, ranked)
		default:
			return Scores{}, fmt.Errorf("subtask %d: want 1 or 2", subtask)
		}
		if err != nil {
			return Scores{}, err
		}
		s.IDs, s.Rows = append(s.IDs, a.ID), append(s.Rows, row)
	}
	s.N = len(s.Rows)
	return s, nil
}
