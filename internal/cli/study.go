package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/outfile"
	"github.com/fallacylab/fallacylab/textwrap"

	"github.com/alessio/shellescape"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/study"
	"github.com/fallacylab/fallacylab/web"
	"github.com/spf13/cobra"
)

func newStudyCmd(g *Global) *cobra.Command {
	cmd := &cobra.Command{Use: "study", Short: "Human validation of a run: blind annotation in the viewer, agreement, decoys, judge validity"}
	cmd.AddCommand(newStudyCreateCmd(g), newStudyListCmd(g), newStudyLinksCmd(g), newStudyReportCmd(g), newStudyExportCmd(g), newStudyImportCmd(g), newStudyRmCmd(g),
		newStudyRevokeCmd(g), newStudyAddAnnotatorCmd(g))
	return cmd
}

func newStudyCreateCmd(g *Global) *cobra.Command {
	sp := studySpec{o: study.Options{Overlap: -1}}
	var annotators, codebook, questions, decoyFile, sheet string
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Sample a run's records into a study with planted decoys and a queue per annotator",
		Long: `Kinds: what the benchmarks declare (below).

Every annotator sees the --overlap items (default: all) and a share of the rest, plus every decoy,
in an order of their own. Decoys have a known answer.`,
		Example: `  fallacylab study create --run 3 --kind KIND --fields soft_refusal,RH_present \
      --n 200 --stratify model,frame --annotators ana,ben,cho --overlap 60 --decoys 10 --seed 1
  fallacylab study create --run 5 --kind KIND --annotators a,b,c --per-type 7 --decoys 8
  fallacylab study create --run 7 --kind KIND --n 60 --annotators a,b --decoys 4
  fallacylab study create --kind KIND --n 30 --annotators coder_1,coder_2 --sheet sheet.csv   # the latest run; a sheet to code offline`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			sp.annotators = bench.SplitList(annotators)
			if len(sp.annotators) == 1 {
				// --annotators 3 reads as three annotators; it names one,
				// "3", and a study of one has no agreement.
				if _, err := strconv.Atoi(sp.annotators[0]); err == nil {
					return fmt.Errorf("--annotators %s names one annotator, %q, not %s of them: give their names, comma-separated (--annotators ana,ben,cho)", sp.annotators[0], sp.annotators[0], sp.annotators[0])
				}
			}
			if questions != "" {
				b, err := os.ReadFile(questions)
				if err != nil {
					return fmt.Errorf("--questions: %w", err)
				}
				c, err := study.ParseCustom(b, questions)
				if err != nil {
					return err
				}
				sp.custom = &c
			}
			if sp.o.PerItem != 0 && cmd.Flags().Changed("overlap") {
				return fmt.Errorf("--overlap and --per-item: give one (--per-item K gives every item to K annotators)")
			}
			if sp.o.PerItem < 0 {
				return fmt.Errorf("--per-item %d: want at least 1", sp.o.PerItem)
			}
			sp.decoyFile = decoyFile
			if codebook != "" {
				b, err := os.ReadFile(codebook)
				if err != nil {
					return fmt.Errorf("--codebook: %w", err)
				}
				if !utf8.Valid(b) {
					return fmt.Errorf("--codebook %s: not UTF-8 text (save it as UTF-8)", codebook)
				}
				sp.o.Codebook = strings.TrimSpace(strings.TrimPrefix(string(b), "\ufeff"))
			}
			st, err := createStudy(cmd.Context(), s, sp)
			if err != nil {
				return err
			}
			if sheet != "" {
				if err := writeNewSheet(cmd.Context(), s, st, sheet); err != nil {
					return err
				}
			}
			if sp.runID == 0 {
				fmt.Fprintf(g.Stdout, "run %d: the latest a %s study can sample (--run chooses another)\n", st.RunID, st.Kind)
			}
			sampled := len(st.Items) - sp.o.Decoys
			fmt.Fprintf(g.Stdout, "study %d: %s (%d seen by every annotator) and %s for %s: %s\n", st.ID, plural(sampled, "item", "items"), st.Overlap, plural(sp.o.Decoys, "decoy", "decoys"),
				plural(len(sp.annotators), "annotator", "annotators"), strings.Join(sp.annotators, ", "))
			if few := study.FewDecoys(sp.o.Decoys, study.DefaultDecoyBar); few != "" {
				fmt.Fprintf(g.Stderr, "note: %s (--decoys); study report --decoy-bar sets another bar\n", few)
			}
			if sp.o.N > 0 && sampled < sp.o.N {
				fmt.Fprintf(g.Stderr, "note: --n %d asked for more items than run %d has to sample (%d): the study has them all\n", sp.o.N, st.RunID, sampled)
			}
			if sheet != "" {
				fmt.Fprintf(g.Stdout, "coding sheet %s; when coded: %s ; %s\n", sheet, g.command(fmt.Sprintf("study import %d %s", st.ID, shellescape.Quote(sheet))),
					g.command(fmt.Sprintf("study report %d", st.ID)))
			}
			if one := study.OnePolarity(st); one != "" {
				fmt.Fprintf(g.Stderr, "note: %s Plant decoys of the other answer with --decoy-file (a CSV: text and a column per question with its known answer).\n", one)
			}
			fmt.Fprintf(g.Stdout, "send each annotator their link: %s (and run %s)\n", g.command(fmt.Sprintf("study links %d", st.ID)), g.command("view"))
			return nil
		},
	}
	f := cmd.Flags()
	f.Int64Var(&sp.runID, "run", 0, "the run to validate (required, but for a kind that studies the latest run it can: "+strings.Join(latestKinds(), ", ")+")")
	f.StringVar(&sp.corpus, "corpus", "", "kinds of runs of several corpora: the corpus (default: the run's only one)")
	var kinds []string
	for _, k := range study.Registered() {
		kinds = append(kinds, string(k.Kind))
	}
	f.StringVar(&sp.kind, "kind", "", strings.Join(kinds, ", ")+" (required)")
	f.StringVar(&sp.fields, "fields", "", "for a kind that asks what you name (the rubric study): its fields, comma-separated")
	f.IntVar(&sp.o.N, "n", 0, "items to sample, shared over the strata in proportion (default: all)")
	f.IntVar(&sp.o.PerStratum, "per-type", 0, "items per stratum instead of --n (a validity study: per source type)")
	var strata []string
	for _, k := range study.Registered() {
		if len(k.Strata) > 0 {
			strata = append(strata, string(k.Kind)+": "+strings.Join(k.Strata, ", "))
		}
	}
	f.StringVar(&sp.stratify, "stratify", "", "stratify by these keys, comma-separated ("+strings.Join(strata, "; ")+"; none given: the kind's default)")
	f.StringVar(&annotators, "annotators", "", "annotator names, comma-separated (required)")
	f.IntVar(&sp.o.Overlap, "overlap", -1, "items every annotator sees, for agreement (-1: all)")
	f.IntVar(&sp.o.PerItem, "per-item", 0, "give every item to this many annotators (k of m) instead of an overlap set")
	f.IntVar(&sp.o.Decoys, "decoys", 0, "decoys with a known answer planted in every queue")
	f.Uint64Var(&sp.o.Seed, "seed", 1, "sampling and order seed")
	f.StringVar(&sp.o.Name, "name", "", "study name (default: kind of run N)")
	f.StringVar(&decoyFile, "decoy-file", "", "decoys you wrote, added to the pool the kind draws from: a CSV with text, optionally context, and a column per question giving its known answer (for answers a run's records cannot know)")
	f.StringVar(&questions, "questions", "", "a records study's questions and shown columns, from a YAML file (see --kind records)")
	f.StringVar(&sheet, "sheet", "", "also write the study's coding sheet (CSV, as study export) to this file, to code offline and read back with study import")
	f.StringVar(&codebook, "codebook", "", "a text file of instructions and worked examples, shown before the first item and linked from every item")
	f.IntVar(&sp.o.Practice, "practice", 0, "items with a known answer for a practice round before the queue (feedback after each; counted nowhere)")
	f.BoolVar(&sp.o.Join, "join", false, "one shared link for a crowd platform (Prolific): each participant who opens it gets a free annotator's place, kept by their PROLIFIC_PID (see study links); --annotators names the places")
	f.StringVar(&sp.o.CompletionCode, "completion-code", "", "a crowd platform's completion code, shown with Prolific's completion link to an annotator who has been through their queue")
	cmd.MarkFlagRequired("kind")
	cmd.MarkFlagRequired("annotators")
	for _, k := range study.Registered() { // kinds benchmarks declare in their own packages
		runs := k.Benchmark + " runs"
		if k.Benchmark == "" {
			runs = "any run"
		}
		cmd.Long += "\n\n" + textwrap.Wrap(fmt.Sprintf("%s (%s): %s.", k.Kind, runs, k.Summary), 100)
	}
	bench.Choices(f, "kind", kinds...)
	return cmd
}

