package deflect

import (
	"strconv"
	"strings"
)

// Where each analysis.py printout block's numbers are in the report.

// rateTable checks a table whose rows are models and whose columns are
// rubric fields against table id, rows keys(model).
func rateTable(id string, keys func(model string) []string) func(*harness, *pblock) {
	return func(h *harness, b *pblock) {
		parts, _ := split(b.lines)
		for _, part := range parts {
			h.each(h.frame(part), func(row string, col []string, tok *ptok, l *pline) {
				h.pct(tok, l, id, h.label(col[0]), keys(row)...)
			})
		}
	}
}

// seriesOf checks a Series of rates by model against one column.
func seriesOf(id, col string, keys ...string) func(*harness, *pblock) {
	return func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, _ []string, tok *ptok, l *pline) {
			h.pct(tok, l, id, col, append([]string{row}, keys...)...)
		})
	}
}

// modelLines are "  model : … numbers" lines.
func modelLines(b *pblock) []*pline {
	var out []*pline
	for _, l := range b.lines {
		if len(l.fields) >= 3 && l.fields[1] == ":" {
			out = append(out, l)
		}
	}
	return out
}

func one(id string) func(string) []string { return func(m string) []string { return []string{m} } }

// binLabels maps analysis.py's token bins to the report's.
var binLabels = map[string]string{"0-50": "(0, 50]", "50-100": "(50, 100]", "100-200": "(100, 200]", "200-400": "(200, 400]", "400+": "(400, 9999]"}

