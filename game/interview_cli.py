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
command says where. Ctrl+C ends an interview like ``exit`` does, with what was
said kept (an answer it cut short is left out; the command exits with 130).

The save is read with game/saves/store.py and its minds rebuilt like a load does
(``game.saves.saveload.rebuild_mind``); the game never imports the measurement
tools (lab/).
"""
from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from agents import (
    CastError,
    ConfigError,
    Embedder,
    Gateway,
    Mind,
    Persona,
    load_config,
    load_config_for_saved,
    make_embedder,
    model_flags,
    respond,
)
from game.saves.cast import PERSONAS, saved_cast
from game.saves.saveload import rebuild_mind, resolve_path
from game.saves.store import SaveInfo, load_state, save_state
from game.support import folders
from game.support.errors import UserError

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


@dataclass
class SavedGame:
    """A save as read: where it is, its parts and its info (a new save beside it reuses them)."""

    save: Path
    parts: dict[str, Any]
    info: SaveInfo

    @property
    def states(self) -> dict[str, dict]:
        """Resident -> its saved mind."""
        return {k[6:]: v for k, v in self.parts.items() if k.startswith("minds/")}

    @property
    def now(self) -> datetime | None:
        clock = self.parts.get("clock") or {}
        now = clock.get("now")
        if isinstance(now, str):
            now = datetime.fromisoformat(now)
        return now or self.info.sim_time


def load_minds(save: str | Path, args: argparse.Namespace | None = None, *, gateway: Gateway | None = None,
               embedder: Embedder | None = None, names: list[str] | None = None, agent: str | None = None,
               default_map: str | Path | None = None) -> tuple[SavedGame, dict[str, Mind], datetime]:
    """(saved, minds, now) of a save (slot name, .sqlite path or run folder): the minds of
    ``names`` (or the one ``agent`` names, see find_agent; default: every resident) as saved, on
    ``gateway`` and ``embedder`` (or the ones the flags in ``args`` and the save's config name).
    ``saved`` is a SavedGame (its ``parts`` and ``info`` write a new save)."""
    path = resolve_path(save)
    if not path.exists():
        raise UserError(f"--load {save}: there is no such save ({path})")
    default_map = default_map or getattr(args, "map", None) or folders.default_map()
    parts, info = load_state(path, require=("sim", "session"))
    saved = SavedGame(path, parts, info)
    states = saved.states
    if not states:
        raise UserError(f"--load {save}: {path} holds no residents' minds")
    if agent is not None:
        names = [find_agent(agent, list(states))]
    personas = _cast_of(saved, default_map)
    gateway = gateway or _gateway(args or argparse.Namespace(), parts)
    if embedder is None:
        embedder = make_embedder(getattr(gateway, "config", None) or load_config({}))
    minds = {r: rebuild_mind(personas[r], gateway, embedder, st) for r, st in states.items()
             if r in personas and (names is None or r in names)}
    return saved, minds, saved.now or datetime.now()


def _cast_of(saved: SavedGame, default_map: str | Path) -> dict[str, Persona]:
    """The save's town's residents by name: those it keeps, else the scenario's beside its map
    and those regrown from its seed (game/saves/cast.py)."""
    sess = saved.parts.get("session") or {}
    mp = sess.get("map") or saved.info.map_path or default_map
    mp = mp if mp and Path(mp).exists() else default_map
    residents = list(sess.get("residents") or saved.info.residents or saved.states)
    try:
        personas, _scenario = saved_cast(mp, residents, sess.get("seed") or 0, stored=sess.get(PERSONAS))
    except CastError as err:
        raise UserError(f"{saved.save}: {err}") from None
    return personas


def _gateway(args: argparse.Namespace, parts: dict[str, Any]) -> Gateway:  # parts: the save's JSON
    """The user's model configuration; the save only suggests its model where the user set
    none, and never its server (agents/model/config.py ``load_config_for_saved``)."""
    given = model_flags(args)
    try:
        config, note = load_config_for_saved(parts.get("config"), given)
    except ConfigError as err:
        raise UserError(str(err)) from None
    if note:
        print(f"smallville: {note}", file=sys.stderr)
    return Gateway(config)


def new_save_path(save: Path, suffix: str) -> Path:
    """``<save>-<suffix>.sqlite`` beside the save, or ``-<suffix>-2``, ``-3``, ... when an
    earlier one is there: a new interview never overwrites the last one's save."""
    out = save.with_name(f"{save.stem}-{suffix}.sqlite")
    n = 2
    while out.exists():
        out = save.with_name(f"{save.stem}-{suffix}-{n}.sqlite")
        n += 1
    return out


def write_with_mind(tg: SavedGame, mind: Mind, suffix: str, state: dict | None = None) -> Path:
    """A new save beside the old: the same parts, this resident's mind replaced (by
    ``state`` when given: the mind as it was before an answer Ctrl+C cut short)."""
    parts = dict(tg.parts)
    parts[f"minds/{mind.name}"] = state if state is not None else mind.to_state()
    # Not the game's id either: the new save starts a game of its own when played on
    # (game/saves/series.py), so it never writes over the interviewed game's saves.
    meta = {k: v for k, v in (tg.info.meta or {}).items()
            if k not in ("saved_at", "slot", "parts", "schema", "game_id")}
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


def run_interview(mind: Mind, questions, *, now: datetime, persona: str = DEFAULT_AS, remember: bool = False,
                  speaker: str | None = None, on_answer: Callable[[str, str], None] | None = None) -> list:
    """Ask each question in turn (the dialogue so far as history); [(question, answer), ...]."""
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


def main_interview(args: argparse.Namespace, *, gateway: Gateway | None = None, embedder: Embedder | None = None,
                   stdin: TextIO | None = None,
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

    who = _speaker_name(persona)
    history: list[tuple[str, str]] = []
    rows: list[tuple[str, str]] = []
    before: Callable[[], dict] | None = None  # while answering: the mind before the question (a cheap capture)

    def ask(q: str) -> str:
        nonlocal before
        before = mind.snapshot() if remember else None
        a = respond(mind, who, q, now=now, speaker_is=persona, history=list(history), remember=remember)
        before = None
        history.extend([(who, q), (name, a)])
        rows.append((q, a))
        return a

    questions = [" ".join(str(q).split()) for q in getattr(args, "question", None) or []]
    code = 0
    try:
        if questions:
            for q in filter(None, questions):
                ask(q)
        else:
            src = stdin or sys.stdin
            tty = hasattr(src, "isatty") and src.isatty()
            print(f"Interviewing {name} at {now:%A %B %d %H:%M}, who sees you as {persona}. "
                  "Type a question; 'exit' or Ctrl-D ends.", file=err)

            def prompt() -> None:
                if tty:
                    print("you> ", end="", file=err, flush=True)

            for q in _lines(src, prompt):
                print(f"{name}: {ask(q)}", file=out, flush=True)
    except KeyboardInterrupt:  # Ctrl+C ends the interview; what was said is kept below
        print("\ninterrupted", file=err)
        code = 130
    if questions:
        md = transcript_markdown(name, persona, now, rows, model, remember)
        print(md, file=out)
    if getattr(args, "out", None) and rows:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(transcript_markdown(name, persona, now, rows, model, remember), encoding="utf-8")
        print(f"transcript written to {args.out}", file=err)
    if remember and rows:
        state = before() if before is not None else None  # Ctrl+C cut an answer short: as before it
        with _no_ctrl_c():  # a second Ctrl+C must not cut the save short
            saved = write_with_mind(tg, mind, "interviewed", state)
        print(f"{name} remembers this interview: wrote {saved} (the original save is unchanged)", file=err)
    return code


@contextlib.contextmanager
def _no_ctrl_c():
    """Ctrl+C held off while a save is written (main thread only; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


__all__ = ["find_agent", "load_minds", "main_interview", "run_interview", "transcript_markdown", "write_with_mind"]
