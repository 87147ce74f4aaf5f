package textmetric

import (
	"regexp"
	"strings"
	"unicode"
)

// WordTokenize splits text as nltk 3.8's word_tokenize does with an
// untrained PunktSentenceTokenizer (which reproduces the Missci paper's
// METEOR numbers): sentences first, then NLTKWordTokenizer on each.
// Hand-ported because METEOR must see exactly nltk's tokens; Go's regexp has
// no look-around, so those parts are written as small scanners.
func WordTokenize(text string) []string {
	var out []string
	for _, s := range Sentences(text) {
		out = append(out, treebankTokenize(s)...)
	}
	return out
}

// pyspace is Python's \s for str patterns.
func pyspace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x1f, 0x85:
		return true
	}
	return unicode.Is(unicode.Z, r)
}

const ws = `[\t\n\v\f\r \x{1c}-\x{1f}\x{85}\p{Z}]`

type sub struct {
	re      *regexp.Regexp
	repl    string
	trigger string   // the rule can only match text holding one of these characters
	needs   []string // …or, when set, one of these substrings
	suffix  string   // …or, when set, text ending with one of these characters
}

func mk(pattern, repl string) sub { return sub{re: regexp.MustCompile(pattern), repl: repl} }

// mkT is mk with a trigger set: texts without any of its characters skip the regexp.
func mkT(trigger, pattern, repl string) sub {
	return sub{re: regexp.MustCompile(pattern), repl: repl, trigger: trigger}
}

// mkS is mk with substring triggers.
func mkS(needs []string, pattern, repl string) sub {
	return sub{re: regexp.MustCompile(pattern), repl: repl, needs: needs}
}

var (
	startingQuotes = []sub{
		mkT("«“‘„`", "([«“‘„]|[`]+)", " $1 "),
		mkT(`"`, `^"`, "``"),
		mkT("`", "(``)", " $1 "),
		mkS([]string{`"`, "''"}, `([ \(\[{<])("|'{2})`, "$1 `` "),
	}
	punctuation = []sub{
		{trigger: "final1"}, // ([^\.])(\.)([\]\)}>"'»”’ ]*)\s*$ → \1 \2 \3 (finalPeriod)
		{trigger: "colon"},  // ([:,])([^\d]) → " \1 \2" (colonComma)
		{re: regexp.MustCompile(`([:,])$`), repl: " $1 ", suffix: ":,"},
		mkS([]string{".."}, `\.{2,}`, " $0 "),
		mkT(";@#$%&", `[;@#$%&]`, " $0 "),
		{trigger: "final2"}, // ([^\.])(\.)([\]\)}>"']*)\s*$ → \1 \2\3 (finalPeriod)
		mkT("?!", `[?!]`, " $0 "),
		{trigger: "apos"}, // ([^'])' → "\1 ' " (apostropheSpace)
		mkT("*", `[*]`, " $0 "),
	}
	parens       = mkT("[](){}<>", `[\]\[\(\)\{\}<>]`, " $0 ")
	doubleDashes = mkT("-", `--`, " -- ")
	endingQuotes = []sub{
		mkT("»”’", `([»”’])`, " $1 "),
		mkS([]string{"''"}, `''`, " '' "),
		mkT(`"`, `"`, " '' "),
		{trigger: "clitic1"}, // ([^' ])('[sS]|'[mM]|'[dD]|') → "\1 \2 " (clitics)
		{trigger: "clitic2"}, // ([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) → "\1 \2 " (clitics)
	}
	contractions = []sub{
		mk(`(?i)\b(can)(not)\b`, " $1 $2 "), mk(`(?i)\b(d)('ye)\b`, " $1 $2 "), mk(`(?i)\b(gim)(me)\b`, " $1 $2 "),
		mk(`(?i)\b(gon)(na)\b`, " $1 $2 "), mk(`(?i)\b(got)(ta)\b`, " $1 $2 "), mk(`(?i)\b(lem)(me)\b`, " $1 $2 "),
		mk(`(?i)\b(more)('n)\b`, " $1 $2 "),
		mk(`(?i) ('t)(is)\b`, " $1 $2 "), mk(`(?i) ('t)(was)\b`, " $1 $2 "),
	}
	wanna = regexp.MustCompile(`(?i)\b(wan)(na)(` + ws + `)`)
)

