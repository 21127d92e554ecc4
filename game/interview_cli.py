"""`smallville interview`: talk to one resident of a save, as a persona of your choosing (paper 3.1.2).

    smallville interview --load SAVE --agent "John Lin" --as "a news reporter"            # interactive
    smallville interview --load SAVE --agent "John Lin" -q "Who is running for mayor?" -q "..." [--out t.md]
    smallville interview --load SAVE --agent "John Lin" --remember       # he remembers: a NEW save beside SAVE
    smallville interview --load SAVE --agent "Sam Moore" --whisper "You are going to run against Sam"

SAVE is a slot name (saves/NAME.sqlite), a .sqlite path or a run folder (its
newest save). An interview leaves the save untouched: answers come from
``agents.interview.respond(..., remember=False)``. With ``--remember`` (or
``--whisper``, the inner voice: a high-importance thought the resident plans
around when the town runs on) the changed mind goes into a new save next to the
old one, ``<name>-interviewed.sqlite`` (``<name>-whispered.sqlite``), and the
command says where.

The save is read with ``game.saved_run`` (``load_target``, the cast, the
model set-up and ``end_minds``): one way to build minds from a save, shared
with the lab's evaluations.
"""
from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, TextIO

from game.errors import UserError

DEFAULT_AS = "a news reporter"
DEFAULT_SPEAKER = "Interviewer"


def _speaker_name(persona: str) -> str:
    """The interviewer's name in the prompt and the transcript (who they are is ``persona``)."""
    return DEFAULT_SPEAKER


def find_agent(agent: str, names: list[str]) -> str:
    """The resident's exact name (full or first name, any case); UserError listing the names."""
    a = " ".join((agent or "").split()).casefold()
    match = [n for n in names if n.casefold() == a] or [n for n in names if n.split()[0].casefold() == a]
    if len(match) != 1:
        raise UserError(f"--agent {agent!r}: no such resident in this save. Residents: {', '.join(names)}")
    return match[0]


def load_minds(save: str | Path, args: Any = None, *, gateway: Any = None, embedder: Any = None,
               names: list[str] | None = None, agent: str | None = None, default_map: str | Path | None = None):
    """(target, minds, now) of a save (slot name, .sqlite path or run folder): the minds of
    ``names`` (or the one ``agent`` names, see find_agent; default: every resident) as saved, on ``gateway`` and ``embedder`` (or the ones
    the flags in ``args`` and the save's config name). ``target`` is game.saved_run's Target (its
    ``parts`` and ``info`` write a new save)."""
    from game.saved_run import cast_of, end_minds, load_target, model_setup
    from game.savegame import resolve_path

    path = resolve_path(save)
    if not path.exists():
        raise UserError(f"--load {save}: there is no such save ({path})")
    default_map = default_map or getattr(args, "map", None) or "maps/the_ville/the_ville.tmx"
    tg = load_target(path, default_map)
    if not tg.states:
        raise UserError(f"--load {save}: {path} holds no residents' minds")
    if agent is not None:
        names = [find_agent(agent, list(tg.states))]
    personas, _scenario = cast_of(tg, default_map)
    if args is None:
        import argparse

        args = argparse.Namespace()
    gateway, embedder, _config = model_setup(args, tg, gateway, embedder, need_model=True)
    if names is not None:
        keep = {k: v for k, v in tg.states.items() if k in names}
        minds = end_minds(_Only(tg, keep), personas, gateway, embedder)
    else:
        minds = end_minds(tg, personas, gateway, embedder)
    now = tg.end or datetime.now()
    return tg, minds, now


class _Only:
    """A Target view with only some residents' states (building 25 minds costs seconds)."""

    def __init__(self, tg: Any, states: dict):
        self._tg, self.states = tg, states

    def __getattr__(self, k: str) -> Any:
        return getattr(self._tg, k)


def new_save_path(save: Path, suffix: str) -> Path:
    out = save.with_name(f"{save.stem}-{suffix}.sqlite")
    return out


def write_with_mind(tg: Any, mind: Any, suffix: str) -> Path:
    """A new save beside the old: the same parts, this resident's mind replaced."""
    from game.saves import save_state

    parts = dict(tg.parts)
    parts[f"minds/{mind.name}"] = mind.to_state()
    meta = {k: v for k, v in (tg.info.meta or {}).items() if k not in ("saved_at", "slot", "parts", "schema")}
    out = new_save_path(Path(tg.save), suffix)
    save_state(out, parts, meta)
    return out


