package view

import "github.com/sergi/go-diff/diffmatchpatch"

// DiffPart is a run of text two answers share (Op 0), only the first has
// (Op -1) or only the second (Op +1).
type DiffPart struct {
	Op   int
	Text string
}

// Diff is the difference of two texts as runs of shared, removed and added
// text, cleaned up to whole words and phrases (diff-match-patch's semantic
// clean-up) so that it reads as an editor's diff, not character noise.
func Diff(a, b string) []DiffPart {
	dmp := diffmatchpatch.New()
	ds := dmp.DiffMain(a, b, false)
	ds = dmp.DiffCleanupSemantic(ds)
	out := make([]DiffPart, 0, len(ds))
	for _, d := range ds {
		op := 0
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = -1
		case diffmatchpatch.DiffInsert:
			op = 1
		}
		out = append(out, DiffPart{Op: op, Text: d.Text})
	}
	return out
}
