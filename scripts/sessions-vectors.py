#!/usr/bin/env python3
"""Generate the vectors that check src/stats/sessions.ts against scipy and numpy.

Run from the repository root:  python3 scripts/sessions-vectors.py
Writes test/stats/vectors/sessions.json (deterministic: fixed numpy seed).

References:
- sessionShift without a history: scipy.stats.ttest_ind(after, before,
  equal_var=True): statistic, pvalue, df and confidence_interval(level).
- sessionShift with a history: t = (mean(after) - mean(before)) /
  (sd(history, ddof=1) * sqrt(1/nb + 1/na)), df = len(history) - 1,
  p = 2 * scipy.stats.t.sf(|t|, df), CI with scipy.stats.t.ppf.
- randomEffects: DerSimonian-Laird written out in numpy (Q, tau^2 floored
  at 0, weights 1/(v + tau^2)), normal p and CI with scipy.stats.norm.
- varianceComponents: one-way random-effects ANOVA by the method of
  moments in numpy (MSB, MSW, n0).
"""
import json
import math
import os

import numpy as np
import scipy
from scipy import stats

OUT = os.path.join(os.path.dirname(__file__), "..", "test", "stats", "vectors", "sessions.json")
rng = np.random.default_rng(20261123)

shift = []
for i in range(60):
    nb, na = int(rng.integers(2, 9)), int(rng.integers(1, 6))
    before = rng.normal(0, 0.05, nb)
    after = rng.normal(rng.choice([0, 0.03, 0.1]), 0.05, na)
    alpha = float(rng.choice([0.05, 0.01]))
    case = {"before": before.tolist(), "after": after.tolist(), "alpha": alpha}
    if i % 2 == 0 and nb + na > 2:
        r = stats.ttest_ind(after, before, equal_var=True)
        ci = r.confidence_interval(1 - alpha)
        case.update({"t": float(r.statistic), "p": float(r.pvalue), "df": float(r.df), "lower": float(ci.low), "upper": float(ci.high)})
    else:
        history = np.concatenate([rng.normal(0, 0.05, int(rng.integers(3, 30))), before])
        sd = history.std(ddof=1)
        se = sd * math.sqrt(1 / nb + 1 / na)
        df = len(history) - 1
        t = (after.mean() - before.mean()) / se
        half = stats.t.ppf(1 - alpha / 2, df) * se
        case.update({"history": history.tolist(), "t": float(t), "p": float(2 * stats.t.sf(abs(t), df)), "df": df,
                     "lower": float(after.mean() - before.mean() - half), "upper": float(after.mean() - before.mean() + half)})
    shift.append(case)

meta = []
for i in range(60):
    k = int(rng.integers(1, 8))
    y = rng.normal(0.05, rng.choice([0.001, 0.02, 0.1]), k)
    v = rng.uniform(0.0001, 0.01, k)
    alpha = float(rng.choice([0.05, 0.1]))
    w = 1 / v
    fixed = (w * y).sum() / w.sum()
    q = (w * (y - fixed) ** 2).sum()
    tau2 = max(0.0, (q - (k - 1)) / (w.sum() - (w ** 2).sum() / w.sum())) if k >= 2 else 0.0
    wr = 1 / (v + tau2)
    m = (wr * y).sum() / wr.sum()
    se = math.sqrt(1 / wr.sum())
    z = stats.norm.ppf(1 - alpha / 2)
    meta.append({"y": y.tolist(), "v": v.tolist(), "alpha": alpha, "mean": m, "se": se, "tau2": tau2,
                 "p": float(2 * stats.norm.sf(abs(m / se))), "lower": m - z * se, "upper": m + z * se})

anova = []
for i in range(40):
    groups = [rng.normal(rng.normal(0, 0.1), 0.05, int(rng.integers(1, 12))).tolist() for _ in range(int(rng.integers(2, 9)))]
    allv = np.concatenate(groups)
    n, a = len(allv), len(groups)
    grand = allv.mean()
    ssb = sum(len(g) * (np.mean(g) - grand) ** 2 for g in groups)
    ssw = sum(((np.array(g) - np.mean(g)) ** 2).sum() for g in groups)
    msb = ssb / (a - 1)
    msw = ssw / (n - a) if n > a else 0.0
    n0 = (n - sum(len(g) ** 2 for g in groups) / n) / (a - 1)
    anova.append({"groups": groups, "within": msw, "between": max(0.0, (msb - msw) / n0), "mean": grand})

with open(OUT, "w") as f:
    json.dump({"scipy": scipy.__version__, "numpy": np.__version__, "shift": shift, "meta": meta, "anova": anova}, f)
    f.write("\n")
