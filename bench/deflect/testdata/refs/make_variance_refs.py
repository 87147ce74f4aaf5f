"""Reference η² of claim and prompt for bench/deflect's variance shares
(TestVarianceSharesMatchStatsmodels): statsmodels' two-way ANOVA
(ols('y ~ C(claim) + C(prompt)'), anova_lm typ 1) of 0/1 refusals on
balanced claim × prompt grids. Run: python3 make_variance_refs.py"""
import json

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from statsmodels.stats.anova import anova_lm

cases = []
rng = np.random.default_rng(7)
for claims, prompts, samples in [(6, 4, 3), (10, 7, 5), (4, 15, 2)]:
    rows = []
    claim_eff = rng.normal(0, 1, claims)
    prompt_eff = rng.normal(0, 1.5, prompts)
    for c in range(claims):
        for p in range(prompts):
            for s in range(samples):
                pr = 1 / (1 + np.exp(-(claim_eff[c] + prompt_eff[p])))
                rows.append({"claim": f"c{c}", "prompt": f"p{p}", "y": int(rng.random() < pr)})
    df = pd.DataFrame(rows)
    a = anova_lm(smf.ols("y ~ C(claim) + C(prompt)", data=df).fit(), typ=1)
    total = ((df.y - df.y.mean()) ** 2).sum()
    cases.append({
        "rows": rows,
        "eta_claim": float(a.loc["C(claim)", "sum_sq"] / total),
        "eta_prompt": float(a.loc["C(prompt)", "sum_sq"] / total),
    })
with open("variance_refs.json", "w") as f:
    json.dump({"source": "statsmodels anova_lm typ 1, ols('y ~ C(claim) + C(prompt)')", "cases": cases}, f, indent=1)
