#!/usr/bin/env python3
"""Generate the test vectors that check src/stats against scipy/numpy.

Run from the repository root:  python3 scripts/stats-vectors.py
Writes test/stats/vectors/*.json (deterministic: fixed numpy seed). Needs
numpy and scipy (generated with scipy 1.17.1, numpy 2.4.6).

Where scipy has the statistic it is the reference (mannwhitneyu, bootstrap,
false_discovery_control, gmean, median_abs_deviation, skew, kurtosis,
kendalltau). Where it has not, the vectors come from an independent numpy
implementation of the definition documented in the TypeScript module:
- Hodges-Lehmann: median of the pairwise differences, CI bounds as order
  statistics of those differences at ranks from the Mann-Whitney p-value
  function, evaluated by a linear scan over every |U - N/2| (the TypeScript
  code bisects). The exact p-values come from scipy's own null distribution
  (scipy.stats._mannwhitneyu._MWU, private but what mannwhitneyu uses), the
  asymptotic ones from scipy.stats.norm with the tie-corrected variance.
- quantile CI: ranks from scipy.stats.binom.ppf, coverage from binom.cdf.
- Mann-Kendall: S and the tie-corrected variance in numpy; the p-value
  without continuity correction must equal kendalltau(range(n), x,
  method="asymptotic") (asserted here), the default one uses S - sign(S).
"""

import json
import math
import os

import numpy as np
import scipy
from scipy import stats
from scipy.stats._mannwhitneyu import _MWU

OUT = os.path.join(os.path.dirname(__file__), "..", "test", "stats", "vectors")
rng = np.random.default_rng(20240917)


def num(v):
    """JSON has no infinities: encode them as strings the tests decode."""
    v = float(v)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if math.isnan(v):
        return "nan"
    return v


def arr(a):
    return [num(v) for v in a]


def sample(n, kind):
    if kind == "lognormal":
        return np.round(rng.lognormal(0.0, 0.3, n) * 100, 4)
    if kind == "ties":
        return np.round(rng.normal(10, 1.5, n)).astype(float)
    if kind == "zeros":
        v = np.round(rng.exponential(1.0, n), 2)
        v[rng.random(n) < 0.3] = 0.0
        return v
    if kind == "bimodal":
        return np.round(np.where(rng.random(n) < 0.5, rng.normal(10, 1, n), rng.normal(16, 1, n)), 4)
    raise ValueError(kind)


def pairs():
    """Two-sample cases: sizes 1..60, unequal, ties, zeros, equal and identical samples, large shifts."""
    cases = []
    for n1, n2 in [(1, 1), (1, 2), (2, 1), (1, 5), (2, 2), (2, 3), (3, 3), (3, 8), (4, 4), (5, 5), (5, 7), (8, 8), (8, 9),
                   (9, 8), (3, 40), (8, 60), (9, 9), (10, 10), (12, 7), (15, 15), (20, 20), (20, 35), (30, 30),
                   (40, 40), (50, 50), (51, 50), (60, 60), (60, 2)]:
        for kind in ["lognormal", "ties", "zeros"]:
            x = sample(n1, kind)
            for shift in [1.0, 1.03, 1.3, 3.0]:
                y = np.round(sample(n2, kind) * shift, 4)
                cases.append((f"{kind} {n1}x{n2} shift {shift}", x, y))
    for _ in range(60):
        n1, n2 = rng.integers(2, 61, 2)
        kind = ["lognormal", "ties", "zeros"][rng.integers(0, 3)]
        cases.append((f"random {kind} {n1}x{n2}", sample(n1, kind), np.round(sample(n2, kind) * rng.uniform(0.9, 1.2), 4)))
    for n in [1, 2, 5, 9, 30]:
        x = sample(n, "lognormal")
        cases.append((f"equal samples n={n}", x, x.copy()))
        cases.append((f"identical values n={n}", np.full(n, 7.0), np.full(n, 7.0)))
        cases.append((f"constant sides n={n}", np.full(n, 7.0), np.full(n, 9.0)))
    cases.append(("disjoint 10x10", np.arange(10.0), np.arange(10.0) + 100))
    cases.append(("interleaved lattice 6x6", np.arange(0.0, 12.0, 2), np.arange(1.0, 13.0, 2)))
    return cases


def exact_allowed(n1, n2, ties, rule):
    if rule == "scipy":
        return not ties and (n1 <= 8 or n2 <= 8)
    return not ties and n1 <= 50 and n2 <= 50


def mann_whitney(cases):
    out = []
    for name, x, y in cases:
        ties = len(np.unique(np.concatenate([x, y]))) < len(x) + len(y)
        auto = stats.mannwhitneyu(x, y, alternative="two-sided", method="auto")
        asym = stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic")
        exact = stats.mannwhitneyu(x, y, alternative="two-sided", method="exact")
        bench_method = "exact" if exact_allowed(len(x), len(y), ties, "auto") else "asymptotic"
        bench = exact if bench_method == "exact" else asym
        out.append({
            "name": name, "x": arr(x), "y": arr(y), "u": num(auto.statistic),
            "scipy": {"p": num(auto.pvalue), "method": "exact" if exact_allowed(len(x), len(y), ties, "scipy") else "asymptotic"},
            "auto": {"p": num(bench.pvalue), "method": bench_method},
            "asymptotic": num(asym.pvalue), "exact": num(exact.pvalue),
        })
    return out


