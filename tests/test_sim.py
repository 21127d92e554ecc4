"""The simulation on tiny maps, with stand-in minds that return scripted decisions."""
from __future__ import annotations

import itertools
import json
import threading
from dataclasses import replace
from datetime import datetime, timedelta
from types import SimpleNamespace

from mapkit import DEFAULT_SPAWNS, write_map

from agents.explain import provenance as pv
from agents.mind.inspection import Inspection
from agents.recall.memory import MemoryNode
from agents.support.types import Action, Decision, Utterance
from agents.threads.pool import MindPool
from game.sim import STEP, SimSettings, Simulation, is_sleep, routine_action
from game.world.map_reader import load_town
from game.world.town import ObjectStates
from lab.standins import StandInMind

W = "Testville"
CAFE = f"{W}:Hobbs Cafe:cafe"
HOME = f"{W}:Isabella Rodriguez's apartment:main room"
PARK = f"{W}:Johnson Park:park"
START = datetime(2023, 2, 13, 7, 0)


class StandIn(StandInMind):
    """A mind with a script: ``decide(self, situation) -> Decision``,
    ``line(self, conversation) -> Utterance``. Records what it was asked."""

    def __init__(self, name, decide=None, line=None, home=HOME, work=CAFE):
        self.name = name
        self.persona = SimpleNamespace(name=name, home=home, workplace=work, wake_hour=7)
        self._decide = decide or (lambda m, s: Decision(Action("idling", s.address, s.now, 30)))
        self._line = line or (lambda m, c: Utterance(m.name, f"{m.name} says {len(c.lines)}", len(c.lines) >= 3))
        self.situations = []
        self.threads = []
        self.ended = []
        self.lines_asked = 0

    def decide(self, situation):
        self.threads.append(threading.current_thread())
        self.situations.append(situation)
        return self._decide(self, situation)

    def utter(self, conversation, now, partner_doing):
        self.lines_asked += 1
        return self._line(self, conversation)

    def end_conversation(self, conversation, now):
        self.ended.append(conversation)

    def queue_thought(self, text, importance=8):
        pass

    def inspect(self):
        return Inspection(name=self.name)


def town_at(tmp_path, spawns=None, **kw):
    return load_town(write_map(tmp_path, spawns=spawns, **kw))


def make_sim(tmp_path, minds, spawns=None, start=START, lockstep=True, seed=0, settings=None, pool=None, **kw):
    town = town_at(tmp_path, spawns=spawns, **kw)
    pool = pool or MindPool(2)
    sim = Simulation(town, minds, pool, start, seed=seed, lockstep=lockstep, settings=settings)
    return sim


def run(sim, steps):
    for _ in range(steps):
        sim.step()


def act(description, address, minutes=30, state=None, emoji="🙂"):
    def script(m, s):
        return Decision(Action(description, address, s.now, minutes, emoji, state))

    return script


# ---------------------------------------------------------------------------- walking


def test_walks_astar_one_tile_per_step_arrives_and_sets_object_state(tmp_path, pools):
    calls = {"n": 0}

    def script(m, s):
        calls["n"] += 1
        if calls["n"] == 1:
            return Decision(Action("making coffee", f"{CAFE}:coffee machine", s.now, 30, "☕", "brewing coffee"))
        return Decision(Action("resting on the bench", f"{PARK}:park bench", s.now, 30, "🪑"))

    isa = StandIn("Isabella Rodriguez", script)
    sim = make_sim(tmp_path, [isa], pool=pools())
    body = sim.bodies["Isabella Rodriguez"]
    assert body.tile == (9, 1)
    walk = sim.town.walkable
    tiles = [body.tile]
    for _ in range(200):
        sim.step()
        tiles.append(body.tile)
        if body.action and body.arrived_at:
            break
    assert body.action.description == "making coffee"
    for a, b in itertools.pairwise(tiles):
        assert max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1, (a, b)
        assert walk[b[1], b[0]]
    assert body.tile in sim.town.use_tiles(f"{CAFE}:coffee machine")
    assert sim.town.object_states[f"{CAFE}:coffee machine"] == "brewing coffee"
    assert any(e["kind"] == "arrive" and e["address"].endswith("coffee machine") for e in sim.events)
    # Walking took as many steps as the path had tiles (plus the decision's step).
    moved = sum(1 for a, b in itertools.pairwise(tiles) if a != b)
    assert moved >= 10
    # The action ends after 30 sim minutes; the next one releases the machine.
    run(sim, 30 * 6 + 5)
    assert body.action.description == "resting on the bench"
    assert sim.town.object_states[f"{CAFE}:coffee machine"] == "idle"


