"""What a player can do in a running town: the one road from the window to the town (issue 38).

The window (game/view) does what the player asks through ``Commands``
(``session.commands``), by names and text: it never calls a mind, never passes one,
and never changes the simulation itself. Each command answers at once with a typed
result:

- ``Done(message, value)``: done now; ``message`` is what the player is told,
  ``value`` what it came to (the resident's full name, the object's address, the
  thought whispered)
- ``Refused(why, message)``: not done, and nothing changed; ``why`` is one of
  ``NO_TOWN``, ``UNKNOWN`` (no such resident or object), ``BUSY`` (talking with
  someone else), ``NOT_HELD`` (say: the resident is not stopped to talk),
  ``NOT_PLAYING``, ``EMPTY``, ``TAKEN`` (a resident's name), ``SAVE`` / ``LOAD``
- ``Ticket``: a line on its way to a resident; its ``Answer`` comes to the
  ``on_answer`` given, on the main thread, when the session applies finished jobs
  (paused or not). A load drops the old town's jobs: their answers never come.
- ``SaveJob``: a save or a load on the save writer's thread (its ``future``);
  ``loaded(prepared)`` swaps a load in on the main thread and says how it went.

Talking: ``hold(name)`` stops a resident to talk with the player (``release``
lets go; ``part(name)``: the resident says goodbye first, when the player has fallen
silent); ``say(name, line, history, on_answer)`` asks the held resident (the world
hears both lines: ``line`` events, which speech bubbles show; the visitor's yes to the
resident's invitation is agreed in the visitor's journal and remembered on the
resident's side, game/runs/journal.py); ``interview(name,
line, history, on_answer, persona=, remember=)`` asks anyone from anywhere, as a
persona, and nobody hears it. The answer runs at once on the pool's urgent lane,
beside the resident's own job (``agents.interview.answer_now`` only reads the mind).

The protocol that keeps saves whole lives here, once: when an answer lands, the
mind first owes the exchange to its memory (``owe_exchange``), then keeps it as
its next ordinary job (``keep_exchange``); a save taken at any point in between
(the job queued, running, or done with its result not yet read) carries the
exchange and the loaded game keeps it (tests/test_save_chat.py). An answer that
failed or came back empty is the resident's fallback line, and says why
(``Answer.error``); such an exchange is not kept.

Also: ``whisper(name, text)`` (the inner voice: the resident's own thought, and a
decision soon), ``set_object_state(address, state)`` (a world edit residents
perceive), ``name_visitor(name)``, ``play_as(name)`` / ``stop_playing()``,
``save`` / ``autosave`` / ``load`` / ``loaded``.
"""
from __future__ import annotations

import difflib
import itertools
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from agents import Mind, dialogue, interview
from game.runs.journal import Journal
from game.saves.running import RunningGame
from game.saves.saveload import REQUIRED, Prepared, capture, commit, prepare
from game.saves.series import game_of
from game.saves.store import SaveError, SaveInfo, SaveWriter
from game.sim import visitor as visiting

log = logging.getLogger(__name__)

# Why a command was refused (``Refused.why``).
NO_TOWN = "no town"
UNKNOWN = "unknown"
BUSY = "busy"
NOT_HELD = "not held"
NOT_PLAYING = "not playing"
EMPTY = "empty"
TAKEN = "taken"
SAVE = "save"
LOAD = "load"


@dataclass(frozen=True)
class Done:
    """A command done at once: what the player is told, and what it came to."""

    message: str
    value: str = ""


@dataclass(frozen=True)
class Refused:
    """A command not done (nothing changed): why (a constant above) and what to tell the player."""

    why: str
    message: str


@dataclass(frozen=True)
class Ticket:
    """A line on its way to a resident (``say``, ``interview``)."""

    id: int
    resident: str
    speaker: str  # who said it: the visitor, or the resident the player plays
    line: str
    heard: bool  # the world hears it (a chat's ``line`` events); an interview's is private
    remember: bool  # the resident keeps the exchange in memory


