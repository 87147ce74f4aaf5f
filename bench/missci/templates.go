package missci

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Templates lists the embedded template names, e.g. "gen_cls/p4-connect-D".
func Templates() []string {
	var out []string
	fs.WalkDir(data, "data/prompt_templates", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".txt") {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(p, "data/prompt_templates/"), ".txt"))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// Template returns an embedded template by name.
func Template(name string) (string, error) {
	b, err := data.ReadFile(path.Join("data/prompt_templates", name+".txt"))
	if err != nil {
		return "", fmt.Errorf("template %q: not found (use one of %s)", name, strings.Join(Templates(), ", "))
	}
	return string(b), nil
}

// Fill fills a template (SPEC A.4): strip, literal replacements in the
// family's order, delete @@system_prompt@@, strip; a leftover @@ is an error.
// premise is used by cls_with_premise templates only.
func Fill(name, tpl, claim, context, p0, premise string) (string, error) {
	t := strings.TrimSpace(tpl)
	if strings.HasPrefix(name, "cls_with_premise/") {
		t = strings.ReplaceAll(t, "@@claim@@", claim)
		t = strings.ReplaceAll(t, "@@fallacious_premise@@", premise)
		t = strings.ReplaceAll(t, "@@p0@@", p0)
		t = strings.ReplaceAll(t, "@@context@@", context)
	} else {
		t = strings.ReplaceAll(t, "@@claim@@", claim)
		t = strings.ReplaceAll(t, "@@context@@", context)
		t = strings.ReplaceAll(t, "@@p0@@", p0)
	}
	t = strings.TrimSpace(strings.ReplaceAll(t, "@@system_prompt@@", ""))
	if i := strings.Index(t, "@@"); i >= 0 {
		end := min(len(t), i+30)
		return "", fmt.Errorf("template %s: unfilled placeholder at %q", name, t[i:end])
	}
	return t, nil
}
