"""`smallville evaluate`: the paper's evaluations (Park et al. 2023, section 7) on any run or save.

    smallville evaluate runs/NAME                 # a run folder: its events and its newest save
    smallville evaluate saves/x.sqlite            # a save alone (it carries the sim's event log)
    smallville evaluate runs/NAME --no-interviews # memory-based measures only: no language model
    smallville evaluate runs/NAME --battery [--agent "Maria Lopez"]   # the interview battery -> interviews.md

Writes ``evaluation.json``, ``evaluation.md`` and PNG plots (``diffusion.png``,
``relationships.png``, ``coordination.png``) into the run folder (or
``--out``), with the paper's figures beside ours:

1. Information diffusion: the share of residents who know of Sam Moore's
   candidacy and of Isabella's Valentine's Day party, at the start and the
   end, judged two independent ways: (a) an interview of each resident
   (``agents.interview.respond(..., remember=False)``, so the minds are left
   untouched) classified by a rule judge (``game/judge.py``; ``--judge model``
   asks the model instead), and (b) whether the memory stream holds it. Over
   time: the first time each resident heard it (dialogue lines and memories
   that mention it). Paper: candidacy 4% -> 32%, party 4% -> 52%.
2. Relationship formation: the density of the who-knows-whom graph (an
   undirected edge A-B when A knows B or B knows A) at the start (who names
   whom in the seed descriptions) and the end (plus the people each mind
   knows: met, talked with or seen by name). Paper: 0.167 -> 0.74.
3. Coordination: who was invited (heard of the party from someone), who
   planned to go, and who was at Hobbs Cafe between 17:00 and 19:00 on
   Feb 14. Paper: 5 of 12 invitees came.

"Start" is the scenario's beginning (the seed descriptions and seeded
thoughts, rebuilt exactly as a run starts); "end" is the newest save.
"""
from __future__ import annotations

import json
import logging
import re
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from game.errors import UserError
from game.judge import (FACTS, PARTY, PARTY_END, PARTY_HOST, PARTY_SECTOR, PARTY_START, PARTY_TOPIC, Fact,
                        memory_knows, mentions_topic, model_judge, rule_judge)

log = logging.getLogger(__name__)

INTERVIEWER = "Interviewer"
INTERVIEWER_IS = "an interviewer from a study of the town, asking everyone the same questions"
PAPER_DENSITY = (0.167, 0.74)
PAPER_INVITED, PAPER_ATTENDED = 12, 5
PAPER_N = 25
PLAN_WORDS = (r"\b(going to|will go|plan(ning)? to|attend|see you there|i'll be there|will be there|"
              r"looking forward|can't wait|count me in|i'll come|will come|join)\b")


# ---------------------------------------------------------------------------- what is evaluated


@dataclass
class Target:
    """A run folder and/or a save, read once."""
    given: Path
    folder: Path | None = None          # the run folder (events.jsonl, summary.json)
    save: Path | None = None            # the save used for the end state
    info: Any = None                    # its SaveInfo
    parts: dict | None = None           # its parts (load_state)
    events: list[dict] | None = None
    events_source: str = ""
    residents: list[str] = field(default_factory=list)
    start: datetime | None = None
    end: datetime | None = None
    map_path: Path | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def states(self) -> dict[str, dict]:
        if not self.parts:
            return {}
        return {k[6:]: v for k, v in self.parts.items() if k.startswith("minds/")}


def _read_events(path: Path) -> list[dict]:
    out = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except ValueError:
                log.warning("%s line %d is not JSON; skipped", path, n)
    return out


def _t(v: Any) -> datetime | None:
    if isinstance(v, datetime):
        return v
    if not v:
        return None
    try:
        return datetime.fromisoformat(str(v))
    except ValueError:
        return None


def load_target(given: str | Path, default_map: str | Path | None = None) -> Target:
    """A run folder (its newest loadable save, if any) or a save file. A save
    inside a run folder (``runs/NAME/saves/x.sqlite``) is read with its run's events."""
    from game.saves import SaveError, list_saves, load_state, read_info

    p = Path(given)
    tg = Target(given=p)
    if not p.exists():
        raise UserError(f"evaluate {p}: there is no such run folder or save file")
    if p.is_dir():
        tg.folder = p
        good = [i for i in list_saves(p / "saves") if i.ok] or [i for i in list_saves(p) if i.ok]
        if good:
            tg.save = good[0].path
        else:
            tg.notes.append("the run folder has no loadable save: the memory and interview measures are skipped")
    else:
        tg.save = p
        if p.parent.name == "saves" and (p.parent.parent / "events.jsonl").exists():
            tg.folder = p.parent.parent
    if tg.save is not None:
        try:
            read_info(tg.save)
            tg.parts, tg.info = load_state(tg.save, require=("sim", "session"))
        except SaveError as err:
            if tg.folder is None:
                raise
            tg.notes.append(f"the save cannot be read ({err}): memory and interview measures skipped")
            tg.save = None
    summary = {}
    if tg.folder is not None and (tg.folder / "summary.json").exists():
        try:
            summary = json.loads((tg.folder / "summary.json").read_text(encoding="utf-8"))
        except ValueError:
            summary = {}
    if tg.folder is not None and (tg.folder / "events.jsonl").exists():
        tg.events = _read_events(tg.folder / "events.jsonl")
        tg.events_source = str(tg.folder / "events.jsonl")
    elif tg.parts is not None and isinstance((tg.parts.get("sim") or {}).get("events"), list):
        tg.events = list(tg.parts["sim"]["events"])
        tg.events_source = f"the event log inside {tg.save}"
    else:
        tg.notes.append("no event log: the over-time and coordination measures that need events are skipped")
    sess = (tg.parts or {}).get("session") or {}
    tg.residents = list(sess.get("residents") or (tg.info.residents if tg.info else []) or summary.get("residents") or [])
    if not tg.residents and tg.events:
        seen: dict[str, None] = {}
        for e in tg.events:
            if e.get("resident"):
                seen.setdefault(e["resident"], None)
        tg.residents = list(seen)
    clock = (tg.parts or {}).get("clock") or {}
    tg.start = _t(clock.get("start")) or _t(summary.get("start"))
    tg.end = _t(clock.get("now")) or (tg.info.sim_time if tg.info else None) or _t(summary.get("end"))
    if tg.events:
        last = max((_t(e.get("time")) for e in tg.events if _t(e.get("time"))), default=None)
        if last and (tg.end is None or (tg.save is None and last > tg.end)):
            tg.end = last
    mp = sess.get("map") or (tg.info.map_path if tg.info else None) or summary.get("map") or default_map
    tg.map_path = Path(mp) if mp else None
    return tg


