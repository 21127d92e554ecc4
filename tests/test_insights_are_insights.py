"""Reflections that are insights (agents/recall/insights.py): on the embedded model the
candidates are derived from what the memories SAY of people, as the paper's reflections
are ("Klaus Mueller is dedicated to his research on gentrification"), not counts of
meetings ("I often talk with Ayesha Khan."). Each kind from a few memories in the words
the runs store them in (/tmp/runs/week8), names checked, memories cited."""
from __future__ import annotations

from datetime import datetime, timedelta

from agents import provenance as pv
from agents.recall import insights
from agents.recall.memory import MemoryNode
from agents.recall.reflect import reflect
from tests.test_reflect_grounded import ME, answering, make_mind, talk, told

NOW = datetime(2023, 2, 14, 12, 0)
SEED = pv.tag(pv.RULE, pv.SEED)
GIVEN = pv.tag(pv.RULE, "a thought given to the resident")
PLACES = {"Hobbs Cafe", "Oak Hill College", "The Rose and Crown Pub", "Johnson Park"}


class Stream:
    """Memory nodes as a mind stores them, numbered in order."""

    def __init__(self, me: str = ME):
        self.me, self.nodes = me, []

    def add(self, kind, text, at, subject=None, predicate=None, obj=None, source=""):
        self.nodes.append(MemoryNode(len(self.nodes), kind, text, at, at, 5, [], subject, predicate, obj,
                                     source=source))
        return self.nodes[-1]

    def heard(self, who, said, at):
        return self.add("chat", f'{who} told {self.me.split()[0]}: "{said}"', at, who, "told", self.me,
                        pv.tag(pv.RULE, f"grounded: heard from {who}"))

    def seen(self, who, doing, at):
        return self.add("observation", f"{who} is {doing}", at, who, "is", doing)

    def own(self, text, at=NOW - timedelta(days=1), source=SEED, kind="thought"):
        return self.add(kind, text, at, self.me, source=source)


def known(me=ME, people=("Maria Lopez", "Klaus Mueller", "Ayesha Khan", "Sam Moore", "Wolfgang Schulz")):
    return insights.Known(me, set(people) - {me}, set(PLACES))


def derive(s: Stream, now=NOW, k=None):
    return insights.derive(s.nodes, k or known(s.me), "the Ville", now)


def texts(cands, kind=None):
    return [c.text for c in cands if kind is None or c.kind == kind]


def at(day, h, mi=0):
    return datetime(2023, 2, day, h, mi)


# ---------------------------------------------------------------------------- each kind

def test_what_someone_is_dedicated_to_from_what_they_said_and_were_seen_doing():
    s = Stream("Klaus Mueller")
    lines = [s.heard("Ayesha Khan", "I'm researching english literature at the library today; at 5:30 pm I'm "
                                    "having dinner at home. And you?", at(13, 13, 15)),
             s.heard("Ayesha Khan", "Researching english literature at the library is what I'm doing right now; "
                                    "at 3 pm I'm attending the study group at Oak Hill College.", at(14, 13, 31)),
             s.seen("Ayesha Khan", "reading about english literature at a library table", at(14, 15, 0))]
    for i in range(6):  # everyday: not what anyone is like
        s.seen("Maria Lopez", "having a drink at the bar", at(13 + i % 2, 19, i))
    cands = derive(s, now=at(14, 18))
    assert texts(cands, "character") == ["Ayesha Khan is dedicated to researching english literature."]
    (c,) = [c for c in cands if c.kind == "character"]
    assert set(c.evidence) == {x.id for x in lines}


def test_one_afternoon_seen_three_times_is_no_dedication():
    s = Stream("Klaus Mueller")
    for mi in (0, 15, 30):
        s.seen("Ayesha Khan", "researching english literature at the library", at(14, 15, mi))
    assert not texts(derive(s, now=at(14, 18)), "character")


def test_what_ones_own_description_says_one_cares_about_in_ones_own_voice():
    s = Stream("Jennifer Moore")
    cares = s.own("she loves showing her paintings to friends")
    s.own("she lives in a house with her husband Sam Moore")
    cands = derive(s, k=known("Jennifer Moore"))
    assert texts(cands, "character") == ["I love showing my paintings to friends."]
    assert [c.evidence for c in cands if c.kind == "character"] == [(cares.id,)]


def test_what_someone_works_towards_in_their_own_words_even_passed_on():
    s = Stream("Klaus Mueller")
    own = s.heard("Sam Moore", "I have decided to run for mayor of the Ville in the coming local election; nobody "
                               "knows yet.", at(14, 17, 15))
    passed = s.heard("Ayesha Khan", 'Sam Moore told me: "I have decided to run for mayor of the Ville in the coming '
                                    'local election; nobody knows yet."', at(14, 18, 0))
    cands = derive(s, now=at(14, 19))
    (c,) = [c for c in cands if c.kind == "aims"]
    assert c.text == "Sam Moore is working towards running for mayor of the Ville in the coming local election."
    assert set(c.evidence) == {own.id, passed.id}  # the words are Sam's, whoever passed them on