// studySpec is what `study create` asks for.
type studySpec struct {
	runID                          int64
	kind, fields, stratify, corpus string
	annotators                     []string
	o                              study.Options
	custom                         *study.Custom // a records study's --questions
	decoyFile                      string        // --decoy-file
}

// createStudy samples a run's records into a study and stores it.
func createStudy(ctx context.Context, s *session, sp studySpec) (study.Study, error) {
	k, err := study.ParseKind(sp.kind)
	if err != nil {
		return study.Study{}, err
	}
	qs, err := study.Questions(k, bench.SplitList(sp.fields))
	if err != nil {
		return study.Study{}, err
	}
	switch {
	case k == study.RecordsKind && sp.custom == nil:
		return study.Study{}, fmt.Errorf("a records study asks the questions of a YAML file: give --questions FILE.yaml")
	case k == study.RecordsKind:
		qs = sp.custom.Questions
	case sp.custom != nil:
		return study.Study{}, fmt.Errorf("--questions: a %s study asks its own questions (a records study asks yours)", k)
	}
	if sp.o.PerStratum > 0 && sp.o.N > 0 {
		return study.Study{}, fmt.Errorf("--n and --per-type/--per-stratum: give one")
	}
	if sp.runID == 0 {
		if sp.runID, err = latestRun(ctx, s, k, sp.corpus); err != nil {
			return study.Study{}, err
		}
	}
	run, ok, err := s.st.Run(ctx, sp.runID)
	if err != nil {
		return study.Study{}, err
	}
	if !ok {
		return study.Study{}, fmt.Errorf("--run %d: no such run in %s (fallacylab runs lists them)", sp.runID, s.st.Path())
	}
	cands, decoys, facts, err := studyItems(ctx, s, k, run, qs, bench.SplitList(sp.stratify), sp.corpus, sp.custom)
	if err != nil {
		return study.Study{}, err
	}
	if sp.decoyFile != "" {
		b, err := os.ReadFile(sp.decoyFile)
		if err != nil {
			return study.Study{}, fmt.Errorf("--decoy-file: %w", err)
		}
		gold, err := study.ParseDecoyFile(b, sp.decoyFile, qs)
		if err != nil {
			return study.Study{}, err
		}
		decoys = append(decoys, gold...)
	}
	o := sp.o
	o.Annotators = sp.annotators
	if o.Name == "" {
		o.Name = fmt.Sprintf("%s of run %d", k, run.ID)
	}
	st, err := study.Plan(k, qs, cands, decoys, o)
	if err != nil {
		return study.Study{}, err
	}
	st.RunID, st.Created, st.Facts = run.ID, time.Now().UTC(), facts
	st.ID, err = s.st.PutStudy(ctx, st)
	return st, err
}