def default_out(tg: Target) -> Path:
    if tg.folder is not None:
        return tg.folder
    return tg.save.parent / f"{tg.save.stem}-evaluation"


# ---------------------------------------------------------------------------- memories as data


@dataclass
class MemoryView:
    """One resident's memory stream as plain data."""
    texts: list[str]
    kinds: list[str]
    created: list[datetime | None]
    subjects: list[str | None]
    objects: list[str | None]
    vectors: np.ndarray | None
    model: str | None


def view_of_state(state: dict) -> MemoryView:
    mem = state.get("memory") or {}
    nodes = list(mem.get("nodes") or [])
    emb = mem.get("embeddings")
    vecs = np.asarray(emb, dtype=np.float32) if emb is not None and len(nodes) else None
    if vecs is not None and (vecs.ndim != 2 or vecs.shape[0] < len(nodes)):
        vecs = None
    elif vecs is not None:
        vecs = vecs[: len(nodes)]
    return MemoryView([str(n.get("description", "")) for n in nodes], [n.get("kind", "") for n in nodes],
                      [_t(n.get("created")) for n in nodes], [n.get("subject") for n in nodes],
                      [n.get("object") for n in nodes], vecs, mem.get("model"))


def initial_texts(persona: Any, scenario: Any) -> list[str]:
    """What a resident's memory holds when the story starts: its description's
    phrases and its seeded thoughts (agents.mind.Mind._fold_queue)."""
    out = list(persona.phrases)
    for who, thought, _imp in getattr(scenario, "seeds", None) or []:
        if who == persona.name:
            out.append(thought)
    return out


class _Vectors:
    """Embeds through the run's embedder, when it is the model the saved streams used."""

    def __init__(self, embedder: Any, model: str | None):
        self.embedder = embedder
        self.ok = embedder is not None and (model is None or getattr(embedder, "model_name", None) == model)

    def __call__(self, texts: Sequence[str]) -> np.ndarray | None:
        if not self.ok or not texts:
            return None
        return np.asarray(self.embedder.embed(list(texts)), dtype=np.float32)


# ---------------------------------------------------------------------------- 1. information diffusion


def _share(n: int, total: int) -> float:
    return round(n / total, 4) if total else 0.0


def line_mentions(events: Iterable[dict], pattern: str) -> list[dict]:
    """Dialogue lines (kind ``line``) whose text matches ``pattern``."""
    rx = re.compile(pattern, re.I)
    return [e for e in events if e.get("kind") == "line" and rx.search(str(e.get("text", "")))]


def first_heard(fact: Fact, residents: Sequence[str], start: datetime | None, events: list[dict] | None,
                views: dict[str, MemoryView], judged: dict[str, list[bool]]) -> dict[str, dict]:
    """resident -> {"time", "how", "from"}: the first time each resident knew
    ``fact``: the holder at the start; anyone who said or heard a line about it;
    anyone with a memory that holds it (the memory's creation time)."""
    out: dict[str, dict] = {}

    def note(who: str, t: datetime | None, how: str, src: str | None = None) -> None:
        if who not in residents or t is None:
            return
        if who not in out or t < out[who]["time"]:
            out[who] = {"time": t, "how": how, "from": src}

    if fact.holder in residents and start is not None:
        note(fact.holder, start, "seed")
    for e in line_mentions(events or [], fact.topic):
        if fact.needs_detail and e.get("resident") != fact.holder and not re.search(fact.detail, str(e.get("text")), re.I):
            continue  # "the election" without the candidate is not the news
        t = _t(e.get("time"))
        note(e.get("resident"), t, "said it")
        if e.get("partner"):
            note(e["partner"], t, "heard it", e.get("resident"))
    for who, view in views.items():
        for i, hit in enumerate(judged.get(who, [])):
            if hit:
                note(who, view.created[i], f"{view.kinds[i]} memory")
    return out