def transcript_markdown(name: str, persona: str, now: datetime, rows: list[tuple[str, str]], model: str | None,
                        remember: bool) -> str:
    L = [f"# Interview with {name}", "",
         f"Sim time {now:%A %B %d %Y %H:%M} · asked as {persona} · model `{model}` · "
         + ("the resident remembers this interview" if remember else "the resident's mind left untouched"), ""]
    for q, a in rows:
        L += [f"**Q:** {q}  ", f"**A:** {a}", ""]
    return "\n".join(L)


def run_interview(mind: Any, questions, *, now: datetime, persona: str = DEFAULT_AS, remember: bool = False,
                  speaker: str | None = None, on_answer: Callable[[str, str], None] | None = None) -> list:
    """Ask each question in turn (the dialogue so far as history); [(question, answer), ...]."""
    from agents.interview import respond

    who = speaker or _speaker_name(persona)
    history: list[tuple[str, str]] = []
    rows = []
    for q in questions:
        q = " ".join(str(q).split())
        if not q:
            continue
        a = respond(mind, who, q, now=now, speaker_is=persona, history=list(history), remember=remember)
        history += [(who, q), (mind.name, a)]
        rows.append((q, a))
        if on_answer is not None:
            on_answer(q, a)
    return rows


def _lines(stream: TextIO, prompt: Callable[[], None]):
    while True:
        prompt()
        line = stream.readline()
        if not line:
            return
        line = line.strip()
        if line.lower() in ("exit", "quit", "/exit", "/quit"):
            return
        if line:
            yield line


def main_interview(args: Any, *, gateway: Any = None, embedder: Any = None, stdin: TextIO | None = None,
                   stdout: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    err = sys.stderr
    if not getattr(args, "agent", None):
        raise UserError("interview: name the resident with --agent \"NAME\"")
    tg, minds, now = load_minds(args.load, args, gateway=gateway, embedder=embedder, agent=args.agent)
    mind = next(iter(minds.values()))
    name = mind.name
    persona = getattr(args, "as_", None) or DEFAULT_AS
    remember = bool(getattr(args, "remember", False))
    model = getattr(getattr(mind.gateway, "config", None), "model", None)

    whisper = getattr(args, "whisper", None)
    if whisper:
        thought = mind.inner_voice(whisper, now)
        saved = write_with_mind(tg, mind, "whispered")
        print(f"{name} thinks: \"{thought}\" (importance 9; the plan makes room for it when the town runs on)",
              file=out)
        print(f"wrote {saved} (the original save is unchanged); continue it with: smallville play --load {saved}",
              file=out)
        return 0

    questions = list(getattr(args, "question", None) or [])
    if questions:
        rows = run_interview(mind, questions, now=now, persona=persona, remember=remember)
        md = transcript_markdown(name, persona, now, rows, model, remember)
        print(md, file=out)
        if getattr(args, "out", None):
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text(md, encoding="utf-8")
            print(f"transcript written to {args.out}", file=err)
    else:
        src = stdin or sys.stdin
        tty = hasattr(src, "isatty") and src.isatty()
        print(f"Interviewing {name} at {now:%A %B %d %H:%M}, who sees you as {persona}. "
              "Type a question; 'exit' or Ctrl-D ends.", file=err)
        who = _speaker_name(persona)
        history: list[tuple[str, str]] = []
        rows = []

        def prompt() -> None:
            if tty:
                print("you> ", end="", file=err, flush=True)

        from agents.interview import respond

        for q in _lines(src, prompt):
            a = respond(mind, who, q, now=now, speaker_is=persona, history=list(history), remember=remember)
            history += [(who, q), (name, a)]
            rows.append((q, a))
            print(f"{name}: {a}", file=out, flush=True)
        if getattr(args, "out", None) and rows:
            Path(args.out).write_text(transcript_markdown(name, persona, now, rows, model, remember), encoding="utf-8")
            print(f"transcript written to {args.out}", file=err)
    if remember and rows:
        saved = write_with_mind(tg, mind, "interviewed")
        print(f"{name} remembers this interview: wrote {saved} (the original save is unchanged)", file=err)
    return 0


__all__ = ["main_interview", "load_minds", "run_interview", "find_agent", "write_with_mind", "transcript_markdown"]
