package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fallacylab/fallacylab/study"
)

func newStudyRevokeCmd(g *Global) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke STUDY ANNOTATOR",
		Short: "Give an annotator a new link: the one they had opens nothing any more (their answers stay)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, st, err := editStudy(g, cmd, args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			st, err = study.Revoke(st, args[1], nil)
			if err != nil {
				return err
			}
			if err := s.st.ReplaceStudy(cmd.Context(), st); err != nil {
				return err
			}
			fmt.Fprintf(g.Stdout, "%s's old link to study %d opens nothing any more; their new one: fallacylab study links %d\n", args[1], st.ID, st.ID)
			return nil
		},
	}
}

func newStudyAddAnnotatorCmd(g *Global) *cobra.Command {
	var replace string
	cmd := &cobra.Command{
		Use:   "add-annotator STUDY NAME",
		Short: "Add an annotator to a running study (the items every annotator sees and the decoys), or with --replace let them take over another's unanswered items",
		Example: `  fallacylab study add-annotator 3 dana                 # dana answers the shared items and the decoys
  fallacylab study add-annotator 3 eli --replace ben    # eli takes the items ben has not answered; ben's link stops`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, st, err := editStudy(g, cmd, args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			answered := map[string]bool{}
			if replace != "" {
				anns, err := s.st.Annotations(cmd.Context(), st.ID)
				if err != nil {
					return err
				}
				for _, a := range anns {
					if a.Annotator == replace {
						answered[a.Item] = true
					}
				}
			}
			st, err = study.AddAnnotator(st, args[1], replace, answered, nil)
			if err != nil {
				return err
			}
			if err := s.st.ReplaceStudy(cmd.Context(), st); err != nil {
				return err
			}
			added := st.Annotators[len(st.Annotators)-1]
			fmt.Fprintf(g.Stdout, "study %d: %s has %d items", st.ID, added.Name, len(added.Order))
			if replace != "" {
				fmt.Fprintf(g.Stdout, " (%s's unanswered ones and the decoys); %s's link opens nothing any more", replace, replace)
			}
			fmt.Fprintf(g.Stdout, "\nsend the link: fallacylab study links %d\n", st.ID)
			return nil
		},
	}
	cmd.Flags().StringVar(&replace, "replace", "", "the annotator whose unanswered items the new one takes over")
	return cmd
}