def diffusion(tg: Target, personas: dict[str, Any], scenario: Any, embedder: Any) -> dict:
    """The memory-based judgement of each fact at the start and the end, and the curve over time."""
    residents = tg.residents
    n = len(residents)
    states = tg.states
    views = {r: view_of_state(states[r]) for r in residents if r in states}
    model = next((v.model for v in views.values() if v.model), None)
    vec = _Vectors(embedder, model)
    notes = []
    if views and not vec.ok:
        notes.append("memory judge by keyword and detail only (no embedder for the save's embedding model)")
    init = {r: initial_texts(personas[r], scenario) for r in residents if r in personas}
    flat = [t for r in init for t in init[r]]
    flat_vecs = vec(flat)
    res: dict[str, Any] = {"residents": n, "notes": notes, "facts": {}}
    for fact in FACTS:
        fv = vec([fact.statement])
        fvec = fv[0] if fv is not None else None
        # start: what the story begins with
        start_knows, k = [], 0
        for r in residents:
            texts = init.get(r, [])
            vs = flat_vecs[k:k + len(texts)] if flat_vecs is not None else None
            k += len(texts)
            if any(memory_knows(fact, texts, vs, fvec, owner=r)):
                start_knows.append(r)
        # end: the save's memory streams
        judged = {r: memory_knows(fact, v.texts, v.vectors if vec.ok else None, fvec, owner=r) for r, v in views.items()}
        end_knows = [r for r in residents if any(judged.get(r, []))] if views else None
        evidence = {r: [v.texts[i] for i, h in enumerate(judged[r]) if h][:3] for r, v in views.items() if any(judged[r])}
        heard = first_heard(fact, residents, tg.start, tg.events, views, judged)
        curve = sorted((h["time"], r) for r, h in heard.items())
        res["facts"][fact.key] = {
            "label": fact.label, "holder": fact.holder,
            "memory_start": {"knows": start_knows, "count": len(start_knows), "share": _share(len(start_knows), n)},
            "memory_end": None if end_knows is None else
            {"knows": end_knows, "count": len(end_knows), "share": _share(len(end_knows), n), "evidence": evidence},
            "heard_over_time": [{"time": t.isoformat(sep=" "), "resident": r, "how": heard[r]["how"],
                                 "from": heard[r]["from"]} for t, r in curve],
            "heard_end": {"count": len(heard), "share": _share(len(heard), n)},
            "paper": {"start": fact.paper[0], "end": fact.paper[1], "start_count": fact.paper_counts[0],
                      "end_count": fact.paper_counts[1], "of": PAPER_N},
        }
    return res


def start_minds(residents: Sequence[str], personas: dict[str, Any], scenario: Any, gateway: Any, embedder: Any,
                start: datetime, settings: Any = None) -> dict[str, Any]:
    """Minds as the story starts: seed phrases and seeded thoughts, nothing else."""
    from agents.mind import Mind

    minds = {}
    for r in residents:
        m = Mind(personas[r], gateway, embedder, settings)
        for who, thought, imp in getattr(scenario, "seeds", None) or []:
            if who == r:
                m.queue_thought(thought, imp)
        m.now = start
        m._roll_day()
        m._fold_queue()
        minds[r] = m
    return minds


def end_minds(tg: Target, personas: dict[str, Any], gateway: Any, embedder: Any, settings: Any = None) -> dict[str, Any]:
    from agents.mind import Mind

    return {r: Mind.from_state(personas[r], gateway, embedder, s, settings) for r, s in tg.states.items()
            if r in personas}


def ask(mind: Any, question: str, now: datetime) -> str:
    from agents.interview import respond

    return respond(mind, INTERVIEWER, question, now=now, speaker_is=INTERVIEWER_IS, remember=False)


def is_fallback(mind: Any, question: str, answer: str) -> bool:
    """The interview path's own stand-in line (the model's answer was unusable)."""
    from agents.interview import fallback_answer

    return answer == fallback_answer(mind, INTERVIEWER, question, ())


def interview_diffusion(minds_by_phase: dict[str, tuple[dict[str, Any], datetime]], gateway: Any, judge: str = "rule",
                        echo: Callable[[str], None] | None = None) -> dict:
    """phase -> fact -> {answers: {resident: {answer, knows, label, reason}}, count, share}."""
    out: dict[str, dict] = {}
    for phase, (minds, now) in minds_by_phase.items():
        out[phase] = {}
        for fact in FACTS:
            answers = {}
            for name, mind in minds.items():
                a = ask(mind, fact.question, now)
                v = model_judge(gateway, fact, a, speaker=name) if judge == "model" else rule_judge(fact, a, speaker=name)
                answers[name] = {"answer": a, "knows": v.knows, "label": v.label, "reason": v.reason,
                                 "fallback": is_fallback(mind, fact.question, a)}
                if echo is not None:
                    echo(f"  [{phase}] {name} <- {fact.question!r}: {'KNOWS' if v.knows else v.label} | {a[:90]}")
            k = [r for r, x in answers.items() if x["knows"]]
            out[phase][fact.key] = {"answers": answers, "knows": k, "count": len(k), "share": _share(len(k), len(minds))}
    return out


# ---------------------------------------------------------------------------- 2. relationships


def _name_patterns(names: Sequence[str]) -> dict[str, re.Pattern]:
    firsts = [n.split()[0] for n in names]
    out = {}
    for n in names:
        f = n.split()[0]
        alts = [re.escape(n)] + ([rf"\b{re.escape(f)}\b"] if firsts.count(f) == 1 else [])
        out[n] = re.compile("|".join(alts))
    return out


def names_in(text: str, names: Sequence[str], pats: dict[str, re.Pattern] | None = None) -> set[str]:
    pats = pats or _name_patterns(names)
    return {n for n in names if pats[n].search(text or "")}


def start_graph(residents: Sequence[str], personas: dict[str, Any]) -> dict[str, set[str]]:
    """A knows B at the start when A's seed description names B."""
    pats = _name_patterns(residents)
    out = {}
    for r in residents:
        desc = getattr(personas.get(r), "description", "") if r in personas else ""
        out[r] = names_in(desc, residents, pats) - {r}
    return out


