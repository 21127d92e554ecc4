"""Perception: attention bandwidth, retention (the paper's last 8, and the last
hour), the resident's own doing remembered, importance rated by the model in
batches (or by a rule that says so)."""
from datetime import datetime, timedelta

from agents.recall.perceive import perceive
from agents.support.types import Action
from tests.scripted_minds import event, garbage, make_mind, plausible, situation

NOW = datetime(2023, 2, 13, 9, 0)


def mind(responder=plausible):
    m, gw = make_mind(responder)
    m.now = NOW
    return m, gw


def purposes(gw):
    return [c[0] for c in gw.fake.calls]


def test_bandwidth_keeps_the_nearest_eight_and_skips_own_events():
    m, gw = mind()
    evs = [event("Isabella Rodriguez", "making coffee")] + [event(f"Person {i} Smith", f"doing task {i}")
                                                           for i in range(12)]
    salient = perceive(m, evs)
    obs = m.memory.by_kind("observation")
    assert [x.subject for x in obs] == [f"Person {i} Smith" for i in range(8)]  # nearest first
    assert len(salient) == 8
    assert purposes(gw) == []  # stored now; rated later, in a batch
    assert all(x.importance_source.startswith("rule: until the model rates it") for x in obs)
    m.rate_waiting()
    assert purposes(gw) == ["importance"]  # eight waiting: one call rates them all
    assert [x.importance for x in obs] == [4] * 8 and {x.importance_source for x in obs} == {"model"}
    assert m.unrated == []


def test_ratings_wait_for_a_batch_or_an_hour():
    m, gw = mind()
    perceive(m, [event("Maria Lopez", "reading a book")])
    m.rate_waiting()
    assert purposes(gw) == []  # one alone waits
    m.now = NOW + timedelta(minutes=61)
    m.rate_waiting()
    assert purposes(gw) == ["importance"] and m.memory.nodes[0].importance_source == "model"


def test_a_sight_seen_before_in_the_same_words_keeps_its_rating_without_a_call():
    """The next day's 'Maria Lopez is reading a book' is rated as yesterday's was, and says so;
    a rating the model never gave (a failure, or one still waiting) is not copied."""
    m, gw = mind()
    perceive(m, [event("Maria Lopez", "reading a book")])
    m.now = NOW + timedelta(minutes=61)
    m.rate_waiting()
    first = m.memory.nodes[0]
    assert purposes(gw) == ["importance"] and first.importance == 4
    m.now = NOW + timedelta(days=1)
    perceive(m, [event(f"Person {i} Jones", "waving") for i in range(8)])  # out of the last eight
    m.rate_waiting(force=True)
    perceive(m, [event("Maria Lopez", "reading a book"), event("Klaus Mueller", "writing a paper")])
    again = m.memory.nodes[-2]
    assert again.description == first.description and again.importance == 4
    assert again.importance_source == f"model: as memory #{first.id}, in the same words"
    assert m.unrated == [m.memory.nodes[-1].id]  # only the new sight waits for the model

    m2, _ = mind(garbage)  # the model's rating failed: the next sight asks again
    perceive(m2, [event("Maria Lopez", "reading a book")])
    m2.now = NOW + timedelta(minutes=61)
    m2.rate_waiting()
    assert m2.memory.nodes[0].importance_source == "rule: invalid answer"
    m2.now = NOW + timedelta(days=1)
    perceive(m2, [event(f"Person {i} Jones", "waving") for i in range(8)])
    m2.unrated.clear()
    perceive(m2, [event("Maria Lopez", "reading a book")])
    assert m2.memory.nodes[-1].description == "Maria Lopez is reading a book"
    assert m2.unrated == [m2.memory.nodes[-1].id]


