"""Playing (issue 5, the living town): a Session in the window, headless.

SDL's dummy driver, the real Ville map, a scripted fake model
(fakes.make_gateway(via_litellm=False)) and the hashing embedder. Frames are
driven by hand; where minds must answer, the test waits on the pool between
frames (the frames themselves never wait).
"""
from __future__ import annotations

import threading
from argparse import Namespace
from datetime import timedelta
from pathlib import Path

import pytest

pygame = pytest.importorskip("pygame")

from fakes import HashEmbedder, make_gateway
from scripted_minds import plausible

from agents.mind.inspection import Inspection
from agents.support.types import Action, Decision, Utterance
from lab.standins import StandInMind

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "maps" / "the_ville" / "the_ville.tmx"
DT = 1 / 60

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")


def make_session(responder=plausible, **kw):
    from game.runs.session import Session

    gw = make_gateway(responder, via_litellm=False)
    kw.setdefault("visitor_name", "Alex")
    return Session.create(MAP, gateway=gw, embedder=HashEmbedder(64), **kw)


def make_game(session, screen):
    from driving import ville_tiles

    from game.app import Game

    game = Game(session.town, ville_tiles(), size=screen.get_size())
    game.attach_session(session, extras=False)
    return game


@pytest.fixture
def play(display):
    made = []

    def build(responder=plausible, **kw):
        s = make_session(responder, **kw)
        g = make_game(s, display)
        made.append(s)
        return s, g

    yield build
    for s in made:
        s.close()


def frames(game, n, screen=None, wait=0.0):
    for _ in range(n):
        game.update(DT)
        if screen is not None:
            game.draw(screen)
        if wait:
            game.session.pool.wait(wait)


def key(game, k, unicode=""):
    game.handle_event(pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode=unicode, scancode=0))
    game.handle_event(pygame.event.Event(pygame.KEYUP, key=k, mod=0, unicode=unicode, scancode=0))


def look_at(game, name):
    b = game.session.sim.bodies[name]
    game.follow = False
    game.camera.look_at(*game.camera.tile_center_world(*b.tile))


# ---------------------------------------------------------------------------------------------


def test_residents_appear_and_move(play, display):
    s, g = play(agents=4)
    s.set_speed(5)
    start = {n: b.tile for n, b in s.sim.bodies.items() if not b.visitor}
    names = {f.name for f in g.figures()}
    assert set(start) <= names and "Alex" in names
    for _ in range(240):
        frames(g, 1, display, wait=0.5)
        if any(s.sim.bodies[n].tile != t for n, t in start.items()):
            break
    moved = [n for n, t in start.items() if s.sim.bodies[n].tile != t]
    assert moved, "nobody walked anywhere"
    # A walking figure glides between tiles: its drawn position is fractional part way.
    s.speed = 1
    name = moved[0]
    for _ in range(60):
        frames(g, 1, display)
        b = s.sim.bodies[name]
        if b.prev_tile != b.tile and 0 < s.step_fraction < 1:
            fig = next(f for f in g.figures() if f.name == name)
            assert fig.moving
            assert (fig.x, fig.y) not in (tuple(b.tile), tuple(b.prev_tile))
            break
    look_at(g, name)
    g.draw(display)
    assert name in {f.name for f, _ in g.drawn}


def test_pause_stops_sim_time_and_space_toggles(play, display):
    s, g = play(agents=2)
    frames(g, 30)
    key(g, pygame.K_SPACE)
    assert s.paused
    t = s.sim.now
    frames(g, 120, display)
    assert s.sim.now == t
    assert "PAUSED" in [line for line, _ in g.panels.hud.compose()]
    key(g, pygame.K_SPACE)
    assert not s.paused
    frames(g, 60)
    assert s.sim.now > t


def test_speed_keys_change_sim_minutes_per_frame(play, display):
    from game.runs.session import SPEEDS

    s, g = play(agents=2)
    s.pace = "clock"  # the speeds as such (the minds' pace: tests/test_pacing.py)
    gained = {}
    for k, speed in ((pygame.K_1, 1), (pygame.K_3, 3), (pygame.K_4, 4)):
        key(g, k)
        assert s.speed == speed
        t = s.sim.now
        frames(g, 60)
        gained[speed] = (s.sim.now - t).total_seconds() / 60.0
    assert gained[1] == pytest.approx(SPEEDS[1], abs=0.2)
    assert gained[3] == pytest.approx(SPEEDS[3], rel=0.1)
    assert gained[4] > gained[3] > gained[1]
    assert any(f"x{SPEEDS[4]:g} min/s" == line for line, _ in g.panels.hud.compose())


