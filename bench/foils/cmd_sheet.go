package foils

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/outfile"

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
// replaced: export makes a foils-native study of a Scheme Foils run and
// writes its sheet; import still scores sheets in the old two-coder format
// (item_id … code_1, code_2, resolved) and sends study sheets to
// `study import`.
func newFoilsSheetCmd(h bench.Host) *cobra.Command {
	cmd := &cobra.Command{Use: "sheet", Short: "Native-class coding sheets (A / B / N): now a foils-native study (fallacylab study)"}
	sp := bench.StudyRequest{Kind: nativeKind, Stratify: "file", Overlap: -1}
	var annotators, out string
	export := &cobra.Command{
		Use:   "export",
		Short: "Sample a corpus' \"none\" class into a foils-native study and write its coding sheet",
		Long: `Codes: A = a valid argument that uses a fallacy's scheme, B = another argument, N = not an argument.

This is now a study: it samples the native items of a Scheme Foils run (--run, default the latest
run that audited --corpus), stratified by corpus file, for two coders by default, and writes the
sheet of fallacylab study export. Code offline, then fallacylab study import STUDY SHEET.csv and
fallacylab study report STUDY; or annotate in the browser (fallacylab study links STUDY).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			s, err := h.Open(ctx, true)
			if err != nil {
				return err
			}
			defer s.Close()
			if sp.RunID == 0 {
				if sp.RunID, err = latestAudit(ctx, s.Env(""), sp.Corpus); err != nil {
					return err
				}
			}
			sp.Annotators = bench.SplitList(annotators)
			st, err := s.CreateStudy(ctx, sp)
			if err != nil {
				return err
			}
			if err := outfile.Write(h.Settings().Stdout, out, func(w io.Writer) error { return s.WriteStudySheet(ctx, st.ID, w) }); err != nil {
				return err
			}
			fmt.Fprintf(h.Settings().Stdout, "study %d: %d native items of run %d for %s, sheet %s\n", st.ID, st.Items, st.RunID, strings.Join(sp.Annotators, ", "), out)
			fmt.Fprintf(h.Settings().Stdout, "when coded: fallacylab study import %d %s ; fallacylab study report %d\n", st.ID, out, st.ID)
			return nil
		},
	}
	f := export.Flags()
	f.StringVar(&sp.Corpus, "corpus", "reddit", "the audited corpus")
	f.Int64Var(&sp.RunID, "run", 0, "the Scheme Foils run (default: the latest that audited --corpus)")
	f.IntVar(&sp.N, "n", 30, "items to sample")
	f.Uint64Var(&sp.Seed, "seed", 1, "sampling seed")
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

// latestAudit is the newest Scheme Foils run of the store that audited the
// corpus (runs are read newest first; the first match ends the search).
func latestAudit(ctx context.Context, env bench.Env, corpus string) (int64, error) {
	runs, err := env.Records.Runs(ctx)
	if err != nil {
		return 0, err
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID > runs[j].ID })
	for _, r := range runs {
		if r.Benchmark != Definition.Name {
			continue
		}
		audits, err := LoadAudits(ctx, env.Records, r.ID)
		if errors.Is(err, ErrNoAudit) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if len(audits) > 0 {
			if _, err := AuditOf(audits, r.ID, corpus); err == nil {
				return r.ID, nil
			}
		}
	}
	return 0, fmt.Errorf("no Scheme Foils run in %s audited %s: run fallacylab foils audit --corpus %s first (or pass --run)", env.Store, corpus, corpus)
}