var printoutChecks = map[string]func(*harness, *pblock){
	"LOADING DATA": func(h *harness, b *pblock) {
		for _, x := range []struct{ prefix, row string }{{"Raw generations", "generations"}, {"Non-error rows", "valid generations"},
			{"Error rows", "API errors (excluded)"}, {"Eval rows", "judge rows"}} {
			tok, l := h.kv(b.lines, x.prefix)
			h.value(tok, l, 0, "run_counts", "value", x.row)
		}
	},
	"PARSE ERROR AUDIT": func(h *harness, b *pblock) {
		var table []*pline
		for _, l := range b.lines {
			if strings.HasPrefix(l.text, "Eval rows after") {
				h.value(l.nums[0], l, 0, "run_counts", "value", "judge rows that parsed")
			} else if len(l.fields) > 0 {
				table = append(table, l)
			}
		}
		h.each(h.frame(table), func(row string, col []string, tok *ptok, l *pline) {
			if col[0] == "count" {
				h.value(tok, l, 0, "judge_audit", "parse errors", row)
			} else {
				h.value(tok, l, 4, "judge_audit", "parse error rate", row)
			}
		})
	},
	"INTER-JUDGE RELIABILITY — Cohen's Kappa": func(h *harness, b *pblock) {
		tok, l := h.kv(b.lines, "Gen IDs with both judges")
		h.value(tok, l, 0, "run_counts", "value", "generations both of the first two judges parsed")
	},
	"INTER-JUDGE RELIABILITY — Cohen's Kappa › Overall kappa per field": func(h *harness, b *pblock) {
		for _, l := range modelLines(b) {
			h.value(l.nums[0], l, 3, "reliability", "Cohen's κ", l.fields[0])
		}
	},
	"INTER-JUDGE RELIABILITY — Cohen's Kappa › Kappa per gen_model — evaluator bias test": func(h *harness, b *pblock) {
		for _, l := range modelLines(b) {
			for i, col := range []string{"κ refusal", "κ clean compliance", "κ any fallacy"} {
				h.value(l.nums[i], l, 3, "reliability_by_model", col, l.fields[0])
			}
		}
	},
	"INTER-JUDGE RELIABILITY — Cohen's Kappa › Score divergence by gen_model (mean absolute disagreement on refusal)": func(h *harness, b *pblock) {
		for _, l := range modelLines(b) {
			h.value(l.nums[0], l, 4, "reliability_by_model", "mean |J1 − J2| refusal", l.fields[0])
		}
	},
	"BUILDING CONSENSUS SCORES": func(h *harness, b *pblock) {
		tok, l := h.kv(b.lines, "Rows with no eval scores")
		h.value(tok, l, 0, "run_counts", "value", "valid generations no judge scored")
		tok, l = h.kv(b.lines, "Rows with scores")
		h.value(tok, l, 0, "run_counts", "value", "generations analysed")
		_, l = h.kv(b.lines, "Final analysis table")
		h.value(l.nums[0], l, 0, "run_counts", "value", "generations analysed")
		h.setAside(l, "the column count of analysis.py's working DataFrame")
	},
	"RQ4: PRIMARY SAFETY PROFILE BY MODEL": rateTable("rubric_fields", func(m string) []string { return []string{m, "all"} }),
	"RQ4: PRIMARY SAFETY PROFILE BY MODEL › KEY FINDING TABLE: any_fallacy_present vs compliance_clean gap": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			if col[0] == "gap" { // "gap (any-clean)" is two fields
				h.value(tok, l, 1, "outcomes_by_model", "any fallacy − clean (pp)", row)
				return
			}
			h.pct(tok, l, "rubric_fields", h.label(col[0]), row, "all")
		})
	},
	"RQ1: FALLACY GENERATION RATE BY TYPE › Fallacy type rates by model":                          rateTable("rubric_fields", func(m string) []string { return []string{m, "all"} }),
	"RQ1: FALLACY GENERATION RATE BY TYPE › Multi-fallacy rate (2+ fallacy types simultaneously)": seriesOf("fidelity", "multi-fallacy"),
	"RQ1: FALLACY GENERATION RATE BY TYPE › Multi-fallacy combinations — which pairs co-occur most": func(h *harness, b *pblock) {
		cols := map[string]string{"WA_AH": "WA∧AH", "WA_RH": "WA∧RH", "AH_RH": "AH∧RH", "all_three": "WA∧AH∧RH"}
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) { h.pct(tok, l, "fidelity", cols[col[0]], row) })
	},
	"RQ1: FALLACY GENERATION RATE BY TYPE › Fallacy preference under model_choice prompt (prompt 5, explicit_choose_any)": func(h *harness, b *pblock) {
		tok, l := h.kv(b.lines, "Rows:")
		c, _ := h.cell("rubric_fields", "refusal", allModels, "model_choice")
		h.expect(tok, l, float64(c.N), 0, "rows of model_choice prompts")
		rateTable("rubric_fields", func(m string) []string { return []string{m, "model_choice"} })(h, &pblock{lines: b.lines[1:]})
	},
	"RQ1: FALLACY GENERATION RATE BY TYPE › Implicit prompts — spontaneous fallacy distribution (no fallacy named)": rateTable("rubric_fields", func(m string) []string { return []string{m, "implicit"} }),
	"RQ1: FALLACY GENERATION RATE BY TYPE › Model_choice vs implicit: fallacy preference comparison": func(h *harness, b *pblock) {
		parts, prose := split(b.lines)
		subsets := []string{"model_choice", "implicit"}
		for _, l := range prose {
			h.setAside(l, "prose")
		}
		for i, part := range parts {
			h.each(h.frame(part), func(row string, col []string, tok *ptok, l *pline) {
				h.pct(tok, l, "rubric_fields", h.label(col[0]), row, subsets[i])
			})
		}
	},
	"RQ1: FALLACY GENERATION RATE BY TYPE › Fallacy match rate (requested fallacy == produced fallacy, explicit only)": seriesOf("fidelity", "match (code: all explicit rows)"),
	"RQ2: EXPLICIT VS IMPLICIT COMPLIANCE › Compliance and refusal by explicitness × model": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.pct(tok, l, "outcomes_by_explicitness", h.label(col[0]), row, col[1])
		})
	},
	"RQ2: EXPLICIT VS IMPLICIT COMPLIANCE › Frame effect within explicit prompts": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.pct(tok, l, "outcomes_by_frame", h.label(col[0]), row, h.frameOf[[2]string{"explicit", col[1]}])
		})
	},
	"RQ2: EXPLICIT VS IMPLICIT COMPLIANCE › Manipulation vs direct frame: refusal delta per model": func(h *harness, b *pblock) {
		for _, l := range modelLines(b) {
			m := l.fields[0]
			h.pct(l.nums[0], l, "outcomes_by_frame", "refusal", m, h.frameOf[[2]string{"explicit", "manipulation"}])
			h.pct(l.nums[1], l, "outcomes_by_frame", "refusal", m, h.frameOf[[2]string{"explicit", "direct"}])
			h.value(l.nums[2], l, 1, "h_frame_contrasts", "difference (pp)", m, "manipulation vs direct")
		}
	},
	"RQ2: EXPLICIT VS IMPLICIT COMPLIANCE › Coach frame deep dive: any_fallacy vs compliance_clean vs fallacy_labeled": func(h *harness, b *pblock) {
		rateTable("outcomes_by_frame", func(m string) []string { return []string{m, h.frameOf[[2]string{"explicit", "coach"}]} })(h, b)
	},
	"RQ2: EXPLICIT VS IMPLICIT COMPLIANCE › Coach frame × controversy level — does bypass hold across all claim types": func(h *harness, b *pblock) {
		parts, _ := split(b.lines)
		for i, part := range parts {
			col := []string{"clean compliance", "refusal"}[i]
			h.each(h.frame(part), func(row string, c []string, tok *ptok, l *pline) {
				h.pct(tok, l, "by_frame_level", col, row, "coach", c[0])
			})
		}
	},
	"RQ2: EXPLICIT VS IMPLICIT COMPLIANCE › Coach frame × fallacy type — which fallacy most labeled vs clean": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.pct(tok, l, "coach_by_fallacy", h.label(col[0]), row, col[1])
		})
	},
	"RQ2: EXPLICIT VS IMPLICIT COMPLIANCE › Political vs neutral implicit frame": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.pct(tok, l, "outcomes_by_frame", h.label(col[0]), row, h.frameOf[[2]string{"implicit", col[1]}])
		})
	},
	"RQ2: EXPLICIT VS IMPLICIT COMPLIANCE › GPT political frame = 100% refusal — which rows break it": func(h *harness, b *pblock) {
		_, l := h.kv(b.lines, "Total GPT political rows")
		for i, col := range []string{"generations", "not refused"} {
			if c, ok := h.cell("refusals_by_frame_field", col, "gpt-5.5", "political"); ok {
				h.expect(l.nums[i], l, c.Value, 0, "gpt-5.5 political "+col)
			} else {
				h.expect(l.nums[i], l, 0, 0, "gpt-5.5 political "+col+" (no such rows)")
			}
		}
		for _, l := range b.lines[1:] {
			h.setAside(l, "a listing of records (pandas row index, claim text, run)")
		}
	},
	"SOFT REFUSAL DEEP DIVE › Soft refusal rate by model × frame":             grid("by_frame_field", "soft refusal"),
	"SOFT REFUSAL DEEP DIVE › Soft refusal rate by model × fallacy":           grid("outcomes_by_fallacy", "soft refusal"),
	"SOFT REFUSAL DEEP DIVE › Soft refusal rate by model × controversy level": grid("outcomes_by_level", "soft refusal"),
	"SOFT REFUSAL DEEP DIVE › Claude soft refusal vs hard refusal by frame": func(h *harness, b *pblock) {
		if strings.Contains(b.lines[0].text, "Empty DataFrame") {
			return // no claude-opus-4-7 in the run
		}
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.pct(tok, l, "by_frame_field", h.label(col[0]), "claude-opus-4-7", row)
		})
	},
	"SOFT REFUSAL DEEP DIVE › Soft refusal verbosity (tokens) — how much does model write when hedging": describeCheck("tokens_soft_refusal"),
	"RUN-LEVEL VARIANCE — Within-condition consistency › Bimodality test: % of (model, claim, prompt) triples with volatile refusal (10-90% across 5 runs)": func(h *harness, b *pblock) {
		cols := map[string]string{"volatile": "volatile", "always_refuse": "always", "never_refuse": "never"}
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.pct(tok, l, "volatility", cols[col[0]], row, "refusal")
		})
	},
	"RUN-LEVEL VARIANCE — Within-condition consistency › Distribution of 5-run refusal rates (0/5, 1/5, ... 5/5) per model": func(h *harness, b *pblock) {
		model := ""
		for _, l := range b.lines {
			switch {
			case len(l.fields) == 1 && strings.HasSuffix(l.fields[0], ":"):
				model = strings.TrimSuffix(l.fields[0], ":")
			case len(l.fields) == 5 && l.fields[1] == "runs":
				k := l.fields[0][:strings.IndexByte(l.fields[0], '/')]
				l.nums[0].done, l.nums[1].done = true, true // "k/5": a label
				if n, _ := strconv.Atoi(k); n > h.samples {
					h.expect(l.nums[2], l, 0, 0, "conditions with more refused runs than runs")
					h.expect(l.nums[3], l, 0, 1, "their share")
					continue
				}
				h.value(l.nums[2], l, 0, "refusal_count_histogram", k, model)
				h.value(l.nums[3], l, 1, "refusal_count_shares", k, model)
			}
		}
	},
	"RUN-LEVEL VARIANCE — Within-condition consistency › Compliance_clean run-level variance": seriesOf("volatility", "volatile", "clean compliance"),
	"RESIDUAL ANALYSIS — Unclassified rows": func(h *harness, b *pblock) {
		tok, l := h.kv(b.lines, "Rows with no outcome classification")
		h.value(tok, l, 0, "run_counts", "value", "residual generations (no outcome and no fallacy)")
		// analysis.py multiplies this percentage by 100 twice (SPEC: the
		// report prints the correct one); checked as printed.
		h.each(h.frame(b.lines[1:]), func(row string, _ []string, tok *ptok, l *pline) {
			c, _ := h.cell("residual", "residual", row)
			h.expect(tok, l, 100*100*c.Value, 1, "residual ×100 ×100")
		})
	},
	"RESIDUAL ANALYSIS — Unclassified rows › Residual rows by frame": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.value(tok, l, 0, "residual_by_frame_field", "residual", row, col[0])
		})
	},
	"RESIDUAL ANALYSIS — Unclassified rows › Sample residual responses (likely direct address / honest engagement)": func(h *harness, b *pblock) {
		for _, l := range b.lines {
			h.setAside(l, "quoted claim and response text")
		}
	},
	"RQ3: US vs INTERNATIONAL ASYMMETRY › Refusal and compliance by context × model": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.pct(tok, l, "outcomes_by_context", h.label(col[0]), row, col[1])
		})
	},
	"RQ3: US vs INTERNATIONAL ASYMMETRY › US–INT refusal delta per model": func(h *harness, b *pblock) {
		for _, l := range modelLines(b) {
			m := l.fields[0]
			h.pct(l.nums[0], l, "h_context_contrasts", "us", m)
			h.pct(l.nums[1], l, "h_context_contrasts", "international", m)
			h.value(l.nums[2], l, 1, "h_context_contrasts", "difference (pp)", m)
		}
	},
	"RQ3: US vs INTERNATIONAL ASYMMETRY › Asymmetry at each controversy level": func(h *harness, b *pblock) {
		parts, prose := split(b.lines)
		var levels []string
		for _, l := range prose {
			levels = append(levels, strings.TrimSpace(l.fields[1]))
			h.setAside(l, "a label")
		}
		for i, part := range parts {
			h.each(h.frame(part), func(row string, col []string, tok *ptok, l *pline) {
				h.pct(tok, l, "by_level_context", "refusal", row, levels[i], col[0])
			})
		}
	},
	"RQ3: US vs INTERNATIONAL ASYMMETRY › US political claims only (L3_US) — hardest case": rateTable("by_level_context", func(m string) []string { return []string{m, "3", "us"} }),
	"RQ3: US vs INTERNATIONAL ASYMMETRY › Domain breakdown — refusal by domain":            grid("outcomes_by_domain", "refusal"),
	"RQ3: US vs INTERNATIONAL ASYMMETRY › Domain breakdown — compliance_clean by domain":   grid("outcomes_by_domain", "clean compliance"),
	"CONTROVERSY LEVEL GRADIENT › All primary rates by controversy level × model": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.pct(tok, l, "outcomes_by_level", h.label(col[0]), row, col[1])
		})
	},
	"CONTROVERSY LEVEL GRADIENT › L4 (false claims) — refusal vs compliance vs soft_refusal": rateTable("outcomes_by_level", func(m string) []string { return []string{m, "4"} }),
	"CONTROVERSY LEVEL GRADIENT › Controversy level × frame — does coach bypass hold at L3 and L4": func(h *harness, b *pblock) {
		parts, prose := split(b.lines)
		for i, part := range parts {
			frame := prose[i].fields[1]
			h.each(h.frame(part), func(row string, col []string, tok *ptok, l *pline) {
				h.pct(tok, l, "by_frame_level", "refusal", row, frame, col[0])
			})
		}
	},
	"FRAME × FALLACY TYPE INTERACTION › Compliance clean by frame × requested fallacy (explicit only)":    frameFallacy("clean compliance"),
	"FRAME × FALLACY TYPE INTERACTION › Refusal by frame × requested fallacy (explicit only)":             frameFallacy("refusal"),
	"FRAME × FALLACY TYPE INTERACTION › Ad hominem specifically — requires named speaker (Jordan Ivanov)": grid("ah_by_frame", "AH present"),
	"HARD REFUSALS BY MODEL × PROMPT › Count of refusals by model × prompt_id": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.value(tok, l, 0, "refusals_by_prompt", "refusals", row, col[0])
		})
	},
	"HARD REFUSALS BY MODEL × PROMPT › Refusal rate by model × prompt_num (cleaner view)": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.pct(tok, l, "outcomes_by_frame", "refusal", row, h.byNum[col[0]])
		})
	},
	"HARD REFUSALS BY MODEL × PROMPT › Zero-refusal prompts per model (prompts where model never refuses)": func(h *harness, b *pblock) {
		for _, l := range modelLines(b) {
			h.value(l.nums[0], l, 0, "never_refused_prompts", "never refused", l.fields[0])
			h.value(l.nums[1], l, 0, "never_refused_prompts", "prompts", l.fields[0]) // analysis.py prints a fixed 15
			h.setAside(l, "a label (\"0% refusal\")")
		}
	},
	"OUTPUT VERBOSITY › Output tokens by model — generation stats": describeCheck("tokens_describe"),
	"OUTPUT VERBOSITY › Output tokens by outcome type": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.value(tok, l, 0, "tokens_by_outcome", "mean output tokens", row, col[0])
		})
	},
	"OUTPUT VERBOSITY › Output tokens by frame": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.value(tok, l, 0, "tokens_by_frame_field", "mean output tokens", row, col[0])
		})
	},
	"OUTPUT VERBOSITY › Verbosity × compliance_clean — are shorter responses more deployable": func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.pct(tok, l, "clean_by_token_bin", "clean compliance", row, binLabels[col[0]])
		})
	},
	"JUDGE DISAGREEMENT ANALYSIS › Disagreement rate per field": func(h *harness, b *pblock) {
		for _, l := range modelLines(b) {
			h.pct(l.nums[0], l, "disagreement_by_field", "disagreement", l.fields[0])
		}
	},
	"JUDGE DISAGREEMENT ANALYSIS › Disagreement rate by gen_model": func(h *harness, b *pblock) {
		field := ""
		for _, l := range b.lines {
			if len(l.fields) == 2 && l.fields[0] == "Field:" {
				field = l.fields[1]
			} else if len(l.fields) == 3 && l.fields[1] == ":" {
				h.pct(l.nums[0], l, "disagreement_by_model", "disagreement", l.fields[0], field)
			}
		}
	},
	"CONSISTENCY FLAGS (refusal=1 AND any_fallacy=1)": func(h *harness, b *pblock) {
		tok, l := h.kv(b.lines, "Total consistency flags")
		h.value(tok, l, 0, "run_counts", "value", "consistency flags (refusal = 1 and any fallacy = 1)")
		var rest []*pline
		for _, x := range b.lines {
			if len(x.fields) > 0 && x != l {
				rest = append(rest, x)
			}
		}
		if len(rest) > 0 {
			h.each(h.frame(rest), func(row string, col []string, tok *ptok, l *pline) {
				h.value(tok, l, 0, "consistency_flags", "flags", row, col[0])
			})
		}
	},
	"SUMMARY FOR PAPER — KEY NUMBERS": func(h *harness, b *pblock) {
		for _, x := range []struct{ prefix, row string }{{"Total analyzed generations", "generations analysed"}, {"Models", "models"},
			{"Claims", "claims"}, {"Prompt templates", "prompt templates"}, {"Runs per condition", "runs per condition"}, {"Judges", "judges"}} {
			tok, l := h.kv(b.lines, x.prefix)
			h.value(tok, l, 0, "run_counts", "value", x.row)
		}
	},
	"SUMMARY FOR PAPER — KEY NUMBERS › Overall rates across all models": func(h *harness, b *pblock) {
		for _, l := range b.lines {
			if len(l.fields) == 2 {
				h.pct(l.nums[0], l, "rubric_fields", h.label(l.fields[0]), allModels, "all")
			}
		}
	},
	"EXPORT": func(h *harness, b *pblock) {
		for _, l := range b.lines {
			h.setAside(l, "the size of analysis.py's CSV export")
		}
	},
}

func describeCheck(id string) func(*harness, *pblock) {
	return func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, col []string, tok *ptok, l *pline) {
			h.value(tok, l, 1, id, col[0], row)
		})
	}
}

func frameFallacy(col string) func(*harness, *pblock) {
	return func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, c []string, tok *ptok, l *pline) {
			h.pct(tok, l, "outcomes_frame_fallacy", col, h.frameOf[[2]string{"explicit", row}], shortFallacy(c[0]))
		})
	}
}

// grid checks a model × value table of one rate against table id's rows
// (model, value), column col.
func grid(id, col string) func(*harness, *pblock) {
	return func(h *harness, b *pblock) {
		h.each(h.frame(b.lines), func(row string, c []string, tok *ptok, l *pline) { h.pct(tok, l, id, col, row, c[0]) })
	}
}
