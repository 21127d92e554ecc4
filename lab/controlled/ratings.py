"""Rankings become ratings, as in the paper (section 6.2): every ranking of one
question's answers is a match among the conditions, and a TrueSkill-like model
(openskill's Thurstone-Mosteller, full pairing: TrueSkill's Gaussian model, with its
defaults mu 25, sigma 25/3) turns the matches into mu ± sigma per condition. Beside
them: how often each condition's answer was ranked above each other's (win rates),
and Kruskal-Wallis over the ranks each condition got, with Dunn's test (Holm-adjusted)
between neighbouring conditions in the order of mu, as the paper tested.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openskill.models import ThurstoneMostellerFull

from lab.controlled.folder import Tiers
from lab.controlled.stats import dunn, kruskal_wallis


def _tiers(ranking: Sequence[Sequence[str]], known: Any) -> list[list[str]]:
    """A ranking's tiers holding only known conditions, empty tiers dropped."""
    out = [[c for c in tier if c in known] for tier in ranking]
    return [t for t in out if t]


def ratings(rankings: Sequence[Tiers], conditions: Sequence[str]) -> dict[str, dict[str, float]]:
    """condition -> {"mu", "sigma", "matches"}: each ranking (tiers best first; a tier's
    conditions answered alike and draw) rated in the given order. A condition in no
    ranking keeps the prior."""
    model = ThurstoneMostellerFull()
    rating = {c: model.rating(name=c) for c in conditions}
    matches = dict.fromkeys(conditions, 0)
    for ranking in rankings:
        tiers = _tiers(ranking, rating)
        if len(tiers) < 2:
            continue
        flat = [c for t in tiers for c in t]
        ranks = [float(i + 1) for i, t in enumerate(tiers) for _c in t]
        teams = model.rate([[rating[c]] for c in flat], ranks=ranks)
        for c, team in zip(flat, teams):
            rating[c] = team[0]
            matches[c] += 1
    return {c: {"mu": float(r.mu), "sigma": float(r.sigma), "matches": matches[c]} for c, r in rating.items()}


def win_rates(rankings: Sequence[Tiers], conditions: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """a -> b -> the share of rankings holding both in which a was above b (a tie: half)."""
    wins = {a: dict.fromkeys(conditions, 0.0) for a in conditions}
    met = {a: dict.fromkeys(conditions, 0) for a in conditions}
    for ranking in rankings:
        pos = {c: i for i, t in enumerate(_tiers(ranking, wins)) for c in t}
        for a in pos:
            for b in pos:
                if a != b:
                    met[a][b] += 1
                    wins[a][b] += 1.0 if pos[a] < pos[b] else 0.5 if pos[a] == pos[b] else 0.0
    return {a: {b: (wins[a][b] / met[a][b] if met[a][b] else None) for b in conditions if b != a}
            for a in conditions}


def rank_groups(rankings: Sequence[Tiers], conditions: Sequence[str]) -> dict[str, list[float]]:
    """condition -> the rank it got in each ranking, scaled to 0 (best) .. 1 (worst), so
    rankings of four answers and of five (people's answers written or not) compare; a
    tier's conditions share the mean of its places."""
    out: dict[str, list[float]] = {c: [] for c in conditions}
    for ranking in rankings:
        tiers = _tiers(ranking, out)
        n = sum(len(t) for t in tiers)
        if len(tiers) < 2:
            continue
        start = 0
        for t in tiers:
            place = start + (len(t) - 1) / 2
            for c in t:
                out[c].append(place / (n - 1))
            start += len(t)
    return out


def summarise(rankings: Sequence[Tiers], conditions: Sequence[str]) -> dict[str, Any]:
    """Ratings, win rates and the tests of one set of rankings (people's, or one judge's)."""
    rated = ratings(rankings, conditions)
    present = [c for c in conditions if rated[c]["matches"]]
    order = sorted(present, key=lambda c: -rated[c]["mu"])
    groups = rank_groups(rankings, conditions)
    out: dict[str, Any] = {"rankings": len(rankings), "ratings": rated, "order": order,
                           "win_rates": win_rates(rankings, conditions), "kruskal": None, "dunn": []}
    if len(order) >= 2:
        gs = [groups[c] for c in order]
        try:
            kw = kruskal_wallis(gs)
            out["kruskal"] = {"h": kw.h, "df": kw.df, "p": kw.p, "n": kw.n}
        except ValueError:
            pass
        # higher (worse) mean rank in the lower-rated condition: z > 0 for the expected direction
        pairs = [(i + 1, i) for i in range(len(order) - 1)]
        out["dunn"] = [{"a": order[d.b], "b": order[d.a], "z": d.z, "p": d.p, "p_holm": d.p_holm}
                       for d in dunn(gs, pairs)]
    return out


__all__ = ["rank_groups", "ratings", "summarise", "win_rates"]