def test_a_gathering_someone_is_planning_until_it_is_over():
    s = Stream("Klaus Mueller")
    news = s.heard("Maria Lopez", "I heard Isabella Rodriguez is hosting a Valentine's Day party at Hobbs Cafe on "
                                  "February 14, from 5 pm to 7 pm.", at(13, 18, 18))
    k = known("Klaus Mueller", ("Maria Lopez", "Isabella Rodriguez"))
    (c,) = [c for c in derive(s, now=at(14, 9), k=k) if c.kind == "aims"]
    assert c.text == "Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe on February 14."
    assert c.evidence == (news.id,)
    assert not texts(derive(s, now=at(15, 9), k=k), "aims")  # the day after: no longer planned


def test_how_two_stand_friends_told_of_guests_who_came_and_invitations():
    s = Stream("Klaus Mueller")
    pair = s.heard("Wolfgang Schulz", "I am a good friend of Ayesha Khan.", at(13, 7, 46))
    came = s.own("I hosted the discussion evening at Hobbs Cafe on February 15; Ayesha Khan came.", at(15, 20),
                 pv.tag(pv.RULE, pv.RECAP))
    asks = [s.heard("Maria Lopez", "I'll be having a coffee at Hobbs Cafe today at 7 pm. Would you like to join me?",
                    at(15 + d, 8, 1)) for d in (0, 1)]
    cands = derive(s, now=at(16, 12))
    bonds = {c.text: c for c in cands if c.kind == "bond"}
    assert set(bonds) == {"Wolfgang Schulz and Ayesha Khan are good friends.",
                          "Ayesha Khan is a good friend who came to my discussion evening.",
                          "Maria Lopez wants to spend time with me."}
    assert bonds["Wolfgang Schulz and Ayesha Khan are good friends."].evidence == (pair.id,)
    assert bonds["Ayesha Khan is a good friend who came to my discussion evening."].evidence == (came.id,)
    assert set(bonds["Maria Lopez wants to spend time with me."].evidence) == {x.id for x in asks}


def test_what_one_wants_oneself():
    s = Stream("Maria Lopez")
    host = s.own("I want to host a study group at Oak Hill College on February 14, from 3 pm to 5 pm, and to invite "
                 "my friends", at(14, 7), pv.tag(pv.REPAIRED, "grounded: chosen from 1 gatherings"))
    crush = s.own("I have a secret crush on Klaus Mueller, and I have not told anyone", source=GIVEN)
    work = s.own("she is writing her senior thesis on the physics of light")
    cands = derive(s, now=at(14, 9), k=known("Maria Lopez"))
    wants = {c.text: c.evidence for c in cands if c.kind == "wants"}
    assert wants == {"I want my study group to be a success.": (host.id,),
                     "I want to get to know Klaus Mueller better.": (crush.id,),
                     "I want to finish my senior thesis on the physics of light.": (work.id,)}
    assert "I want my study group to be a success." not in texts(derive(s, now=at(15, 9), k=known("Maria Lopez")))


def test_a_gathering_looked_forward_to_keeps_its_own_clause_time_and_place():
    s = Stream("Klaus Mueller")
    s.heard("Ayesha Khan", "I'm going to the study group at Oak Hill College on February 17, from 3 pm to 5 pm; at "
                           "7 pm I'm having a drink at the bar at The Rose and Crown Pub.", at(16, 9))
    assert texts(derive(s, now=at(16, 10)), "ahead") == [
        "I am looking forward to the study group at Oak Hill College on February 17 from 3 pm to 5 pm."]


# ---------------------------------------------------------------------------- no tallies, no strangers, citations

def test_counts_of_meetings_are_no_candidates_and_a_content_insight_is_what_is_stored():
    m, gw = make_mind(answering("1"))
    m.start_turn(NOW - timedelta(hours=6))
    m.now = NOW
    m.known_people |= {"Maria Lopez", "Klaus Mueller"}
    # what made "I often talk with Maria Lopez." and "I see a lot of Klaus Mueller." before
    m.remember_many([talk(m, "Maria Lopez", 8), talk(m, "Maria Lopez", 10)]
                    + [dict(kind="observation", text=f"Klaus Mueller is doing thing {i}", importance=2,
                            subject="Klaus Mueller", predicate="is", object=f"doing thing {i}",
                            created=NOW.replace(hour=9, minute=i).isoformat()) for i in range(5)]
                    + [told(m, "Maria Lopez", 11, "I have decided to enter the physics olympiad this spring")])
    (r,) = reflect(m)
    shown = next(c[1][-1]["content"] for c in gw.fake.calls if c[0] == "reflect_choose")
    assert "I often talk with" not in shown and "I see a lot of" not in shown and "keeps coming up" not in shown
    assert "Maria Lopez is working towards entering the physics olympiad this spring." in shown
    assert insights.kind_of(r.source) in insights.KINDS and insights.kind_of(r.source) not in insights.TALLIES
    assert r.evidence and all(f"#{e}" in r.source for e in r.evidence)


