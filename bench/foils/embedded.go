package foils

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed data/*
var data embed.FS

// EmbeddedFoils returns the released matched and wrong-scheme sets of a
// corpus ("cocolofa" or "reddit"), embedded in the binary (CC BY 4.0).
func EmbeddedFoils(corpus string) (matched, wrong []Foil, err error) {
	for _, c := range []struct {
		file, cond string
		dst        *[]Foil
	}{{corpus + "_task5_final.csv", Matched, &matched}, {corpus + "_task6_final.csv", WrongScheme, &wrong}} {
		f, err := data.Open("data/" + c.file)
		if err != nil {
			return nil, nil, fmt.Errorf("no embedded Scheme Foils sets for corpus %q (have cocolofa, reddit)", corpus)
		}
		*c.dst, err = ParseFoils(f, c.file, c.cond, corpus)
		f.Close()
		if err != nil {
			return nil, nil, err
		}
	}
	return matched, wrong, nil
}

// DetectNamespace names an LLM detector's calls in the cache (the
// detector's kind is appended: foils/detect/typed).
const DetectNamespace = "foils/detect"

// DetectorPrompt returns the frozen zero-shot prompt, "typed" or "binary"
// (the paper's Appendix C).
func DetectorPrompt(kind string) (string, error) {
	b, err := data.ReadFile("data/detector_prompt_" + kind + ".txt")
	if err != nil {
		return "", fmt.Errorf("detector prompt %q: use typed or binary", kind)
	}
	// The file's final newline is not part of the prompt.
	return strings.TrimRight(string(b), "\r\n"), nil
}
