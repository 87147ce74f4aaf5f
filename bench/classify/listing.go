package classify

import (
	"encoding/json"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/store"
)

// Listing implements bench.Lists: the viewer lists a run's predictions.
func (Task) Listing() bench.Listing {
	return bench.Listing{Kind: KindPrediction, Title: "predictions", Columns: []string{"id", "gold", "predicted", "right", "text"}, Compared: "predicted", Gold: "gold",
		Row: func(r store.Record) ([]string, error) {
			var p Prediction
			if err := json.Unmarshal(r.Body, &p); err != nil {
				return nil, err
			}
			pred, right := p.Pred, "no"
			switch {
			case p.Failed != "":
				pred = "(failed: " + p.Failed + ")"
			case p.Pred == "":
				pred = NoLabel
			case p.Pred == p.Gold:
				right = "yes"
			}
			return []string{p.ID, p.Gold, pred, right, p.Text}, nil
		}}
}
