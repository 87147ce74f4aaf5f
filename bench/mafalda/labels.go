package mafalda

// Level2 are upstream's level-2 labels by their numeric ids
// (LEVEL_2_NUMERIC of src/evaluate.py): 0 nothing, 1–23 the fallacies.
var Level2 = []string{
	"nothing",
	"appeal to positive emotion", "appeal to anger", "appeal to fear", "appeal to pity", "appeal to ridicule", "appeal to worse problems",
	"causal oversimplification", "circular reasoning", "equivocation", "false analogy", "false causality", "false dilemma",
	"hasty generalization", "slippery slope", "straw man", "fallacy of division",
	"ad hominem", "ad populum", "appeal to (false) authority", "appeal to nature", "appeal to tradition", "guilt by association", "tu quoque",
}

// Level1 are the level-1 classes by id (0 nothing; 4 is an answer's
// unknown).
var Level1 = []string{"nothing", "emotion", "logic", "credibility"}

// level2ID maps a level-2 label to its id.
var level2ID = func() map[string]int {
	m := map[string]int{}
	for i, l := range Level2 {
		m[l] = i
	}
	return m
}()

// ToLevel1 is upstream's LEVEL_2_TO_1: a level-2 id's level-1 class (24,
// unknown, becomes 4).
func ToLevel1(l int) int {
	switch {
	case l == None:
		return None
	case l == 0:
		return 0
	case l <= 6:
		return 1
	case l <= 16:
		return 2
	case l <= 23:
		return 3
	}
	return 4
}

// toLevel0Pred is upstream's level-0 reading of a predicted label: a
// fallacy (1) unless nothing or unknown.
func toLevel0Pred(l int) int {
	if l == 0 || l >= 24 {
		return 0
	}
	return 1
}

// toLevel0Gold is upstream's level-0 reading of a gold label: None and
// nothing are 0, a fallacy 1.
func toLevel0Gold(l int) int {
	if l == 0 || l == None {
		return 0
	}
	return 1
}

// keywords2 are upstream's KEYWORDS_LEVEL_2_NUMERIC: a word in an answer
// and the level-2 id it names.
var keywords2 = []struct {
	word string
	id   int
}{
	{"emotion", 1}, {"anger", 2}, {"fear", 3}, {"pity", 4}, {"ridicule", 5}, {"worse", 6}, {"problems", 6},
	{"oversimplification", 7}, {"circular", 8}, {"equivocation", 9}, {"analogy", 10}, {"causality", 11}, {"dilemma", 12},
	{"generalization", 13}, {"slippery", 14}, {"slope", 14}, {"straw", 15}, {"division", 16}, {"hominem", 17},
	{"populum", 18}, {"authority", 19}, {"nature", 20}, {"tradition", 21}, {"association", 22}, {"quoque", 23},
}

// keywords1 are upstream's KEWORDS_LEVEL_1_NUMERIC.
var keywords1 = []struct {
	word string
	id   int
}{{"emotion", 1}, {"logic", 2}, {"credibility", 3}}