// writeNewSheet writes a study just made to its coding sheet, and removes
// the study again when the sheet cannot be written: the command then
// leaves nothing behind.
func writeNewSheet(ctx context.Context, s *session, st study.Study, path string) error {
	err := outfile.Write(s.g.Stdout, path, func(w io.Writer) error { return writeSheet(st, nil, st.Annotators, w) })
	if err == nil {
		return nil
	}
	if _, derr := s.st.DeleteStudy(ctx, st.ID); derr != nil {
		return errors.Join(fmt.Errorf("--sheet: %w", err), fmt.Errorf("remove study %d again: %w", st.ID, derr))
	}
	return fmt.Errorf("--sheet: %w (study not kept)", err)
}

// latestKinds are the kinds that study the latest run they can sample
// when --run is not given.
func latestKinds() []string {
	var out []string
	for _, k := range study.Registered() {
		if k.LatestRun != nil {
			out = append(out, string(k.Kind))
		}
	}
	return out
}

// latestRun is the run a study of kind k takes when --run is not given:
// the newest the kind can sample, for a kind that says (study.KindSpec's
// LatestRun).
func latestRun(ctx context.Context, s *session, k study.Kind, corpus string) (int64, error) {
	spec, ok := study.SpecOf(k)
	if !ok || spec.LatestRun == nil {
		return 0, fmt.Errorf("--run: a %s study names the run it studies (fallacylab runs lists them)", k)
	}
	runs, err := s.st.Runs(ctx)
	if err != nil {
		return 0, err
	}
	id, err := spec.LatestRun(ctx, s.st, runs, corpus)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", s.st.Path(), err)
	}
	return id, nil
}