def end_graph(residents: Sequence[str], start: dict[str, set[str]], states: dict[str, dict],
              events: list[dict] | None) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(knows, talked): A knows B at the end when A knew B at the start, or A's mind
    knows B (met, talked with or seen), or A's memories of talks name B, or the
    event log has them in a conversation; ``talked`` is the conversations alone."""
    rs = set(residents)
    knows = {r: set(start.get(r, ())) for r in residents}
    talked: dict[str, set[str]] = {r: set() for r in residents}
    for r, s in states.items():
        if r not in knows:
            continue
        knows[r] |= set(s.get("known_people") or ()) & rs
        for n in (s.get("memory") or {}).get("nodes") or []:
            if n.get("kind") == "chat":
                for who in (n.get("subject"), n.get("object")):
                    if who in rs and who != r:
                        knows[r].add(who)
                        talked[r].add(who)
    for e in events or []:
        if e.get("kind") in ("chat", "line") and e.get("resident") in rs and e.get("partner") in rs:
            a, b = e["resident"], e["partner"]
            for x, y in ((a, b), (b, a)):
                knows[x].add(y)
                talked[x].add(y)
    for r in knows:
        knows[r].discard(r)
        talked[r].discard(r)
    return knows, talked


def undirected(graph: dict[str, set[str]], mutual: bool = False) -> set[tuple[str, str]]:
    edges = set()
    for a, bs in graph.items():
        for b in bs:
            if a == b or b not in graph:
                continue
            if mutual and a not in graph.get(b, ()):
                continue
            edges.add(tuple(sorted((a, b))))
    return edges


def density(graph: dict[str, set[str]], mutual: bool = False) -> float:
    """Undirected: edges / (n(n-1)/2), as the paper."""
    n = len(graph)
    if n < 2:
        return 0.0
    return round(len(undirected(graph, mutual)) / (n * (n - 1) / 2), 4)


def relationships(tg: Target, personas: dict[str, Any]) -> dict:
    rs = tg.residents
    start = start_graph(rs, personas)
    everyone = list(personas)
    res = {
        "cast_size": len(everyone), "cast_start_density": density(start_graph(everyone, personas)),
        "residents": len(rs),
        "start": {"density": density(start), "edges": sorted(map(list, undirected(start))),
                  "mutual_density": density(start, mutual=True)},
        "paper": {"start": PAPER_DENSITY[0], "end": PAPER_DENSITY[1], "of": PAPER_N},
        "end": None,
    }
    if tg.states or tg.events:
        knows, talked = end_graph(rs, start, tg.states, tg.events)
        res["end"] = {"density": density(knows), "edges": sorted(map(list, undirected(knows))),
                      "mutual_density": density(knows, mutual=True), "talked_density": density(talked),
                      "knows": {r: sorted(v) for r, v in knows.items()}}
        if not tg.states:
            res["end"]["note"] = "from the event log only (no save)"
    return res


# ---------------------------------------------------------------------------- 3. coordination


def sector_of(address: str | None) -> str | None:
    parts = str(address or "").split(":")
    return parts[1] if len(parts) > 1 else None


def presence(events: list[dict], sector: str) -> dict[str, list[tuple[datetime, datetime | None]]]:
    """resident -> intervals [arrived, left) spent in ``sector``, from the event
    log: an ``arrive`` (or a dialogue line) there puts them in; an ``action``
    elsewhere takes them out (they set off). None: still there at the log's end."""
    where: dict[str, str | None] = {}
    since: dict[str, datetime] = {}
    out: dict[str, list] = {}
    for e in sorted(events, key=lambda e: str(e.get("time", ""))):
        who, t, kind = e.get("resident"), _t(e.get("time")), e.get("kind")
        if not who or t is None:
            continue
        sec = sector_of(e.get("address"))
        if kind in ("arrive", "line", "chat") and sec:
            if where.get(who) != sec:
                if where.get(who) == sector:
                    out.setdefault(who, []).append((since[who], t))
                where[who], since[who] = sec, t
        elif kind == "action" and sec and sec != where.get(who):
            if where.get(who) == sector:
                out.setdefault(who, []).append((since[who], t))
            where[who] = None
    for who, sec in where.items():
        if sec == sector:
            out.setdefault(who, []).append((since[who], None))
    return out


def at_party(events: list[dict], start: datetime = PARTY_START, end: datetime = PARTY_END,
             sector: str = PARTY_SECTOR) -> dict[str, list[str]]:
    """Who was in the sector at some time in [start, end): resident -> the intervals (text)."""
    out = {}
    for who, spans in presence(events, sector).items():
        hits = [(a, b) for a, b in spans if a < end and (b is None or b > start)]
        if hits:
            out[who] = [f"{a:%a %H:%M}-{(b.strftime('%H:%M') if b else 'end')}" for a, b in hits]
    return out


def plan_mentions_party(state: dict, day=PARTY_START.date()) -> list[str]:
    """Evidence that a resident planned to go: plan items of the party's day that
    overlap the party and are at Hobbs Cafe or name the party; plan memories that
    name the party; other memories that name it with an intent to go."""
    hits = []
    for x in state.get("plan") or []:
        s = _t(x.get("start"))
        if s is None or s.date() != day:
            continue
        e = s + timedelta(minutes=int(x.get("minutes") or 0))
        if s < PARTY_END and e > PARTY_START and (sector_of(x.get("address")) == PARTY_SECTOR
                                                     or re.search(PARTY_TOPIC, str(x.get("description")), re.I)):
            hits.append(f"plan item {s:%H:%M} {x.get('description')} @ {sector_of(x.get('address'))}")
    for n in (state.get("memory") or {}).get("nodes") or []:
        d = str(n.get("description", ""))
        if not re.search(PARTY_TOPIC, d, re.I):
            continue
        if n.get("kind") == "plan":
            hits.append(f"plan memory: {d[:160]}")
        elif re.search(PLAN_WORDS, d, re.I):
            hits.append(f"{n.get('kind')} memory: {d[:160]}")
    return hits


