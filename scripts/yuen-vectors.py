#!/usr/bin/env python3
"""Generate the vectors that check src/stats/yuen.ts and src/stats/student-t.ts against scipy.

Run from the repository root:  python3 scripts/yuen-vectors.py
Writes test/stats/vectors/yuen.json (deterministic: fixed numpy seed).
Needs numpy and scipy (generated with the versions recorded in the file).

References:
- Yuen's trimmed t test: scipy.stats.ttest_ind(y, x, equal_var=False,
  trim=trim): statistic, pvalue, df and confidence_interval(level). The
  estimate is trim_mean(y) - trim_mean(x) (scipy.stats.trim_mean).
- Student t: scipy.stats.t.sf and scipy.stats.t.ppf at real df.
"""

import json
import math
import os

import numpy as np
import scipy
from scipy import stats

OUT = os.path.join(os.path.dirname(__file__), "..", "test", "stats", "vectors", "yuen.json")
rng = np.random.default_rng(20261122)


def num(v):
    v = float(v)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if math.isnan(v):
        return "nan"
    return v


def sample(n, kind, shift=0.0):
    if kind == "lognormal":
        v = rng.lognormal(0.0, 0.03, n) * 100
    elif kind == "heavy":
        # Benchmark-like: a tight bulk with a few preempted rounds far above it.
        v = rng.lognormal(0.0, 0.01, n) * 100
        v[rng.random(n) < 0.15] *= 1 + rng.exponential(0.1, 1)
    elif kind == "ties":
        v = np.round(rng.normal(10, 1.5, n)).astype(float)
    elif kind == "logs":
        v = np.log(rng.lognormal(0.0, 0.05, n) * 1000)
    else:
        raise ValueError(kind)
    return np.round(v * (1 + shift), 6)


cases = []
for kind in ["lognormal", "heavy", "ties", "logs"]:
    for n1, n2 in [(2, 2), (3, 5), (5, 5), (6, 9), (10, 10), (10, 13), (15, 15), (20, 20), (30, 25), (40, 40), (60, 61)]:
        for trim in [0.2, 0.1, 0.0]:
            x = sample(n1, kind)
            y = sample(n2, kind, shift=rng.choice([0.0, 0.01, 0.05]))
            r = stats.ttest_ind(y, x, equal_var=False, trim=trim)
            if not np.isfinite(r.statistic):
                continue
            levels = [0.9, 0.95, 0.99, 0.9828]
            cis = [r.confidence_interval(confidence_level=lv) for lv in levels]
            cases.append({
                "kind": kind,
                "trim": trim,
                "x": [float(v) for v in x],
                "y": [float(v) for v in y],
                "estimate": num(stats.trim_mean(y, trim) - stats.trim_mean(x, trim)),
                "t": num(r.statistic),
                "p": num(r.pvalue),
                "df": num(r.df),
                "cis": [{"level": lv, "low": num(c.low), "high": num(c.high)} for lv, c in zip(levels, cis)],
            })

t_cases = []
for df in [1.0, 1.5, 2.0, 3.7, 5.0, 9.2, 17.0, 30.5, 100.0, 1000.0]:
    for p in [0.5005, 0.6, 0.9, 0.95, 0.975, 0.99, 0.9957, 0.999, 0.99999, 0.01, 0.2]:
        t_cases.append({"df": df, "p": p, "ppf": num(stats.t.ppf(p, df))})
    for t in [-3.0, -0.5, 0.0, 0.3, 1.0, 2.5, 6.0, 40.0]:
        t_cases.append({"df": df, "t": t, "sf": num(stats.t.sf(t, df))})

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump({"generator": "scripts/yuen-vectors.py", "scipy": scipy.__version__, "numpy": np.__version__, "cases": cases, "t": t_cases}, f)
    f.write("\n")
print(f"wrote {len(cases)} Yuen cases and {len(t_cases)} t cases to {OUT}")
