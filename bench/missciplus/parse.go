package missciplus

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"regexp"

	"github.com/fallacylab/fallacylab/pyre"
)

// The subtask 3 answer parser is upstream's ArgumentReconstructionParser
// with its FallacyMapper (missci/output_parser/
// llm_output_parser_argument_reconstruction.py, fallacy_mapper.py): each
// "Fallacious Premise: …; Applied Fallacy Class: …" an answer gives (or
// one of the looser shapes its patterns accept), its class normalised by
// the mapper's word lists. The patterns are upstream's, compiled with
// Python's re semantics (package pyre); the word lists are read from
// data/fallacy_mapper.json, written from upstream's module by
// testdata/make_parser.py.

// parsePattern is a pattern and its premise and class groups.
type parsePattern struct {
	re           *regexp.Regexp
	premise, cls int
}

// patterns1 and patterns2 are upstream's regular_expressions1 and 2 (the
// answers that follow the template, and backups), in its order.

var patterns1 = []parsePattern{
	{pyre.MustCompile(`(?im)^.*fallacious premise( 3\.?\d?)?: (.+)[;\."] applied fallacy class: (.+)$`), 2, 3},
	{pyre.MustCompile(`(?im)^.*fallacious premise( \.?\d?)?: (.+)[;\."]?\s+applied fallacy class(es)?\s*\d?: (.+)`), 2, 4},
	{pyre.MustCompile(`(?im)^.*fallacious premise( 3\.?\d?)?: (.+)[;\."] applied fallacy: (.+)$`), 2, 3},
	{pyre.MustCompile(`(?im)^fallacious premise( 3\.?\d?)?: (.+)\n+applied fallacy class: (.+)$`), 2, 3},
	{pyre.MustCompile(`(?im)^.*fallacious premise(.?\d?)?: (.+)\n*applied fallacy( class)?: (.+)`), 2, 4},
	{pyre.MustCompile(`(?im)\*\*fallacious premise:?\*\* (.+)\s+\*\*(applied)? fallacy class:\*\* (.+)`), 1, 3},
	{pyre.MustCompile(`(?im)\d+\. \*\*fallacious premise:?\*\*:? (.+); \*\*(applied) fallacy class:?\*\*:? (.+)`), 1, 3},
	{pyre.MustCompile(`(?im)\*\*fallacious premise \d:?\*\* (.+)\s+\*\*(applied)? fallacy class:\*\* (.+)`), 1, 3},
	{pyre.MustCompile(`(?im)premise \d+:\s+"(.+)"\s+(applied)? fallacy class: (.+)`), 1, 3},
	{pyre.MustCompile(`(?im)fallacious premise:\s+(.+)\s+(applied )?fallacy class:\s+(.+)`), 1, 3},
}

var patterns2 = []parsePattern{
	{pyre.MustCompile(`(?im)\*\s*"(.+)"; (applied) fallacy class: (.+)`), 1, 3},
	{pyre.MustCompile(`(?im)\d+\. "(.+)".*[\s\*]+?(applied)? fallacy class: (.+)`), 1, 3},
	{pyre.MustCompile(`(?im)\d+\..+?: (.+)\n(applied) fallacy class: (.+)`), 1, 3},
	{pyre.MustCompile(`(?im)\d+\. "(.+)".*?; (applied)? fallacy class: (.+)`), 1, 3},
	{pyre.MustCompile(`(?im)^\d+\. \*\*(.+)\*\*: (.+)$`), 2, 1},
	{pyre.MustCompile(`(?im)fallacious premise is:\s*(.+)\s*.+?(applied)?fallacy class is (.+)`), 1, 3},
	{pyre.MustCompile(`(?im)\d+\. (.+?): "(.+?)".`), 2, 1},
	{pyre.MustCompile(`(?im)\d+\. (.+?): (.+)$\s+applied fallacy class: (.+)`), 2, 1},
	{pyre.MustCompile(`(?im)\*\*hidden assumption:\*\*\s+(.+)\s+\*\*applied fallacy class:\*\*\s+(.+)`), 1, 2},
	{pyre.MustCompile(`(?im)the fallacious premise is: "(.+)"\s+this premise(.+)\s+the applied fallacy class is (.+)`), 1, 3},
	{pyre.MustCompile(`(?im)\*\*fallacious premise \d+:\*\*\s+"(.+)"\s+\*\*applied fallacy class:\*\*\s(.+)`), 1, 2},
	{pyre.MustCompile(`(?im)the hidden assumption is: "(.+)"\s+.+\s+the applied fallacy class is:\s(.+)`), 1, 2},
	{pyre.MustCompile(`(?im)\*\*fallacious premise:?\*\*:?\s(.+)\s+\*\*applied fallacy class:?\*\*:?\s(.+)`), 1, 2},
	{pyre.MustCompile(`(?im)premise \d+: "?(.+)"?\s+.*\s*applied fallacy class: (.+)`), 1, 2},
}

// patterns3 are upstream's regular_expressions3, tried when none of the
// others matched.