def coordination(tg: Target) -> dict:
    rs = set(tg.residents)
    res: dict[str, Any] = {"host": PARTY_HOST, "party": f"{PARTY_SECTOR}, {PARTY_START:%a %b %d %H:%M}-{PARTY_END:%H:%M}",
                           "paper": {"invited": PAPER_INVITED, "attended": PAPER_ATTENDED, "of": PAPER_N},
                           "notes": []}
    invited: dict[str, list[str]] = {}
    if tg.events is not None:
        for e in line_mentions(tg.events, PARTY_TOPIC):
            who, to = e.get("resident"), e.get("partner")
            if to in rs and to != PARTY_HOST:
                invited.setdefault(to, []).append(f"{e.get('time')} {who}: {str(e.get('text'))[:120]}")
    for r, s in tg.states.items():
        if r == PARTY_HOST:
            continue
        for n in (s.get("memory") or {}).get("nodes") or []:
            d = str(n.get("description", ""))
            if n.get("kind") == "chat" and re.search(PARTY_TOPIC, d, re.I):
                invited.setdefault(r, []).append(f"{n.get('created')} chat memory: {d[:120]}")
    planned = {r: ev for r, s in tg.states.items() if r != PARTY_HOST and (ev := plan_mentions_party(s))}
    res["invited"] = {r: v[:3] for r, v in sorted(invited.items())}
    res["planned"] = {r: v[:3] for r, v in sorted(planned.items())}
    res["host_planned"] = plan_mentions_party(tg.states[PARTY_HOST])[:3] if PARTY_HOST in tg.states else None
    if not tg.states:
        res["notes"].append("no save: plans are not known")
    reached = tg.end is not None and tg.end >= PARTY_START
    res["reached"] = reached
    if tg.events is None:
        res["attended"] = None
        res["notes"].append("no event log: attendance is not known")
    elif not reached:
        res["attended"] = None
        res["notes"].append(f"the run did not reach {PARTY_START:%b %d %H:%M} (it ends {tg.end:%a %b %d %H:%M})"
                            if tg.end else f"the run did not reach {PARTY_START:%b %d %H:%M}")
    else:
        if tg.end < PARTY_END:
            res["notes"].append(f"the run ends during the party ({tg.end:%H:%M})")
        came = at_party(tg.events)
        res["attended"] = {r: v for r, v in sorted(came.items()) if r in rs}
    att = res["attended"]
    res["counts"] = {
        "residents": len(rs),
        "invited": len(invited),
        "planned": len(planned),
        "attended": None if att is None else len([r for r in att if r != PARTY_HOST]),
        "invited_and_attended": None if att is None else len([r for r in att if r in invited]),
        "planned_and_attended": None if att is None else len([r for r in att if r in planned]),
        "host_attended": None if att is None else PARTY_HOST in att,
    }
    return res


# ---------------------------------------------------------------------------- plots


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _dates():
    import matplotlib.dates

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
            xs.append(_t(h["time"]))
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


# ---------------------------------------------------------------------------- the report


def _frac(count: int | None, n: int) -> str:
    if count is None:
        return "n/a"
    return f"{count}/{n} ({count / n:.0%})" if n else "0/0"