def test_unknown_place_falls_back_to_known_parent(tmp_path, pools):
    isa = StandIn("Isabella Rodriguez", act("dancing", f"{W}:Hobbs Cafe:dance floor:disco ball"))
    sim = make_sim(tmp_path, [isa], pool=pools())
    run(sim, 60)
    b = sim.bodies["Isabella Rodriguez"]
    assert b.target == f"{W}:Hobbs Cafe"
    assert sim.town.address_at(*b.tile).startswith(f"{W}:Hobbs Cafe")


# ---------------------------------------------------------------------------- perception

WIDE_ROWS = (
    "##############################",
    "#............................#",
    "#............................#",
    "#............................#",
    "##############################",
)


def wide_map(tmp_path, spawns):
    return dict(
        rows=WIDE_ROWS,
        sectors=(("Johnson Park", 0, 0, 30, 5),),
        arenas=(("park", 1, 1, 14, 3), ("garden", 15, 1, 14, 3)),
        objects=(("park bench", 11, 3, 1, 1), ("pond", 2, 1, 1, 1), ("garden bench", 16, 3, 1, 1)),
        spawns=spawns,
    )


def test_perception_radius_same_arena_nearest_first(tmp_path, pools):
    spawns = (("A A", 12, 2), ("B B", 10, 2), ("C C", 16, 2), ("D D", 5, 2), ("E E", 2, 2), ("visitor", 20, 2))
    minds = [StandIn(n, act("standing", f"{W}:Johnson Park:park", 600)) for n, *_ in spawns if n != "visitor"]
    town = town_at(tmp_path, **wide_map(tmp_path, spawns))
    sim = Simulation(town, minds, pools(), START, lockstep=True)
    town.object_states[f"{W}:Johnson Park:park:park bench"] = "occupied"
    town.object_states[f"{W}:Johnson Park:garden:garden bench"] = "occupied"
    town.object_states[f"{W}:Johnson Park:park:pond"] = "rippling"  # 10 tiles away: out of view
    events = sim.perceive("A A")
    subjects = [e.subject for e in events]
    assert subjects == [f"{W}:Johnson Park:park:park bench", "B B", "D D"]
    assert events[1].description == "B B is idle"
    assert "C C" not in subjects and "E E" not in subjects  # other arena / out of radius
    # The situation a mind gets carries the same events and the places in view.
    sit = sim.situation("A A")
    assert [e.subject for e in sit.events] == subjects
    assert f"{W}:Johnson Park:park" in sit.seen_addresses
    assert f"{W}:Johnson Park:park:park bench" in sit.seen_addresses
    assert sit.action is None and sit.action_done
    run(sim, 3)  # everyone acts: B is now "standing"
    assert "B B is standing" in [e.description for e in sim.perceive("A A")]


def test_visitor_is_perceived_but_not_a_talk_partner(tmp_path, pools):
    isa = StandIn("Isabella Rodriguez", act("tidying up", HOME, 600))
    sim = make_sim(tmp_path, [isa], pool=pools())
    v = sim.add_visitor("Vera Visitor", (10, 3))
    assert v.visitor and sim.visitor == "Vera Visitor"
    subjects = [e.subject for e in sim.perceive("Isabella Rodriguez")]
    assert "Vera Visitor" in subjects
    assert sim.can_talk_to("Isabella Rodriguez") == []
    sim.move_visitor((11, 3))
    assert v.tile == (11, 3) and v.facing == "right"
    sim.set_visitor_doing("looking around")
    assert any(e.description == "Vera Visitor is looking around" for e in sim.perceive("Isabella Rodriguez"))
    run(sim, 3)  # the visitor never gets a job
    assert sim.jobs.current(sim.visitor) is None and not sim.jobs.has_waiting(sim.visitor)
    sim.move_visitor((5, 7))  # into the park: out of view
    assert "Vera Visitor" not in [e.subject for e in sim.perceive("Isabella Rodriguez")]


