"""The few statistics the evaluations need, written out (numpy and math only) so the
figures do not hang on a library's version: Kruskal-Wallis with Dunn's post-hoc test
and Holm's adjustment (what the paper used on its rankings), and for two arms of
seeds an effect size (Hedges' g, Cliff's delta) with an exact permutation test.
"""
from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def rankdata(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Average ranks, 1-based (ties share the mean of their ranks)."""
    x = np.asarray(values, dtype=float)
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), dtype=float)
    sx = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sx[j + 1] == sx[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def _tie_sum(values: np.ndarray) -> float:
    _, counts = np.unique(values, return_counts=True)
    return float(np.sum(counts.astype(float) ** 3 - counts))


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square with ``df`` degrees of freedom (closed forms for whole df)."""
    if df < 1:
        raise ValueError(f"chi-square needs df >= 1, not {df}")
    if x <= 0:
        return 1.0
    if df % 2 == 0:  # e^(-x/2) * sum_{k < df/2} (x/2)^k / k!
        term, total = 1.0, 1.0
        for k in range(1, df // 2):
            term *= (x / 2) / k
            total += term
        return min(1.0, math.exp(-x / 2) * total)
    # odd: erfc(sqrt(x/2)) + e^(-x/2) * sum_{k=1}^{(df-1)/2} x^(k-1/2) / (1*3*...*(2k-1)) * sqrt(2/pi)
    p = math.erfc(math.sqrt(x / 2))
    term = math.sqrt(2 * x / math.pi)
    for k in range(1, (df + 1) // 2):
        p += math.exp(-x / 2) * term
        term *= x / (2 * k + 1)
    return min(1.0, p)


def normal_sf2(z: float) -> float:
    """Two-sided p of a standard normal z."""
    return math.erfc(abs(z) / math.sqrt(2))


@dataclass
class KruskalWallis:
    h: float
    df: int
    p: float
    n: int


def kruskal_wallis(groups: Sequence[Sequence[float]]) -> KruskalWallis:
    """H corrected for ties, its chi-square p; groups with no values are left out."""
    gs = [np.asarray(g, dtype=float) for g in groups if len(g)]
    if len(gs) < 2:
        raise ValueError("Kruskal-Wallis needs at least two groups with values")
    allv = np.concatenate(gs)
    n = len(allv)
    ranks = rankdata(allv)
    h, start = 0.0, 0
    for g in gs:
        r = ranks[start:start + len(g)]
        h += r.sum() ** 2 / len(g)
        start += len(g)
    h = 12.0 / (n * (n + 1)) * h - 3 * (n + 1)
    ties = 1 - _tie_sum(allv) / (n ** 3 - n) if n > 1 else 1.0
    h = h / ties if ties > 0 else 0.0
    return KruskalWallis(h, len(gs) - 1, chi2_sf(h, len(gs) - 1) if ties > 0 else 1.0, n)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the given order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


@dataclass
class Dunn:
    a: int
    b: int
    z: float
    p: float
    p_holm: float = 1.0


def dunn(groups: Sequence[Sequence[float]], pairs: Sequence[tuple[int, int]]) -> list[Dunn]:
    """Dunn's test (tie-corrected) for the given pairs of group indices, Holm-adjusted
    over those pairs. z > 0: group a has the higher mean rank."""
    gs = [np.asarray(g, dtype=float) for g in groups]
    allv = np.concatenate([g for g in gs if len(g)]) if any(len(g) for g in gs) else np.zeros(0)
    n = len(allv)
    ranks = rankdata(allv) if n else np.zeros(0)
    means, start = [], 0
    for g in gs:
        means.append(float(ranks[start:start + len(g)].mean()) if len(g) else float("nan"))
        start += len(g)
    var = (n * (n + 1) / 12.0 - _tie_sum(allv) / (12.0 * (n - 1))) if n > 1 else 0.0
    out = []
    for a, b in pairs:
        if not len(gs[a]) or not len(gs[b]) or var <= 0:
            out.append(Dunn(a, b, 0.0, 1.0))
            continue
        z = (means[a] - means[b]) / math.sqrt(var * (1 / len(gs[a]) + 1 / len(gs[b])))
        out.append(Dunn(a, b, z, normal_sf2(z)))
    for d, p in zip(out, holm([d.p for d in out])):
        d.p_holm = p
    return out


# ---------------------------------------------------------------------------- two arms of seeds


@dataclass
class TwoArms:
    """Control vs treatment on one measure: the difference of means, Hedges' g, Cliff's
    delta, an exact (or sampled) permutation test's two-sided p and the smallest p these
    seeds could give; ``note`` says when no test can tell anything."""

    n_control: int
    n_treatment: int
    diff: float | None
    hedges_g: float | None
    cliffs_delta: float | None
    p: float | None
    p_min: float | None
    note: str = ""


def hedges_g(a: Sequence[float], b: Sequence[float]) -> float | None:
    """(mean b - mean a) over the pooled sd, small-sample corrected; None when undefined."""
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return None
    sp2 = ((na - 1) * statistics.variance(a) + (nb - 1) * statistics.variance(b)) / (na + nb - 2)
    if sp2 <= 0:
        return None
    d = (statistics.fmean(b) - statistics.fmean(a)) / math.sqrt(sp2)
    return d * (1 - 3 / (4 * (na + nb) - 9))


def cliffs_delta(a: Sequence[float], b: Sequence[float]) -> float | None:
    """P(b > a) - P(b < a) over all pairs: -1..1."""
    if not a or not b:
        return None
    gt = sum(1 for x in a for y in b if y > x)
    lt = sum(1 for x in a for y in b if y < x)
    return (gt - lt) / (len(a) * len(b))


def permutation_p(a: Sequence[float], b: Sequence[float], *, samples: int = 20000,
                  seed: int = 0) -> tuple[float, float]:
    """Two-sided p of the difference in means under relabelling the seeds: exact when the
    splits are few, else ``samples`` random ones. Returns (p, the smallest p possible)."""
    pooled = list(a) + list(b)
    na, n = len(a), len(a) + len(b)
    observed = abs(statistics.fmean(b) - statistics.fmean(a))
    total = math.comb(n, na)
    eps = 1e-12 * max(1.0, observed)

    def diff(idx: Sequence[int]) -> float:
        chosen = set(idx)
        xa = [pooled[i] for i in chosen]
        xb = [pooled[i] for i in range(n) if i not in chosen]
        return abs(statistics.fmean(xb) - statistics.fmean(xa))

    if total <= samples:
        hits = sum(1 for idx in itertools.combinations(range(n), na) if diff(idx) >= observed - eps)
        # each split and its mirror (when the arms are the same size) give the same |diff|
        return hits / total, (2 if na == n - na else 1) / total
    rng = random.Random(seed)
    hits = sum(1 for _ in range(samples) if diff(rng.sample(range(n), na)) >= observed - eps)
    return (hits + 1) / (samples + 1), 1 / (samples + 1)


def two_arms(control: Sequence[float | None], treatment: Sequence[float | None]) -> TwoArms:
    """The statistics of one measure across the seeds of two arms."""
    a = [float(x) for x in control if x is not None]
    b = [float(x) for x in treatment if x is not None]
    if not a or not b:
        return TwoArms(len(a), len(b), None, None, None, None, None, "a measure missing in an arm: no test")
    diff = statistics.fmean(b) - statistics.fmean(a)
    g, delta = hedges_g(a, b), cliffs_delta(a, b)
    if len(a) < 2 and len(b) < 2:
        return TwoArms(len(a), len(b), diff, g, delta, None, None, "one seed per arm: no test can tell noise apart")
    if len(set(a)) == 1 and len(set(b)) == 1:
        same = "the arms agree" if a[0] == b[0] else "every seed of an arm gives the same value"
        return TwoArms(len(a), len(b), diff, g, delta, None, None,
                       f"the seeds cannot differ (sd 0 in each arm: {same}; a deterministic model?): no test")
    p, p_min = permutation_p(a, b)
    note = f"with {len(a)}+{len(b)} seeds the smallest possible p is {p_min:.2g}" if p_min > 0.05 else ""
    return TwoArms(len(a), len(b), diff, g, delta, p, p_min, note)


__all__ = ["Dunn", "KruskalWallis", "TwoArms", "chi2_sf", "cliffs_delta", "dunn", "hedges_g", "holm",
           "kruskal_wallis", "normal_sf2", "permutation_p", "rankdata", "two_arms"]