def test_frame_steps_are_capped(play):
    from game.runs.session import MAX_STEPS_PER_FRAME

    s, g = play(agents=2)
    s.set_speed(5)
    g.update(0.1)  # a long frame would owe 60 steps
    assert 0 < s.steps_last_frame <= MAX_STEPS_PER_FRAME
    assert s.steps_owed < 1.0  # the rest was dropped, not carried into the next frames


def test_skip_to_reaches_target_over_many_frames(play, display):
    from game.runs.session import SKIP_MAX_STEPS_PER_FRAME

    s, g = play(agents=3)
    frames(g, 5)
    target = s.sim.now + timedelta(hours=2)
    s.skip_to(target)
    n, per_frame, progress = 0, [], []
    while s.skipping and n < 5000:
        g.update(DT)
        g.draw(display)
        per_frame.append(s.steps_last_frame)
        progress.append(s.skip_progress())
        s.pool.wait(0.2)  # the minds get time; the frame itself never waited
        n += 1
    assert not s.skipping and s.last_skip_result == "done"
    assert s.sim.now >= target and s.sim.now - target < timedelta(seconds=20)
    assert n > 5, "a two-hour skip should take more than a handful of frames"
    assert max(per_frame) <= SKIP_MAX_STEPS_PER_FRAME
    assert progress == sorted(progress)


def test_next_morning_key_and_escape_cancels(play, display):
    from game.runs.session import next_morning

    s, g = play(agents=2)
    t0 = s.sim.now
    key(g, pygame.K_n)
    assert s.skipping and s.skip.target == next_morning(t0)
    assert s.skip.target.hour == 7 and s.skip.target.date() == t0.date() + timedelta(days=1)
    frames(g, 3, display)
    assert s.sim.now > t0
    key(g, pygame.K_ESCAPE)
    assert not s.skipping and s.last_skip_result == "cancelled"
    assert g.running  # Escape cancelled the skip; it did not quit
    t = s.sim.now
    assert t < next_morning(t0)


def test_next_morning_rule():
    from datetime import datetime

    from game.runs.session import next_morning

    assert next_morning(datetime(2023, 2, 13, 8, 0)) == datetime(2023, 2, 14, 7, 0)
    assert next_morning(datetime(2023, 2, 13, 23, 50)) == datetime(2023, 2, 14, 7, 0)
    assert next_morning(datetime(2023, 2, 14, 2, 0)) == datetime(2023, 2, 14, 7, 0)


def test_bubble_during_conversation_in_screenshot(play, display, tmp_path):
    s, g = play(residents="Sam Moore,Jennifer Moore", start=None)
    s.set_speed(5)
    line = None
    for _ in range(3000):
        frames(g, 1, wait=0.5)
        lines = [e for e in s.sim.events if e["kind"] == "line"]
        if lines and g.panels.bubbles.live:
            line = lines[-1]
            break
    assert line is not None, "the two never talked"
    s.paused = True
    look_at(g, next(iter(g.panels.bubbles.live.values())).speaker)
    g.update(DT)
    g.draw(display)
    assert g.panels.bubbles.placed
    speaker = g.panels.bubbles.placed[0][0]
    assert speaker in {e["resident"] for e in s.sim.events if e["kind"] == "line"}
    placed = dict(g.panels.bubbles.placed)
    shot = tmp_path / "talk.png"
    pygame.image.save(display, str(shot))
    img = pygame.image.load(str(shot))
    r = placed[speaker]
    fig_rect = next(rect for f, rect in g.drawn if f.name == speaker)
    assert r.bottom <= fig_rect.top and abs(r.centerx - fig_rect.centerx) < 150  # over the speaker's head
    white = sum(
        1
        for x in range(r.left + 6, r.right - 6, 3)
        for y in range(r.top + 3, r.bottom - 8, 2)
        if min(img.get_at((x, y))[:3]) >= 235
    )
    assert white > 40, "no white bubble where the bubble was placed"


def test_bubbles_do_not_overlap(play, display):
    _s, g = play(residents="Sam Moore,Jennifer Moore")
    look_at(g, "Sam Moore")
    long = "word " * 80
    g.panels.bubbles.say(1, "Sam Moore", long)
    g.panels.bubbles.say(2, "Jennifer Moore", "Hello there, how are you this fine morning?")
    g.update(DT)
    g.draw(display)
    rects = [r for _, r in g.panels.bubbles.placed]
    assert len(rects) == 2
    assert not rects[0].colliderect(rects[1])
    from game.view.bubbles import MAX_WIDTH, wrap

    lines = wrap(long)
    assert len(lines) == 3 and lines[-1].endswith("…")
    assert all(r.width <= MAX_WIDTH + 30 for r in rects)


