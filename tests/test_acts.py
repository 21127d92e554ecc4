"""The dialogue acts as values (agents/talk/acts.py): one registry whose flags the rest reads,
a line that carries its act as data (Utterance.act) agreeing with its provenance text, old
saves whose lines carry only the text still read, and a new act added in one entry and one
builder ("compliment", the walk-through in docs/development.md)."""
from __future__ import annotations

from datetime import datetime

from agents import dialogue as dg
from agents.mind.core import Mind
from agents.support.types import Conversation, Utterance
from agents.talk import acts
from agents.talk.knowing import Turn
from game.sim.conversations import conversation_from_dict
from tests.scripted_minds import grounded_mind
from tests.scripted_minds import talk as scripted_talk

NOW = datetime(2023, 2, 13, 10, 0)
PARTY = "I want to host a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm"


def mind(name: str = "Isabella Rodriguez", thoughts: tuple[str, ...] = ()) -> Mind:
    return grounded_mind(name, NOW, thoughts)


def talk(a: Mind, b: Mind) -> Conversation:
    return scripted_talk(a, b, NOW)


def test_the_registry_says_what_each_act_is():
    names = [a.name for a in acts.ACTS]
    assert len(set(names)) == len(names) and all(str(a) == a.name for a in acts.ACTS)
    assert set(acts.OFFERS) == {acts.INVITE, acts.MEET}
    assert set(acts.RESPONSIVE) == {acts.ANSWER, acts.REACT, acts.ACCEPT, acts.DECLINE}
    assert set(acts.HEARD_ACTS) == {acts.TELL, acts.INVITE, acts.ANSWER, acts.MEET}
    assert {a for a in acts.ACTS if a.answers_offer} == {acts.ACCEPT, acts.DECLINE}
    assert (acts.ACCEPT.leaves, acts.DECLINE.leaves) == (acts.ARRANGEMENT, acts.REFUSAL)
    assert {a for a in acts.ACTS if a.reacted_to} == {acts.TELL, acts.ANSWER, acts.ACCEPT, acts.DECLINE}
    assert all(a.words is None or callable(a.words) for a in acts.ACTS)
    assert dg.ACTS is acts.ACTS and dg.INVITE is acts.INVITE  # the door names the same values


def test_an_act_is_recorded_as_text_that_reads_back():
    assert acts.ASK.recorded("day") == "act ask (day)" and acts.TELL.recorded("news:party") == "act tell"
    for a in acts.ACTS:
        for topic in ("", "person:Klaus Mueller"):
            assert acts.act_of(f"repaired: grounded: memory #3 (x); {a.recorded(topic)}") == (a, a.note_of(topic))
    assert acts.act_of(None) == (None, "") and acts.act_of("act nonsense") == (None, "")


def test_a_line_carries_its_act_and_the_same_act_is_in_its_provenance():
    c = talk(mind(thoughts=(PARTY,)), mind("Maria Lopez"))
    assert len(c.lines) >= 3
    for u in c.lines:
        assert u.act in acts.BY_NAME and acts.act_and_note(u) == acts.act_of(u.source), u
    assert c.lines[0].act == "invite"
    # a line remade without the field (as the simulation logs it) reads the same from its text
    bare = [Utterance(u.speaker, u.text, u.ends, u.source) for u in c.lines]
    assert [acts.act_and_note(u) for u in bare] == [acts.act_and_note(u) for u in c.lines]


def test_an_old_save_whose_lines_have_no_act_field_still_reads_their_acts():
    old = {"participants": ["Isabella Rodriguez", "Maria Lopez"], "address": "the Ville:Hobbs Cafe:cafe",
           "started": NOW.isoformat(), "lines": [
               {"speaker": "Isabella Rodriguez", "text": "Maria, are you free later?", "ends": False,
                "source": "repaired: grounded: chosen from 3 acts; act ask (plans)"},
               {"speaker": "Maria Lopez", "text": "Maria, I'm hosting a party.", "ends": False,
                "source": "rule: grounded: memory #4 (x); act invite"}]}
    c = conversation_from_dict(old)
    assert [acts.act_and_note(u) for u in c.lines] == [(acts.ASK, "plans"), (acts.INVITE, "")]
    new = dict(old, lines=[dict(old["lines"][0], act="ask", act_note="plans")])
    assert conversation_from_dict(new).lines[0].act == "ask"


def test_a_new_act_is_one_entry_and_one_builder(monkeypatch):
    """"compliment", as docs/development.md walks through it: an entry in the registry and a
    builder registered for it; the turn offers it with no other change."""
    compliment = acts.Act("compliment", "say something kind about the listener", None)

    def build(t: Turn) -> list[acts.Option]:
        if t.turn == 0 or t.said(compliment):
            return []
        return [acts.Option(compliment, t.v.pick((f"{t.v.first}, you always make my day.",), "compliment"))]

    monkeypatch.setattr(dg, "ACTS", (compliment, *acts.ACTS))
    monkeypatch.setitem(acts._BUILDERS, compliment.name, build)
    m = mind()
    c = Conversation(("Maria Lopez", m.name), "the Ville:Hobbs Cafe:cafe", NOW,
                     [Utterance("Maria Lopez", "Hello Isabella, I'm studying.", source="x; act tell")])
    got = dg.offers(m, c, NOW, "chatting", "chatting")
    assert got[0].act is compliment and got[0].text == "Maria, you always make my day."
    assert compliment.recorded() == "act compliment"


def test_a_saved_conversation_keeps_each_lines_act_as_data():
    from game.sim.conversations import conversation_to_dict

    c = Conversation(("Isabella Rodriguez", "Maria Lopez"), "the Ville:Hobbs Cafe:cafe", datetime(2023, 2, 14, 10))
    c.lines.append(Utterance("Isabella Rodriguez", "Come to my party at 5 pm?", False, "model; act invite (party)",
                             "invite", "party"))
    back = conversation_from_dict(conversation_to_dict(c))
    assert (back.lines[0].act, back.lines[0].act_note) == ("invite", "party")