def test_arrival_with_new_events_asks_again_throttled(tmp_path, pools):
    """A resident at its place reacts to something new in view, at most once per cooldown."""
    spawns = (("A A", 12, 2), ("B B", 28, 2), ("visitor", 20, 2))
    a = StandIn("A A", act("standing", f"{W}:Johnson Park:park", 600))
    b = StandIn("B B", act("standing", f"{W}:Johnson Park:garden", 600))
    town = town_at(tmp_path, **wide_map(tmp_path, spawns))
    sim = Simulation(town, [a, b], pools(), START, lockstep=True, settings=SimSettings(react_cooldown_min=10))
    run(sim, 20)
    n0 = len(a.situations)
    sim.add_visitor("Vera Visitor", (10, 2))
    run(sim, 6 * 10 + 5)  # within one cooldown: at most one reaction
    assert len(a.situations) == n0 + 1
    assert any(e.subject == "Vera Visitor" for e in a.situations[-1].events)
    run(sim, 6 * 20)  # nothing new in view: no more asking
    assert len(a.situations) == n0 + 1
    assert len(b.situations) == 1  # B never saw anything new


# ---------------------------------------------------------------------------- threads


class RecordingStates(ObjectStates):
    def __init__(self, states):
        self.writers = set()
        super().__init__()
        self.update(states)

    def __setitem__(self, k, v):
        self.writers.add(threading.current_thread().name)
        super().__setitem__(k, v)


def test_decisions_applied_only_on_the_main_thread(tmp_path, pools):
    isa = StandIn("Isabella Rodriguez", act("making coffee", f"{CAFE}:coffee machine", 10, "brewing coffee"))
    sim = make_sim(tmp_path, [isa], pool=pools(), lockstep=False)
    sim.town.object_states = RecordingStates(sim.town.object_states)
    sim.step()  # submits the decision
    sim.pool.wait()
    assert isa.threads and all(t is not threading.main_thread() for t in isa.threads)
    assert sim.bodies["Isabella Rodriguez"].lying_in  # finished, but not applied yet: she lies in meanwhile
    sim.step()
    assert sim.bodies["Isabella Rodriguez"].action.description == "making coffee"
    run(sim, 120)
    assert sim.town.object_states.writers == {threading.main_thread().name}


def test_realtime_step_never_blocks_thinking_and_behind(tmp_path, pools):
    gate = threading.Event()

    def slow(m, s):
        gate.wait(10)
        return Decision(Action("reading", HOME, s.now, 30))

    isa = StandIn("Isabella Rodriguez", slow)
    # No lie-in (tests/test_steady_clock.py): her first decision is owed from the start.
    sim = make_sim(tmp_path, [isa], pool=pools(), lockstep=False, settings=SimSettings(morning_grace_min=0))
    for _ in range(6 * 11):  # 11 sim minutes, instantly
        sim.step()
    assert sim.thinking("Isabella Rodriguez")
    assert sim.behind() == 1 and sim.behind(minutes=20) == 0
    gate.set()
    sim.pool.wait()
    sim.step()
    assert sim.bodies["Isabella Rodriguez"].action.description == "reading"
    assert sim.behind() == 0
    job = sim.jobs.current("Isabella Rodriguez")  # its reading ends within the look-ahead: next is asked
    assert not sim.thinking("Isabella Rodriguez") or (job is not None and job.ahead)


def test_behind_leaves_out_who_waits_for_no_decision(tmp_path, pools):
    """In a conversation with no line of its own asked, held by the player's chat, or
    played by the player: such a resident's mind owes nothing, so it is never "behind"."""
    isa = StandIn("Isabella Rodriguez", lambda m, s: Decision(Action("reading", HOME, s.now, 30)))
    sim = make_sim(tmp_path, [isa], pool=pools(), lockstep=False)
    b = sim.bodies["Isabella Rodriguez"]
    b.waiting_since = sim.now - timedelta(hours=1)
    assert sim.behind() == 1
    b.conversation = 7
    assert sim.behind() == 0
    b.conversation = None
    b.controlled = True
    assert sim.behind() == 0
    b.controlled = False
    b.action = Action("reading", HOME, sim.now, 30)
    sim.add_visitor("Alex", b.tile)
    assert sim.hold("Isabella Rodriguez", "Alex") and sim.behind() == 0
    assert b.waiting_since is None  # the hold itself ends the wait
    sim.release("Isabella Rodriguez")
    b.waiting_since = sim.now - timedelta(hours=1)
    assert sim.behind() == 1