def test_thinking_marker_while_a_job_is_in_flight(play, display):
    gate = threading.Event()

    def slow(purpose, messages, schema):
        gate.wait(10)
        return plausible(purpose, messages, schema)

    s, g = play(slow, residents="Isabella Rodriguez")
    look_at(g, "Isabella Rodriguez")
    try:
        for _ in range(20):
            frames(g, 1, display)
            if s.sim.thinking("Isabella Rodriguez"):
                break
        frames(g, 1, display)
        # Had the frame waited for the mind, the gated job would have finished
        # (gate.wait times out) and the resident would no longer be thinking.
        assert s.sim.thinking("Isabella Rodriguez")
        assert "Isabella Rodriguez" in g.panels.residents_view.thinking_drawn
    finally:
        gate.set()
    s.pool.wait(10)
    frames(g, 2, display)
    if not s.sim.thinking("Isabella Rodriguez"):
        assert "Isabella Rodriguez" not in g.panels.residents_view.thinking_drawn


def _next_to(s, name):
    b = s.sim.bodies[name]
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)):
        t = (b.tile[0] + dx, b.tile[1] + dy)
        if s.town.walkable[t[1], t[0]] and s.sim.area(t) == s.sim.area(b.tile):
            return t
    raise AssertionError("no free tile next to the resident")


def test_visitor_is_perceived_like_anyone(play, display):
    s, g = play(residents="Isabella Rodriguez")
    tile = _next_to(s, "Isabella Rodriguez")
    g.visitor.place(tile)
    frames(g, 1)
    assert s.sim.bodies["Alex"].tile == tile
    sit = s.sim.situation("Isabella Rodriguez")
    seen = [e for e in sit.events if e.subject == "Alex"]
    assert seen and seen[0].description == "Alex is visiting the town"


class GreeterMind(StandInMind):
    """A stand-in mind that wants to talk to whoever it can."""

    def __init__(self, persona):
        self.persona = persona
        self.name = persona.name
        self.offered: list[list[str]] = []
        self.remembered = []

    def decide(self, situation):
        self.offered.append(list(situation.can_talk_to))
        if situation.can_talk_to:
            return Decision(talk_to=situation.can_talk_to[0], note="wants to talk")
        return Decision(action=Action("reading", "the Ville:Hobbs Cafe:cafe", situation.now, 30, "📖"))

    def utter(self, conversation, now, partner_doing):
        other = conversation.other(self.name)
        return Utterance(self.name, f"Hello {other.split()[0]}, welcome to the Ville!", ends=True)

    def end_conversation(self, conversation, now):
        self.remembered.append(conversation)

    def queue_thought(self, text, importance=8):
        pass

    def inspect(self):
        return Inspection(name=self.name)


def test_a_mind_that_wants_to_talk_to_the_visitor_greets_them(display):
    from agents.residents.persona import load_cast
    from game.runs.session import Session

    cast, _ = load_cast(MAP.parent)
    isa = next(p for p in cast if p.name == "Isabella Rodriguez")
    mind = GreeterMind(isa)
    gw = make_gateway(plausible, via_litellm=False)
    s = Session.create(MAP, residents="Isabella Rodriguez", gateway=gw, minds={isa.name: mind}, visitor_name="Alex")
    try:
        g = make_game(s, display)
        g.visitor.place(_next_to(s, isa.name))
        look_at(g, isa.name)
        for _ in range(60):
            frames(g, 1, display, wait=1.0)
            if s.greetings:
                break
        assert s.greetings, f"no greeting; offered {mind.offered[:3]}"
        gr = s.greetings[0]
        assert gr.resident == isa.name and gr.visitor == "Alex" and "Alex" in gr.text
        assert ["Alex"] in mind.offered  # the visitor was offered like a person
        assert not s.sim.chats  # no mind-to-mind conversation with the visitor
        ev = [e for e in s.sim.events if e["kind"] == "line" and e.get("greeting")]
        assert ev and ev[0]["partner"] == "Alex"
        assert any("greets you" in t for t, _ in g.panels.hud.toasts)
        assert ("greeting", isa.name) in g.panels.bubbles.live
        frames(g, 5, display, wait=1.0)
        assert mind.remembered and mind.remembered[0].lines[0].text == gr.text
        # Not greeted again straight away (the pair's cooldown).
        frames(g, 120, display, wait=0.2)
        assert len(s.greetings) == 1
        assert s.sim.bodies[isa.name].errors == 0
    finally:
        s.close()


