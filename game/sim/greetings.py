"""Greetings: the visitor as someone a resident may decide to talk to (the game's
``PlaySimulation``).

Residents perceive the visitor like anyone (an event "Alex is visiting the
town"), and ``PlaySimulation`` offers the visitor (or the resident the player
plays) in ``Situation.can_talk_to``. A mind that decides to talk to the player
does not start a mind-to-mind conversation (the player has no mind here): the
resident says one greeting line, made by its own mind on the pool
(``mind.utter`` on a one-sided conversation, then ``mind.end_conversation`` so
it remembers it). The line lands in ``greetings`` (a list of ``Greeting``), is
logged as a ``line`` event with ``greeting=True`` and ``partner=<visitor>``
(bubbles show it), and the ``on_greeting`` callbacks run (the window toasts
it). The player answers with the chat box. The same pair is not greeted again
for the sim's ``conversation_cooldown_min``.

A host whose gathering goes on greets the visitor there by name, naming it, when the
visitor said they would come (``welcome_guests``: the mind knows, ``Mind.welcome``, a
rule's line; asked of the residents in the visitor's arena once each half hour). The
same road as a greeting: the feed, bubbles, the toast, and the host remembers it.
"""
from __future__ import annotations

import logging
import queue
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agents import Conversation, Utterance
from agents import provenance as pv
from game.sim import conversations
from game.sim.core import Simulation
from game.sim.jobs import Job
from game.world.grid import chebyshev, facing

log = logging.getLogger(__name__)

KEEP = 50  # greetings kept in ``greetings``


@dataclass
class Greeting:
    """A resident greeted the visitor (the player answers in the chat box)."""

    resident: str
    visitor: str
    text: str
    time: datetime
    answered: bool = False


def plain_hello(visitor: str) -> str:
    """The rule's greeting, when the resident's mind could not make one."""
    return f"Hello, {str(visitor).split()[0] if str(visitor).split() else 'there'}!"