@dataclass(frozen=True)
class Answer:
    """A resident's answer to a ``Ticket``: never empty (the fallback line when the
    model's answer failed, and ``error`` says why)."""

    ticket: Ticket
    text: str
    source: str | None = None  # its provenance (a grounded answer names the memory)
    error: str | None = None
    heard: bool = False  # logged as a ``line`` event (speech bubbles show it)


@dataclass(frozen=True)
class SaveJob:
    """A save, an autosave or a load on the writer's thread: ``future`` gives a SaveInfo
    (saved) or a Prepared (read and built; ``Commands.loaded`` swaps it in)."""

    kind: str  # "save" | "autosave" | "load"
    slot: str
    future: Future


@dataclass(frozen=True)
class Loaded:
    """A load swapped in: the save's info and what the player is told about it."""

    info: SaveInfo | None
    warnings: tuple[str, ...] = ()
    branch: bool = False  # the save is another game's (or older) one: this game goes on as a branch of it


OnAnswer = Callable[[Answer], None]


class Running(RunningGame, Protocol):
    """What the commands use of a running game (game/runs/session.py ``Session``): what a
    save is loaded into (game/saves/running.py), and the visitor's side."""

    visitor_name: str
    journal: Journal  # the visitor's (game/runs/journal.py)

    @property
    def controlled(self) -> str | None: ...

    @property
    def game_id(self) -> str: ...

    def take_control(self, name: str) -> str: ...

    def rename_visitor(self, name: str) -> None: ...

    def release_control(self) -> str | None: ...


def pretty(address: str) -> str:
    """'the Ville:Hobbs Cafe:cafe:stove' -> 'Hobbs Cafe: cafe: stove' (the world left out)."""
    parts = address.split(":")
    return ": ".join(parts[1:]) if len(parts) > 1 else address


def first_name(name: str) -> str:
    return name.split()[0] if name.split() else name