class BrokenGreeter(GreeterMind):
    """Wants to talk to the visitor, and then its line fails (raises, or comes back empty)."""

    def __init__(self, persona, how):
        super().__init__(persona)
        self.how = how

    def utter(self, conversation, now, partner_doing):
        if self.how == "raise":
            raise RuntimeError("the model broke mid-greeting")
        return Utterance(self.name, "   ", ends=True)


@pytest.mark.parametrize("how", ["raise", "empty"])
def test_a_greeting_that_fails_is_logged_and_a_plain_hello_stands_in(display, how, caplog):
    from agents import provenance as pv
    from agents.residents.persona import load_cast
    from game.runs.session import Session

    cast, _ = load_cast(MAP.parent)
    isa = next(p for p in cast if p.name == "Isabella Rodriguez")
    gw = make_gateway(plausible, via_litellm=False)
    s = Session.create(MAP, residents=isa.name, gateway=gw, minds={isa.name: BrokenGreeter(isa, how)},
                       visitor_name="Alex")
    try:
        g = make_game(s, display)
        g.visitor.place(_next_to(s, isa.name))
        look_at(g, isa.name)
        with caplog.at_level("WARNING"):
            for _ in range(60):
                frames(g, 1, display, wait=1.0)
                if s.greetings:
                    break
        assert s.greetings, "the failed greeting vanished without a trace"
        assert s.greetings[0].text == "Hello, Alex!"
        line = next(e for e in s.sim.events if e["kind"] == "line" and e.get("greeting"))
        assert pv.kind_of(line["source"]) == pv.RULE  # says a rule wrote it, not the model
        if how == "raise":
            errors = [e for e in s.sim.events if e["kind"] == "error"]
            assert errors and "the model broke mid-greeting" in errors[0]["text"]
            assert s.sim.bodies[isa.name].errors == 1
        assert "greeting" in caplog.text
    finally:
        s.close()


def test_real_minds_may_greet_the_visitor_without_breaking(play, display):
    """Real Mind objects on the scripted model (which always says yes to talking)."""
    s, g = play(residents="Isabella Rodriguez", start=None)
    name = "Isabella Rodriguez"
    s.set_speed(5)
    for _ in range(600):
        g.visitor.place(_next_to(s, name))
        frames(g, 1, wait=0.5)
        if s.greetings:
            break
    assert s.greetings and s.greetings[0].resident == name
    assert not s.sim.chats
    errors = [e for e in s.sim.events if e["kind"] == "error"]
    assert not errors, errors
    mem = s.minds[name].inspect()
    assert "Alex" in mem.known_people


def test_visitor_cannot_walk_through_residents(play):
    s, g = play(residents="Isabella Rodriguez")
    b = s.sim.bodies["Isabella Rodriguez"]
    assert not g.can_enter(*b.tile)


def test_name_box_names_the_visitor(play, display):
    s, g = play(agents=1)
    g.ask_visitor_name("Alex")
    assert s.paused and not g.controls.enabled
    g.panels.namebox.entry.set_text("Isabella Rodriguez")
    assert not g.panels.namebox.submit()  # a resident's name is refused
    g.panels.namebox.entry.set_text("Robin")
    assert g.panels.namebox.submit()
    assert s.visitor_name == "Robin" and g.visitor.name == "Robin" and s.sim.visitor == "Robin"
    assert "Alex" not in s.sim.bodies and not s.paused and g.controls.enabled
    frames(g, 2, display)


def test_help_overlay_toggles(play, display):
    from game.view import keys

    _s, g = play(agents=1)
    assert g.panels.help.controls == keys.help_lines(keys.GAME)  # the key table's rows
    key(g, pygame.K_F1)
    assert g.panels.help.visible
    g.draw(display)
    key(g, pygame.K_ESCAPE)
    assert not g.panels.help.visible and g.running
    key(g, pygame.K_SLASH, unicode="?")
    assert g.panels.help.visible
    key(g, pygame.K_SLASH, unicode="?")
    assert not g.panels.help.visible


def test_gateway_trouble_shows_in_the_hud(play):
    s, g = play(agents=1)

    class Down:
        model = "ollama/qwen"
        status = "model unreachable: connection refused (since 07:00)"
        accounting = s.gateway.accounting

    s.gateway = Down()
    lines = [t for t, _ in g.panels.hud.compose()]
    assert any(t.startswith("model unreachable") for t in lines)
    assert "residents follow their routines" in lines
    # A long status (what to do is at its end) is wrapped, not cut.
    Down.status = 'model unreachable: Ollama has no model "llama3.1:8b"; run: ollama pull llama3.1:8b (since 07:00)'
    assert "ollama pull llama3.1:8b" in " ".join(t for t, _ in g.panels.hud.compose())
    g.toast("saved")
    assert g.panels.hud.toasts[-1][0] == "saved"


