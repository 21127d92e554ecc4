"""Reflection: the trigger at the threshold, citations that point at real nodes, trees."""
from datetime import datetime

from agents.recall.reflect import reflect, should_reflect
from tests.scripted_minds import make_mind, plausible

NOW = datetime(2023, 2, 13, 15, 0)


def fill(m, total, step=5):
    """Observations whose importance sums to `total`."""
    for i in range(total // step):
        m.memory.add("observation", f"Isabella saw community event number {i}", NOW, step,
                     m.embed([f"community event {i}"])[0])


def messages_shown(gw) -> str:
    return "\n".join(c[1][-1]["content"] for c in gw.fake.calls if c[0] == "reflect_insights")


def test_trigger_is_exactly_past_the_threshold():
    m, _ = make_mind()
    m.now = NOW
    fill(m, 150)
    assert m.memory.importance_since_reflection == 150 and not should_reflect(m)
    m.memory.add("observation", "one more thing", NOW, 1, m.embed(["one more"])[0])
    assert should_reflect(m)


def test_decide_reflects_once_with_real_citations():
    from tests.scripted_minds import situation

    m, gw = make_mind(plausible)
    m.now = NOW
    fill(m, 155)
    before = len(m.memory)
    m.decide(situation(NOW))
    refl = m.memory.by_kind("reflection")
    assert refl and all(x.id >= before for x in refl)
    for r in refl:
        # Every citation is a real, earlier node (the scripted record 99 was dropped).
        assert r.evidence and all(0 <= e < r.id for e in r.evidence)
        assert all(m.memory.get(e).description in messages_shown(gw) for e in r.evidence)
    purposes = [c[0] for c in gw.fake.calls]
    assert purposes.count("reflect_questions") == 1 and purposes.count("reflect_insights") == 3
    assert m.memory.importance_since_reflection < 150
    n = len(gw.fake.calls)
    m.decide(situation(NOW))
    assert [c[0] for c in gw.fake.calls[n:]].count("reflect_questions") == 0


def test_insight_without_valid_evidence_is_dropped_and_trees_form():
    answers = iter([[{"insight": "Invented.", "evidence": [42, 77]}]])
    count = iter(range(1000))

    def responder(purpose, messages, schema):
        if purpose == "reflect_insights":
            shown = messages[-1]["content"].count("\n") + 1
            try:
                return {"insights": next(answers)}
            except StopIteration:
                n = next(count)  # a new insight each time: a copy of a record is not an insight
                return {"insights": [{"insight": f"Isabella cares about her community, more each day ({n}).",
                                      "evidence": list(range(1, min(shown, 5) + 1))}]}
        return plausible(purpose, messages, schema)

    m, _ = make_mind(responder)
    m.now = NOW
    fill(m, 155)
    first = reflect(m)
    assert "Invented." not in [x.description for x in first]
    assert first  # the other two questions gave grounded insights
    fill(m, 155)
    second = reflect(m)
    cited = {e for r in second for e in r.evidence}
    assert any(m.memory.get(e).kind == "reflection" for e in cited)  # reflections on reflections
