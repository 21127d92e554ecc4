"""The visitor in the residents' story, on the minds' side (issue 45): the visitor's own
gathering read as an event one can go to, accepted in the chat as an arrangement and told
on; the host's welcome to a guest who said they would come, and its memory of one who did
not; a resident asked the next day who the visitor is answers from what it remembers.

Minds with the scripted fake model (tests/fakes.py), through the real respond path
(agents/mind/interview.py) and the real end of a conversation.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from agents import dialogue as dg
from agents.explain import provenance as pv
from agents.mind import interview
from agents.mind.core import Mind
from agents.planning import agenda, recaps
from agents.planning.plan import PlanItem
from agents.recall import grounding as gr
from agents.residents.mind_settings import MindSettings
from agents.support.types import Conversation, Utterance
from agents.words import dated as dt
from tests.fakes import HashEmbedder, make_gateway
from tests.scripted_minds import persona, plausible

FEB14, FEB15 = datetime(2023, 2, 14, 10), datetime(2023, 2, 15, 9)
PICNIC = "I'm having a picnic at Johnson Park tomorrow at noon, will you come?"
PARK = "the Ville:Johnson Park:park"


def accepting(purpose, messages, schema):
    """The chooser takes the first line it is offered that says yes; else the first."""
    if purpose in ("choose_act", "choose_line"):
        options = schema.model_json_schema()["properties"]["reply"]["enum"]
        return {"reply": next((o for o in options if dg.act_by_rule(o, None) == dg.ACCEPT), options[0])}
    if purpose == "choose_fact":
        return {"fact": "1"}
    return plausible(purpose, messages, schema)


def mind(name: str = "Isabella Rodriguez", at: datetime = FEB14, grounded: bool = True) -> Mind:
    m = Mind(persona(name), make_gateway(accepting, via_litellm=False), HashEmbedder(64),
             MindSettings(planning="guided", grounded=grounded))
    m.start_turn(at)
    return m


# ------------------------------------------------------------------------- reading it


def test_the_visitors_picnic_is_a_dated_event_the_visitor_hosts():
    ev = dt.parse(PICNIC, FEB14, teller="Alex")
    assert ev is not None and (ev.what, ev.place, ev.starts(), ev.host) == (
        "picnic", "Johnson Park", datetime(2023, 2, 15, 12), "Alex")
    # as the resident remembers the chat: the visitor's one name is the teller
    heard = f'Alex told Isabella: "{PICNIC}" and Isabella answered: "Alex, I\'d love to come!"'
    assert dt.parse(heard, FEB14).host == "Alex"
    assert dt.parse("a potluck at Hobbs Cafe today at 12 noon", FEB14).start == 12 * 60
    assert dt.parse("We're having a potluck at Johnson Park at midday today", FEB14).start == 12 * 60
    # "having" is hosting only with an event named right after it
    assert dt.hosting("I'm having a barbecue at Johnson Park")
    assert not dt.hosting("I'm having a great time at the party at Hobbs Cafe today at 5 pm")
    assert not dt.hosting("I'm having lunch at Hobbs Cafe today at 12 pm")


def test_the_residents_agenda_offers_the_picnic_on_its_day():
    m = mind()
    interview.respond(m, "Alex", PICNIC, now=FEB14)
    [e] = agenda.engagements(m.memory.nodes, [], m.persona, m.spatial, datetime(2023, 2, 15).date())
    assert (e.description, e.address, e.start, e.kind) == ("attending the picnic at Johnson Park", PARK,
                                                           datetime(2023, 2, 15, 12), agenda.EVENT)
    assert not agenda.engagements(m.memory.nodes, [], m.persona, m.spatial, FEB14.date())


# ------------------------------------------------------------------------- accepting it


def test_a_grounded_resident_accepts_the_visitors_invitation_and_it_is_an_arrangement():
    m = mind()
    reply = interview.respond_traced(m, "Alex", PICNIC, now=FEB14)
    assert dg.act_of(reply.source)[0] == dg.ACCEPT and "12 pm" in reply.text
    assert "the invitation to a picnic at Johnson Park" in reply.source and "chosen from 2 acts" in reply.source
    # what the game does with a yes (game/sim/visitor.py accepted): the resident's own end of a conversation
    lines = [Utterance("Alex", PICNIC, False, pv.tag(pv.RULE, f"{pv.PLAYER}; act {dg.INVITE}")),
             Utterance(m.name, reply.text, False, reply.source)]
    made = m.end_conversation(Conversation((m.name, "Alex"), "the Ville:Hobbs Cafe:cafe", FEB14, lines), FEB14)
    assert len(made) == 1
    got = made[0]
    assert got.description == "attending the picnic" and got.address == PARK
    assert got.start == datetime(2023, 2, 15, 12) and got.made.startswith("agreed with Alex")
    # ... and on its day it is in her plan, and she tells others of it (the news, and an invitation)
    m.start_turn(FEB15)
    maria = "Maria Lopez"
    c = Conversation((m.name, maria), "the Ville:Hobbs Cafe:cafe", FEB15)
    offered = [o for o in dg.offers(m, c, FEB15, "chatting", "working") if "picnic" in o.text]
    assert offered and any(o.act == dg.INVITE for o in offered)
    assert all("picnic at Johnson Park on February 15, from 12 pm" in o.text and "Alex is hosting" in o.text
               for o in offered)


def test_an_invitation_to_nothing_dated_or_past_is_answered_as_any_line():
    assert interview.invitation("Alex", "Will you come to my party sometime?", FEB14) is None
    assert interview.invitation("Alex", "I had a picnic at Johnson Park today at 9 am, will you come?", FEB14) is None
    assert interview.invitation("Alex", "There's a picnic at Johnson Park tomorrow at noon.", FEB14) is None
    assert interview.invitation("Alex", PICNIC, FEB14) is not None


# ------------------------------------------------------------------------- the host and its guest

PARTY_AT = datetime(2023, 2, 14, 17)


def hosting_isabella() -> Mind:
    m = mind()
    m.today.plan = [PlanItem(PARTY_AT, 120, "hosting the Valentine's Day party at Hobbs Cafe",
                             "the Ville:Hobbs Cafe:cafe", pv.tag(pv.REPAIRED, "chosen from 3 options"))]
    m.today.log = ["17:00 hosting the Valentine's Day party at Hobbs Cafe (Hobbs Cafe:cafe)"]
    # the visitor's yes to her invitation, the day before (game/sim/visitor.py agree's lines)
    invitation = ("Alex, I'm hosting a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm. "
                  "Would you like to come?")
    lines = [Utterance(m.name, invitation, False, "repaired: grounded: memory #2 (I want to host ...); act invite"),
             Utterance("Alex", "Yes, I'll come!", False, pv.tag(pv.RULE, f"{pv.PLAYER}; act {dg.ACCEPT}"))]
    m.end_conversation(Conversation((m.name, "Alex"), "the Ville:Hobbs Cafe:cafe", FEB14, lines), FEB14)
    assert recaps.agreed(m.memory, m.today.plan[0]) == ["Alex"]
    return m


def test_the_host_welcomes_a_guest_who_said_they_would_come_by_name_naming_it():
    m = hosting_isabella()
    assert m.welcome("Alex", datetime(2023, 2, 14, 16, 30)) is None  # not yet
    u = m.welcome("Alex", datetime(2023, 2, 14, 17, 20))
    assert u is not None and u.text.startswith(("Alex", "There you are, Alex")) and "Valentine's Day party" in u.text
    assert pv.kind_of(u.source) == pv.RULE and recaps.WELCOME in u.source
    assert m.welcome("Klaus Mueller", datetime(2023, 2, 14, 17, 20)) is None  # he never said he would come


def test_a_guest_who_did_not_come_is_remembered_and_told_the_day_after():
    m = hosting_isabella()
    m.now = datetime(2023, 2, 14, 19, 5)
    made = recaps.remember_how_it_went(m)
    missed = "Alex said they would come to the Valentine's Day party at Hobbs Cafe on February 14, but never came."
    assert missed in made
    [x] = [x for x in m.memory.nodes if x.description == missed]
    assert x.subject == "Alex" and recaps.MISSED in x.source and gr.offered(x, FEB15)  # not past: it happened


def test_a_guest_who_came_is_not_missed():
    m = hosting_isabella()
    m.remember("observation", "Alex is visiting the town", 3, subject="Alex",
               created=(PARTY_AT + timedelta(minutes=30)).isoformat())
    m.now = datetime(2023, 2, 14, 19, 5)
    made = recaps.remember_how_it_went(m)
    assert made and not any("never came" in t for t in made)


def test_asked_the_next_day_she_answers_from_what_she_remembers_of_the_visitor():
    m = hosting_isabella()
    interview.respond(m, "Alex", "Hi, I'm Alex, I'm new in town and I love photography.", now=datetime(2023, 2, 14, 9))
    m.now = datetime(2023, 2, 14, 19, 5)
    recaps.remember_how_it_went(m)
    m.start_turn(FEB15)
    facts = interview.grounded_facts(m, "Do you remember me?", FEB15, touch=False, asker="Alex")
    texts = [f.text for f in facts]
    assert any("photography" in t for t in texts[:3]) and any("never came" in t for t in texts[:3])
    reply = interview.respond_traced(m, "Alex", "Do you remember me?", now=FEB15)
    assert "Alex" in reply.text and gr.memory_of(reply.source) is not None  # from a memory of the visitor