# ---------------------------------------------------------------------------- failures


def test_a_line_being_written_holds_the_clock_as_a_decision_does(tmp_path, pools):
    """In play a conversation's next line, asked and not back, is a wait like a
    decision's: ``behind`` and the pacer's lag count it from when it was asked, so a
    talk is not spread over hours of the clock while its lines are written. The one
    whose turn it is not waits for nothing."""
    gate = threading.Event()

    def slow_line(m, c):
        if c.lines:
            gate.wait(10)
        return Utterance(m.name, f"{m.name} says {len(c.lines)}", len(c.lines) >= 3)

    sim, _, _ = two_in_a_room(tmp_path, pools, talk_when_possible, maria_line=slow_line,
                                settings=SimSettings(morning_grace_min=0), lockstep=False)
    try:
        for _ in range(6 * 30):
            sim.step()
            chat = next(iter(sim.chats.values()), None)
            if chat is not None and chat.turn == "Maria Lopez" and chat.waiting:
                break
            sim.pool.wait(0.5)  # the answers asked for so far (none is held until Maria's line)
        else:
            raise AssertionError("Maria's line was never asked")
        asked = chat.asked
        assert asked is not None and sim.awaited_since(sim.bodies["Maria Lopez"]) == asked
        assert sim.awaited_since(sim.bodies["Isabella Rodriguez"]) is None  # her line is said; she listens
        for _ in range(6 * 5):  # five sim minutes with the line unwritten
            sim.step()
        assert sim.behind(minutes=3) == 1
        lag, who = sim.decision_lag()
        assert lag >= 5 and who[0] == "Maria Lopez"
        gate.set()
        sim.pool.wait()
        sim.step()
        assert [e["resident"] for e in sim.events if e["kind"] == "line"][:2] == ["Isabella Rodriguez", "Maria Lopez"]
        assert sim.behind(minutes=3) == 0  # heard: the wait is over
    finally:
        gate.set()


def test_failing_mind_falls_back_to_routine_and_never_freezes(tmp_path, pools):
    def boom(m, s):
        raise RuntimeError("model exploded")

    isa = StandIn("Isabella Rodriguez", boom)
    sim = make_sim(tmp_path, [isa], pool=pools())
    run(sim, 3)
    b = sim.bodies["Isabella Rodriguez"]
    errors = [e for e in sim.events if e["kind"] == "error"]
    assert errors and errors[0]["resident"] == "Isabella Rodriguez" and "model exploded" in errors[0]["text"]
    assert b.action is not None and b.fallbacks == 1
    first = b.action
    run(sim, 6 * 90)  # 90 sim minutes: the fallback ends, it asks again, fails again, falls back again
    assert len(isa.situations) >= 2
    assert b.fallbacks >= 2 and b.action is not first and b.action.end > sim.now - timedelta(minutes=11)


def test_failure_during_an_action_keeps_it(tmp_path, pools):
    calls = {"n": 0}

    def script(m, s):
        calls["n"] += 1
        if calls["n"] == 1:
            return Decision(Action("reading", HOME, s.now, 120))
        raise ValueError("nope")

    spawns = (("Isabella Rodriguez", 9, 1), ("visitor", 14, 7))
    isa = StandIn("Isabella Rodriguez", script)
    sim = make_sim(tmp_path, [isa], spawns=spawns, pool=pools())
    run(sim, 20)
    sim.add_visitor("Vera Visitor", (10, 3))  # something new: a reaction is asked (after the cooldown) and fails
    run(sim, 60)
    assert calls["n"] == 2
    assert sim.bodies["Isabella Rodriguez"].action.description == "reading"
    assert sim.bodies["Isabella Rodriguez"].fallbacks == 0


def test_routine_action_is_sane():
    p = SimpleNamespace(name="X Y", home=HOME, workplace=CAFE, wake_hour=7)
    town = SimpleNamespace(tree={"Isabella Rodriguez's apartment": {"main room": ["bed"]}, "Hobbs Cafe": {"cafe": []}})
    night = routine_action(p, datetime(2023, 2, 13, 2, 0), town)
    assert is_sleep(night) and night.address == f"{HOME}:bed" and night.end == datetime(2023, 2, 13, 7, 0)
    day = routine_action(p, datetime(2023, 2, 13, 10, 0), town)
    assert day.address == CAFE and not is_sleep(day)
    assert is_sleep(Action("sleeping", HOME, START, 60))
    assert not is_sleep(Action("getting ready for sleep", HOME, START, 5))


