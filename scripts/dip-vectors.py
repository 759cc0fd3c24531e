#!/usr/bin/env python3
"""Generate test/stats/vectors/dip.json: Hartigan's dip from the `diptest`
package (PyPI diptest 0.12.0, the R diptest C code) on generated samples,
to check src/stats/dip-test.ts's own implementation of AS 217.

Run from the repository root:  python3 scripts/dip-vectors.py
(pip install diptest==0.12.0 numpy). Deterministic: fixed numpy seed.
"""

import json

import diptest
import numpy as np

rng = np.random.default_rng(20250611)
cases = []


def add(kind, x):
    x = np.asarray(x, dtype=float)
    cases.append({"kind": kind, "x": [float(v) for v in x], "dip": float(diptest.dipstat(x))})


for n in [4, 5, 7, 10, 15, 30, 50, 200]:
    for _ in range(3):
        add("normal", rng.normal(100, 1, n))
        add("uniform", rng.uniform(0, 1, n))
        add("lognormal", np.exp(rng.normal(0, 0.5, n)))
        k = max(1, int(n * rng.uniform(0.2, 0.5)))
        add("bimodal", np.concatenate([rng.normal(100, 1, n - k), rng.normal(110, 1, k)]))
        add("ties", np.round(rng.normal(10, 2, n)))
        add("trimodal", np.concatenate([rng.normal(m, 0.5, n // 3 + 1) for m in (0, 5, 10)])[:n])
add("two-points", [1, 1, 1, 1, 2, 2, 2, 2])
add("one-outlier", [1, 1.01, 1.02, 0.99, 1.0, 0.98, 1.01, 5])

with open("test/stats/vectors/dip.json", "w") as f:
    json.dump({"generator": f"diptest {diptest.__version__}, numpy {np.__version__}", "cases": cases}, f)
print(len(cases), "cases")
