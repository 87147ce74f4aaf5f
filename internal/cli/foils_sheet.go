package cli

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"

	"github.com/fallacylab/fallacylab/bench/foils"
	"github.com/fallacylab/fallacylab/report"
	"github.com/spf13/cobra"
)

func newFoilsSheetCmd(g *Global) *cobra.Command {
	cmd := &cobra.Command{Use: "sheet", Short: "Coding sheets for the native-class audit (A / B / N)"}
	var corpus, dir, out string
	var n int
	var seed uint64
	export := &cobra.Command{
		Use:   "export",
		Short: "Export a stratified sample of a corpus' \"none\" class for two human coders",
		Long: `Codes: A = a valid argument that uses a fallacy's scheme, B = another argument, N = not an argument.
Each coder fills code_1 or code_2 independently; disagreements are settled in "resolved".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			items, err := loadCorpus(corpus, dataDir(dir), foils.LoadOptions{})
			if err != nil {
				return err
			}
			sample := foils.SampleNone(items, n, seed)
			if len(sample) == 0 {
				return fmt.Errorf("corpus %s has no \"none\" items", corpus)
			}
			if err := writeOut(g.Stdout, out, func(w io.Writer) error {
				cw := csv.NewWriter(w)
				cw.WriteAll(foils.SheetRows(sample))
				return cw.Error()
			}); err != nil {
				return err
			}
			fmt.Fprintf(g.Stdout, "wrote %d items to %s\n", len(sample), out)
			return nil
		},
	}
	export.Flags().StringVar(&corpus, "corpus", "reddit", "corpus")
	export.Flags().StringVar(&dir, "data-dir", "", "data directory")
	export.Flags().IntVar(&n, "n", 30, "items to sample")
	export.Flags().Uint64Var(&seed, "seed", 1, "sampling seed")
	export.Flags().StringVar(&out, "out", "coding-sheet.csv", "sheet file")
	var format, rout string
	imp := &cobra.Command{
		Use:   "import SHEET.csv...",
		Short: "Read completed sheets: A-rate per corpus, agreement (κ, AC1, positive specific agreement)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := report.ParseFormat(format)
			if err != nil {
				return err
			}
			var items []foils.CodedItem
			for _, p := range args {
				fh, err := os.Open(p)
				if err != nil {
					return err
				}
				got, err := foils.ReadSheet(fh, p)
				fh.Close()
				if err != nil {
					return err
				}
				items = append(items, got...)
			}
			return writeReport(g, foils.SheetReport(items), f, rout)
		},
	}
	imp.Flags().StringVar(&format, "format", "md", "md, csv, json, tex or html")
	imp.Flags().StringVar(&rout, "out", "", "output file (default stdout)")
	cmd.AddCommand(export, imp)
	return cmd
}