# ---------------------------------------------------------------------------- conversations


def two_in_a_room(tmp_path, pools, isa_script, maria_script=None, isa_line=None, maria_line=None, settings=None,
                  lockstep=True):
    spawns = (("Isabella Rodriguez", 9, 1), ("Maria Lopez", 10, 4), ("visitor", 14, 7))
    isa = StandIn("Isabella Rodriguez", isa_script, isa_line)
    maria = StandIn("Maria Lopez", maria_script or act("reading", HOME, 60), maria_line)
    sim = make_sim(tmp_path, [isa, maria], spawns=spawns, pool=pools(), settings=settings, lockstep=lockstep)
    return sim, isa, maria


def talk_when_possible(m, s):
    if "Maria Lopez" in s.can_talk_to:
        return Decision(talk_to="Maria Lopez", note="saw Maria")
    return Decision(Action("tidying up", HOME, s.now, 10))


def test_conversation_starts_alternates_ends_and_both_remember(tmp_path, pools):
    sim, isa, maria = two_in_a_room(tmp_path, pools, talk_when_possible)
    seen_bubbles = set()
    for _ in range(30):
        sim.step()
        for n in ("Isabella Rodriguez", "Maria Lopez"):
            b = sim.bodies[n]
            if b.conversation is not None:
                seen_bubbles.add((n, b.emoji, b.action.talking_to, b.action.description))
    assert ("Isabella Rodriguez", "💬", "Maria Lopez", "conversing with Maria Lopez") in seen_bubbles
    assert ("Maria Lopez", "💬", "Isabella Rodriguez", "conversing with Isabella Rodriguez") in seen_bubbles
    lines = [e for e in sim.events if e["kind"] == "line"]
    # The default line script ends at the 4th line.
    assert [e["resident"] for e in lines] == ["Isabella Rodriguez", "Maria Lopez", "Isabella Rodriguez", "Maria Lopez"]
    assert len(isa.ended) == 1 and len(maria.ended) == 1
    assert [u.speaker for u in isa.ended[0].lines] == [e["resident"] for e in lines]
    assert isa.ended[0].transcript() == maria.ended[0].transcript()
    # Adjacent while talking.
    a, b = sim.bodies["Isabella Rodriguez"].tile, sim.bodies["Maria Lopez"].tile
    assert max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1
    # Both are asked what next, and see the conversation as done.
    run(sim, 5)
    after = maria.situations[-1]
    assert after.action.description == "conversing with Isabella Rodriguez" and after.action_done
    assert after.action.talking_to is None  # over
    # Cooldown: Isabella still wants to talk, but not again within 2 sim hours.
    run(sim, 6 * 60)
    assert sum(1 for e in sim.events if e["kind"] == "chat" and not e.get("ended")) == 1
    assert all("Maria Lopez" not in s.can_talk_to for s in isa.situations[1:])
    run(sim, 6 * 70)
    assert sum(1 for e in sim.events if e["kind"] == "chat" and not e.get("ended")) == 2


def test_a_resident_hurrying_to_a_meeting_does_not_stop_to_chat(tmp_path, pools):
    """On the way to an arrangement nobody starts a talk with it, nor does it start one; once
    there (not walking), it talks as anyone does."""
    sim, _, _ = two_in_a_room(tmp_path, pools, talk_when_possible)
    b = sim.bodies["Maria Lopez"]
    meeting = Action("attending the picnic", CAFE, START, 60,
                     source=pv.tag(pv.RULE, "guided: an arrangement agreed with Alex on Tuesday February 14"))
    b.action, b.path = meeting, [(20, 4), (21, 4)]
    assert b.hurrying
    assert sim.can_talk_to("Isabella Rodriguez") == [] and sim.can_talk_to("Maria Lopez") == []
    b.action = replace(meeting, source=pv.MODEL)  # walking to something it chose alone: free to chat
    assert not b.hurrying and sim.can_talk_to("Isabella Rodriguez") == ["Maria Lopez"]
    b.action, b.path = meeting, []  # arrived
    assert not b.hurrying and sim.can_talk_to("Isabella Rodriguez") == ["Maria Lopez"]


