package missci

// Record is what a reconstruction run stores: its parsed, ranked predictions
// per reasoning line, with the call each line's answer came from.
type Record struct {
	Split   string
	Source  string   // model and template
	Unknown []string // class names mapped to Other
	Preds   Predictions
	// CallKeys reference each line's answer in the call cache ("" for
	// lines whose call failed).
	CallKeys map[string]string
}
