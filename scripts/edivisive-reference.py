#!/usr/bin/env python3
"""Reference vectors for benchbot's windowed E-divisive (src/scan/e-divisive.ts).

Runs the peer itself, Apache Otava's `compute_change_points` (PyPI package
`apache-otava`, the successor of DataStax Hunter), on generated series and
writes what it finds to test/scan/vectors/edivisive.json, which
test/scan/e-divisive.test.ts compares against.

    python3 -m venv /tmp/otava-venv
    /tmp/otava-venv/bin/pip install apache-otava==0.8.0
    /tmp/otava-venv/bin/python scripts/edivisive-reference.py
"""
import json
import os
import sys

import numpy as np
from otava.analysis import compute_change_points, split
from importlib.metadata import version

OUT = os.path.join(os.path.dirname(__file__), '..', 'test', 'scan', 'vectors', 'edivisive.json')


def make_series(rng, kind, n):
    base = 100.0
    if kind == 'flat':
        return base * np.exp(rng.normal(0, 0.01, n))
    if kind == 'step':
        at = int(rng.integers(n // 4, 3 * n // 4))
        shift = rng.choice([-0.1, -0.05, 0.03, 0.05, 0.1, 0.2])
        return base * np.exp(rng.normal(0, 0.01, n) + np.where(np.arange(n) >= at, shift, 0.0))
    if kind == 'steps':
        level = np.zeros(n)
        for _ in range(int(rng.integers(2, 5))):
            at = int(rng.integers(1, n - 1))
            level[at:] += rng.choice([-0.08, -0.04, 0.04, 0.08, 0.15])
        return base * np.exp(rng.normal(0, 0.015, n) + level)
    if kind == 'heavy':
        noise = rng.standard_t(2, n) * 0.01
        at = int(rng.integers(n // 3, 2 * n // 3))
        return base * np.exp(noise + np.where(np.arange(n) >= at, 0.06, 0.0))
    if kind == 'drift':
        return base * np.exp(rng.normal(0, 0.01, n) + np.linspace(0, 0.1, n))
    if kind == 'log':
        # log values around 0, as the scan feeds them (negative means and all).
        at = int(rng.integers(n // 4, 3 * n // 4))
        return rng.normal(0, 0.02, n) + np.where(np.arange(n) >= at, 0.1, 0.0)
    raise ValueError(kind)


def point(cp):
    s = cp.stats
    return {'index': int(cp.index), 'qhat': float(cp.qhat), 'p': float(s.pvalue), 'meanBefore': float(s.mean_1),
            'meanAfter': float(s.mean_2), 'magnitude': float(s.change_magnitude())}


def main():
    rng = np.random.default_rng(20261122)
    cases = []
    kinds = ['flat', 'step', 'steps', 'heavy', 'drift', 'log']
    for i in range(60):
        kind = kinds[i % len(kinds)]
        n = int(rng.integers(12, 121))
        window = int(rng.choice([8, 15, 20, 30, 50]))
        max_p = float(rng.choice([0.001, 0.01, 0.05]))
        min_mag = float(rng.choice([0.0, 0.0, 0.02, 0.05]))
        series = [round(float(v), 6) for v in make_series(rng, kind, n)]
        final, _ = compute_change_points(list(series), window_len=window, max_pvalue=max_p, min_magnitude=min_mag)
        # compute_change_points returns the weak list merged in place, so the split step is run again on its own.
        first_pass = max_p * 10 if max_p < 0.05 else (max_p * 2 if max_p < 0.5 else max_p)
        weak = split(list(series), window, first_pass)
        cases.append({'kind': kind, 'windowLen': window, 'maxPValue': max_p, 'minMagnitude': min_mag, 'series': series,
                      'weak': [point(c) for c in weak], 'changePoints': [point(c) for c in final]})
    doc = {'generator': 'scripts/edivisive-reference.py', 'peer': f"apache-otava {version('apache-otava')}", 'cases': cases}
    with open(OUT, 'w') as f:
        json.dump(doc, f, indent=None, separators=(',', ':'))
        f.write('\n')
    print(f'wrote {len(cases)} cases to {os.path.relpath(OUT)}', file=sys.stderr)


if __name__ == '__main__':
    main()