def test_conversation_turn_limit(tmp_path, pools):
    never = lambda m, c: Utterance(m.name, "and another thing", False)  # noqa: E731
    sim, isa, maria = two_in_a_room(
        tmp_path, pools, talk_when_possible, isa_line=never, maria_line=never,
        settings=SimSettings(max_conversation_lines=6)
    )
    run(sim, 40)
    assert len([e for e in sim.events if e["kind"] == "line"]) == 6
    assert len(isa.ended[0].lines) == 6 and len(maria.ended[0].lines) == 6


def test_partner_failure_ends_the_conversation_cleanly(tmp_path, pools):
    def broken(m, c):
        raise RuntimeError("partner lost the thread")

    sim, isa, maria = two_in_a_room(tmp_path, pools, talk_when_possible, maria_line=broken)
    run(sim, 20)
    assert [e["kind"] for e in sim.events if e["kind"] in ("line", "error")][:2] == ["line", "error"]
    assert len(isa.ended) == 1 and len(maria.ended) == 1 and len(isa.ended[0].lines) == 1
    for n in ("Isabella Rodriguez", "Maria Lopez"):
        assert sim.bodies[n].conversation is None
    run(sim, 10)
    assert sim.bodies["Maria Lopez"].action.talking_to is None  # asked again, acting again


def test_a_mind_that_cannot_remember_a_conversation_gets_a_plain_note_of_it(tmp_path, pools):
    class Forgetful(StandIn):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.thoughts = []

        def end_conversation(self, conversation, now):
            raise RuntimeError("memory full")

        def queue_thought(self, text, importance=8):
            self.thoughts.append((text, importance))

    sim, isa, maria = two_in_a_room(tmp_path, pools, talk_when_possible)
    forgetful = Forgetful("Maria Lopez", maria._decide, maria._line)
    sim.minds["Maria Lopez"] = forgetful
    run(sim, 30)
    errors = [e for e in sim.events if e["kind"] == "error" and e["resident"] == "Maria Lopez"]
    assert errors and "remembering the conversation failed: memory full" in errors[0]["text"]
    assert len(isa.ended) == 1  # the other side remembers as usual
    assert forgetful.thoughts and forgetful.thoughts[0][0].startswith("I talked with Isabella Rodriguez (Isabella: ")


# ---------------------------------------------------------------------------- sleep


def test_sleeping_residents_get_no_jobs_until_the_last_stretch_before_waking(tmp_path, pools):
    def script(m, s):
        if not m.situations[:-1]:
            return Decision(Action("sleeping", f"{HOME}:bed", s.now, 120, "😴", "occupied"))
        return Decision(Action("making breakfast", HOME, s.now, 30))

    spawns = (("Isabella Rodriguez", 9, 1), ("Maria Lopez", 10, 4), ("visitor", 14, 7))
    isa = StandIn("Isabella Rodriguez", script)
    wander = {"i": 0}

    def restless(m, s):  # Maria keeps moving around the room: new events for Isabella
        wander["i"] += 1
        spot = [f"{HOME}:refrigerator", HOME][wander["i"] % 2]
        return Decision(Action(f"pacing {wander['i']}", spot, s.now, 5))

    maria = StandIn("Maria Lopez", restless)
    sim = make_sim(tmp_path, [isa, maria], spawns=spawns, pool=pools(), start=datetime(2023, 2, 13, 2, 0))
    run(sim, 6 * 79)  # to 03:19: asleep, no job
    assert len(isa.situations) == 1
    run(sim, 6 * 40)  # to 03:59: 40 minutes before waking, the morning is planned ahead
    assert len(isa.situations) == 2
    ahead = isa.situations[1]
    assert ahead.plan_at == datetime(2023, 2, 13, 4, 0) and not ahead.events and not ahead.can_talk_to
    assert sim.bodies["Isabella Rodriguez"].asleep
    assert sim.town.object_states[f"{HOME}:bed"] == "occupied"
    assert "Isabella Rodriguez" not in sim.can_talk_to("Maria Lopez")
    run(sim, 6 * 2)
    # No wait at wake time: the decision was ready, and breakfast began on the dot (what she
    # then sees of Maria may be asked about, as a reaction, never as "what next").
    assert not any(x.action_done for x in isa.situations[2:])
    assert sim.bodies["Isabella Rodriguez"].action.description == "making breakfast"
    began = [e for e in sim.events if e["kind"] == "action" and e["text"] == "making breakfast"]
    assert began[0]["time"] == "2023-02-13 04:00:00"
    assert sim.town.object_states[f"{HOME}:bed"] == "idle"