// apply is re.sub, with Python's "$" also matching before a final "\n".
func (s sub) apply(text string) string {
	switch s.trigger {
	case "final1":
		return finalPeriod(text, `]})>"'»”’ `, true)
	case "final2":
		return finalPeriod(text, `]})>"'`, false)
	case "colon":
		return colonComma(text)
	case "apos":
		return apostropheSpace(text)
	case "clitic1":
		return clitics(text, []string{"'s", "'S", "'m", "'M", "'d", "'D", "'"})
	case "clitic2":
		return clitics(text, []string{"'ll", "'LL", "'re", "'RE", "'ve", "'VE", "n't", "N'T"})
	}
	if s.trigger != "" && s.re != nil && !strings.ContainsAny(text, s.trigger) {
		return text
	}
	if s.needs != nil {
		found := false
		for _, n := range s.needs {
			if strings.Contains(text, n) {
				found = true
				break
			}
		}
		if !found {
			return text
		}
	}
	if s.suffix != "" {
		t := strings.TrimSuffix(text, "\n")
		if t == "" || !strings.ContainsRune(s.suffix, rune(t[len(t)-1])) {
			return text
		}
	}
	if strings.HasSuffix(s.re.String(), "$") && strings.HasSuffix(text, "\n") {
		body := text[:len(text)-1]
		if s.re.MatchString(body) {
			return s.re.ReplaceAllString(body, s.repl) + "\n"
		}
	}
	return s.re.ReplaceAllString(text, s.repl)
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// splitApostrophe is (?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b → "\1 \2": an
// apostrophe, then a single word character that ends a word and is not one
// of m, t, s, d, n.
func splitApostrophe(text string) string {
	r := []rune(text)
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		b.WriteRune(r[i])
		if r[i] == '\'' && i+1 < len(r) && isWordRune(r[i+1]) && (i+2 >= len(r) || !isWordRune(r[i+2])) {
			switch unicode.ToLower(r[i+1]) {
			case 'm', 't', 's', 'd', 'n':
			default:
				b.WriteRune(' ')
			}
		}
	}
	return b.String()
}

func treebankTokenize(text string) []string {
	for _, s := range startingQuotes {
		text = s.apply(text)
	}
	text = splitApostrophe(text)
	for _, s := range punctuation {
		text = s.apply(text)
	}
	text = parens.apply(text)
	text = doubleDashes.apply(text)
	text = " " + text + " "
	for _, s := range endingQuotes {
		text = s.apply(text)
	}
	if lower := strings.ToLower(text); strings.Contains(lower, "nnot") || strings.Contains(lower, "'ye") || strings.Contains(lower, "mme") ||
		strings.Contains(lower, "nna") || strings.Contains(lower, "tta") || strings.Contains(lower, "'n") || strings.Contains(lower, "'t") {
		for _, s := range contractions[:7] {
			text = s.apply(text)
		}
		text = wanna.ReplaceAllString(text, " $1 $2 $3")
		for _, s := range contractions[7:] {
			text = s.apply(text)
		}
	}
	return strings.FieldsFunc(text, pyspace)
}

// finalPeriod implements the two end-of-text period rules without
// backtracking: a period preceded by a non-period, followed by a run of
// closing characters (greedy) and then only whitespace. Only the last period
// of the text can match, since a period is not a closing character.
func finalPeriod(text, closing string, spaced bool) string {
	r := []rune(text)
	p := -1
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] == '.' {
			p = i
			break
		}
	}
	if p < 1 || r[p-1] == '.' {
		return text
	}
	g := p + 1
	for g < len(r) && strings.ContainsRune(closing, r[g]) {
		g++
	}
	for _, c := range r[g:] {
		if !pyspace(c) {
			return text
		}
	}
	group3 := string(r[p+1 : g])
	if spaced {
		return string(r[:p]) + " . " + group3 + " "
	}
	return string(r[:p]) + " ." + group3 + " "
}

// The scanners below replace simple rules whose regexps dominated the
// running time; each is a non-overlapping left-to-right re.sub.

// colonComma is ([:,])([^\d]) → " \1 \2".
func colonComma(text string) string {
	if !strings.ContainsAny(text, ":,") {
		return text
	}
	r := []rune(text)
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		if (r[i] == ':' || r[i] == ',') && i+1 < len(r) && !unicode.IsDigit(r[i+1]) {
			b.WriteRune(' ')
			b.WriteRune(r[i])
			b.WriteRune(' ')
			b.WriteRune(r[i+1])
			i++
			continue
		}
		b.WriteRune(r[i])
	}
	return b.String()
}

// apostropheSpace is ([^'])' → "\1 ' ".
func apostropheSpace(text string) string {
	if !strings.Contains(text, "' ") {
		return text
	}
	r := []rune(text)
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		if i+2 < len(r) && r[i] != '\'' && r[i+1] == '\'' && r[i+2] == ' ' {
			b.WriteRune(r[i])
			b.WriteString(" ' ")
			i += 2
			continue
		}
		b.WriteRune(r[i])
	}
	return b.String()
}

// clitics is ([^' ])(alt1|alt2|…) → "\1 \2 ": a character other than an
// apostrophe or space, then the first alternative (in order) followed by a
// space.
func clitics(text string, alts []string) string {
	if !strings.ContainsRune(text, '\'') {
		return text
	}
	r := []rune(text)
	ar := make([][]rune, len(alts))
	for k, a := range alts {
		ar[k] = []rune(a)
	}
	var b strings.Builder
	b.Grow(len(text) + 8)
	for i := 0; i < len(r); i++ {
		if r[i] != '\'' && r[i] != ' ' && i+1 < len(r) && (r[i+1] == '\'' || r[i+1] == 'n' || r[i+1] == 'N') {
			n := 0
		alt:
			for _, a := range ar {
				end := i + 1 + len(a)
				if end >= len(r) || r[end] != ' ' {
					continue
				}
				for k, c := range a {
					if r[i+1+k] != c {
						continue alt
					}
				}
				n = len(a)
				break
			}
			if n > 0 {
				b.WriteRune(r[i])
				b.WriteRune(' ')
				b.WriteString(string(r[i+1 : i+1+n]))
				b.WriteRune(' ')
				i += n + 1
				continue
			}
		}
		b.WriteRune(r[i])
	}
	return b.String()
}
