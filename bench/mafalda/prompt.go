package mafalda

import (
	"embed"
	"fmt"
	"strings"
)

// templates are upstream's ALT_PROMPT (src/experiments_pipelines/
// pipelines.py, the prompts its runs used), one per level, byte for byte;
// see NOTICE.
//
//go:embed templates/*.txt
var templates embed.FS

// Prompt is upstream's prompt for one sentence of a text at level, with
// no instruction tags (those of chat models; upstream's OpenAI runs send
// none), as LangChain's PromptTemplate fills it (str.format).
func Prompt(level int, text, sentence string) (string, error) {
	b, err := templates.ReadFile(fmt.Sprintf("templates/level%d.txt", level))
	if err != nil {
		return "", fmt.Errorf("no prompt for level %d (0, 1 or 2)", level)
	}
	return strings.NewReplacer("{instruction_begin}", "", "{instruction_end}", "",
		"{example_input}", text, "{sentence_input}", sentence).Replace(string(b)), nil
}