def test_own_doing_is_remembered_once_not_reacted_to():
    m, _ = mind()
    m.action = Action("brewing coffee", "the Ville:Hobbs Cafe:cafe:coffee machine", NOW, 15)
    assert perceive(m, [event("Maria Lopez", "reading a book")]) == [event("Maria Lopez", "reading a book")]
    own = [x for x in m.memory.nodes if x.subject == m.name]
    assert [x.description for x in own] == ["Isabella Rodriguez is brewing coffee"]
    perceive(m, [])
    assert len([x for x in m.memory.nodes if x.subject == m.name]) == 1


def test_retention_skips_what_was_just_seen():
    m, _gw = mind()
    evs = [event("Maria Lopez", "reading a book"), event("Klaus Mueller", "writing a paper")]
    perceive(m, evs)
    assert perceive(m, evs) == []  # same (s, p, o): not news
    assert len(m.memory) == 2
    others = [event(f"Person {i} Smith", "waving") for i in range(8)]
    perceive(m, others[:8])  # pushes the first two out of the paper's retention window of 8 ...
    assert perceive(m, evs) == []  # ... but they were seen within the hour: still not news
    m.now = NOW + timedelta(minutes=61)
    perceive(m, [event(f"Person {i} Jones", "waving") for i in range(8)])
    assert len(perceive(m, evs)) == 2  # an hour later, and out of the last eight: news again


def test_idle_events_are_rated_by_rule_and_objects_are_salient_when_active():
    m, _gw = mind()
    evs = [event("Maria Lopez", "idle"), event("Klaus Mueller", "sleeping"),
           event("the Ville:Hobbs Cafe:cafe:stove", "idle"),
           event("the Ville:Hobbs Cafe:cafe:coffee machine", "brewing coffee")]
    salient = perceive(m, evs)
    assert [e.subject for e in salient] == ["the Ville:Hobbs Cafe:cafe:coffee machine"]
    by = {x.subject: x for x in m.memory.nodes}
    assert by["Maria Lopez"].importance == 1 and by["Maria Lopez"].importance_source == "rule: idle"
    assert len(m.unrated) == 1  # only the coffee machine waits for the model's rating
    assert m.senses.object_states["the Ville:Hobbs Cafe:cafe:coffee machine"] == "brewing coffee"
    assert {"Maria Lopez", "Klaus Mueller"} <= m.known_people


def test_bad_ratings_keep_the_rules_and_say_why():
    m, _gw = mind(garbage)
    perceive(m, [event("Maria Lopez", "dancing"), event("the Ville:Hobbs Cafe:cafe:piano", "being played")])
    m.rate_waiting(force=True)
    assert [x.importance for x in m.memory.nodes] == [3, 2]
    assert {x.importance_source for x in m.memory.nodes} == {"rule: invalid answer"}
    assert m.fallbacks["importance: invalid answer"] == 1 and m.unrated == []


def test_importance_schema_bounds_each_rating():
    from agents.recall.perceive import importance_schema

    js = importance_schema(2).model_json_schema()
    items = js["properties"]["ratings"]["items"]
    assert items.get("minimum") == 1 and items.get("maximum") == 10


def test_unchanged_idle_objects_are_stored_once_however_long_the_town_runs():
    """Per object: what it was seen doing and when. A bed seen idle all day is one
    memory; when it changes it is news, and idle again afterwards is news once more."""
    m, _ = mind()
    bed = "the Ville:Lin family's house:Eddy Lin's bedroom:bed"
    desk = "the Ville:Lin family's house:Eddy Lin's bedroom:desk"
    for k in range(3 * 24 * 6):  # three sim days, every ten minutes
        m.now = NOW + timedelta(minutes=10 * k)
        perceive(m, [event(bed, "idle"), event(desk, "idle")] + [event(f"Person {i} Smith", "idle") for i in range(6)])
    assert len(m.memory) == 8  # each seen once
    assert len(m.senses.seen_at) == 8  # bounded by what there is to see, not by time
    perceive(m, [event(bed, "being slept in")])
    perceive(m, [event(bed, "idle")])
    assert [x.object for x in m.memory.nodes if x.subject == bed] == ["idle", "being slept in", "idle"]
    assert len(m.senses.seen_at) == 8  # the bed's older states are gone from it