def render_markdown(result: dict) -> str:
    n = result["residents_count"]
    L = [f"# Evaluation of {result['target']}", "",
         f"{n} residents: {', '.join(result['residents'])}  ",
         f"sim {result['start']} → {result['end']} · save: {result['save'] or 'none'} · events: "
         f"{result['events_source'] or 'none'}  ",
         (f"interview model: `{result.get('model')}` · judge: {result.get('judge')}" if result.get("judge")
          else "no interviews (memory- and event-based measures only)"), ""]
    if n != PAPER_N:
        L += [f"The paper ran {PAPER_N} agents for two sim days; shares are comparable, counts are not "
              f"(one resident here is {1 / n:.0%} of the town).", ""]
    for note in result["notes"]:
        L.append(f"- note: {note}")
    if result["notes"]:
        L.append("")
    L += ["## 1. Information diffusion", "",
          "| fact | judged by | start | end | paper start | paper end |", "|---|---|---|---|---|---|"]
    diff = result["diffusion"]
    iv = result.get("interviews") or {}
    for fact in FACTS:
        d = diff["facts"][fact.key]
        p = d["paper"]
        ps, pe = f"{p['start']:.0%} ({p['start_count']}/25)", f"{p['end']:.0%} ({p['end_count']}/25)"
        me = d["memory_end"]
        L.append(f"| {fact.label} | memory stream | {_frac(d['memory_start']['count'], n)} | "
                 f"{_frac(me['count'] if me else None, n)} | {ps} | {pe} |")
        if iv:
            s, e = (iv.get("start") or {}).get(fact.key), (iv.get("end") or {}).get(fact.key)
            L.append(f"| {fact.label} | interview ({result.get('judge')} judge) | {_frac(s['count'] if s else None, n)} | "
                     f"{_frac(e['count'] if e else None, n)} | {ps} | {pe} |")
        L.append(f"| {fact.label} | heard (lines + memories) | {_frac(d['memory_start']['count'], n)} | "
                 f"{_frac(d['heard_end']['count'], n)} | {ps} | {pe} |")
    L.append("")
    for fact in FACTS:
        d = diff["facts"][fact.key]
        if d["heard_over_time"]:
            L.append(f"First heard, {fact.label}: " + "; ".join(
                f"{h['resident']} {h['time'][5:16]} ({h['how']}{', from ' + h['from'] if h['from'] else ''})"
                for h in d["heard_over_time"]))
            L.append("")
    if iv.get("end"):
        made_up = sum(1 for ph in iv.values() for f in ph.values() for a in f["answers"].values()
                      if a["label"] == "wrong")
        total = sum(len(f["answers"]) for ph in iv.values() for f in ph.values())
        stand_in = sum(1 for ph in iv.values() for f in ph.values() for a in f["answers"].values()
                       if a.get("fallback"))
        L += [f"Answers naming a wrong candidate (made up): {made_up} of {total} "
              "(the paper: 1.3% of answers, 6 of 453, were hallucinated, over all its interviews). "
              f"Stand-in lines (the model's answer was unusable): {stand_in} of {total}.", ""]
        L += ["Interview answers:", "", "| when | resident | question | verdict | answer |", "|---|---|---|---|---|"]
        for phase in ("start", "end"):
            for fact in FACTS:
                for r, a in ((iv.get(phase) or {}).get(fact.key) or {}).get("answers", {}).items():
                    ans = a["answer"].replace("|", "/").replace("\n", " ")[:160]
                    fb = " (stand-in line)" if a.get("fallback") else ""
                    L.append(f"| {phase} | {r} | {fact.question} | {a['label']} ({a['reason']}){fb} | {ans} |")
        L.append("")
    L += ["![diffusion](diffusion.png)", "", "## 2. Relationship formation", "",
          "| graph | start | end | paper start | paper end |", "|---|---|---|---|---|"]
    rel = result["relationships"]
    e = rel["end"]
    f3 = lambda x: f"{x:.3f}" if x is not None else "n/a"  # noqa: E731
    L.append(f"| knows (either way) | {f3(rel['start']['density'])} | {f3(e['density'] if e else None)} | "
             f"{PAPER_DENSITY[0]} | {PAPER_DENSITY[1]} |")
    L.append(f"| knows each other (mutual) | {f3(rel['start']['mutual_density'])} | "
             f"{f3(e['mutual_density'] if e else None)} | | |")
    if e:
        L.append(f"| talked with | 0.000 | {f3(e['talked_density'])} | | |")
    if rel.get("cast_start_density") is not None:
        L.append(f"| knows, all {rel['cast_size']} residents' seed descriptions | {f3(rel['cast_start_density'])} | "
                 f"| {PAPER_DENSITY[0]} | |")
    L += ["", f"Edges at the start: {len(rel['start']['edges'])}; at the end: {len(e['edges']) if e else 'n/a'} "
          f"(of {n * (n - 1) // 2} pairs).", "", "![relationships](relationships.png)", "",
          "## 3. Coordination: the Valentine's Day party", ""]
    co = result["coordination"]
    c = co["counts"]
    L += [f"{co['party']}, hosted by {co['host']}.", "",
          "| | ours | paper |", "|---|---|---|",
          f"| invited (heard of it from someone) | {c['invited']} of {n - 1} | {PAPER_INVITED} of 24 |",
          f"| planned to go | {c['planned']} | (7 invitees did not come: 3 had conflicts, 4 did not plan it) |",
          f"| at Hobbs Cafe 17:00-19:00 Feb 14 | {c['attended'] if c['attended'] is not None else 'n/a'} | "
          f"{PAPER_ATTENDED} |",
          f"| invitees who came | {c['invited_and_attended'] if c['invited_and_attended'] is not None else 'n/a'}"
          f" of {c['invited']} | {PAPER_ATTENDED} of {PAPER_INVITED} |", ""]
    for note in co["notes"]:
        L.append(f"- {note}")
    if co.get("host_planned") is not None:
        L.append(f"- the host's own plan for 17:00-19:00 Feb 14 (at Hobbs Cafe, or naming the party): "
                 + ("; ".join(co["host_planned"]) if co["host_planned"] else "no"))
    for key in ("invited", "planned", "attended"):
        v = co.get(key)
        if v:
            L.append(f"- {key}{' (host included)' if key == 'attended' else ''}: " + "; ".join(f"{r} ({x[0] if isinstance(x, list) and x else ''})" for r, x in v.items()))
    L += ["", "![coordination](coordination.png)", "",
          "Method: `game/evaluate.py` (and `game/judge.py`); the paper's figures are from Park et al. 2023, "
          "section 7, as summarised in research notes.", ""]
    return "\n".join(L)


# ---------------------------------------------------------------------------- the interview battery


BATTERY: dict[str, list[str]] = {
    "self-knowledge": [
        "Give an introduction of yourself.",
        "What's your occupation?",
        "What is your interest?",
        "Who do you live with?",
        "Describe your typical weekday schedule in broad strokes.",
    ],
    "memory": [
        "Who is {name1}?",
        "Who is running for the election?",
        "Was there a Valentine's Day party?",
        "Who is {name2}?",
        "What did you talk about in your last conversation?",
    ],
    "plans": [
        "What will you be doing at 6 am today?",
        "What will you be doing at 6 pm today?",
        "What will you have just finished doing at 1 pm today?",
        "What will you be doing at 10 pm today?",
        "What will you be doing at 10 am tomorrow?",
    ],
    "reactions": [
        "Your breakfast is burning! What would you do?",
        "The bathroom is occupied. What would you do?",
        "You need to cook dinner but your refrigerator is empty. What would you do?",
        "You see your friend walking by the street. What would you do or say to your friend?",
        "You see fire on the street. What would you do?",
    ],
    "reflections": [
        "What inspires you in life the most right now, and why?",
        "If you had to guess given what you know about {name1}, what book do you think they will like and why?",
        "If you had to get something {name1} likes for their birthday, what would you get them?",
        "What would you say to {name2} to compliment them?",
        "If you could spend time with one person you met recently, who would it be and why?",
    ],
}