class Commands:
    """The player's commands on one running game (see the module's notes)."""

    def __init__(self, session: Running) -> None:
        self.session = session  # read each time: a load swaps the session's sim and minds
        self._ids = itertools.count(1)

    # ---- who the player is ----------------------------------------------------------------
    @property
    def game_id(self) -> str:
        """This game's id (game/saves/series.py): its own save slots."""
        return self.session.game_id

    @property
    def player(self) -> str:
        """Whom the player speaks as: the resident they play, else the visitor."""
        s = self.session
        return s.controlled or s.visitor_name

    def _resident(self, name: str) -> Refused | None:
        if name not in self.session.minds:
            return Refused(UNKNOWN, f"No resident called {name!r}.")
        return None

    def _talker(self, name: str) -> Mind | Refused:
        """The resident's mind as talking with the player needs it: a whole ``Mind``
        (agents.interview answers from its memory and counts the call on its budget). A
        stand-in mind (lab/standins.py) is only an ``agents.ResidentMind``: it cannot talk."""
        mind = self.session.minds.get(name)
        if isinstance(mind, Mind):
            return mind
        if mind is None:
            return Refused(UNKNOWN, f"No resident called {name!r}.")
        return Refused(UNKNOWN, f"{first_name(name)} is a stand-in here, with no mind to talk with.")

    # ---- talking ------------------------------------------------------------------------------
    def held(self, name: str) -> bool:
        """Whether the resident is stopped, talking with the player."""
        return self.session.sim.held(name)

    def hold(self, name: str) -> Done | Refused:
        """Stop the resident where it stands, talking with the player, until ``release``.
        BUSY while it talks with someone else."""
        sim = self.session.sim
        if (no := self._resident(name)) is not None:
            return no
        if sim.held(name) or sim.hold(name, self.player):
            return Done("", name)
        conv = sim.conversation_of(name)
        other = conv.other(name) if conv is not None else "someone"
        return Refused(BUSY, f"{first_name(name)} is talking with {other}; wait a moment.")

    def release(self, name: str) -> None:
        """End a ``hold``: the resident goes back to what it was doing."""
        self.session.sim.release(name)

    def say(self, name: str, line: str, history: Sequence[tuple[str, str]], on_answer: OnAnswer) -> Ticket | Refused:
        """The player says ``line`` to the held resident (``history``: the dialogue so far,
        (speaker, text) pairs). The world hears it; the resident answers (``on_answer``)
        and keeps the exchange."""
        if (no := self._resident(name)) is not None:
            return no
        if not self.held(name):
            return Refused(NOT_HELD, f"Talk to {first_name(name)} first: they are not stopped to listen.")
        if isinstance(mind := self._talker(name), Refused):
            return mind
        ticket = self._ticket(name, line, heard=True, remember=True)
        sim = self.session.sim
        try:
            sim.log_event(ticket.speaker, "line", line, sim.area(sim.bodies[name].tile), partner=name)
        except Exception:  # the log is a record; the line still goes to the resident
            log.debug("logging the visitor's line failed", exc_info=True)
        self._agreed(name, ticket.speaker, line)
        self._ask(ticket, mind, history, on_answer)
        return ticket

    def _agreed(self, name: str, speaker: str, line: str) -> None:
        """The visitor's line to ``name``, for the journal: a yes to the resident's invitation
        is agreed there, and remembered on the resident's side as residents remember theirs
        (game/sim/visitor.py ``agree``)."""
        s = self.session
        if speaker != s.visitor_name:
            return  # playing as a resident: the journal is the visitor's
        sim = s.sim
        heard = s.journal.said(name, line, sim.now)
        if heard is not None and heard.offered:
            visiting.agree(sim, name, speaker, heard.text, heard.source, line, heard.when)

    def _accepted(self, name: str, speaker: str, line: str, reply: interview.Reply, said_at: datetime) -> None:
        """The visitor invited ``name`` to something of their own ("I'm having a picnic at Johnson
        Park tomorrow at noon, will you come?") and the resident said yes: an arrangement on the
        resident's side, as a resident's yes to a resident (game/sim/visitor.py ``accepted``)."""
        if speaker != self.session.visitor_name or interview.invitation(speaker, line, said_at) is None:
            return
        act = dialogue.act_of(reply.source)[0] or dialogue.act_by_rule(reply.text, line)
        if act == dialogue.ACCEPT:
            visiting.accepted(self.session.sim, name, speaker, line, reply.text, reply.source, said_at)

    def part(self, name: str) -> Done | Refused:
        """The held resident says goodbye (the player has fallen silent) and goes back to its
        day: ``Done`` with the goodbye line. NOT_HELD when it is not stopped to talk."""
        if (no := self._resident(name)) is not None:
            return no
        said = visiting.part(self.session.sim, name, self.player)
        if said is None:
            return Refused(NOT_HELD, f"{first_name(name)} is not talking with you.")
        return Done(said, name)

    def interview(self, name: str, line: str, history: Sequence[tuple[str, str]], on_answer: OnAnswer, *,
                  persona: str, remember: bool = False) -> Ticket | Refused:
        """Ask ``name`` from anywhere; it takes the player for ``persona``. Nobody hears
        it; with ``remember`` the resident keeps the exchange (else it stays as it was)."""
        if isinstance(mind := self._talker(name), Refused):
            return mind
        ticket = self._ticket(name, line, heard=False, remember=remember)
        self._ask(ticket, mind, history, on_answer, speaker_is=persona)
        return ticket

    def _ticket(self, name: str, line: str, *, heard: bool, remember: bool) -> Ticket:
        return Ticket(next(self._ids), name, self.player, line, heard, remember)

    def _ask(self, ticket: Ticket, mind: Mind, history: Sequence[tuple[str, str]], on_answer: OnAnswer, *,
             speaker_is: str | None = None) -> None:
        """``answer_now`` on the urgent lane (the player waits); when it lands, the
        exchange is owed, then kept as the resident's next ordinary job."""
        name, me, text = ticket.resident, ticket.speaker, ticket.line
        sim = self.session.sim
        now = sim.now
        history = list(history)

        def kept(_value: object, error: BaseException | None) -> None:
            if error is not None:
                log.warning("%s could not remember the chat: %s", name, error)

        def landed(value: object, error: BaseException | None) -> None:
            if ticket.remember and error is None and isinstance(value, interview.Reply):
                # owed first: a save taken before the job has kept it still carries the exchange
                owed = interview.owe_exchange(mind, me, text, value, now=now)
                sim.call(name, interview.keep_exchange, mind, me, text, value, now=now, owed=owed, on_result=kept)
                if ticket.heard:
                    self._accepted(name, me, text, value, now)
            on_answer(self._answer(ticket, history, value, error))

        sim.call(name, interview.answer_now, mind, me, text, now=now, speaker_is=speaker_is, history=history,
                 urgent=True, on_result=landed)

    def _answer(self, ticket: Ticket, history: Sequence[tuple[str, str]], value: object,
                error: BaseException | None) -> Answer:
        """What the answer says: a Reply (its provenance names the memory a grounded
        answer came from), or the fallback line; a heard one is logged."""
        name = ticket.resident
        source = str(getattr(value, "source", "") or "") or None  # a Reply, or plain text from a stand-in
        value = getattr(value, "text", value)
        text = value.strip() if isinstance(value, str) else ""
        failed = None
        if error is not None or not text:
            failed = str(error) if error is not None else f"an odd answer {value!r}"
            log.warning("%s's answer failed: %s", name, failed)
            mind = self.session.minds.get(name)
            text = interview.fallback_answer(mind, ticket.speaker, ticket.line, history) if isinstance(mind, Mind) \
                else "Sorry, what was that?"
        sim = self.session.sim
        heard = ticket.heard and name in sim.bodies
        if heard:
            try:
                sim.log_event(name, "line", text, sim.area(sim.bodies[name].tile), partner=ticket.speaker,
                              source=source)
            except Exception:  # the log is a record; the answer still reaches the player
                log.debug("logging the answer failed", exc_info=True)
        return Answer(ticket, text, source, failed, heard)

    # ---- the inner voice and world edits ------------------------------------------------------
    def whisper(self, name: str, text: str) -> Done | Refused:
        """Tell ``name`` something as their inner voice: their own high-importance
        thought; they replan at their next decision (asked for soon)."""
        if (no := self._resident(name)) is not None:
            return no
        if not text:
            return Refused(EMPTY, "Say what they should think.")
        sim = self.session.sim
        thought = self.session.minds[name].inner_voice(text, sim.now)
        body = sim.bodies.get(name)
        sim.prompt_decision(name)  # the next decision is when the plan makes room for it
        try:
            sim.log_event(name, "inner_voice", thought, sim.area(body.tile) if body is not None else "")
        except Exception:  # the log is a record; the thought is in the mind
            log.debug("logging the inner voice failed", exc_info=True)
        return Done(f"{first_name(name)} thinks: \u201c{thought}\u201d", thought)

    def set_object_state(self, address: str, state: str) -> Done | Refused:
        """A world edit: the object at ``address`` is now ``state`` ("idle" resets);
        residents who see an unusual state react to it."""
        sim = self.session.sim
        try:
            addr = sim.set_object_state(address, state, by="the player")
        except KeyError as err:
            return Refused(UNKNOWN, str(err))
        return Done(f"{pretty(addr)} is now {sim.town.object_states.get(addr, state)}.", addr)

    # ---- the player ---------------------------------------------------------------------------
    def name_visitor(self, name: str) -> Done | Refused:
        """Give the visitor a (new) name: TAKEN when a resident has it, EMPTY when blank."""
        try:
            self.session.rename_visitor(name)
        except ValueError as err:
            return Refused(EMPTY if not " ".join(str(name).split()) else TAKEN, str(err))
        return Done(f"Welcome to the Ville, {self.session.visitor_name}!", self.session.visitor_name)

    # ---- playing as a resident ----------------------------------------------------------------
    def play_as(self, name: str) -> Done | Refused:
        """Walk as the resident ``name`` (a loose name: case, a first name)."""
        try:
            full = self.session.take_control(name)
        except KeyError:
            near = difflib.get_close_matches(str(name), list(self.session.minds), n=3, cutoff=0.4)
            return Refused(UNKNOWN, f"No resident called {name!r}." + (f" Did you mean: {', '.join(near)}?"
                                                                       if near else ""))
        return Done(f"You are {full} now (F2 or 'release' hands them back).", full)

    def stop_playing(self) -> Done | Refused:
        """Hand the resident the player plays back to its mind (which remembers what it did)."""
        if not self.session.controlled:
            return Refused(NOT_PLAYING, "You are not playing a resident.")
        name = self.session.release_control() or ""
        return Done(f"{name} is back to their own mind.", name)

    # ---- saving and loading -------------------------------------------------------------------
    def save(self, writer: SaveWriter, path: Path, slot: str) -> SaveJob | Refused:
        """Capture the game now (main thread, a few ms) and write it to ``path`` on the writer's thread."""
        got = self._capture()
        if isinstance(got, Refused):
            return got
        parts, meta = got
        return SaveJob("save", slot, writer.save(path, parts, {**meta, "slot": slot}))

    def autosave(self, writer: SaveWriter, folder: Path, keep: int) -> SaveJob | Refused:
        """Capture now and write this game's next autosave into ``folder`` (its last ``keep`` kept)."""
        got = self._capture(quiet=True)
        if isinstance(got, Refused):
            return got
        parts, meta = got
        return SaveJob("autosave", "autosave", writer.autosave(parts, meta, folder, keep))

    def _capture(self, quiet: bool = False) -> tuple[dict, dict] | Refused:
        """The game's snapshot and meta (main thread); ``quiet``: an autosave's, whose
        failure is only logged (the player did not ask for it)."""
        try:
            return capture(self.session)
        except SaveError as err:
            if quiet:
                log.exception("autosave capture failed")
            else:
                log.warning("save failed: %s", err)
            return Refused(SAVE, str(err))
        except Exception as err:  # the game goes on unsaved; the player is told why
            log.exception("autosave capture failed" if quiet else "capturing the game for a save failed")
            return Refused(SAVE, f"{type(err).__name__}: {err}")

    def load(self, writer: SaveWriter, path: Path, slot: str) -> SaveJob:
        """Read the save at ``path`` and build its minds and sim on the writer's thread;
        ``loaded`` swaps it in once the job is done."""
        session = self.session
        fut = writer.load(path, expect_map=session.town, require=REQUIRED,
                          then=lambda parts, info: prepare(session, parts, info))
        return SaveJob("load", slot, fut)

    def loaded(self, prepared: Prepared) -> Loaded | Refused:
        """Swap a finished load in (main thread; milliseconds). Refused (and the game
        as it was) when the swap fails."""
        try:
            commit(self.session, prepared)
        except Exception as err:  # the player keeps the game they had, and is told why
            log.exception("swapping in the loaded game failed")
            return Refused(LOAD, f"{type(err).__name__}: {err}")
        info = prepared.info
        branch = info is not None and game_of(info) not in (None, self.session.game_id)
        return Loaded(info, tuple(info.warnings) if info is not None else (), branch)


__all__ = ["Answer", "Commands", "Done", "Loaded", "Refused", "SaveJob", "Ticket"]