# ---------------------------------------------------------------------------- reproducibility and state


def busy_town(tmp_path, pools, seed):
    spawns = (("Isabella Rodriguez", 9, 1), ("Maria Lopez", 10, 4), ("Klaus Mueller", 5, 7), ("visitor", 14, 7))
    places = [CAFE, HOME, PARK, f"{CAFE}:cafe customer seating", f"{PARK}:park bench"]

    def wander(m, s):
        others = [n for n in s.can_talk_to if n != m.name]
        k = (s.now.minute + len(m.name)) % 7
        if others and k % 2 == 0:
            return Decision(talk_to=others[0])
        place = places[(s.now.minute // 5 + len(m.name)) % len(places)]
        return Decision(Action(f"wandering to {place.rsplit(':', 1)[-1]}", place, s.now, 5 + k))

    def line(m, c):
        return Utterance(m.name, f"{m.name.split()[0]} line {len(c.lines)}", len(c.lines) >= 2)

    minds = [StandIn(n, wander, line) for n, *_ in spawns if n != "visitor"]
    return make_sim(tmp_path, minds, spawns=spawns, pool=pools(2), seed=seed)


def test_lockstep_same_seed_same_event_log(tmp_path, pools):
    logs = []
    for i in range(2):
        sim = busy_town(tmp_path / f"run{i}", pools, seed=7)
        run(sim, 6 * 60)
        logs.append(sim.events)
    assert len(logs[0]) > 30
    assert {e["kind"] for e in logs[0]} >= {"action", "arrive", "chat", "line"}
    assert logs[0] == logs[1]


def test_state_round_trip_and_continuation(tmp_path, pools):
    a = busy_town(tmp_path / "a", pools, seed=3)
    run(a, 6 * 25)
    a.drain()
    state = json.loads(json.dumps(a.to_state()))
    b = busy_town(tmp_path / "b", pools, seed=99)
    b.from_state(state)
    assert b.to_state() == state
    assert b.now == a.now
    run(a, 6 * 30)
    run(b, 6 * 30)
    assert a.events == b.events
    assert a.town.object_states == b.town.object_states


def test_step_is_ten_sim_seconds(tmp_path, pools):
    sim = make_sim(tmp_path, [StandIn("Isabella Rodriguez")], pool=pools())
    run(sim, 6)
    assert sim.now == START + 6 * STEP == START + timedelta(minutes=1)
    assert sim.steps == 6
    assert DEFAULT_SPAWNS[0][0] == "Isabella Rodriguez"


def test_a_new_day_asks_awake_residents_again(tmp_path, pools):
    isa = StandIn("Isabella Rodriguez", act("reading late", HOME, 120))
    sim = make_sim(tmp_path, [isa], pool=pools(), start=datetime(2023, 2, 13, 23, 50))
    run(sim, 6 * 9)
    assert len(isa.situations) == 1
    run(sim, 6 * 2)  # midnight passes
    assert len(isa.situations) == 2
    assert isa.situations[1].now.date() == datetime(2023, 2, 14).date() and not isa.situations[1].action_done


def test_reflections_reach_the_event_log(tmp_path, pools):
    class Reflective(StandIn):
        def inspect(self):
            n = len(self.situations)
            return Inspection(reflections=tuple(
                MemoryNode(10 + i, "reflection", f"insight {i}", START, START, 7) for i in range(n)))

    def script(m, s):
        return Decision(Action("thinking", HOME, s.now, 10), note="reflected: insight; next: thinking")

    isa = Reflective("Isabella Rodriguez", script)
    sim = make_sim(tmp_path, [isa], pool=pools())
    run(sim, 6 * 25)
    texts = [e["text"] for e in sim.events if e["kind"] == "reflect"]
    assert texts[:3] == ["insight 0", "insight 1", "insight 2"]  # each once, in order
    assert len(texts) == len(set(texts))