// studyItems reads the run's records and makes a study's candidates and
// decoys.
func studyItems(ctx context.Context, s *session, k study.Kind, run store.Run, qs []study.Question, stratify []string, corpus string, custom *study.Custom) (cands, decoys []study.Item, facts map[string]string, err error) {
	runID, bench := run.ID, run.Benchmark
	var show []string
	var decoyRules []study.DecoyRule
	if custom != nil {
		show, decoyRules = custom.Show, custom.Decoys
	}
	if spec, ok := study.SpecOf(k); ok {
		// A kind its benchmark's package declares draws its own items
		// (a kind of no benchmark, any run's).
		if spec.Benchmark != "" && bench != spec.Benchmark {
			return nil, nil, nil, fmt.Errorf("run %d is a %s run: a %s study needs a %s run", runID, bench, k, spec.Benchmark)
		}
		if corpus != "" && !spec.Corpus {
			return nil, nil, nil, fmt.Errorf("--corpus: a %s study reads the corpus of its run", k)
		}
		return spec.Items(ctx, study.Draw{Records: s.st, Run: run, Questions: qs, Data: s.taskEnv("").Data, Stratify: stratify, Corpus: corpus, Show: show, Decoys: decoyRules})
	}
	return nil, nil, nil, fmt.Errorf("study kind %q: no benchmark declares it", k)
}