def battery_names(name: str, mind: Any, residents: Sequence[str], cast_names: Sequence[str]) -> tuple[str, str]:
    known = [p for p in sorted(getattr(mind, "known_people", ())) if p in cast_names and p != name]
    others = [r for r in residents if r != name and r not in known] + [c for c in cast_names if c != name]
    pool = known + [o for o in others if o not in known]
    a = pool[0] if pool else "Isabella Rodriguez"
    b = pool[1] if len(pool) > 1 else a
    return a, b


def run_battery(minds: dict[str, Any], now: datetime, residents: Sequence[str], cast_names: Sequence[str],
                echo: Callable[[str], None] | None = None) -> dict:
    out = {}
    for name, mind in minds.items():
        n1, n2 = battery_names(name, mind, residents, cast_names)
        out[name] = {}
        for cat, qs in BATTERY.items():
            rows = []
            for q in qs:
                text = q.format(name1=n1, name2=n2)
                t0 = time.monotonic()
                a = ask(mind, text, now)
                rows.append({"question": text, "answer": a, "seconds": round(time.monotonic() - t0, 2),
                             "fallback": is_fallback(mind, text, a)})
                if echo is not None:
                    echo(f"  {name} [{cat}] {text} -> {a[:100]}")
            out[name][cat] = rows
    return out


def battery_markdown(battery: dict, title: str, now: datetime, model: str | None) -> str:
    L = [f"# Interviews: {title}", "", f"Sim time {now:%A %B %d %Y %H:%M} · model `{model}` · "
         "each question asked fresh (no history), the resident's mind left untouched (remember=False). "
         "Categories and questions follow the paper's believability interviews (Park et al. 2023, section 6).", ""]
    for name, cats in battery.items():
        L += [f"## {name}", ""]
        for cat, rows in cats.items():
            L += [f"### {cat}", ""]
            for r in rows:
                fb = " *(the interview path's stand-in line: the model's answer was unusable)*" if r.get("fallback") else ""
                L += [f"**Q:** {r['question']}  ", f"**A:** {r['answer']}{fb}", ""]
    rows = [r for cats in battery.values() for rs in cats.values() for r in rs]
    if rows:
        L += [f"{sum(1 for r in rows if r.get('fallback'))} of {len(rows)} answers were stand-in lines; "
              f"median {sorted(r['seconds'] for r in rows)[len(rows) // 2]:.1f} s per answer.", ""]
    return "\n".join(L)


# ---------------------------------------------------------------------------- the command


def _json_default(o: Any) -> Any:
    if isinstance(o, datetime):
        return o.isoformat(sep=" ")
    if isinstance(o, (set, tuple)):
        return sorted(o)
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(type(o).__name__)


def cast_of(tg: Target, default_map: str | Path):
    from agents.persona import CastError, load_cast

    mp = tg.map_path if tg.map_path and Path(tg.map_path).exists() else Path(default_map)
    try:
        cast, scenario = load_cast(Path(mp).parent)
    except CastError as err:
        raise UserError(str(err)) from None
    personas = {p.name: p for p in cast}
    unknown = [r for r in tg.residents if r not in personas]
    if unknown:
        raise UserError(f"{tg.given}: residents this town does not know: {', '.join(unknown[:3])}")
    return personas, scenario


def model_setup(args: Any, tg: Target, gateway: Any, embedder: Any, need_model: bool):
    """(gateway, embedder, config) for the interviews and the memory judge."""
    config = getattr(gateway, "config", None)
    if gateway is None and need_model:
        from agents.config import ConfigError
        from agents.llm import Gateway, load_config

        saved = dict((tg.parts or {}).get("config") or {})
        given = {k: v for k, v in vars(args).items() if v is not None and k in ("model", "api_base", "concurrency", "cache")}
        overrides = {k: v for k, v in saved.items() if k in ("model", "api_base", "seed", "temperature") and k not in given}
        overrides.update(given)
        try:
            config = load_config(overrides)
        except ConfigError as err:
            raise UserError(str(err)) from None
        gateway = Gateway(config)
    if embedder is None and tg.parts is not None:
        from agents.embeddings import make_embedder

        try:
            from agents.llm import load_config

            embedder = make_embedder(config or load_config({}))
        except Exception as err:  # noqa: BLE001 - the memory judge falls back to keywords
            log.warning("no embedder (%s): memory judge by keywords", err)
            embedder = None
    return gateway, embedder, config


def evaluate(tg: Target, personas: dict[str, Any], scenario: Any, *, gateway: Any = None, embedder: Any = None,
             interviews: bool = True, judge: str = "rule", echo: Callable[[str], None] | None = None) -> dict:
    """Every measure as one JSON-able dict."""
    rs = tg.residents
    result: dict[str, Any] = {
        "target": str(tg.given), "save": str(tg.save) if tg.save else None, "events_source": tg.events_source,
        "residents": rs, "residents_count": len(rs),
        "start": tg.start.strftime("%Y-%m-%d %H:%M") if tg.start else None,
        "end": tg.end.strftime("%Y-%m-%d %H:%M") if tg.end else None,
        "model": getattr(getattr(gateway, "config", None), "model", None) if interviews else None,
        "judge": judge if interviews else None, "notes": list(tg.notes),
    }
    t0 = time.monotonic()
    result["diffusion"] = diffusion(tg, personas, scenario, embedder)
    result["notes"] += result["diffusion"].pop("notes")
    result["interviews"] = None
    if interviews and tg.states and gateway is not None:
        if tg.start is None:
            result["notes"].append("the run's start time is unknown: no start interviews")
        phases = {}
        if tg.start is not None:
            phases["start"] = (start_minds(rs, personas, scenario, gateway, embedder, tg.start), tg.start)
        phases["end"] = (end_minds(tg, personas, gateway, embedder), tg.end)
        result["interviews"] = interview_diffusion(phases, gateway, judge, echo)
    elif interviews and not tg.states:
        result["notes"].append("no save: no interviews")
    elif not interviews:
        result["notes"].append("--no-interviews: diffusion judged by memory and events only")
    result["relationships"] = relationships(tg, personas)
    result["coordination"] = coordination(tg)
    result["seconds"] = round(time.monotonic() - t0, 1)
    return result