class PlaySimulation(Simulation):
    """The simulation with the visitor as someone a resident may decide to talk to.

    Talking to the visitor is one greeting line (see the module docstring),
    never a mind-to-mind conversation.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # Any: Simulation's own arguments, passed on
        super().__init__(*args, **kwargs)
        self.greetings: list[Greeting] = []
        self.greet_visitor = True  # False: residents never offer to talk to the visitor
        self.on_greeting: list[Callable[[Greeting], None]] = []
        # Lines made on the pool wait here for the main thread: (epoch, resident, visitor, utterance, time).
        self._said: queue.SimpleQueue[tuple[int, str, str, Utterance, datetime]] = queue.SimpleQueue()
        self._epoch = 0  # a load starts a new epoch: lines asked before it are dropped
        self._welcome_asked: set[str] = set()  # residents asked this half hour whether they host the visitor
        self._welcome_slot: datetime | None = None

    # -- offering the visitor -------------------------------------------------------
    @property
    def player(self) -> str | None:
        """Whom the player walks: the controlled resident, else the visitor."""
        return self.controlled or self.visitor

    def offers_player(self, name: str) -> bool:
        """Whether ``name`` may greet the player now (near, same arena, not greeted lately)."""
        v = self.bodies.get(self.player) if self.player else None
        if v is None or v.name == name or not self.greet_visitor:
            return False
        me = self.bodies[name]
        if chebyshev(v.tile, me.tile) > self.settings.talk_radius or self.area(v.tile) != self.area(me.tile):
            return False
        return not conversations.in_cooldown(self, name, v.name)

    def can_talk_to(self, name: str) -> list[str]:
        out = super().can_talk_to(name)
        if self.offers_player(name) and self.player:
            out.append(self.player)
        return out

    def start_chat(self, name: str, partner: str, note: str = "", source: str = "") -> bool:
        if self.player and partner == self.player:
            return self.greet(name, note)
        return super().start_chat(name, partner, note, source)

    # -- the greeting -----------------------------------------------------------------
    def greet(self, name: str, note: str = "") -> bool:
        """``name`` greets the player: one line, made by its mind on the pool."""
        a = self.bodies[name]
        v = self.bodies.get(self.player) if self.player else None
        if v is None or a.conversation is not None or conversations.in_cooldown(self, name, v.name):
            return False
        conversations.start_cooldown(self, name, v.name)
        a.facing = facing(v.tile[0] - a.tile[0], v.tile[1] - a.tile[1], a.facing)
        conv = Conversation(participants=(name, v.name), address=self.area(a.tile), started=self.now)
        mind = self.minds[name]
        doing = v.doing
        now = self.now
        epoch = self._epoch
        box = self._said
        visitor = v.name

        def job() -> Utterance:
            u = mind.welcome(visitor, now) or mind.utter(conv, now, doing)  # at its gathering: its welcome
            box.put((epoch, name, visitor, u, now))
            said = Conversation(conv.participants, conv.address, conv.started, [u])
            try:
                mind.end_conversation(said, now)  # it remembers greeting the visitor
            except Exception:
                log.exception("%s could not remember greeting %s", name, visitor)
            return u

        if not self.jobs.submit(name, Job.greet(visitor), job):
            return False
        self.log_event(name, "chat", f"greets {visitor}", conv.address, partner=visitor, greeting=True,
                       note=note or None)
        return True

    def welcome_guests(self) -> None:
        """The residents in the visitor's arena are asked, once each half hour and on the pool,
        whether they host a gathering going on now that the visitor said they would come to
        (``Mind.welcome``); such a host greets the visitor by name. Nothing is said otherwise."""
        v = self.bodies.get(self.visitor) if self.visitor and not self.controlled else None
        if v is None or not self.greet_visitor:
            return
        slot = self.now.replace(minute=self.now.minute // 30 * 30, second=0, microsecond=0)
        if slot != self._welcome_slot:
            self._welcome_slot, self._welcome_asked = slot, set()
        here = self.area(v.tile)
        for name, b in self.bodies.items():
            if (b.visitor or name in self._welcome_asked or name not in self.minds or b.conversation is not None
                    or self.held(name) or self.area(b.tile) != here):
                continue
            if not self.jobs.free(name) or self.jobs.has_waiting(name):
                continue  # its own work first: asked on a later step
            if self._ask_welcome(name, v.name, here):
                self._welcome_asked.add(name)

    def _ask_welcome(self, name: str, visitor: str, address: str) -> bool:
        """``Mind.welcome`` as the resident's job; its line, if any, goes the greetings' road."""
        mind = self.minds[name]
        now, epoch, box = self.now, self._epoch, self._said

        def job() -> Utterance | None:
            u = mind.welcome(visitor, now)
            if u is None:
                return None
            box.put((epoch, name, visitor, u, now))
            try:
                mind.end_conversation(Conversation((name, visitor), address, now, [u]), now)  # it remembers it
            except Exception:
                log.exception("%s could not remember welcoming %s", name, visitor)
            return u

        return self.jobs.submit(name, Job.greet(visitor), job)

    def collect_greetings(self) -> list[Greeting]:
        """Greeting lines finished on the pool -> ``greetings``, events, callbacks (main thread)."""
        got = []
        while True:
            try:
                epoch, name, visitor, u, _when = self._said.get_nowait()
            except queue.Empty:
                break
            if epoch != self._epoch or name not in self.bodies:
                continue  # asked before a load
            text = str(getattr(u, "text", "") or "").strip()
            source = str(getattr(u, "source", "") or "")
            if not text:
                log.warning("%s's greeting for %s came back empty; a plain hello stands in", name, visitor)
                text, source = plain_hello(visitor), pv.fallback("an empty greeting")
            if not conversations.in_cooldown(self, name, visitor):
                conversations.start_cooldown(self, name, visitor)  # a welcome: no greeting right after
            g = Greeting(name, visitor, text, self.now)
            self.greetings.append(g)
            del self.greetings[:-KEEP]
            b = self.bodies[name]
            self.log_event(name, "line", text, self.area(b.tile), partner=visitor, greeting=True,
                           source=source or None)
            for fn in list(self.on_greeting):
                try:
                    fn(g)
                except Exception:
                    log.exception("greeting callback failed")
            got.append(g)
        return got

    def on_greeted(self, name: str, job: Job, value: object, error: BaseException | None) -> None:
        """A greeting job came back. Its line went to ``collect_greetings`` on the
        pool; a job that failed (the model, or the mind, broke) says so in the log
        and the event log, and a plain hello, marked as a rule's, stands in."""
        if error is None or job.partner is None or name not in self.bodies:
            return
        self.error(name, f"greeting {job.partner} failed: {error}; a plain hello stands in")
        u = Utterance(speaker=name, text=plain_hello(job.partner), ends=True,
                      source=pv.fallback(f"the greeting job failed ({type(error).__name__})"))
        self._said.put((self._epoch, name, job.partner, u, self.now))

    def step(self) -> None:
        super().step()
        self.welcome_guests()
        self.collect_greetings()

    def from_state(self, state: dict[str, Any]) -> None:  # Any: JSON, as a save holds it
        self._epoch += 1
        super().from_state(state)
