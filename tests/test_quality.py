"""Quality of what residents do: the activity validators and fallbacks
(agents/words/activity.py), drawable emoji (agents/words/emoji_vocabulary.py), relationship-summary
checks, and a checker for a run's timeline.

The checker also runs on a run folder:
    .venv/bin/python tests/test_quality.py runs/q1 [runs/q2 ...]
and prints the share of junk action texts, misplaced ones and undrawable emoji.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace as NS

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import itertools

from agents.words import activity as A
from agents.words import emoji_vocabulary as E

JUNK = ["5 minutes", "life", "action", "work", "👍👍👍👍", "🌾", "10:00", "", "   ", "step 1 of the task",
        "coffee coffee coffee", "activity", "spinning", "living in the dorm", "the library", "{}",
        "minutes: 10", "30", "Klaus Mueller", "and and and and"]
GOOD = {  # raw model text -> what the timeline shows
    "Make coffee": "making coffee",
    # a long phrase is cut at its second doing, not inside a place's name (Isabella declined
    # coffee: "I'm having a drink at The Rose then")
    "having a drink at The Rose and Crown Pub": "having a drink at The Rose and Crown Pub",
    "Wake up": "waking up",
    "Isabella Rodriguez makes breakfast.": "making breakfast",
    "She brushes her teeth": "brushing her teeth",
    "Isabella is opening the cafe and greeting her first customers with a smile": "opening the cafe",
    "serving customers at the counter": "serving customers at the counter",
    "Step 2: wipe down the tables": "wiping down the tables",
    "Studies physics": "studying physics",
    "☕ brewing coffee for the morning rush": "brewing coffee for the morning rush",
}
BATH = "the Ville:Dorm for Oak Hill College:man's bathroom"
CAFE = "the Ville:Hobbs Cafe:cafe"
KITCHEN = "the Ville:Dorm for Oak Hill College:kitchen"
LIBRARY = "the Ville:Oak Hill College:library"


def action_problem(text: str, address: str, emoji: str | None = None, hour: int | None = None) -> str | None:
    """Why a timeline action reads badly, or None: junk words, a clash with its
    place or hour, an emoji the game cannot draw."""
    if text == "sleeping":
        return None
    p = A.problem(text)
    if p:
        return f"junk ({p})"
    if not A.fits_place(text, address):
        return "does not fit the place"
    if hour is not None and not A.fits_time(text, hour):
        return "does not fit the hour"
    if emoji is not None and emoji not in E.VOCABULARY:
        return "emoji not drawable"
    return None


def check_run(folder: str | Path) -> dict:
    events = [json.loads(x) for x in Path(folder, "events.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    acts = [e for e in events if e["kind"] == "action"]
    why = Counter()
    bad = []
    emoji_off = 0
    for e in acts:
        hour = datetime.fromisoformat(e["time"]).hour
        p = action_problem(e["text"], e["address"], e.get("emoji"), hour)
        if p:
            why[p.split(" (")[0]] += 1
            bad.append((e["resident"], e["text"], e["address"].split(":", 2)[-1], p))
        kw = E.keyword_emoji(e["text"])
        if kw and e.get("emoji") != kw and e["text"] != "sleeping":
            emoji_off += 1
    by = Counter(e["resident"] for e in acts)
    distinct = {r: len({e["text"] for e in acts if e["resident"] == r}) for r in by}
    summary = json.loads(Path(folder, "summary.json").read_text()) if Path(folder, "summary.json").exists() else {}
    return dict(actions=len(acts), bad=len(bad), bad_share=round(len(bad) / max(1, len(acts)), 3), why=dict(why),
                emoji_disagrees=emoji_off, distinct_texts=distinct, examples=bad[:12],
                wall_s=summary.get("wall_s"), by_purpose={k: (v["calls"], v.get("fallback", 0))
                                                          for k, v in summary.get("by_purpose", {}).items()})


# ------------------------------------------------------------------------------ tests
def test_junk_texts_are_rejected():
    for raw in JUNK:
        assert A.clean_activity(raw, "Klaus Mueller") is None, raw
        assert action_problem(raw, CAFE) is not None, raw


def test_usable_texts_are_normalized_to_verb_led_phrases():
    for raw, want in GOOD.items():
        assert A.clean_activity(raw, "Isabella Rodriguez") == want, raw


def test_gerunds():
    assert [A.gerund(v) for v in ("make", "get", "lie", "see", "brew", "shop")] == [
        "making", "getting", "lying", "seeing", "brewing", "shopping"]


def test_place_and_time_clashes():
    assert not A.fits_place("working at the classroom", BATH)
    assert not A.fits_place("serving customers at the counter", BATH)
    assert A.fits_place("taking a shower", BATH) and A.fits_place("brushing teeth", BATH)
    assert not A.fits_place("taking a shower", CAFE)
    assert A.fits_place("having breakfast", KITCHEN) and not A.fits_place("having breakfast", LIBRARY)
    assert not A.fits_place("going to the library", KITCHEN)  # the sim walks; the action is what they do there
    assert A.fits_place("reading about gentrification at a library table", LIBRARY)
    assert not A.fits_time("having breakfast", 20) and A.fits_time("having breakfast", 7)
    assert not A.fits_time("spending the evening unwinding", 13) and A.fits_time("having dinner", 18)
    assert A.arena_kind("the Ville:artist's co-living space:Abigail Chen's room:easel") == "bedroom"
    assert A.arena_kind("the Ville:Isabella Rodriguez's apartment:main room") == "main room"


def _cast():
    from agents.residents.persona import load_cast

    return {p.name: p for p in load_cast(Path(__file__).resolve().parents[1] / "maps" / "the_ville")[0]}


def test_fallbacks_are_persona_specific_varied_and_fit_their_place():
    cast = _cast()
    for p in cast.values():
        for desc, addr in [(A.work_title(p), p.workplace), ("having breakfast", p.home),
                           ("waking up and getting ready for the day", p.home)]:
            steps = A.fallback_steps(desc, addr, p, 60)
            assert sum(m for _, m in steps) == 60
            for text, _ in steps:
                assert A.problem(text) is None and A.fits_place(text, addr), (p.name, text, addr)
    isa, klaus, maria = cast["Isabella Rodriguez"], cast["Klaus Mueller"], cast["Maria Lopez"]
    assert A.work_title(isa) == "running the cafe"
    assert "gentrification" in A.work_title(klaus) and "physics" in A.work_title(maria)
    cafe = [t for t, _ in A.fallback_steps("running the cafe", isa.workplace, isa, 60)]
    assert len(set(cafe)) >= 3 and any("coffee" in t for t in cafe)
    # a customer at the cafe does not serve coffee
    assert not any("serving" in t for t in A.work_steps(maria, "cafe"))


def test_emoji_come_from_the_drawable_vocabulary():
    assert len(E.VOCABULARY) == 88
    assert E.emoji_for("brewing coffee for the morning rush") == "☕"
    assert E.emoji_for("brushing teeth") == "🪥"
    assert E.emoji_for("getting ready for the day") != "📖"
    assert E.emoji_for("reading a book") == "📖"
    assert E.emoji_for("staring into space", "🌾", "cafe") == "☕"  # undrawable proposal: the place's emoji
    assert E.emoji_for("staring into space", "👍👍👍👍") == E.DEFAULT
    assert E.nearest("🏃‍♀️") == "🏃" and E.nearest("🍴") == "🍽️" and E.nearest("☕📖") == "☕"
    for _, e in E.TABLE:
        assert e in E.VOCABULARY
    for e in E.PLACE_EMOJI.values():
        assert e in E.VOCABULARY


def test_steps_replace_junk_and_keep_good_model_steps():
    from datetime import timedelta

    from agents import provenance as pv
    from agents.planning import plan as P
    from agents.planning.decompose import validate_steps
    from agents.recall.spatial import SpatialMemory

    isa = _cast()["Isabella Rodriguez"]
    sp = SpatialMemory()
    sp.seed(isa)
    start = datetime(2023, 2, 13, 9, 0)
    item = P.PlanItem(start, 60, "running the cafe", isa.workplace)
    objs = sp.objects(isa.workplace)
    resolve = {o.rsplit(":", 1)[1]: o for o in objs}.get
    raw = [NS(activity="Isabella greets the first customers", minutes=10, place="cafe counter"),
           NS(activity="5 minutes", minutes=10, place="piano"),
           NS(activity="👍👍👍", minutes=15, place="coffee machine"),
           NS(activity="taking a shower", minutes=10, place="cafe counter")]
    stats = Counter()
    acts = validate_steps(raw, sp, item, start, start + timedelta(minutes=60), resolve, persona=isa, stats=stats)
    assert acts[0].description == "greeting the first customers" and acts[0].address.endswith("cafe counter")
    assert acts[0].source == pv.MODEL
    texts = [a.description for a in acts]
    assert not any(A.problem(t) or not A.fits_place(t, isa.workplace) for t in texts), texts
    assert stats["decompose_step_rejected"] == 3 and stats["decompose_step"] == 4
    assert [pv.kind_of(a.source) for a in acts[1:4]] == ["rule"] * 3  # the resident's own steps, marked
    assert sum(a.duration_min for a in acts) == 60
    for a, b in itertools.pairwise(acts):
        assert a.end == b.start
    assert all(a.emoji in E.VOCABULARY for a in acts)


def test_steps_that_stop_short_are_continued_by_rule():
    from datetime import timedelta

    from agents.planning import plan as P
    from agents.planning.decompose import validate_steps
    from agents.recall.spatial import SpatialMemory

    isa = _cast()["Isabella Rodriguez"]
    sp = SpatialMemory()
    sp.seed(isa)
    start = datetime(2023, 2, 13, 9, 0)
    item = P.PlanItem(start, 60, "running the cafe", isa.workplace)
    acts = validate_steps([NS(activity="brew coffee", minutes=15, place="coffee machine"),
                           NS(activity="greet customers", minutes=10, place="cafe counter")],
                          sp, item, start, start + timedelta(minutes=62), None, persona=isa)
    assert acts[-1].end == start + timedelta(minutes=62)
    assert [a.source for a in acts[:2]] == ["model", "model"]  # no place given: an object that suits it
    assert [a.duration_min for a in acts[:2]] == [15, 15]  # the model's steps, lengthened to 15 minutes
    tail = [a for a in acts if a.source == "rule: the model's steps stopped short"]
    assert tail and sum(a.duration_min for a in tail) == 32


def test_day_plan_slots_keep_good_words_and_replace_the_rest():
    from agents.planning import plan as P
    from agents.recall.spatial import SpatialMemory
    from agents.residents.mind_settings import MindSettings

    klaus = _cast()["Klaus Mueller"]
    sp = SpatialMemory()
    sp.seed(klaus)
    day = datetime(2023, 2, 13, 7, 0)
    routine = P.routine(klaus, sp, day, MindSettings())
    schema = P.slots_schema(tuple(f"{x.start:%H:%M}" for x in routine[:-1]))
    answer = {f"{x.start:%H:%M}": x.description for x in routine[:-1]}
    answer.update({"07:30": "having dinner", "12:00": "Klaus has lunch at Hobbs Cafe with friends",
                   "13:00": "life", "19:00": "take a walk in the park"})
    got = schema.model_validate(answer)
    stats = Counter()
    plan = P.plan_from_slots(got, routine, klaus, sp, day, stats)
    by = {f"{x.start:%H:%M}": x for x in plan}
    assert by["07:30"].description == "having breakfast"  # dinner at 07:30: the routine's words
    assert by["12:00"].description == "having lunch at Hobbs Cafe with friends"
    assert by["12:00"].address.endswith("Hobbs Cafe:cafe")
    assert by["13:00"].description == routine[4].description
    assert by["19:00"].description == "taking a walk in the park" and by["19:00"].address.endswith("park")
    assert stats["day_plan_slot_rejected"] == 2
    assert [x.start for x in plan] == [x.start for x in routine] and P.is_sleep(plan[-1].description)


def test_relationship_summaries_may_only_name_people_in_memories():
    from agents.talk.converse import relationship_problem

    mems = ["Isabella Rodriguez is hosting a party at Hobbs Cafe", "Maria Lopez studies physics"]
    me, other = "Maria Lopez", "Isabella Rodriguez"
    assert relationship_problem("Maria Rodriguez is hosting a party at the cafe.", me, other, mems, set())
    assert relationship_problem("They are close friends.", me, other, mems, set())  # does not name Isabella
    assert relationship_problem("Isabella Rodriguez and Tom Hanks run the cafe.", me, other, mems, set())
    assert relationship_problem("Isabella is a close friend who is hosting a party at Hobbs Cafe.",
                                me, other, mems, set()) is None
    assert relationship_problem("Isabella runs Hobbs Cafe near Johnson Park since Monday February 13.",
                                me, other, mems, set(), {"Johnson", "Park"}) is None


def test_a_junk_reaction_is_no_reaction_and_model_plans_are_used():

    from tests.scripted_minds import event, make_mind, plausible, situation

    def responder(purpose, messages, schema):
        if purpose == "react":
            return {"react": True, "activity": "5 minutes", "minutes": 10}
        return plausible(purpose, messages, schema)

    m, gw = make_mind(responder)
    now = datetime(2023, 2, 13, 9, 0)
    d = m.decide(situation(now, events=[event("Maria Lopez", "dancing on the tables")], done=True))
    assert "reacted" not in d.note and m.rejected["react"] == 1
    assert d.action is not None and A.problem(d.action.description) is None
    assert any(x.description == "working on projects" for x in m.plan)  # the model's words, on the routine's times
    assert gw.accounting.summary()["by_purpose"]["day_plan"]["fallback"] == 0


if __name__ == "__main__":
    for folder in sys.argv[1:]:
        r = check_run(folder)
        print(f"== {folder}: {r['actions']} actions, {r['bad']} bad ({r['bad_share']:.0%}) {r['why']}; "
              f"emoji disagreeing with the keyword table: {r['emoji_disagrees']}; "
              f"distinct texts {r['distinct_texts']}; "
              f"wall {r['wall_s']} s")
        print("   calls, fallbacks per purpose:", r["by_purpose"])
        for x in r["examples"]:
            print("   ", x)