def test_each_model_server_shows_its_health_in_the_hud(play, tmp_path):
    """Several servers ([[models]]): one HUD line each, the dead one in red."""
    from fake_openai import FakeOpenAI
    from pydantic import BaseModel

    from agents.model.config import load_config
    from agents.model.gateway import Gateway
    from game.view.hud import BAD

    class Say(BaseModel):
        text: str

    s, g = play(agents=1)
    a, b = FakeOpenAI("a"), FakeOpenAI("b")
    toml = tmp_path / "smallville.toml"
    toml.write_text("".join(f'[[models]]\nmodel = "openai/m"\napi_base = "{x.api_base}"\nname = "{x.name}"\n\n'
                            for x in (a, b)))
    s.gateway = Gateway(load_config({}, env={}, toml_path=toml).with_(cache=None, timeout=3.0))
    a.kill()
    for _ in range(3):
        s.gateway.ask(Say, "hi", purpose="t", fallback=Say(text="F"))
    lines = dict(g.panels.hud.compose())
    b.kill()
    assert lines.get("b: ok 0/4 · 3 served") is not None, lines
    down = [t for t in lines if t.startswith("a: down")]
    assert down and lines[down[0]] == BAD and "model unreachable" not in " ".join(lines)


def test_an_unreachable_model_shows_in_the_hud_through_the_real_path(display):
    """No stub: a real Gateway (litellm) pointed at a loopback port nobody listens on.
    The residents' calls fail to connect, fall back, and the HUD says so."""
    import socket

    from agents.model.gateway import Gateway, load_config
    from game.runs.session import Session

    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there now
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = load_config({"model": "openai/qwen2.5-7b", "api_base": f"http://127.0.0.1:{port}/v1", "timeout": 2,
                          "retries": 0, "deadline": 4, "concurrency": 1}, env={}, toml_path=None)
    gw = Gateway(config)
    s = Session.create(MAP, gateway=gw, embedder=HashEmbedder(64), agents=1, visitor_name="Alex")
    try:
        g = make_game(s, display)
        for _ in range(1200):  # (the first call may instead time out while litellm loads the client)
            frames(g, 1, wait=0.05)
            if any(r.error == "connection" for r in gw.accounting.records()):
                break
        assert gw.status.startswith("model unreachable:"), gw.status
        lines = [t for t, _ in g.panels.hud.compose()]
        assert any(t.startswith("model unreachable") for t in lines) and "residents follow their routines" in lines
        recs = gw.accounting.records()
        assert any(r.error == "connection" for r in recs), [r.error for r in recs]
        assert all(r.outcome == "fallback" for r in recs)
        g.draw(display)  # and it draws
    finally:
        s.close()


def test_a_spent_call_budget_shows_in_the_hud(play):
    s, g = play(agents=2)
    assert not any("budget" in t for t, _ in g.panels.hud.compose())
    mind = next(iter(s.sim.minds.values()))
    mind.budget_hit = s.sim.now  # as Mind.ask sets it when the day's budget runs out ...
    mind.publish()  # ... and the job that spent it publishes when it ends (the HUD reads what was published)
    assert "call budget spent: 1 resident on rules" in [t for t, _ in g.panels.hud.compose()]


def test_main_play_headless_with_a_session(tmp_path):
    from game.app import main_play

    s = make_session(agents=3)
    shot = tmp_path / "play.png"
    try:
        assert main_play(Namespace(map=str(MAP), headless=True, frames=30, screenshot=str(shot),
                                   visitor_name="Alex"), session=s) == 0
    finally:
        s.close()
    assert shot.exists() and s.sim.steps > 0 and s.visitor_name == "Alex"


def test_busy_minds_session_frame_hook(display):
    from lab.standins import busy_minds_session

    s = busy_minds_session(residents=25, delay=(0.05, 0.1))
    try:
        g = make_game(s, display)
        s.set_speed(3)
        frames(g, 30, display)
        assert len([f for f in g.figures() if f.name != s.visitor_name]) == 25
        assert s.pool.in_flight() > 0
    finally:
        s.close()


def test_the_window_installs_the_gc_policy(play):
    from game.runs import gcpolicy

    _s, g = play(agents=1)
    assert gcpolicy.POLICY.installed
    g.update(1 / 60)  # a frame ticks it