// addStudies ends a run's report with its human validation studies, when
// it has any: each with its kind, size and the command that reports it.
// A run of a benchmark whose judged rates a study kind corrects, with no
// such study, is told how to get them corrected.
func addStudies(ctx context.Context, st study.ReportStore, benchmark string, runID int64, rep *report.Report) error {
	list, err := st.Studies(ctx, runID)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		for _, k := range study.Registered() {
			if k.Benchmark == benchmark && k.Corrects != nil && (k.Judged == nil || k.Judged(ctx, st, runID)) {
				rep.Meta = append(rep.Meta, [2]string{"judge bias", fmt.Sprintf("the judged rates are the judges' own, uncorrected: a %s study of this run (fallacylab study create --run %d --kind %s) measures the judges' errors against people, and this report then gives each rate corrected for them (Rogan–Gladen), with an interval", k.Kind, runID, k.Kind)})
			}
		}
		return nil
	}
	sec := rep.AddSection("Human validation", fmt.Sprintf("Studies of run %d: people annotating a sample of its records blind (fallacylab study report ID).", runID))
	t := sec.Add(&report.Table{ID: "studies", Title: "Studies of this run", Columns: report.Cols("study", "name", "kind", "items", "annotators", "answers", "report")})
	for _, x := range list {
		anns, err := st.Annotations(ctx, x.ID)
		if err != nil {
			return err
		}
		t.Rows = append(t.Rows, []report.Cell{report.I(int(x.ID)), report.T(x.Name), report.T(string(x.Kind)), report.I(len(x.Items)),
			report.I(len(x.Annotators)), report.I(len(anns)), report.T(fmt.Sprintf("fallacylab study report %d", x.ID))})
	}
	// What the studies correct in the run: its judged rates beside their
	// corrected values (a study with answers whose kind corrects).
	for _, x := range list {
		spec, ok := study.SpecOf(x.Kind)
		if !ok || spec.Corrects == nil {
			continue
		}
		anns, err := st.Annotations(ctx, x.ID)
		if err != nil {
			return err
		}
		if len(anns) == 0 {
			continue
		}
		// The annotations the study's own figures count: annotators below
		// the decoy bar are left out here too.
		kept, keptAnns, out := study.Counted(x, anns, study.AnalyzeOptions{})
		if len(out) > 0 { // else a correction of nobody's answers reads as a study without any
			rep.Meta = append(rep.Meta, [2]string{fmt.Sprintf("study %d", x.ID), fmt.Sprintf("%s left out of its corrections: below the decoy bar (fallacylab study report %d shows why; --keep-flagged there counts them)", strings.Join(out, ", "), x.ID)})
		}
		if err := spec.Corrects(ctx, st, rep, kept, keptAnns); err != nil {
			return fmt.Errorf("study %d: %w", x.ID, err)
		}
	}
	return nil
}

// browseStudy opens the store to read and loads the study named by arg.
func browseStudy(g *Global, cmd *cobra.Command, arg string) (*session, study.Study, error) {
	return studyIn(cmd, arg, func() (*session, error) { return openBrowse(g) })
}

// editStudy opens the store to change a study (its answers or design) and
// reads the study by its id argument; the caller closes the session.
func editStudy(g *Global, cmd *cobra.Command, arg string) (*session, study.Study, error) {
	return studyIn(cmd, arg, func() (*session, error) { return openSession(g) })
}

// studyIn opens a session with open and reads the study by its id
// argument (the session closed again when there is none).
func studyIn(cmd *cobra.Command, arg string, open func() (*session, error)) (*session, study.Study, error) {
	s, err := open()
	if err != nil {
		return nil, study.Study{}, err
	}
	st, err := loadStudy(cmd.Context(), s, arg)
	if err != nil {
		s.Close()
		return nil, st, err
	}
	return s, st, nil
}

func newStudyRmCmd(g *Global) *cobra.Command {
	return &cobra.Command{
		Use:   "rm STUDY...",
		Short: "Delete studies and every human answer in them (export them first: fallacylab study export STUDY)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			var studies []study.Study
			for _, a := range args {
				st, err := loadStudy(cmd.Context(), s, a)
				if err != nil {
					return err
				}
				studies = append(studies, st)
			}
			for _, st := range studies {
				n, err := s.st.DeleteStudy(cmd.Context(), st.ID)
				if err != nil {
					return err
				}
				fmt.Fprintf(g.Stdout, "deleted study %d (%s of run %d) and its %s\n", st.ID, st.Name, st.RunID, plural(n, "human answer", "human answers"))
			}
			return nil
		},
	}
}

// loadStudy reads a study by its id argument.
func loadStudy(ctx context.Context, s *session, arg string) (study.Study, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil {
		return study.Study{}, fmt.Errorf("study id %q is not a number", arg)
	}
	st, ok, err := s.st.Study(ctx, id)
	if err != nil {
		return st, err
	}
	if !ok {
		return st, fmt.Errorf("no study %d in %s (fallacylab study list)", id, s.st.Path())
	}
	return st, nil
}

