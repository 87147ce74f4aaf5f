package foils

import (
	"bufio"
	"fmt"
	"os"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/spf13/cobra"
)

// nativeKind is NativeStudy's name.
const nativeKind = "foils-native"

// studySheetHead is the first column of a study's coding sheet (`study
// export`), which tells one from an old two-coder sheet.
const studySheetHead = "annotator"

// newFoilsSheetCmd keeps `foils sheet`, which the annotation studio
// replaced. It must stay a command of this package: sheets coded in its
// old two-coder format (item_id … code_1, code_2, resolved) before studies
// existed are scored only here (import), and the old export line tells its
// users the `study create` line that now does its work.
func newFoilsSheetCmd(h bench.Host) *cobra.Command {
	cmd := &cobra.Command{Use: "sheet", Short: "Native-class coding sheets (A / B / N): now a foils-native study (fallacylab study)"}
	var corpus, annotators, out string
	var runID int64
	var n int
	var seed uint64
	export := &cobra.Command{
		Use:   "export",
		Short: "Replaced by fallacylab study create --kind " + nativeKind + " --sheet FILE",
		Long: `Codes: A = a valid argument that uses a fallacy's scheme, B = another argument, N = not an argument.

This is now a study, made by fallacylab study create --kind ` + nativeKind + `: it samples the native
items of a Scheme Foils run (--run, default the latest that audited --corpus), stratified by corpus
file, and --sheet writes the coding sheet to code offline. Then fallacylab study import STUDY
SHEET.csv and fallacylab study report STUDY; or annotate in the browser (fallacylab study links
STUDY). This command only prints that line for the flags it is given.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			line := fmt.Sprintf("fallacylab study create --kind %s --corpus %s --n %d --seed %d --annotators %s --sheet %s", nativeKind, corpus, n, seed, annotators, out)
			if runID != 0 {
				line += fmt.Sprintf(" --run %d", runID)
			}
			return fmt.Errorf("foils sheet export is now a study; run: %s", line)
		},
	}
	f := export.Flags()
	f.StringVar(&corpus, "corpus", "reddit", "the audited corpus")
	f.Int64Var(&runID, "run", 0, "the Scheme Foils run (default: the latest that audited --corpus)")
	f.IntVar(&n, "n", 30, "items to sample")
	f.Uint64Var(&seed, "seed", 1, "sampling seed")
	f.StringVar(&annotators, "annotators", "coder_1,coder_2", "coders, comma-separated")
	f.StringVar(&out, "out", "coding-sheet.csv", "sheet file")
	var format, rout string
	imp := &cobra.Command{
		Use:   "import SHEET.csv...",
		Short: "Score sheets in the old two-coder format: A-rate per corpus, agreement (κ, AC1, positive specific agreement)",
		Long:  "Sheets that fallacylab study export wrote (and so foils sheet export now) are read by fallacylab study import STUDY SHEET.csv.",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := report.ParseFormat(format); err != nil {
				return err
			}
			var items []CodedItem
			for _, p := range args {
				got, err := readLegacySheet(p)
				if err != nil {
					return err
				}
				items = append(items, got...)
			}
			return h.WriteReport(SheetReport(items), format, rout)
		},
	}
	bench.AddReportFlags(imp.Flags(), &format, &rout, "")
	cmd.AddCommand(export, imp)
	return cmd
}

// readLegacySheet reads one old-format sheet, and names the command for a
// study sheet.
func readLegacySheet(p string) ([]CodedItem, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	br := bufio.NewReader(fh)
	if head, _ := br.Peek(len(studySheetHead) + 1); string(head) == studySheetHead+"," {
		return nil, fmt.Errorf("%s line 1: a study's sheet: read it with fallacylab study import STUDY %s (fallacylab study list names the study)", p, p)
	}
	return ReadSheet(br, p)
}
