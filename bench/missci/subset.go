package missci

import "fmt"

// Coverage is the part of a split that a set of predictions covers: a run
// made with --limit or --sample-id, or a partial predictions file, holds a
// subset of the arguments, and every figure of its report, page or study is
// over that subset ("n of N arguments"), never over lines it never answered.
type Coverage struct {
	Args    []Argument // the arguments every line of which has a prediction
	Total   int        // the split's arguments
	Partial int        // arguments with predictions for some of their lines only: left out
}

// Covered is the Coverage of preds in args.
func Covered(args []Argument, preds Predictions) Coverage {
	c := Coverage{Total: len(args)}
	for _, a := range args {
		have := 0
		for _, l := range a.Lines {
			if len(preds[l.ID]) > 0 {
				have++
			}
		}
		switch {
		case have == len(a.Lines) && have > 0:
			c.Args = append(c.Args, a)
		case have > 0:
			c.Partial++
		}
	}
	return c
}

// Subset reports whether the predictions cover fewer than all arguments.
func (c Coverage) Subset() bool { return len(c.Args) < c.Total }

// Describe is the report's line for a subset ("" for the whole split).
func (c Coverage) Describe() string {
	if !c.Subset() {
		return ""
	}
	s := fmt.Sprintf("%d of %d arguments (a subset: every figure is over these)", len(c.Args), c.Total)
	if c.Partial > 0 {
		s += fmt.Sprintf("; %d arguments with only some lines predicted are left out", c.Partial)
	}
	return s
}

// errNoneCovered is the error for predictions that cover no argument.
func (c Coverage) err(split string) error {
	if len(c.Args) > 0 {
		return nil
	}
	return fmt.Errorf("the predictions cover none of the %d arguments of the %s split (every line of an argument needs a prediction; is --split right?)", c.Total, split)
}
