package mafalda

import "github.com/fallacylab/fallacylab/bench"

var _ bench.Helps = Task{}

// Help implements bench.Helps.
func (Task) Help(verb string) bench.Help {
	switch verb {
	case "run":
		return bench.Help{
			Long: `Ask a model about each sentence of MAFALDA's 200 gold texts, with upstream's prompts
(ChadiHelwe/MAFALDA, NAACL 2024), one call per sentence: is it part of a fallacious argument,
and of which fallacy? Consecutive sentences given one label make a predicted span, scored against
a gold standard whose spans may carry several acceptable labels.

The gold standard states no licence and is not embedded: put ChadiHelwe/MAFALDA's
datasets/gold_standard_dataset.jsonl at mafalda/gold_standard_dataset.jsonl in the data folder.`,
			Example: `  fallacylab mafalda run --data-dir ../shared/data --model openai:gpt-4.1 --dry-run   # price it first
  fallacylab mafalda run --data-dir ../shared/data --model openai:gpt-4.1 --limit 20   # a quick look
  fallacylab mafalda run --data-dir ../shared/data --model openai:gpt-4.1 --level 1    # emotion, logic, credibility`,
		}
	case "report":
		return bench.Help{
			Long: `Report a MAFALDA run as upstream's evaluate scores it: span precision, recall and F1
and label-only precision, recall and F1, at levels 2 (23 fallacies), 1 (emotion, logic,
credibility) and 0 (fallacy or not), each a mean over texts with a percentile bootstrap interval.
--metric published computes span precision as upstream's code did for its published table.`,
			Example: `  fallacylab mafalda report --run 12 --format html --out mafalda.html
  fallacylab mafalda report --metric published   # comparable with the paper's table
  fallacylab compare 12 13                        # two runs, text by text`,
		}
	}
	return bench.Help{}
}