def hl_reference(x, y, alpha, method):
    n1, n2 = len(x), len(y)
    big = n1 * n2
    n = n1 + n2
    _, counts = np.unique(np.concatenate([x, y]), return_counts=True)
    tie_term = float(np.sum(counts.astype(float) ** 3 - counts))
    ks = np.arange(0, big + 1)
    u = big / 2 + ks / 2  # every half-integer distance from N/2
    if method == "exact":
        dist = _MWU(n1, n2)
        k = np.floor(np.maximum(u, big - u)).astype(np.int64)
        p_of = np.minimum(1.0, 2 * np.asarray(dist.sf(k), dtype=float))
    else:
        s = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
        numer = np.maximum(u, big - u) - big / 2 - 0.5
        if s > 0:
            p_of = np.minimum(1.0, 2 * stats.norm.sf(numer / s))
        else:
            p_of = np.where(numer > 0, 0.0, 1.0)
    accepted = ks[p_of > alpha]
    h = int(accepted.max())
    rank = math.ceil(big / 2 - h / 2)
    diffs = np.sort((np.asarray(y)[None, :] - np.asarray(x)[:, None]).ravel())
    lower = diffs[rank - 1] if rank >= 1 else -math.inf
    upper = diffs[big - rank] if rank >= 1 else math.inf
    return float(np.median(diffs)), float(lower), float(upper), rank


def hodges_lehmann(cases):
    out = []
    for index, (name, x, y) in enumerate(cases):
        ties = len(np.unique(np.concatenate([x, y]))) < len(x) + len(y)
        # x and y are those of mann-whitney.json's case of the same index.
        entry = {"name": name, "case": index, "results": []}
        for alpha in [0.05, 0.1, 0.01]:
            for option in ["auto", "asymptotic"]:
                method = ("exact" if exact_allowed(len(x), len(y), ties, "auto") else "asymptotic") if option == "auto" else option
                est, lo, hi, rank = hl_reference(x, y, alpha, method)
                p = stats.mannwhitneyu(x, y, alternative="two-sided", method=method).pvalue
                entry["results"].append({"alpha": alpha, "option": option, "method": method, "estimate": num(est),
                                         "lower": num(lo), "upper": num(hi), "rank": rank, "p": num(p)})
        out.append(entry)
    return out


def quantile_ci():
    out = []
    for n in list(range(1, 31)) + [40, 45, 60, 99, 100, 250]:
        for kind in ["lognormal", "ties"]:
            x = sample(n, kind)
            xs = np.sort(x)
            entry = {"x": arr(x), "results": []}
            for q in [0.5, 0.1, 0.9, 0.25]:
                for alpha in [0.05, 0.01, 0.2]:
                    j = int(stats.binom.ppf(alpha / 2, n, q))
                    k = int(stats.binom.ppf(1 - alpha / 2, n, q)) + 1
                    j, k = max(1, j), min(n, k)
                    coverage = stats.binom.cdf(k - 1, n, q) - stats.binom.cdf(j - 1, n, q)
                    entry["results"].append({"q": q, "alpha": alpha, "estimate": num(np.quantile(x, q)),
                                             "lowerRank": j, "upperRank": k, "lower": num(xs[j - 1]),
                                             "upper": num(xs[k - 1]), "coverage": num(coverage)})
            out.append(entry)
    return out


def bootstrap():
    """One resample index set per sample, shared by every statistic, method and level (same seed)."""
    out = []
    resamples = 200
    seed = 1000
    for n in [3, 5, 8, 10, 15, 20, 30]:
        for kind in ["lognormal", "ties", "bimodal"]:
            x = sample(n, kind)
            seed += 1
            indices = np.random.default_rng(seed).integers(0, n, (resamples, n))
            entry = {"x": arr(x), "indices": indices.tolist(), "results": []}
            for statistic_name, statistic in [("median", np.median), ("mean", np.mean)]:
                for method in ["percentile", "BCa"]:
                    for level in [0.95, 0.9]:
                        res = stats.bootstrap((x,), statistic, n_resamples=resamples, method=method,
                                              confidence_level=level, rng=np.random.default_rng(seed))
                        assert np.array_equal(res.bootstrap_distribution, statistic(x[indices], axis=-1))
                        lo, hi = res.confidence_interval
                        if math.isnan(lo) or math.isnan(hi):
                            continue  # scipy's degenerate BCa: tested separately, not against scipy
                        entry["results"].append({"statistic": statistic_name, "method": method.lower(),
                                                 "alpha": round(1 - level, 10), "lower": num(lo), "upper": num(hi)})
            out.append(entry)
    return out


