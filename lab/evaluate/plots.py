"""The evaluation's PNG plots: diffusion over time, the who-knows-whom graph,
the party's counts beside the paper's."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from game.saves.saved_run import Target, parse_time
from lab.evaluate.judge import FACTS
from lab.evaluate.paper import PAPER_ATTENDED, PAPER_INVITED, PAPER_N


def _plt() -> Any:
    # Lazy: matplotlib takes about a second to import, and only writing plots needs it.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _dates() -> Any:
    import matplotlib.dates  # lazy, as above

    return matplotlib.dates


def plot_diffusion(result: dict, tg: Target, path: Path) -> Path:
    plt = _plt()
    diff = result["diffusion"]
    n = diff["residents"] or 1
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    t0, t1 = tg.start, tg.end
    for ax, fact in zip(axes, FACTS):
        d = diff["facts"][fact.key]
        xs = [t0] if t0 else []
        ys = [d["memory_start"]["count"] / n] if t0 else []
        count = 0
        for h in d["heard_over_time"]:
            count += 1
            xs.append(parse_time(h["time"]))
            ys.append(count / n)
        if t1 and xs:
            xs.append(t1)
            ys.append(count / n)
        if xs:
            ax.step(xs, ys, where="post", label="ours: heard (lines + memories)", color="C0")
        iv = result.get("interviews") or {}
        for phase, when, mk in (("start", t0, "o"), ("end", t1, "s")):
            got = (iv.get(phase) or {}).get(fact.key)
            if got is not None and when is not None:
                ax.plot([when], [got["share"]], mk, color="C1", label=f"ours: interview ({phase})")
        me = d.get("memory_end")
        if me is not None and t1 is not None:
            ax.plot([t1], [me["share"]], "^", color="C2", label="ours: memory (end)")
        ax.axhline(fact.paper[0], color="grey", ls=":", lw=1)
        ax.axhline(fact.paper[1], color="grey", ls="--", lw=1, label=f"paper after 2 days: {fact.paper[1]:.0%}")
        ax.set_title(fact.label)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("sim time")
        ax.xaxis.set_major_formatter(_dates().DateFormatter("%a %H:%M"))
        ax.tick_params(axis="x", labelrotation=30)
        ax.legend(fontsize=7, loc="upper left")
    axes[0].set_ylabel(f"share of the {diff['residents']} residents who know")
    fig.suptitle("Information diffusion")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_relationships(rel: dict, residents: Sequence[str], path: Path) -> Path:
    plt = _plt()
    n = len(residents)
    ang = np.linspace(0, 2 * np.pi, n, endpoint=False) + np.pi / 2
    pos = {r: (np.cos(a), np.sin(a)) for r, a in zip(residents, ang)}
    panels = [("start", rel["start"])] + ([("end", rel["end"])] if rel.get("end") else [])
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 6))
    axes = np.atleast_1d(axes)
    first = {tuple(e) for e in rel["start"]["edges"]}
    for ax, (name, g) in zip(axes, panels):
        for a, b in g["edges"]:
            (x1, y1), (x2, y2) = pos[a], pos[b]
            new = name == "end" and (a, b) not in first
            ax.plot([x1, x2], [y1, y2], color="C2" if new else "C0", alpha=0.6, lw=1.5 if new else 1)
        for r, (x, y) in pos.items():
            ax.plot(x, y, "o", color="C1", ms=9)
            ax.text(x * 1.12, y * 1.12, r.split()[0], ha="center", va="center", fontsize=8)
        paper = rel["paper"][name]
        ax.set_title(f"{name}: density {g['density']:.3f} (paper {paper:.3f})")
        ax.set_xlim(-1.35, 1.35)
        ax.set_ylim(-1.35, 1.35)
        ax.set_aspect("equal")
        ax.axis("off")
    fig.suptitle(f"Who knows whom ({n} residents; green: new since the start)")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_coordination(co: dict, path: Path) -> Path:
    plt = _plt()
    c = co["counts"]
    labels = ["invited", "planned", "attended"]
    ours = [c["invited"], c["planned"], c["attended"] or 0]
    paper = [PAPER_INVITED, None, PAPER_ATTENDED]
    fig, ax = plt.subplots(figsize=(6, 4))
    x = np.arange(len(labels))
    ax.bar(x - 0.2, ours, 0.4, label=f"ours ({c['residents']} residents)")
    ax.bar(x + 0.2, [p or 0 for p in paper], 0.4, label=f"paper ({PAPER_N} residents)", color="grey")
    ax.set_xticks(x, labels)
    ax.set_ylabel("residents (host excluded)")
    title = "Valentine's Day party"
    if c["attended"] is None:
        title += " (attendance: the run did not reach the party)"
    ax.set_title(title, fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_spread(result: dict, path: Path) -> Path:
    """Who told whom: for each fact, every resident who heard it, at the time they first
    did, with an arrow from the one who told them (a line said); the holder and those who
    only have a memory of it stand alone."""
    plt = _plt()
    facts = result["diffusion"]["facts"]
    fig, axes = plt.subplots(1, len(FACTS), figsize=(6 * len(FACTS), 5))
    axes = np.atleast_1d(axes)
    for ax, fact in zip(axes, FACTS):
        heard = facts[fact.key]["heard_over_time"]
        rows = {h["resident"]: i for i, h in enumerate(heard)}
        times = {h["resident"]: parse_time(h["time"]) for h in heard}
        for h in heard:
            who, t = h["resident"], times[h["resident"]]
            told = h.get("from")
            colour = "C1" if told else ("C3" if h["how"] == "seed" else "C0")
            ax.plot([t], [rows[who]], "o", color=colour, ms=7)
            if told in rows:
                ax.annotate("", xy=(t, rows[who]), xytext=(times[told], rows[told]),
                            arrowprops={"arrowstyle": "->", "color": "C1", "lw": 1, "alpha": 0.8})
        ax.set_yticks(range(len(heard)), [h["resident"].split()[0] for h in heard], fontsize=8)
        ax.invert_yaxis()
        ax.set_title(f"{fact.label}: {len(heard)} heard ({sum(1 for h in heard if h.get('from'))} told in talk)",
                     fontsize=10)
        ax.set_xlabel("sim time (first heard)")
        ax.xaxis.set_major_formatter(_dates().DateFormatter("%a %H:%M"))
        ax.tick_params(axis="x", labelrotation=30)
        if not heard:
            ax.text(0.5, 0.5, "nobody heard it in this run", ha="center", va="center", transform=ax.transAxes)
    fig.suptitle("Who told whom (red: knew it at the start; orange: told in a conversation; blue: a memory)")
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