def write_outputs(result: dict, tg: Target, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {"json": out / "evaluation.json", "md": out / "evaluation.md"}
    files["json"].write_text(json.dumps(result, indent=2, ensure_ascii=False, default=_json_default) + "\n",
                             encoding="utf-8")
    files["md"].write_text(render_markdown(result), encoding="utf-8")
    files["diffusion"] = plot_diffusion(result, tg, out / "diffusion.png")
    files["relationships"] = plot_relationships(result["relationships"], tg.residents, out / "relationships.png")
    files["coordination"] = plot_coordination(result["coordination"], out / "coordination.png")
    return files


def summary_text(result: dict) -> str:
    n = result["residents_count"]
    iv = result.get("interviews") or {}
    L = [f"evaluation of {result['target']} ({n} residents, {result['start']} -> {result['end']}):"]
    for fact in FACTS:
        d = result["diffusion"]["facts"][fact.key]
        me = d["memory_end"]
        s = f"  {fact.key:<10} memory {_frac(d['memory_start']['count'], n)} -> {_frac(me['count'] if me else None, n)}"
        if iv.get("end"):
            st = (iv.get("start") or {}).get(fact.key)
            s += f"; interview {_frac(st['count'] if st else None, n)} -> {_frac(iv['end'][fact.key]['count'], n)}"
        s += f"   (paper {fact.paper[0]:.0%} -> {fact.paper[1]:.0%})"
        L.append(s)
    rel = result["relationships"]
    L.append(f"  density    {rel['start']['density']:.3f} -> "
             f"{format(rel['end']['density'], '.3f') if rel['end'] else 'n/a'}"
             f"   (paper {PAPER_DENSITY[0]} -> {PAPER_DENSITY[1]})")
    c = result["coordination"]["counts"]
    att = c["attended"] if c["attended"] is not None else "n/a (" + "; ".join(result["coordination"]["notes"]) + ")"
    L.append(f"  party      invited {c['invited']}, planned {c['planned']}, attended {att}"
             f"   (paper {PAPER_ATTENDED} of {PAPER_INVITED} invitees)")
    return "\n".join(L)


def main_evaluate(args: Any, *, gateway: Any = None, embedder: Any = None,
                  echo: Callable[[str], None] | None = print) -> int:
    default_map = getattr(args, "map", None) or "maps/the_ville/the_ville.tmx"
    tg = load_target(args.target, default_map)
    out = Path(args.out) if getattr(args, "out", None) else default_out(tg)
    personas, scenario = cast_of(tg, default_map)
    say = (lambda s: print(s, file=sys.stderr)) if echo is not None else None
    if getattr(args, "battery", False):
        if not tg.states:
            raise UserError(f"evaluate {tg.given}: the battery needs a save (none found)")
        agent = getattr(args, "agent", None)
        names = list(tg.states)
        if agent:
            match = [n for n in names if n.casefold() == agent.casefold() or n.split()[0].casefold() == agent.casefold()]
            if not match:
                raise UserError(f"--agent {agent}: not in this save (residents: {', '.join(names)})")
            names = match[:1]
        gateway, embedder, config = model_setup(args, tg, gateway, embedder, need_model=True)
        minds = end_minds(tg, personas, gateway, embedder)
        minds = {n: minds[n] for n in names}
        bat = run_battery(minds, tg.end, tg.residents, list(personas), say)
        out.mkdir(parents=True, exist_ok=True)
        model = getattr(getattr(gateway, "config", None), "model", None)
        path = out / "interviews.md"
        path.write_text(battery_markdown(bat, str(tg.given), tg.end, model), encoding="utf-8")
        (out / "interviews.json").write_text(json.dumps({"model": model, "time": tg.end, "answers": bat}, indent=2,
                                                        ensure_ascii=False, default=_json_default) + "\n",
                                             encoding="utf-8")
        if echo is not None:
            echo(f"interview battery: {sum(len(r) for c in bat.values() for r in c.values())} answers -> {path}")
        return 0
    interviews = not getattr(args, "no_interviews", False)
    judge = getattr(args, "judge", None) or "rule"
    gateway, embedder, config = model_setup(args, tg, gateway, embedder, need_model=interviews and bool(tg.states))
    result = evaluate(tg, personas, scenario, gateway=gateway, embedder=embedder, interviews=interviews,
                      judge=judge, echo=say)
    files = write_outputs(result, tg, out)
    if echo is not None:
        echo(summary_text(result))
        echo(f"wrote {files['md']}, {files['json'].name} and plots in {out}")
    return 0


__all__ = ["main_evaluate", "evaluate", "load_target", "Target", "diffusion", "relationships", "coordination",
           "density", "start_graph", "end_graph", "presence", "at_party", "first_heard", "run_battery", "BATTERY",
           "write_outputs", "render_markdown"]