def test_what_was_seen_survives_a_save_and_an_old_save_keeps_the_latest_sight():
    from agents.recall.perceive import Senses

    m, _ = mind()
    stove = "the Ville:Hobbs Cafe:cafe:stove"
    perceive(m, [event(stove, "idle")])
    again = Senses()
    again.from_state(m.senses.to_state())
    assert again.to_state() == m.senses.to_state()
    old = {"retained": [], "object_states": {}, "last_react": None,  # a save from before: one entry per triple
           "seen_at": {f"{stove}|is|idle": "2023-02-13T08:00:00", f"{stove}|is|cooking": "2023-02-13T09:00:00"}}
    again.from_state(old)
    assert again.seen_at == {f"{stove}|is|cooking": datetime(2023, 2, 13, 9, 0)}
    assert again.saw(stove, f"{stove}|is|cooking", NOW) is not None


def test_what_was_seen_is_capped(monkeypatch):
    import agents.recall.perceive as perceive_mod

    monkeypatch.setattr(perceive_mod, "SEEN_LIMIT", 5)
    m, _ = mind()
    for i in range(9):
        perceive(m, [event(f"the Ville:cafe:chair {i}", "idle")])
    assert len(m.senses.seen_at) == 5 and all(f"chair {i}" in "".join(m.senses.seen_at) for i in range(4, 9))


def test_importance_is_rated_beside_the_decision_and_taken_after_it():
    """A decide job's batch of ratings goes out on a thread of its own as the job goes on:
    the model has both questions at once. The decision reads the rule's ratings (as it
    reads those of memories still waiting for a batch); the model's land after it, in the
    job, whatever the threads' timing. A call the budget withholds is no call at all."""
    import threading

    from agents.mind.core import Mind

    other_asked = threading.Event()
    seen: dict[str, object] = {}
    holder: dict[str, Mind] = {}

    def responder(purpose, messages, schema):
        if purpose == "importance":
            seen["overlapped"] = other_asked.wait(10)  # the decision's call comes while this one is out
        elif "rule_ratings" not in seen:
            obs = holder["m"].memory.by_kind("observation")
            seen["rule_ratings"] = bool(obs) and all(x.importance_source.startswith("rule") for x in obs)
            other_asked.set()
        return plausible(purpose, messages, schema)

    m, _ = mind(responder)
    holder["m"] = m
    evs = [event(f"Person {i} Smith", f"doing task {i}") for i in range(8)]
    m.decide(situation(NOW, events=evs))
    assert seen["overlapped"] and seen["rule_ratings"]
    obs = m.memory.by_kind("observation")
    assert {x.importance_source for x in obs} == {"model"} and not {x.id for x in obs} & set(m.unrated)
    assert m.budget.calls["importance"] == 1  # what the decision remembered since waits for the next batch

    m2, gw2 = mind()
    m2.budget.guards["importance"] = 0  # the loop guard allows no rating today
    m2.decide(situation(NOW, events=evs))
    assert "importance" not in purposes(gw2) and m2.budget.skipped["importance"] == 1
    assert all("budget" in x.importance_source for x in m2.memory.by_kind("observation"))


def test_a_rating_beside_the_decision_that_fails_leaves_the_rules_rating_and_says_why():
    def responder(purpose, messages, schema):
        return garbage(purpose, messages, schema) if purpose == "importance" else plausible(purpose, messages, schema)

    m, gw = mind(responder)
    m.decide(situation(NOW, events=[event(f"Person {i} Smith", f"doing task {i}") for i in range(8)]))
    obs = m.memory.by_kind("observation")
    assert "importance" in purposes(gw) and not {x.id for x in obs} & set(m.unrated)
    assert all(x.importance_source.startswith("rule") and x.importance == 3 for x in obs)
    assert any(k.startswith("importance") for k in m.fallbacks)
