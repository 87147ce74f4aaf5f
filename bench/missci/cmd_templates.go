package missci

import (
	"fmt"
	"path"
	"strings"
)

// taskFamily is the template folder each task's templates live in.
var taskFamily = map[string]string{
	"reconstruct": "gen_cls/", "classify-gold": "cls_with_premise/", "classify-only": "cls_without_premise/", "consistency": "cls_with_premise/",
}

// expandTemplates turns --template into template names: a comma-separated
// list whose entries are names, globs ("gen_cls/p4-*") or "all" (every
// template of the task's family). Every name must belong to the family.
func expandTemplates(spec, task string) ([]string, error) {
	family := taskFamily[task]
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case part == "all":
			for _, t := range Templates() {
				if strings.HasPrefix(t, family) {
					add(t)
				}
			}
		case strings.ContainsAny(part, "*?["):
			n := 0
			for _, t := range Templates() {
				if ok, err := path.Match(part, t); err != nil {
					return nil, fmt.Errorf("--template %q: %w", part, err)
				} else if ok {
					add(t)
					n++
				}
			}
			if n == 0 {
				return nil, fmt.Errorf("--template %q matches no template", part)
			}
		default:
			if _, err := Template(part); err != nil {
				return nil, err
			}
			add(part)
		}
	}
	for _, t := range out {
		if !strings.HasPrefix(t, family) {
			return nil, fmt.Errorf("--template %s: --task %s takes %s* templates", t, task, family)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--template %q names no template", spec)
	}
	return out, nil
}