def xoshiro128():
    """xoshiro128** (Blackman & Vigna) from a raw state and from a seed, as documented in bootstrap.ts."""
    mask = 0xFFFFFFFF

    def rotl(x, k):
        return ((x << k) | (x >> (32 - k))) & mask

    def generator(state):
        s = list(state)
        while True:
            result = (rotl((s[1] * 5) & mask, 7) * 9) & mask
            t = (s[1] << 9) & mask
            s[2] ^= s[0]
            s[3] ^= s[1]
            s[1] ^= s[2]
            s[0] ^= s[3]
            s[2] ^= t
            s[3] = rotl(s[3], 11)
            yield result

    def seeded_state(seed):
        weyl = seed & mask
        state = []
        for _ in range(4):
            weyl = (weyl + 0x9E3779B9) & mask
            z = weyl
            z = ((z ^ (z >> 16)) * 0x85EBCA6B) & mask
            z = ((z ^ (z >> 13)) * 0xC2B2AE35) & mask
            state.append(z ^ (z >> 16))
        return state

    def take(gen, n):
        return [next(gen) for _ in range(n)]

    return {"state": [1, 2, 3, 4], "fromState": take(generator([1, 2, 3, 4]), 20),
            "seed": 42, "fromSeed": take(generator(seeded_state(42)), 20)}


def fdr():
    out = []
    for m in [1, 2, 3, 5, 10, 30, 100, 300]:
        for kind in ["uniform", "mixed", "ties"]:
            if kind == "uniform":
                ps = rng.random(m)
            elif kind == "mixed":
                ps = np.where(rng.random(m) < 0.3, rng.random(m) * 1e-4, rng.random(m))
            else:
                ps = np.round(rng.random(m), 1)
                ps[: m // 4] = 0.0
                ps[m // 4: m // 3] = 1.0
                rng.shuffle(ps)
            ps = np.round(ps, 8)
            out.append({"p": arr(ps), "q": arr(stats.false_discovery_control(ps, method="bh"))})
    return out


def mann_kendall(x):
    n = len(x)
    s = sum(np.sign(x[j] - x[i]) for i in range(n) for j in range(i + 1, n))
    _, t = np.unique(x, return_counts=True)
    var = (n * (n - 1) * (2 * n + 5) - float(np.sum(t * (t - 1) * (2 * t + 5)))) / 18
    if n < 3 or var <= 0:
        return float(s), var, 1.0, 1.0
    p_plain = 2 * stats.norm.sf(abs(s) / math.sqrt(var))
    p_cc = min(1.0, 2 * stats.norm.sf(abs(s - np.sign(s)) / math.sqrt(var)))
    tau = stats.kendalltau(np.arange(n), x, method="asymptotic")
    assert abs(tau.pvalue - p_plain) <= 1e-12 * max(p_plain, 1e-300) + 1e-300, (tau.pvalue, p_plain)
    return float(s), var, float(p_cc), float(tau.pvalue)


def summary():
    out = {"geometricMean": [], "robustCv": [], "bimodality": [], "mannKendall": []}
    for n in [1, 2, 3, 5, 10, 30, 100]:
        r = np.round(rng.lognormal(0, 0.2, n), 6)
        out["geometricMean"].append({"x": arr(r), "value": num(stats.gmean(r))})
    for n in [1, 2, 3, 4, 7, 10, 30, 31, 100]:
        for kind in ["lognormal", "ties", "bimodal"]:
            x = sample(n, kind)
            med = np.median(x)
            cv = stats.median_abs_deviation(x, scale="normal") / abs(med)
            out["robustCv"].append({"x": arr(x), "value": num(cv)})
            if n >= 4 and np.ptp(x) > 0:
                g1 = stats.skew(x, bias=False)
                g2 = stats.kurtosis(x, bias=False)
                bc = (g1 ** 2 + 1) / (g2 + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3)))
                out["bimodality"].append({"x": arr(x), "skewness": num(g1), "kurtosis": num(g2), "coefficient": num(bc)})
    for n in [3, 4, 5, 8, 10, 15, 20, 30, 40, 60]:
        for kind in ["lognormal", "ties", "trend"]:
            if kind == "trend":
                x = np.round(sample(n, "lognormal") * np.linspace(1.2, 1.0, n), 4)
            else:
                x = sample(n, kind)
            s, var, p_cc, p_plain = mann_kendall(x)
            out["mannKendall"].append({"x": arr(x), "s": s, "variance": var, "p": num(p_cc), "pNoContinuity": num(p_plain)})
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = pairs()
    files = {
        "mann-whitney.json": mann_whitney(cases),
        "hodges-lehmann.json": hodges_lehmann(cases),
        "quantile-ci.json": quantile_ci(),
        "bootstrap.json": bootstrap(),
        "xoshiro128.json": [xoshiro128()],
        "fdr.json": fdr(),
        "summary.json": summary(),
    }
    for name, data in files.items():
        doc = {"generator": "scripts/stats-vectors.py", "scipy": scipy.__version__, "numpy": np.__version__, "cases": data}
        with open(os.path.join(OUT, name), "w") as f:
            json.dump(doc, f, separators=(",", ":"), allow_nan=False)
            f.write("\n")


if __name__ == "__main__":
    main()