func newStudyListCmd(g *Global) *cobra.Command {
	var runID int64
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List studies and each annotator's progress",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := openBrowse(g)
			if err != nil {
				return err
			}
			defer s.Close()
			list, err := s.st.Studies(cmd.Context(), runID)
			if err != nil {
				return err
			}
			if len(list) == 0 {
				fmt.Fprintln(g.Stdout, "no studies yet: fallacylab study create --run ID --kind … --annotators a,b")
				return nil
			}
			fmt.Fprintf(g.Stdout, "%-4s %-5s %-15s %-6s %s\n", "id", "run", "kind", "items", "name · annotators (answered / queue)")
			for _, st := range list {
				anns, err := s.st.Annotations(cmd.Context(), st.ID)
				if err != nil {
					return err
				}
				done := study.Done(anns)
				var who []string
				for _, a := range st.Annotators {
					who = append(who, fmt.Sprintf("%s %d/%d", a.Name, done[a.Name], len(a.Order)))
				}
				fmt.Fprintf(g.Stdout, "%-4d %-5d %-15s %-6d %s · %s\n", st.ID, st.RunID, st.Kind, len(st.Items), st.Name, strings.Join(who, ", "))
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&runID, "run", 0, "only this run's studies")
	return cmd
}

func newStudyLinksCmd(g *Global) *cobra.Command {
	var base string
	cmd := &cobra.Command{
		Use:   "links STUDY",
		Short: "Print each annotator's private link (keep them private: a link is that annotator's access)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, st, err := browseStudy(g, cmd, args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			for _, a := range st.Annotators {
				if a.ReplacedBy != "" {
					fmt.Fprintf(g.Stderr, "%s: replaced by %s, no link\n", a.Name, a.ReplacedBy)
					continue
				}
				who := ""
				if a.Participant != "" {
					who = "\t(taken by participant " + a.Participant + ")"
				}
				fmt.Fprintf(g.Stdout, "%s\t%s%s\n", a.Name, web.StudyLink(base, a.Token), who)
			}
			if st.JoinToken != "" {
				fmt.Fprintf(g.Stdout, "shared link (Prolific's study URL: each participant gets a free place)\t%s\n", web.JoinLink(base, st.JoinToken))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&base, "base", "http://127.0.0.1:7411", "the address the viewer is served at (fallacylab view --addr)")
	return cmd
}

func newStudyReportCmd(g *Global) *cobra.Command {
	var format, out string
	o := study.AnalyzeOptions{}
	cmd := &cobra.Command{
		Use:   "report STUDY",
		Short: "Agreement, decoy accuracy per annotator and judge validity of a study, in any format",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := report.ParseFormat(format)
			if err != nil {
				return err
			}
			if math.IsNaN(o.DecoyBar) || o.DecoyBar < 0 || o.DecoyBar > 1 {
				return fmt.Errorf("--decoy-bar %v: want a share of decoys answered right, from 0 to 1 (0.8: 80 %%)", o.DecoyBar)
			}
			if o.Resamples < 1 {
				return fmt.Errorf("--resamples %d: want at least 1", o.Resamples)
			}
			s, st, err := browseStudy(g, cmd, args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			if o.Seed == 0 {
				o.Seed = st.Seed
			}
			rep, err := study.Report(cmd.Context(), s.st, st, o)
			if err != nil {
				return err
			}
			return writeReport(g, rep, f, out)
		},
	}
	bench.AddReportFlags(cmd.Flags(), &format, &out, "")
	cmd.Flags().IntVar(&o.Resamples, "resamples", 1000, "item bootstrap resamples")
	cmd.Flags().Float64Var(&o.DecoyBar, "decoy-bar", study.DefaultDecoyBar, "decoy accuracy below which an annotator is flagged and left out of the figures")
	cmd.Flags().BoolVar(&o.KeepFlagged, "keep-flagged", false, "count the annotators below the decoy bar in every figure (by default they are left out, and the report also gives the figures with them)")
	return cmd
}