def test_a_tally_from_an_older_save_is_still_known_as_one():
    src = pv.tag(pv.REPAIRED, "grounded: chosen from 4 insights (people, from memories #3, #9)")
    assert insights.kind_of(src) in insights.TALLIES


def test_unknown_names_are_refused():
    s = Stream("Klaus Mueller")
    s.heard("Maria Lopez", "I am a good friend of Eduardo Schulz.", at(14, 9))
    s.heard("Maria Lopez", "I have decided to sail to Atlantis with Giorgio Rossi.", at(14, 9, 5))
    for h in (9, 13):
        s.seen("Eduardo Schulz", "researching volcanoes at the library", at(14, h))
        s.seen("Eduardo Schulz", "researching volcanoes at the library", at(15, h))
    cands = derive(s, now=at(15, 18))
    assert all("Eduardo" not in c.text and "Atlantis" not in c.text and "Giorgio" not in c.text for c in cands)
    # a name its description uses is its own to use
    s2 = Stream("Ayesha Khan")
    s2.own("she is writing her senior thesis on Shakespeare's use of language")
    k = insights.known_of("Ayesha Khan", set(), s2.nodes, type("S", (), {"tree": {}})())
    assert texts(insights.derive(s2.nodes, k, "the Ville", NOW), "wants") == [
        "I want to finish my senior thesis on Shakespeare's use of language."]


def test_every_candidate_cites_memories_it_rests_on():
    s = Stream("Klaus Mueller")
    s.own("he cares a lot about fairness and community")
    s.heard("Wolfgang Schulz", "I am a good friend of Ayesha Khan.", at(14, 7))
    s.heard("Sam Moore", "I have decided to run for mayor of the Ville in the coming local election.", at(14, 8))
    s.own("I want to host a discussion evening at Hobbs Cafe on February 15, from 6 pm to 8 pm", at(14, 7),
          pv.tag(pv.REPAIRED, "grounded: chosen from 3 gatherings"))
    cands = derive(s, now=at(14, 12))
    assert {c.kind for c in cands} >= {"character", "aims", "bond", "wants", "ahead"}
    for c in cands:
        assert c.evidence and all(0 <= e < len(s.nodes) for e in c.evidence)


def test_a_gathering_one_declined_is_not_looked_forward_to_and_a_session_keeps_its_article():
    s = Stream("Tamara Taylor")
    s.heard("Carmen Ortiz", "I'm hosting a game night at The Rose and Crown Pub on February 15, from 7 pm to 9 pm. "
                            "Would you like to come?", at(14, 8, 40))
    s.add("chat", "I declined Carmen Ortiz's invitation (the game night at The Rose and Crown Pub on February 15, "
                  "from 7 pm to 9 pm)", at(14, 8, 41), "Tamara Taylor", "declined", "Carmen Ortiz")
    s.heard("Sam Moore", "I heard Jennifer Moore is hosting a sketching session at Johnson Park on February 15, from "
                         "2 pm to 4 pm.", at(14, 9))
    k = known("Tamara Taylor", ("Carmen Ortiz", "Sam Moore", "Jennifer Moore"))
    assert texts(derive(s, now=at(14, 10), k=k), "ahead") == [
        "I am looking forward to the sketching session at Johnson Park on February 15 from 2 pm to 4 pm."]


def test_what_happened_is_offered_before_what_only_the_description_says():
    s = Stream("Klaus Mueller")
    s.own("he cares a lot about fairness and community")
    s.heard("Sam Moore", "I have decided to run for mayor of the Ville in the coming local election.", at(14, 8))
    first = derive(s, now=at(14, 12))[0]
    assert first.text == "Sam Moore is working towards running for mayor of the Ville in the coming local election."


def test_a_gathering_under_way_when_told_of_is_not_looked_forward_to():
    s = Stream("Maria Lopez")
    s.heard("Klaus Mueller", "I'm attending the game night just now; at 9 pm I'm having a drink at the bar.",
            at(14, 19))
    s.heard("Sam Moore", "I'm attending the game night today; at 9 pm I'm having a coffee at Hobbs Cafe.", at(14, 20))
    assert not texts(derive(s, now=at(14, 21, 44), k=known("Maria Lopez")), "ahead")