var patterns3 = []parsePattern{
	{pyre.MustCompile(`(?im)^\d+\.\s*"(.+?)".*?\((.+)\)\.$`), 1, 2},
	{pyre.MustCompile(`(?im)fallacious premise( 3\.?\d?)?: (.+)[\d\D]+?(applied)? ?fallacy class: (.+)$`), 2, 4},
	{pyre.MustCompile(`(?im)fallacious premise (is)?:[\s\n]*([^\n]+)[\d\D]*?[\s\n]*(the )?(applied fallacy class)( is)?:[\s\n]*(.+)`), 2, 6},
	{pyre.MustCompile(`(?im)\d+\. (.+?): (.+)$`), 2, 1},
	{pyre.MustCompile(`(?im)fallacious premise: (.+) This is an example of the (.+)`), 1, 2},
	{pyre.MustCompile(`(?im)hidden assumption is:\s+(.+)\s+.+?\s+applied fallacy class: (.+)`), 1, 2},
	{pyre.MustCompile(`(?im)fallacy class is: (.+)\s+.*fallacious premise is: (.+)`), 2, 1},
	{pyre.MustCompile(`(?im)the applied fallacy class is (.+)\s+the fallacious premise is: (.+)`), 2, 1},
	{pyre.MustCompile(`(?im)hidden assumption:\s+\* (.+)\s+.*\s*applied fallacy class: (.+)`), 1, 2},
	{pyre.MustCompile(`(?im)hidden assumption .* is:\s+\* (.+)\s*.*\s*.*?applied fallacy class is: (.+)`), 1, 2},
}

// listReply is upstream's regexp_fallacy_list_reply: a premise, then a
// numbered list of classes.
var listReply = pyre.MustCompile(`(?im)fallacious premise: (.+)\n*.*\n*(\d\. (.+):\n?.+)`)

// listItem is the numbered class of a list reply (compiled without flags,
// as upstream's).
var listItem = pyre.MustCompile(`(\d\. (.+):\n?.+)`)

// ParsedFallacy is one fallacy an answer gives.
type ParsedFallacy struct {
	Premise   string  `json:"fallacious_premise"`
	Generated string  `json:"generated_fallacy_class"`
	Class     *string `json:"normalized_fallacy_class"` // nil: the mapper knows no such class
	Rank      int     `json:"per-prompt-position-rank"`
}

// ParsedAnswer is what the parser makes of one answer.
type ParsedAnswer struct {
	IsParsed   bool            `json:"is_parsed"`
	ValidLogic bool            `json:"valid_logic"` // the answer says there is no fallacy
	Fallacies  []ParsedFallacy `json:"fallacies"`
}

// mapper is upstream's FallacyMapper: the classes' words, longest first
// (ties in the dictionary's order), and the words of classes it counts as
// Other.
type mapper struct {
	words  []string
	class  map[string]string
	ignore []string
}

var fallacyMapper = func() mapper {
	b, err := data.ReadFile("data/fallacy_mapper.json")
	if err != nil {
		panic(err)
	}
	var f struct {
		Dict   [][2]json.RawMessage `json:"fallacy_dict"`
		Ignore []string             `json:"ignore"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		panic(fmt.Sprintf("data/fallacy_mapper.json: %v", err))
	}
	m := mapper{class: map[string]string{}, ignore: f.Ignore}
	for _, kv := range f.Dict {
		var class string
		var words []string
		if json.Unmarshal(kv[0], &class) != nil || json.Unmarshal(kv[1], &words) != nil {
			panic("data/fallacy_mapper.json: a class is not [name, [words]]")
		}
		for _, w := range words {
			if _, seen := m.class[w]; !seen {
				m.words = append(m.words, w) // a word's first place stays (a Python dict's update)
			}
			m.class[w] = class
		}
	}
	sort.SliceStable(m.words, func(i, j int) bool { return len([]rune(m.words[i])) > len([]rune(m.words[j])) })
	return m
}()

// MapClass is upstream's FallacyMapper.map_fallacy: the class whose
// longest word the generated class holds; "Other" for a known non-class;
// nil for anything else.
func MapClass(generated string) *string {
	g := pyre.Lower(generated)
	for _, w := range fallacyMapper.words {
		if strings.Contains(g, w) {
			c := fallacyMapper.class[w]
			return &c
		}
	}
	for _, w := range fallacyMapper.ignore {
		if strings.Contains(g, w) {
			c := "Other"
			return &c
		}
	}
	return nil
}

// findAll is re.finditer's matches: the premise and class of each.
func findAll(p parsePattern, text string) [][2]string {
	var out [][2]string
	for _, m := range p.re.FindAllStringSubmatch(text, -1) {
		out = append(out, [2]string{m[p.premise], m[p.cls]})
	}
	return out
}

// ParseReconstruction parses one answer as upstream's
// ArgumentReconstructionParser.parse.
func ParseReconstruction(answer string) ParsedAnswer {
	text := strings.NewReplacer("Fallicious Premise", "Fallacious Premise", "Fallacious Premiere:", "Fallacious Premise:").Replace(answer)
	var best [][2]string
	for _, p := range append(append([]parsePattern(nil), patterns1...), patterns2...) {
		if m := findAll(p, text); len(m) > len(best) {
			best = m
		}
	}
	if len(best) == 0 {
		for _, p := range patterns3 {
			if m := findAll(p, text); len(m) > len(best) {
				best = m
			}
		}
	}
	if len(best) == 0 {
		if loc := listReply.FindStringSubmatchIndex(text); loc != nil && loc[0] == 0 { // re.match: at the start
			premise := text[loc[2]:loc[3]]
			for _, m := range listItem.FindAllStringSubmatch(text, -1) {
				best = append(best, [2]string{premise, m[2]})
			}
		}
	}
	out := ParsedAnswer{IsParsed: len(best) > 0, ValidLogic: strings.Contains(pyre.Lower(answer), "no fallacy")}
	for i, b := range best {
		prem := b[0]
		prem = strings.TrimPrefix(prem, `"`)
		prem = pyre.Strip(strings.TrimSuffix(prem, `"`))
		out.Fallacies = append(out.Fallacies, ParsedFallacy{Premise: prem, Generated: b[1], Class: MapClass(b[1]), Rank: i + 1})
	}
	return out
}
