"""Perception: attention bandwidth, retention, one batched importance call."""
from datetime import datetime

from agents.perceive import perceive
from tests.scripted_minds import event, garbage, make_mind, plausible

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
    assert purposes(gw) == ["importance"]  # one call rates them all
    assert [x.importance for x in obs] == [4] * 8


def test_retention_skips_what_was_just_seen():
    m, gw = mind()
    evs = [event("Maria Lopez", "reading a book"), event("Klaus Mueller", "writing a paper")]
    perceive(m, evs)
    assert perceive(m, evs) == []  # same (s, p, o): not news, no call
    assert len(m.memory) == 2 and purposes(gw) == ["importance"]
    others = [event(f"Person {i} Smith", "waving") for i in range(8)]
    perceive(m, others[:8])  # pushes the first two out of the retention window of 8
    assert len(perceive(m, evs)) == 2


def test_idle_events_cost_no_call_and_objects_are_salient_when_active():
    m, gw = mind()
    evs = [event("Maria Lopez", "idle"), event("Klaus Mueller", "sleeping"),
           event("the Ville:Hobbs Cafe:cafe:stove", "idle"),
           event("the Ville:Hobbs Cafe:cafe:coffee machine", "brewing coffee")]
    salient = perceive(m, evs)
    assert [e.subject for e in salient] == ["the Ville:Hobbs Cafe:cafe:coffee machine"]
    imp = {x.subject: x.importance for x in m.memory.nodes}
    assert imp["Maria Lopez"] == 1 and imp["Klaus Mueller"] == 1
    assert purposes(gw) == ["importance"]  # only the coffee machine was rated
    assert m.object_states["the Ville:Hobbs Cafe:cafe:coffee machine"] == "brewing coffee"
    assert {"Maria Lopez", "Klaus Mueller"} <= m.known_people
    assert perceive(m, [event("Carlos Gomez", "is idle")]) == [] and purposes(gw) == ["importance"]


def test_bad_ratings_fall_back_to_rules():
    m, gw = mind(garbage)
    perceive(m, [event("Maria Lopez", "dancing"), event("the Ville:Hobbs Cafe:cafe:piano", "being played")])
    assert [x.importance for x in m.memory.nodes] == [3, 2]


def test_importance_schema_bounds_each_rating():
    from agents.perceive import importance_schema

    js = importance_schema(2).model_json_schema()
    items = js["properties"]["ratings"]["items"]
    assert items.get("minimum") == 1 and items.get("maximum") == 10
