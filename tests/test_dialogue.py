"""Grounded conversation as dialogue acts (agents/talk/dialogue.py, wording.py, dated.py): the acts
offered and when, their wording, no repeats and no fragments, invitations that become
arrangements on both sides, the talk decision's counts, and the evaluation's dialogue
measures on a tiny made-up run; then a short conversation on the real embedded model."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from datetime import date, datetime, timedelta

import pytest

from agents import dialogue as dg
from agents import provenance as pv
from agents import wording as wd
from agents.mind.core import Mind
from agents.recall import grounding as gr
from agents.residents.mind_settings import MindSettings
from agents.support.types import Conversation, Utterance
from agents.talk import answers as replies
from agents.talk import knowing, news
from agents.talk.converse import Social, may_talk
from agents.words import dated as dt
from lab.evaluate.dialogue import dialogue_markdown, dialogue_measures, dialogue_summary
from tests.fakes import HashEmbedder, make_gateway
from tests.real_model import needs_model
from tests.scripted_minds import persona, plausible
from tests.scripted_minds import talk as scripted_talk

NOW = datetime(2023, 2, 13, 10, 0)
PARTY = "I want to host a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm"


def replying(pick):
    """A chooser of dialogue acts: ``pick(options)`` -> the number to take (1-based); it answers
    with that line's words, as the grammar asks."""
    def responder(purpose, messages, schema):
        if purpose == "choose_line":
            options = [ln.split(". ", 1)[1] for ln in messages[-1]["content"].splitlines() if ln[:1].isdigit()]
            return {"reply": options[pick(options) - 1]}
        return plausible(purpose, messages, schema)
    return responder


def mind(pick=lambda options: 1, who=None, thoughts=()):
    gw = make_gateway(replying(pick), timeout=30.0, deadline=60.0)
    m = Mind(who or persona(), gw, HashEmbedder(64), MindSettings(grounded=True))
    for t in thoughts:
        m.queue_thought(t, 8)
    m.start_turn(NOW)
    return m


def choose(word):
    """Take the first option holding ``word`` (else the first)."""
    return lambda options: next((i for i, o in enumerate(options, 1) if word in o), 1)


def accepting(options):
    """Say yes to an invitation, invite when one can, else the first listed."""
    for act in (dg.ACCEPT, dg.INVITE):
        for i, o in enumerate(options, 1):
            if dg.act_by_rule(o, None) == act:
                return i
    return 1


def talk(a, b, now=NOW):
    return scripted_talk(a, b, now)


def acts(c):
    return [dg.act_of(u.source)[0] for u in c.lines]


# ---------------------------------------------------------------------------- dated events

def test_a_dated_event_is_read_and_written_back_verbatim():
    ev = dt.parse(PARTY + ", and to invite as many friends and customers as I can", NOW, teller="Isabella Rodriguez")
    assert ev == dt.DatedEvent("Valentine's Day party", "Hobbs Cafe", date(2023, 2, 14), 17 * 60, 19 * 60,
                               "Isabella Rodriguez")
    assert ev.words() == "a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm"
    heard = dt.parse('Isabella Rodriguez told Maria: "I\'m hosting ' + ev.words() + '. Would you like to come?"', NOW)
    assert heard == ev  # the listener's memory of it reads back the same, host and all
    planned = dt.parse("Maria's plan for Tuesday February 14 at 17:00-19:00: going to the Valentine's Day party "
                       "at Hobbs Cafe:cafe (agreed with Isabella Rodriguez on Monday February 13)", NOW)
    assert planned is not None and planned.key == ev.key and (planned.start, planned.end) == (1020, 1140)
    assert dt.clock(12 * 60 + 30) == "12:30 pm" and dt.clock(0) == "12 am"


@pytest.mark.parametrize("text", [
    "", None, "I like parties", "a party at Hobbs Cafe", "a party on February 14 at 5 pm",  # no place / no day
    "a party at Hobbs Cafe on February 30 at 5 pm",  # no such day
    "a party at Hobbs Cafe on June 14 at 5 pm",  # not within the coming week
    "Klaus Mueller is reading at the library on February 14 at 5 pm",  # no event
])
def test_what_names_no_usable_event_is_none(text):
    assert dt.parse(text, NOW) is None


def test_news_of_someone_elses_party_does_not_make_the_teller_its_host():
    heard = dt.parse("Maria, I heard Isabella Rodriguez is hosting a Valentine's Day party at Hobbs Cafe on "
                     "February 14, from 5 pm to 7 pm.", NOW, teller="Klaus Mueller")
    assert heard is not None and heard.host == "Isabella Rodriguez"
    rumour = dt.parse("I heard Isabella is hosting a party at Hobbs Cafe on February 14 at 5 pm", NOW,
                      teller="Klaus Mueller")
    assert rumour is not None and rumour.host is None
    own = dt.parse("I want to host a party at Hobbs Cafe on February 14 at 5 pm", NOW, teller="Isabella Rodriguez")
    assert own is not None and own.host == "Isabella Rodriguez"


def test_an_offer_to_meet_reads_back():
    words = dt.meeting_words("having lunch", "Hobbs Cafe", "today", 12 * 60 + 30)
    ev = dt.parse_meeting(f"I'll be {words}. Would you like to join me, Maria?", NOW, teller="Klaus Mueller")
    assert ev is not None and ev.meeting and (ev.what, ev.place, ev.start) == ("having lunch", "Hobbs Cafe", 750)
    assert dt.parse_meeting("I'll be around.", NOW) is None


# ---------------------------------------------------------------------------- wording

@pytest.mark.parametrize("line", [
    "Despite his fear of them.", "Oh, I did not know that! Despite his fear of them.",
    "A master of chemistry at Oak Hill College.", "Because of the rain.", "I run the cafe and",
    "The most salient question about the...", "", "Insight1.",
])
def test_fragments_are_caught(line):
    assert wd.fragment(line)


@pytest.mark.parametrize("line", [
    "I run Hobbs Cafe, the cafe I own in the Ville.", "Take care, Maria. Talk soon!",
    "A Valentine's Day party at Hobbs Cafe on February 14? That sounds wonderful!",
    "Maria, what are you up to today?", "Isabella Rodriguez told me: \"I am hosting a party\"",
    "Count me in, Maria. See you on February 14, from 5 pm to 7 pm!",
])
def test_sentences_are_not_fragments(line):
    assert wd.fragment(line) is None


def test_the_voice_varies_with_the_listener_and_is_seeded():
    warm = wd.voice_of("Isabella Rodriguez", "Maria Lopez", "warm, sociable", "she counts Maria Lopez among her "
                       "closest friends", known=False, salt="41|x")
    plain = wd.voice_of("Klaus Mueller", "Maria Lopez", "quiet, studious", "he studies sociology", known=True,
                        salt="41|x")
    stranger = wd.voice_of("Klaus Mueller", "Ayesha Khan", "quiet", "", known=False, salt="41|x")
    assert warm.known and warm.warm and not plain.warm
    assert "Ayesha Khan" in wd.greeting(stranger, 10, 0) and "Klaus" in wd.greeting(stranger, 10, 0)
    assert wd.greeting(warm, 10, 0) == wd.greeting(warm, 10, 0)  # the same seed, the same words
    other_seed = wd.voice_of("Isabella Rodriguez", "Maria Lopez", "warm", "friends with Maria Lopez", False, "7|y")
    said = {wd.greeting(wd.Voice(warm.me, warm.other, True, True, f"{s}|x"), 10, 0) for s in range(20)}
    assert len(said) > 2 and other_seed.first == "Maria"  # seeds pick among several phrasings
    options = ("One.", "Two.", "Three.")
    assert warm.pick(options, "k", avoid=["One.", "Two."]) == "Three."
    assert warm.pick(options, "k", avoid=options) in options  # nothing left: still a line


def every_phrasing(salts: int):
    """Every line the rules can word, for a grid of voices and seeds."""
    ev = "a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm"
    for salt in range(salts):
        for known in (True, False):
            for warm in (True, False):
                v = wd.Voice("Isabella Rodriguez", "Maria Lopez", known, warm, str(salt))
                yield from (wd.greeting(v, 10, salt), wd.greeting(v, 19, salt), wd.question(v, "day", salt),
                            wd.question(v, "plans", salt), wd.question(v, "person", salt, "Klaus Mueller"),
                            wd.question(v, "day", salt, their_doing="painting a mural"),
                            *(wd.reaction(v, "party", kind, salt, "Klaus") for kind in ("hosted", "event", "going",
                                                                                        "heard", "heard-hosted")),
                            wd.reaction(v, "Hobbs Cafe", "news", salt), wd.reaction(v, "painting", "doing", salt),
                            wd.reaction(v, "breakfast", "doing", salt), wd.reaction(v, "studying", "day told", salt),
                            wd.reaction(v, "feud", "sad", salt), wd.reaction(v, "", "news", salt),
                            wd.related(v, "Hobbs Cafe", "I'll be there myself at 12 pm, having lunch.", salt),
                            wd.follow_up(v, "about the party", "yesterday", salt, over=bool(salt % 2), event=True),
                            wd.follow_up(v, "about the party", "earlier", salt, over=False, event=True, hosting=True),
                            wd.follow_up(v, "you were painting a mural", "yesterday", salt),
                            wd.followed_up(v, bool(salt % 2), salt), wd.question(v, "you", salt),
                            wd.refusal(v, "party", "hosting the game night", salt, "7 pm"),
                            wd.goodbye(v, "working at the cafe", salt), wd.goodbye(v, "", salt),
                            wd.invitation(v, ev, None, True, salt), wd.invitation(v, ev, "Isabella", False, salt),
                            wd.acceptance(v, "Valentine's Day party", "on February 14, from 5 pm to 7 pm", salt),
                            wd.acceptance(v, "", "today at 12 pm", salt), wd.refusal(v, "party", "working", salt),
                            wd.refusal(v, "", "", salt), wd.already_going(v, salt),
                            wd.co_hosting(v, "study group", salt),
                            dg.react(v, Utterance("Maria Lopez", "Me too!", act="accept", act_note=replies.CO_HOSTING),
                                     dg.ACCEPT, NOW, salt).text,
                            wd.meeting(v, "having lunch at Hobbs Cafe today at 12 pm", "having lunch", salt))
                yield from (dg.react(v, Utterance("Maria Lopez", "Yes."), act, NOW, salt).text
                            for act in (dg.ACCEPT, dg.DECLINE))


def test_no_phrasing_the_rules_write_is_a_fragment():
    assert not {text for text in every_phrasing(200) if wd.fragment(text)}


def test_a_reaction_names_the_news_in_a_word_and_does_not_say_it_back():
    said = Utterance("Isabella Rodriguez", "Hi Maria! I'm hosting a Valentine's Day party at Hobbs Cafe on "
                     "February 14, from 5 pm to 7 pm.", source="repaired: grounded: memory #4 (x); act tell")
    for salt in range(12):
        v = wd.voice_of("Maria Lopez", "Isabella Rodriguez", "curious", "", True, f"{salt}|x")
        r = dg.react(v, said, dg.TELL, NOW, 1).text
        assert "Hobbs Cafe on February 14" not in r and r.endswith("?") and not wd.fragment(r), r
    assert {dg.topic_of(t, "Tom") for t in ("Tom, I'm having breakfast today; at 8 am I'm running the counter.",
                                            "Studying English literature at Oak Hill College is what I do.",
                                            "Waking up and getting ready for the day keeps me busy today.")} \
        == {"breakfast", "English literature", "waking up"}
    assert wd.in_your_words("I know you from the dorm") == "you know me from the dorm"
    assert wd.to_listener("I live with my wife Mei Lin and our son", "Mei Lin") == "I live with you and our son"
    # said to the son (the game had "... and our son you")
    assert wd.to_listener("I live with my husband John Lin and our son Eddy Lin.", "Eddy Lin") == \
        "I live with my husband John Lin and you."
    v = wd.voice_of("Maria Lopez", "Isabella Rodriguez", "curious", "", True, "0|x")
    echo = Utterance("Isabella Rodriguez", "Oh, I'm running the cafe just now.", source="x; act answer (day)")
    assert "running the cafe" not in dg.react(v, echo, dg.ANSWER, NOW, 3).text
    late = Utterance("Isabella Rodriguez", "Maria, I'll be having dinner at home at 5:30 pm. And yours?",
                     source="x; act answer (plans)")
    assert "5:30 pm" not in dg.react(v, late, dg.ANSWER, NOW, 2).text  # no clause said back


def test_what_half_the_town_does_and_i_facts_open_with_the_listeners_name():
    m = mind(who=persona("Klaus Mueller"))
    from agents.planning.plan import PlanItem
    m.today.plan = [PlanItem(NOW, 120, "attending the Valentine's Day party", "the Ville:Hobbs Cafe:cafe", "model")]
    answers = {replies._day_answer(m, wd.Voice(m.name, "Maria Lopez", True, False, str(s)), NOW, "day", s).text
               for s in range(30)}
    assert answers and all(a.startswith("Maria, I'm attending") for a in answers), answers
    m.today.plan = [PlanItem(NOW, 120, "researching gentrification", "the Ville:Oak Hill College:library", "model")]
    answers = {replies._day_answer(m, wd.Voice(m.name, "Maria Lopez", True, False, str(s)), NOW, "day", s).text
               for s in range(30)}
    assert any(a.startswith("Researching gentrification") for a in answers)  # a doing of one's own leads
    m.today.plan.append(PlanItem(NOW + timedelta(hours=3), 60, "having dinner",
                                 "the Ville:Klaus Mueller's apartment:main room:dining table", "model"))
    answers = {replies._day_answer(m, wd.Voice(m.name, "Maria Lopez", True, False, str(s)), NOW, "day", s).text
               for s in range(30)}
    assert all("having dinner at home" in a and "Mueller" not in a for a in answers), answers
    said = {news._addressed(wd.Voice(m.name, "Maria Lopez", True, False, str(s)), "I often talk with Ayesha Khan.", 3)
            for s in range(30)}
    assert "Maria, I often talk with Ayesha Khan." in said and len(said) == 2
    assert news._addressed(wd.Voice(m.name, "Maria Lopez", True, False, "1"), "Ayesha runs.", 3) == "Ayesha runs."


def test_this_evening_is_answered_with_the_evening():
    from agents.planning.plan import PlanItem
    m = mind(who=persona("Klaus Mueller"))
    m.today.plan = [PlanItem(NOW.replace(hour=12), 60, "having lunch", "the Ville:Hobbs Cafe:cafe", "model"),
                    PlanItem(NOW.replace(hour=19), 60, "having a drink", "the Ville:The Rose and Crown Pub:pub",
                             "model")]
    v = wd.Voice(m.name, "Maria Lopez", True, False, "1")
    evening = dg.answer(m, v, "Klaus, what are you doing this evening?", "plans", NOW, [], [], 3)
    later = dg.answer(m, v, "Klaus, any plans for later today?", "plans", NOW, [], [], 3)
    assert "having a drink" in evening.text and "lunch" not in evening.text
    assert "having lunch" in later.text


def test_every_phrasing_opens_with_the_listeners_name_or_a_fact():
    """No canned opener: across seeds, each line's first three words hold the listener's name,
    the speaker's (an introduction) or a word of the fact it words."""
    names_and_facts = {"maria", "isabella", "klaus", "party", "painting", "breakfast", "you", "hobbs"}
    fixed = Counter(wd.opening(t) for t in every_phrasing(60) if not set(wd.opening(t).split()) & names_and_facts)
    assert not fixed, fixed.most_common(5)


def test_the_host_told_of_its_own_party_does_not_call_it_wonderful():
    isabella = mind(who=persona(), thoughts=[PARTY])
    c = Conversation(("Maria Lopez", isabella.name), "x", NOW, [Utterance(
        "Maria Lopez", "Isabella, I heard there's a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm "
        "to 7 pm.", source="repaired: grounded: memory #3 (x); act tell")])
    isabella.social.told["Maria Lopez"] = ["event:party|2023-02-14|hobbs cafe"]  # invited her already
    reactions = [o.text for o in dg.offers(isabella, c, NOW, "chatting", "chatting") if o.act == dg.REACT]
    assert reactions and all("hosting it" in t or "my party" in t for t in reactions), reactions


def test_ones_own_description_is_said_only_when_asked():
    a = mind(lambda o: 1, who=persona())
    b_name = "Klaus Mueller"
    c = Conversation((a.name, b_name), "x", NOW, [Utterance(b_name, "Isabella, hello there.",
                                                            source="x; act tell")])
    own = [x for x in a.memory.nodes if pv.SEED in x.importance_source]
    assert own  # the persona's description is in its memory
    for x in own:
        x.importance_source = "model"  # rated again by the model since: still its own description
    a.social.known_people.add(b_name)
    told = [o.text for o in dg.offers(a, c, NOW, "chatting", "chatting") if o.act == dg.TELL]
    strangers = Conversation((a.name, "Ayesha Khan"), "x", NOW, [Utterance("Ayesha Khan", "Hello there.",
                                                                           source="x; act tell")])
    told_stranger = [o.text for o in dg.offers(a, strangers, NOW, "chatting", "chatting") if o.act == dg.TELL]
    own_ids = {x.id for x in own}
    offered = dg.offers(a, c, NOW, "chatting", "chatting") + dg.offers(a, strangers, NOW, "chatting", "chatting")
    said = [o for o in offered if o.fact is not None and o.fact.node_id in own_ids]
    assert not said, [o.text for o in said]  # "I am a close friend of Yuriko" told unasked was a recital
    assert not [t for t in told + told_stranger if "Maria Lopez" in t]
    asked = Conversation(("Ayesha Khan", a.name), "x", NOW, [Utterance(
        "Ayesha Khan", "So, Isabella, what do you do?", source="repaired: grounded: act ask (you)")])
    answers = dg.offers(a, asked, NOW, "chatting", "chatting")
    assert answers and all(o.act == dg.ANSWER and o.fact is not None and o.fact.node_id in own_ids for o in answers)


# ---------------------------------------------------------------------------- the acts

def test_the_host_invites_and_an_acceptance_is_an_arrangement_on_both_sides():
    isabella = mind(who=persona(), thoughts=[PARTY])
    maria = mind(accepting, who=persona("Maria Lopez"))
    c = talk(isabella, maria)
    assert acts(c)[:2] == [dg.INVITE, dg.ACCEPT]
    invite = c.lines[0].text
    assert "a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm" in invite
    assert gr.memory_of(c.lines[0].source) is not None and "act invite" in c.lines[0].source
    assert dg.act_of(c.lines[2].source)[0] == dg.REACT  # the host answers the acceptance
    for m in (isabella, maria):
        m.end_conversation(c, NOW)
    (a,), (b,) = isabella.today.arrangements, maria.today.arrangements
    assert (a.start, a.minutes, b.start, b.minutes) == (datetime(2023, 2, 14, 17), 120, datetime(2023, 2, 14, 17), 120)
    assert a.address == b.address == "the Ville:Hobbs Cafe:cafe"
    assert "hosting" in a.description and "party" in b.description and "Isabella" in b.made
    plan = [x.description for x in maria.memory.nodes if x.kind == "plan"]
    assert any("17:00-19:00" in p and "Hobbs Cafe" in p for p in plan)
    assert "event:party|2023-02-14|hobbs cafe" in isabella.social.told["Maria Lopez"]
    # told once: the next conversation does not invite her again
    again = talk(isabella, maria, NOW.replace(hour=13))
    assert dg.INVITE not in acts(again)


def test_a_guest_invites_others_and_a_second_invitation_makes_no_second_arrangement():
    isabella = mind(who=persona(), thoughts=[PARTY])
    maria = mind(accepting, who=persona("Maria Lopez"))
    c = talk(isabella, maria)
    for m in (isabella, maria):
        m.end_conversation(c, NOW)
    klaus = mind(accepting, who=persona("Klaus Mueller"))
    c2 = talk(maria, klaus, NOW.replace(hour=11))
    assert acts(c2)[:2] == [dg.INVITE, dg.ACCEPT]
    assert "Isabella" in c2.lines[0].text and "February 14, from 5 pm to 7 pm" in c2.lines[0].text
    for m in (maria, klaus):
        m.end_conversation(c2, NOW.replace(hour=11))
    assert len(maria.today.arrangements) == 1 and len(klaus.today.arrangements) == 1


def test_a_question_is_answered_and_only_answered():
    m = mind(lambda options: len(options))
    c = Conversation(("Maria Lopez", m.name), "x", NOW,
                     [Utterance("Maria Lopez", "Isabella, any plans for later today?", source="repaired: grounded: "
                                "chosen from 3 acts; act ask (plans)")])
    got = dg.offers(m, c, NOW, "chatting", "chatting")
    assert {o.act for o in got} == {dg.ANSWER} and len(got) == 2  # plainly, or with the question back
    m2 = mind(who=persona(), thoughts=[PARTY])
    got = dg.offers(m2, c, NOW, "chatting", "chatting")
    assert got[0].text == "Maria, I'm hosting a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm."
    assert got[1].text.startswith(got[0].text) and got[1].text.count("Maria") == 1  # the question back: one name


def test_an_invitation_gets_only_accept_or_decline_with_the_speakers_reason():
    m = mind(who=persona("Klaus Mueller"))
    inv = Utterance("Isabella Rodriguez", "Klaus, I'm hosting a Valentine's Day party at Hobbs Cafe on February 13, "
                    "from 5 pm to 7 pm. Would you like to come?",
                    source="repaired: grounded: memory #4 (x); act invite")
    c = Conversation(("Isabella Rodriguez", m.name), "x", NOW, [inv])
    got = dg.offers(m, c, NOW, "chatting", "chatting")
    assert [o.act for o in got] == [dg.ACCEPT, dg.DECLINE]
    assert all(not wd.fragment(o.text) for o in got)


def test_an_offer_to_meet_is_accepted_where_ones_plan_goes_anyway_and_a_conflict_is_the_reason():
    from agents.planning.plan import PlanItem
    m = mind(who=persona("Maria Lopez"))
    offer = Utterance("Klaus Mueller", "I'll be having lunch at Hobbs Cafe today at 12 pm. Would you like to join "
                      "me, Maria?", source="repaired: grounded: today's plan; act meet")
    c = Conversation(("Klaus Mueller", m.name), "x", NOW, [offer])
    m.today.plan = [PlanItem(datetime(2023, 2, 13, 12), 60, "having lunch", "the Ville:Hobbs Cafe:cafe", "model")]
    assert [o.act for o in dg.offers(m, c, NOW, "chatting", "chatting")] == [dg.ACCEPT]
    m.today.plan = [PlanItem(datetime(2023, 2, 13, 12), 60, "working at the library",
                             "the Ville:Oak Hill College:library", "model")]
    got = dg.offers(m, c, NOW, "chatting", "chatting")
    assert [o.act for o in got] == [dg.ACCEPT, dg.DECLINE] and "working at the library then" in got[1].text
    assert "today at 12 pm" in got[0].text


def test_one_asks_others_along_to_a_meal_not_to_work_and_retells_news_not_chatter():
    from agents.planning.plan import PlanItem
    m = mind(who=persona("John Lin"))
    v = dg.voice(m, Conversation((m.name, "Tom Moreno"), "x", NOW))
    m.today.plan = [PlanItem(datetime(2023, 2, 13, 13), 60, "working at the pharmacy counter",
                             "the Ville:The Willows Market and Pharmacy:store", "model")]
    assert dg.meet(m, v, NOW, 0) is None
    m.today.plan.append(PlanItem(datetime(2023, 2, 13, 18), 60, "having dinner at The Rose and Crown Pub",
                                 "the Ville:The Rose and Crown Pub:pub", "model"))
    got = dg.meet(m, v, NOW, 0)
    assert got is not None and "having dinner at The Rose and Crown Pub today at 6 pm" in got.text
    m.remember("chat", 'Mei Lin told John: "I\'m teaching classes today. And you?"', 6, subject="Mei Lin")
    m.remember("chat", 'Mei Lin told John: "Sam Moore is running for mayor."', 6, subject="Mei Lin")
    c = Conversation((m.name, "Tom Moreno"), "x", NOW)
    told = [o.text for o in dg.tells(m, v, c, dg.recall(m, c, "chatting"), [], NOW)]
    assert any("running for mayor" in t for t in told) and not any("teaching classes" in t for t in told)
    m.remember("chat", 'Ayesha Khan told John: "I love organising gatherings that bring people together."', 6,
               subject="Ayesha Khan")
    m.remember("chat", 'Hailey Johnson told John: "Isabella Rodriguez told me: "I love new gatherings.""', 6,
               subject="Hailey Johnson")
    m.remember("chat", 'Tom Moreno told John: "I have decided to run for the new council."', 6, subject="Tom Moreno")
    m.remember("chat", 'Wolfgang Schulz told John: "I have decided to run for the new council."', 6,
               subject="Wolfgang Schulz")
    told = [o.text for o in dg.tells(m, v, c, dg.recall(m, c, "chatting"), [], NOW)]
    assert not [t for t in told if "told me" in t and ("gatherings" in t or "Tom Moreno" in t or "You told" in t)], told
    assert any("Wolfgang Schulz told me" in t for t in told)  # news from someone else is still news
    m.remember("chat", 'Isabella Rodriguez told John: "John, I love organising gatherings."', 6,
               subject="Isabella Rodriguez")
    m.remember("chat", 'Sam Moore told John: "John, I have decided to run for mayor in the new election."', 6,
               subject="Sam Moore")
    m.remember("plan", "John Lin's plan for Monday February 13 at 19:00-21:00: having a drink at the bar at "
               "The Rose and Crown Pub:pub (agreed with Tom Moreno on Monday February 13)", 6, subject=m.name)
    told = [o.text for o in dg.tells(m, v, c, dg.recall(m, c, "chatting"), [], NOW)]
    assert not [t for t in told if ("gatherings" in t and "told me" in t) or "I, " in t or "plan for" in t], told
    assert any('Sam Moore told me: "I have decided to run for mayor' in t for t in told), told


def test_telling_the_news_is_no_invitation():
    m = mind(lambda options: next(i for i, o in enumerate(options, 1) if "come" not in o and "invited" not in o),
             who=persona("Maria Lopez"))  # a guest: the host's memory and her own plan to go
    m.remember("chat", 'Isabella Rodriguez told Maria: "I\'m hosting a Valentine\'s Day party at Hobbs Cafe on '
               'February 14, from 5 pm to 7 pm. Would you like to come?"', 7)
    m.remember("plan", "Maria's plan for Tuesday February 14 at 17:00-19:00: going to the Valentine's Day party at "
               "Hobbs Cafe:cafe (agreed with Isabella Rodriguez on Monday February 13)", 6)
    c = Conversation((m.name, "Klaus Mueller"), "x", NOW)
    c.lines.append(m.utter(c, NOW, "chatting"))
    assert dg.act_of(c.lines[0].source)[0] == dg.TELL and "February 14, from 5 pm to 7 pm" in c.lines[0].text
    c.lines.append(Utterance("Klaus Mueller", "A Valentine's Day party at Hobbs Cafe on February 14? How lovely!",
                             source="repaired: grounded: act react"))
    assert dg.INVITE in [o.act for o in dg.offers(m, c, NOW, "chatting", "chatting")]
    from agents.talk.converse import invitation_for
    assert invitation_for(m, "Klaus Mueller", NOW) is not None  # news told, the invitation still to make


def test_news_of_a_gathering_is_not_told_to_one_who_just_said_they_go():
    """Ayesha: "... at 3 pm I'm attending the study group at Oak Hill College." Hailey did not go on
    to tell her of Maria's study group (a week's run)."""
    m = mind(who=persona("Hailey Johnson"))
    m.remember("chat", 'Maria Lopez told Hailey: "Hailey, I\'m hosting a study group at Oak Hill College on '
               'February 13, from 3 pm to 5 pm."', 7, subject="Maria Lopez")
    fresh = Conversation((m.name, "Ayesha Khan"), "x", NOW)
    assert [o for o in dg.offers(m, fresh, NOW, "chatting", "chatting") if "study group" in o.text]
    going = Utterance("Ayesha Khan", "Researching english literature keeps me busy today; at 3 pm I'm attending "
                      "the study group at Oak Hill College.", source="repaired: grounded: act answer (day)")
    c = Conversation((m.name, "Ayesha Khan"), "x", NOW, [going])
    told = [o.text for o in dg.offers(m, c, NOW, "chatting", "chatting") if o.act in (dg.TELL, dg.INVITE)]
    assert not [t for t in told if "study group" in t], told


def test_an_invitation_to_the_gathering_one_hosts_too_is_a_yes_to_host_it_together():
    """Maria, Mei, Wolfgang and Eddy each chose to host the study group at Oak Hill College on
    February 14 (a play test): each chooses alone. Invited to it by another host, a host
    says they host it together, not "I'm going already"; a guest who goes still says that."""
    m = mind(who=persona("Wolfgang Schulz"))
    m.remember("thought", "I want to host a study group at Oak Hill College on February 14, from 3 pm to 5 pm, "
               "and to invite my friends", 7, subject=m.name)
    invite = Utterance("Maria Lopez", "Wolfgang, you're invited! I'm hosting a study group at Oak Hill College on "
                       "February 14, from 3 pm to 5 pm.", source="repaired: grounded: memory #1 (x); act invite")
    c = Conversation(("Maria Lopez", m.name), "x", NOW, [invite])
    (only,) = dg.offers(m, c, NOW, "chatting", "chatting")
    assert only.act == dg.ACCEPT and only.note.endswith("it hosts it too"), only
    assert "the study group" in only.text and "Maria" in only.text and not wd.fragment(only.text)
    said = Utterance(m.name, only.text, act=only.act.name, act_note=only.act.note_of(only.topic))
    c = Conversation(("Maria Lopez", m.name), "x", NOW, [invite, said])
    host = mind(who=persona("Maria Lopez"))
    glad = [o for o in dg.offers(host, c, NOW, "chatting", "chatting") if o.act == dg.REACT]
    assert glad and all(o.note == "the acceptance as a host too" and "can come" not in o.text for o in glad), glad
    guest = mind(who=persona("Klaus Mueller"))
    guest.remember("chat", 'Maria Lopez told Klaus: "Klaus, I\'m hosting a study group at Oak Hill College on '
                   'February 14, from 3 pm to 5 pm."', 7, subject="Maria Lopez")
    guest.remember("chat", "Klaus Mueller's plan for Tuesday February 14 at 15:00: attending the study group at "
                   "Oak Hill College (agreed with Maria Lopez)", 7, subject=guest.name)
    c = Conversation(("Eddy Lin", guest.name), "x", NOW, [replace(invite, speaker="Eddy Lin")])
    notes = [o.note for o in dg.offers(guest, c, NOW, "chatting", "chatting")]
    assert notes and not any(n.endswith("it hosts it too") for n in notes), notes


def test_no_offer_to_meet_at_an_hour_the_listener_just_said_is_taken():
    """Klaus: "... at 7 pm I'm having a drink at the bar." Latoya asked him along to a coffee at
    7 pm, and he could only decline (a week's run); at another hour she still may."""
    from agents.planning.plan import PlanItem
    m = mind(who=persona("Latoya Williams"))
    m.today.plan = [PlanItem(NOW.replace(hour=19), 60, "having a coffee", "the Ville:Hobbs Cafe:cafe")]
    busy = Utterance("Klaus Mueller", "Latoya, I'm having lunch just now; at 7 pm I'm having a drink at the bar.",
                     source="repaired: grounded: act answer (day)")
    c = Conversation((m.name, "Klaus Mueller"), "x", NOW, [busy])
    assert dg.meet(m, dg.voice(m, c), NOW, 1) is not None  # without the line, the offer is there
    assert dg.MEET not in [o.act for o in dg.offers(m, c, NOW, "chatting", "chatting")]
    free = Utterance("Klaus Mueller", "Latoya, I'm having lunch just now; at 3 pm I'm reading.",
                     source="repaired: grounded: act answer (day)")
    c2 = Conversation((m.name, "Klaus Mueller"), "x", NOW, [free])
    assert dg.MEET in [o.act for o in dg.offers(m, c2, NOW, "chatting", "chatting")]


def test_an_offer_to_meet_is_not_offered_back():
    from agents.planning.plan import PlanItem
    m = mind(who=persona("Maria Lopez"))
    m.today.plan = [PlanItem(datetime(2023, 2, 13, 12), 60, "having lunch at Hobbs Cafe", "the Ville:Hobbs Cafe:cafe")]
    offer = Utterance("Klaus Mueller", "I'll be having lunch at Hobbs Cafe today at 12 pm. Would you like to join "
                      "me, Maria?", source="repaired: grounded: today's plan; act meet")
    yes = Utterance(m.name, "I'd love to, Klaus! See you today at 12 pm.", source="repaired: grounded: act accept")
    told = Utterance("Klaus Mueller", "I know Wolfgang Schulz from the dorm.", source="repaired: grounded: act tell")
    c = Conversation(("Klaus Mueller", m.name), "x", NOW, [offer, yes, told])
    assert dg.MEET not in [o.act for o in dg.offers(m, c, NOW, "chatting", "chatting")]
    assert dg.meet(m, dg.voice(m, c), NOW, 3) is not None  # it would have, in another conversation


def test_the_host_invites_whoever_began_the_talk_and_babble_and_refusals_are_no_news():
    m = mind(who=persona(), thoughts=[PARTY])
    told = Utterance("Wolfgang Schulz", "Hi Isabella! I run every morning.", source="repaired: grounded: act tell")
    c = Conversation(("Wolfgang Schulz", m.name), "x", NOW, [told])
    assert dg.offers(m, c, NOW, "chatting", "chatting")[0].act == dg.INVITE
    asked = Utterance("Wolfgang Schulz", "Busy day, Isabella?", source="repaired: grounded: act ask (day)")
    assert {o.act for o in dg.offers(m, Conversation(("Wolfgang Schulz", m.name), "x", NOW, [asked]), NOW,
                                     "chatting", "chatting")} == {dg.ANSWER}  # a question is answered first
    m.remember("reflection", "I have a secret crush on Klaus. I'm not your best friend. I'm not your best friend.", 9)
    m.remember("chat", "I declined Carlos Gomez's invitation (having lunch at The Rose and Crown Pub today at 12 pm)",
               9, predicate="declined")
    news = [o.text for o in dg.tells(m, dg.voice(m, c), c, dg.recall(m, c, "chatting"), [], NOW)]
    assert news and not [t for t in news if "best friend" in t or "declined" in t]


def test_the_host_still_invites_after_the_other_offered_to_meet():
    m = mind(who=persona(), thoughts=[PARTY])
    offer = Utterance("Carlos Gomez", "I'll be having lunch at The Rose and Crown Pub today at 12 pm. Would you "
                      "like to join me, Isabella?", source="repaired: grounded: today's plan; act meet")
    no = Utterance(m.name, "Oh, Carlos, I wish I could come, but I can't.", source="repaired: grounded: act decline")
    back = Utterance("Carlos Gomez", "I have a long feud with my neighbour Giorgio Rossi.",
                     source="repaired: grounded: memory #3 (x); act tell")
    c = Conversation(("Carlos Gomez", m.name), "x", NOW, [offer, no, back])
    assert dg.INVITE in [o.act for o in dg.offers(m, c, NOW, "chatting", "chatting")]


def test_goodbye_is_offered_late_and_is_all_that_is_left_at_the_limit():
    m = mind()
    lines = [Utterance(("Maria Lopez", m.name)[i % 2], f"Line number {i} is said here.",
                       source="repaired: grounded: act tell") for i in range(7)]
    c = Conversation(("Maria Lopez", m.name), "x", NOW, lines)
    got = dg.offers(m, c, NOW, "chatting", "chatting")
    assert [o.act for o in got] == [dg.GOODBYE] and got[0].ends
    u = m.utter(c, NOW, "chatting")
    assert u.ends and "the only act that fits" in u.source and pv.kind_of(u.source) == pv.RULE
    early = dg.offers(m, Conversation(("Maria Lopez", m.name), "x", NOW), NOW, "chatting", "chatting")
    assert dg.GOODBYE not in [o.act for o in early]


def test_who_declined_a_party_declines_it_again_and_news_is_not_told_back_to_its_teller():
    ev = "a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm"
    francisco = mind(who=persona("Francisco Lopez"))
    invite = Utterance("Carlos Gomez", f"Francisco, come along to {ev}! Isabella is hosting it.",
                       source="repaired: grounded: memory #9 (x); act invite")
    c = Conversation(("Carlos Gomez", francisco.name), "x", NOW, [invite])
    assert {o.act for o in dg.offers(francisco, c, NOW, "chatting", "chatting")} == {dg.ACCEPT, dg.DECLINE}
    francisco.remember("chat", f"I declined Isabella Rodriguez's invitation (the {ev[2:]})", 4,
                       subject=francisco.name, predicate="declined", object="Isabella Rodriguez")
    assert [o.act for o in dg.offers(francisco, c, NOW, "chatting", "chatting")] == [dg.DECLINE]
    francisco.remember("chat", f'Carlos Gomez told Francisco: "Francisco, I heard there\'s {ev}."', 6,
                       subject="Carlos Gomez")
    francisco.remember("chat", f'Maria Lopez told Francisco: "Francisco, I heard there\'s {ev}."', 6,
                       subject="Maria Lopez")
    for other in ("Carlos Gomez", "Klaus Mueller"):
        talk_ = Conversation((francisco.name, other), "x", NOW)
        v = dg.voice(francisco, talk_)
        nodes = dg.recall(francisco, talk_, "chatting")
        news = [o.text for o in dg.tells(francisco, v, talk_, nodes, dg.events_known(francisco, nodes, NOW), NOW)
                if "party" in o.text]
        assert bool(news) == (other == "Klaus Mueller"), (other, news)  # not back to Carlos, who told it


def test_a_stranger_is_asked_what_they_do_and_whom_ones_description_names_is_known():
    stranger = mind(who=persona("Ayesha Khan"))
    c = Conversation((stranger.name, "Adam Smith"), "x", NOW)
    v = dg.voice(stranger, c)
    own = {x.id for x in stranger.memory.nodes if x.source == pv.tag(pv.RULE, pv.SEED)}
    intro = [o for o in dg.tells(stranger, v, c, dg.recall(stranger, c, "chatting"), [], NOW)]
    assert not v.known and not {o.fact.node_id for o in intro if o.fact} & own  # not recited unasked
    c.lines += [Utterance("Adam Smith", "Hello, Ayesha Khan! I'm Adam. How is your day going?",
                          source="repaired: grounded: chosen from 2 acts; act ask (day)"),
                Utterance(stranger.name, "Adam, it's a quiet day for me.", source="x; act answer (day)"),
                Utterance("Adam Smith", "Ayesha, nothing special here.", source="grounded: nothing planned; act tell")]
    asked = [o for o in dg.offers(stranger, c, NOW, "chatting", "chatting") if o.act == dg.ASK]
    assert [o for o in asked if o.topic == "you"]  # a stranger is asked what they do
    dorm = wd.voice_of("Wolfgang Schulz", "Maria Lopez", "quiet", "Wolfgang Schulz shares the dorm with Maria Lopez",
                       known=False, salt="1")
    assert dorm.known and not dorm.warm  # named in one's description: known, not necessarily close
    greeted = Utterance("Giorgio Rossi", "Ayesha, hello there. I dislike my neighbour Carlos Gomez.",
                        source="x; act tell")
    r = dg.react(wd.voice_of("Ayesha Khan", "Giorgio Rossi", "", "", True, "1"), greeted, dg.TELL, NOW, 1).text
    assert "hello there" not in r.lower() and "neighbour" not in r
    hello = Utterance("John Lin", "Hello, Hailey Johnson! I'm John. I enjoy helping customers find the right medicine.",
                      source="x; act tell")
    r = dg.react(wd.voice_of("Hailey Johnson", "John Lin", "", "", False, "2"), hello, dg.TELL, NOW, 1).text
    assert "you're John" not in r and "helping customers" not in r
    studying = Utterance("Ayesha Khan", "Studying English literature at Oak Hill College is what I'm doing right now.",
                         source="x; act answer (day)")
    r = dg.react(wd.voice_of("Klaus Mueller", "Ayesha Khan", "", "", True, "3"), studying, dg.ANSWER, NOW, 2).text
    assert not re.search(r"(So|Oh|Ah|Wait),? Studying", r)


def test_an_offer_made_at_the_last_line_is_answered_and_none_is_made_without_room():
    m = mind()
    lines = [Utterance(("Maria Lopez", m.name)[i % 2], f"Line number {i} is said here.",
                       source="repaired: grounded: act tell") for i in range(7)]
    lines[-1] = Utterance("Maria Lopez", "Isabella, I'll be having lunch at Hobbs Cafe today at 12 pm. Would you "
                          "like to join me?", source="repaired: grounded: today's plan; act meet")
    got = dg.offers(m, Conversation(("Maria Lopez", m.name), "x", NOW, lines), NOW, "chatting", "chatting")
    assert {o.act for o in got} <= {dg.ACCEPT, dg.DECLINE} and got and all(o.ends for o in got)
    from agents.planning.plan import PlanItem
    m.today.plan = [PlanItem(datetime(2023, 2, 13, 18), 60, "having dinner at The Rose and Crown Pub",
                             "the Ville:The Rose and Crown Pub:pub", "model")]
    two = [Utterance("Maria Lopez", "Isabella, I'm painting today.", source="x; act tell")]
    roomy = dg.offers(m, Conversation(("Maria Lopez", m.name), "x", NOW, two), NOW, "chatting", "chatting")
    assert [o for o in roomy if o.act == dg.MEET]
    m.settings.max_conversation_lines = 3  # one line left after this one: no room for an answer to an offer
    late = dg.offers(m, Conversation(("Maria Lopez", m.name), "x", NOW, two), NOW, "chatting", "chatting")
    assert not [o for o in late if o.act in dg.OFFERS]


def test_a_whole_conversation_has_no_repeats_no_fragments_and_no_canned_openers():
    for pick in (lambda o: 1, lambda o: len(o), lambda o: min(2, len(o))):
        a = mind(pick, who=persona(), thoughts=[PARTY])
        b = mind(pick, who=persona("Klaus Mueller"))
        c = talk(a, b)
        texts = [u.text for u in c.lines]
        assert len(set(map(wd.norm, texts))) == len(texts)
        assert not [t for t in texts if wd.fragment(t)]
        assert not [t for t in texts if t.startswith(("Oh, I did not know that", "That is nice to hear"))]
        assert c.lines[-1].ends and all(dg.act_of(u.source)[0] for u in c.lines)


def test_act_by_rule_for_runs_without_acts():
    assert dg.act_by_rule("I'd love to, Maria!", "Would you like to come?") == dg.ACCEPT
    assert dg.act_by_rule("I'm at the cafe all day.", "What are you up to?") == dg.ANSWER
    assert dg.act_by_rule("A party? That sounds wonderful!", "There's a party at Hobbs Cafe.") == dg.REACT
    assert dg.act_by_rule("Take care, Maria!", "I run the cafe.") == dg.GOODBYE
    assert dg.act_by_rule("How are you?", None) == dg.ASK
    assert dg.act_by_rule("", None) == dg.TELL and dg.act_of(None) == (None, "") and dg.act_of("act nonsense") == (
        None, "")


# ---------------------------------------------------------------------------- talking at all

def test_talk_blocks_are_counted_and_a_host_starts_the_talk():
    m = mind(who=persona(), thoughts=[PARTY])
    assert may_talk(m, "Maria Lopez", NOW, "chatting")
    assert not may_talk(m, "Maria Lopez", NOW.replace(hour=23), "chatting")
    m.social.last_conversation = NOW
    assert not may_talk(m, "Maria Lopez", NOW, "chatting")
    assert m.social.talk_stats == Counter({"blocked: hours": 1, "blocked: gap": 1})
    from agents.talk.converse import decide_to_talk
    talk_, source = decide_to_talk(m, "Maria Lopez", NOW, "working", "reading")
    assert talk_ and source.startswith("rule: grounded: an invitation to make: memory #")
    m.social.told["Maria Lopez"] = ["event:party|2023-02-14|hobbs cafe"]
    talk_, source = decide_to_talk(m, "Maria Lopez", NOW, "working", "reading")
    assert talk_ and source == pv.MODEL and m.social.talk_stats["talked"] == 1  # the model asked, said yes


def test_news_of_ones_own_raises_the_will_to_talk_a_secret_does_not():
    """Sam, with his candidacy untold to Adam, starts the talk without asking the model; told,
    the model decides again. Maria's crush never does."""
    from agents.talk.converse import decide_to_talk
    sam = mind(who=persona("Sam Moore"),
               thoughts=["I have decided to run for mayor of the Ville in the coming local election; nobody knows yet"])
    talk_, source = decide_to_talk(sam, "Adam Smith", NOW, "walking", "reading")
    assert talk_ and source.startswith("rule: grounded: news of its own to tell: memory #") and "mayor" in source
    [x] = [x for x in sam.memory.nodes if "mayor" in x.description]
    sam.social.told["Adam Smith"] = [f"mem:{x.id}"]
    assert decide_to_talk(sam, "Adam Smith", NOW, "walking", "reading") == (True, pv.MODEL)
    maria = mind(who=persona("Maria Lopez"), thoughts=["I have a secret crush on Klaus Mueller"])
    assert decide_to_talk(maria, "Adam Smith", NOW, "walking", "reading")[1] == pv.MODEL


def test_a_talk_begun_with_news_of_ones_own_opens_with_it():
    """Sam, starting a talk with his candidacy untold to Adam, says it first, as a host opens with
    the invitation, whatever the model would have picked; told, the talk opens as any other. As
    the listener, he answers first."""
    mayor = "I have decided to run for mayor of the Ville in the coming local election; nobody knows yet"
    sam = mind(pick=choose("day"), who=persona("Sam Moore"), thoughts=[mayor])
    c = talk(sam, mind(who=persona("Adam Smith")))
    first = c.lines[0]
    assert first.speaker == "Sam Moore" and "run for mayor" in first.text and first.act == "tell", first
    assert "knows" not in first.text and "rule: grounded:" in first.source  # the only line that fits
    again = talk(sam, mind(who=persona("Adam Smith")), NOW.replace(hour=15))
    assert "mayor" not in again.lines[0].text  # told once
    asked = talk(mind(pick=choose("day"), who=persona("Adam Smith")), mind(pick=choose("day"), who=persona("Sam Moore"),
                                                                         thoughts=[mayor]))
    assert asked.lines[0].speaker == "Adam Smith" and "mayor" not in asked.lines[0].text


def test_past_its_days_conversations_a_resident_starts_none_but_to_invite():
    """After a day's conversations (talks_a_day) no call is asked and none is started, except
    to pass on an invitation not yet made to this one."""
    from agents.talk.converse import decide_to_talk
    m = mind(who=persona(), thoughts=[PARTY])
    m.today.chats = [f"with Person {i} Smith: the weather" for i in range(m.settings.talks_a_day)]
    talk_, source = decide_to_talk(m, "Maria Lopez", NOW, "working", "reading")
    assert talk_ and "an invitation to make" in source  # the party still gets told
    m.social.told["Maria Lopez"] = ["event:party|2023-02-14|hobbs cafe"]
    calls = len(m.gateway.fake.calls)
    talk_, source = decide_to_talk(m, "Maria Lopez", NOW, "working", "reading")
    assert not talk_ and source == "rule: enough talk today" and len(m.gateway.fake.calls) == calls
    assert m.social.talk_stats["refused: enough talk today"] == 1
    m.today.chats.pop()  # one fewer: the model decides again
    assert decide_to_talk(m, "Maria Lopez", NOW, "working", "reading") == (True, pv.MODEL)


def test_social_state_round_trips_and_old_saves_load():
    s = Social()
    s.told["Maria Lopez"] = ["event:party|2023-02-14|hobbs cafe", "mem:3"]
    s.talk_stats["refused"] = 2
    t = Social()
    t.from_state(s.to_state())
    assert t.told == s.told and t.talk_stats == s.talk_stats
    old = {k: v for k, v in s.to_state().items() if k not in ("told", "talk_stats")}
    u = Social()
    u.from_state(old)
    assert u.told == {} and u.talk_stats == Counter()
    u.from_state({**old, "told": "garbage", "talk_stats": {"x": "y"}})
    assert u.told == {} and u.talk_stats == Counter()


# ---------------------------------------------------------------------------- the measures

def _line(t, who, to, cid, text, source=None):
    return {"time": f"2023-02-14 {t}", "resident": who, "kind": "line", "conversation": cid, "partner": to,
            "text": text, "source": source}


def test_the_dialogue_measures_on_a_tiny_run():
    Isa, M, K = "Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"
    ev = [{"time": "2023-02-14 11:00:00", "resident": Isa, "kind": "chat", "partner": M, "conversation": 1}]
    ev += [_line("11:00:10", Isa, M, 1, "Hi Maria! I'm hosting a party at Hobbs Cafe today at 5 pm.",
                 "repaired: grounded: memory #4 (x); chosen from 3 acts; act invite"),
           _line("11:00:20", M, Isa, 1, "I'd love to, Isabella! I'll be there.", "repaired: grounded: act accept"),
           _line("11:00:30", Isa, M, 1, "Wonderful! See you there.", "repaired: grounded: act react"),
           _line("11:00:40", M, Isa, 1, "Take care, Isabella!", "rule: grounded: act goodbye")]
    # an old-style conversation (no acts): canned openers, a repeat, a fragment
    old = ["Oh, I did not know that! I run the cafe.", "Oh, I did not know that! Despite his fear of them.",
           "Oh, I did not know that! I run the cafe.", "Oh, I did not know that! I know you.",
           "Oh, I did not know that! I study.", "Oh, I did not know that! I paint."]
    ev += [_line(f"12:00:{10 + i}", (K, M)[i % 2], (M, K)[i % 2], 2, t) for i, t in enumerate(old)]
    ev.append(_line("12:30:00", M, "Alex", None, "The visitor's chat is not counted."))
    d = dialogue_measures(ev, [Isa, M, K], datetime(2023, 2, 14, 11), datetime(2023, 2, 14, 13))
    assert d["conversations"] == 2 and d["lines"] == 10 and d["per_sim_hour"] == 1.0
    assert d["canned_lines"] == 6 and d["canned_share"] == 0.6 and d["canned_openings"] == {"oh i did": 6}
    assert d["repeats"] == 1 and d["fragments"] == 1 and "Despite" in d["fragment_examples"][0]["text"]
    assert d["acts"]["invite"] == 1 and d["acts_recorded"] == 4
    assert d["responsive"] >= 2 and 0 < d["responsive_share"] <= 1
    md = "\n".join(dialogue_markdown(d))
    assert "## 5. Dialogue" in md and "1.0 per sim hour" in md and '"oh i did" ×6' in md
    assert "2 conversations (1.0/sim h)" in dialogue_summary(d)
    states = {M: {"talk_stats": {"talked": 2, "blocked: gap": 5}}, K: {"talk_stats": {"talked": 1, "bad": "x"}}}
    assert dialogue_measures([], [Isa, M, K], states=states)["talk_decisions"] == {"blocked: gap": 5, "talked": 3}
    empty = dialogue_measures(None, [Isa])
    assert empty["conversations"] == 0 and empty["per_sim_hour"] is None and "n/a" in dialogue_summary(empty)


# ---------------------------------------------------------------------------- the real model

@pytest.mark.slow
@needs_model
@pytest.mark.timeout(900)
def test_a_conversation_on_the_embedded_model():
    """Isabella, Maria and Klaus as a run starts them, on the real embedded model and embedder:
    two short conversations, with no canned openers, no repeats, no fragments, every line's act
    recorded, and the party's day, hours and place carried whenever it is named."""
    from agents.model.gateway import Gateway, load_config
    from agents.recall.embeddings import make_embedder
    from agents.residents.persona import load_cast
    from lab.evaluate.interviews import start_minds

    config = load_config({"seed": 0}, env={}, toml_path=None)
    assert config.grounded == "on"
    cast, scenario = load_cast("maps/the_ville")
    personas = {p.name: p for p in cast}
    names = ["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"]
    start = datetime(2023, 2, 13, 10, 0)
    minds = start_minds(names, personas, scenario, Gateway(config), make_embedder(config), start)
    isabella, maria, klaus = (minds[n] for n in names)
    lines = []
    for a, b, t in ((isabella, maria, start), (maria, klaus, start.replace(hour=11))):
        c = talk(a, b, t)
        for m in (a, b):
            m.end_conversation(c, t)
        print("\n" + c.transcript())
        texts = [u.text for u in c.lines]
        assert len(set(map(wd.norm, texts))) == len(texts), texts
        assert not [x for x in texts if wd.fragment(x)], texts
        assert all(dg.act_of(u.source)[0] for u in c.lines)
        lines += texts
        for u in c.lines:  # news and invitations carry the party's day, hours and place (a reaction may name it)
            if dg.act_of(u.source)[0] in (dg.INVITE, dg.TELL) and "Valentine's Day party" in u.text:
                assert "at Hobbs Cafe on February 14, from 5 pm to 7 pm" in u.text
    assert not [x for x in lines if x.startswith(("Oh, I did not know that", "That is nice to hear"))]


def test_bad_news_is_not_met_with_good_for_you_and_a_line_said_back_turns_you_into_me():
    feud = Utterance("Carlos Gomez", "I have a long feud with my neighbour Giorgio Rossi.", source="x; act tell")
    for salt in ("41:1", "41:2", "7:3"):
        v = wd.Voice("Isabella Rodriguez", "Carlos Gomez", known=True, warm=True, salt=salt)
        for turn in range(6):
            said = dg.react(v, feud, dg.TELL, NOW, turn).text
            assert "feud" not in said and re.search(r"sorry|hard", said) and not any(
                p in said for p in ("Good for you", "great to hear", "glad", "interesting"))
    assert wd.in_your_words("I share the house with you") == "you share the house with me"
    assert wd.in_your_words("I run Hobbs Cafe") == "you run Hobbs Cafe"


def test_a_secret_is_told_to_nobody():
    a = mind(thoughts=["I have a secret crush on Klaus Mueller, and I have not told anyone"])
    b = mind(who=persona("Mei Lin"))
    c = talk(a, b)
    assert c.lines and not any("crush" in u.text for u in c.lines)


def test_news_nobody_knows_yet_is_told_a_secret_is_not():
    assert knowing.SECRET.search("I have a secret crush on Klaus Mueller, and I have not told anyone")
    assert not knowing.SECRET.search("I have decided to run for mayor of the Ville; nobody knows yet")
    sam = mind(pick=choose("mayor"), who=persona("Sam Moore"),
               thoughts=["I have decided to run for mayor of the Ville in the coming local election; nobody knows yet"])
    c = talk(sam, mind(who=persona("Adam Smith")))
    told = [u.text for u in c.lines if u.speaker == "Sam Moore" and "mayor" in u.text]
    assert told and not any("knows" in t for t in told)  # the note to himself is not said
    assert knowing.untold_note_dropped('Sam told me: "I will run for mayor; nobody knows yet."') == \
        'Sam told me: "I will run for mayor."'


def test_what_ones_description_says_of_the_listener_is_not_told_to_them():
    # "I live with you and our son Eddy Lin", Mei told John: what they share, the listener knows
    mei = replace(persona("Mei Lin"), description="Mei Lin is a professor; she lives with her husband John Lin "
                  "and their son Eddy Lin")
    m = mind(who=mei)
    home = next(x for x in m.memory.nodes if x.source == pv.tag(pv.RULE, pv.SEED) and "John Lin" in x.description)
    to_john = Conversation((m.name, "John Lin"), "x", NOW)
    assert dg.voice(m, to_john).known and not dg.tells(m, dg.voice(m, to_john), to_john, [home], [], NOW)
    asked = Conversation(("John Lin", m.name), "x", NOW, [Utterance("John Lin", "Mei, what do you do?",
                                                                    source="x; act ask (you)")])
    said = dg.answer(m, dg.voice(m, asked), "Mei, what do you do?", "you", NOW, [], [], 1)
    assert said is not None and "husband" not in said.text and "you" not in said.text  # not "I live with you"


def test_asked_about_her_day_a_host_names_her_party_later_on():
    from agents.planning.plan import PlanItem, chosen_tag
    m = mind()
    party = PlanItem(NOW.replace(hour=17), 120, "hosting the Valentine's Day party", "the Ville:Hobbs Cafe:cafe",
                     chosen_tag(3, origin="memory #4 (I want to host a Valentine's Day party at Hobbs Cafe)"))
    m.today.plan = [PlanItem(NOW.replace(hour=8), 240, "running the cafe", "the Ville:Hobbs Cafe:cafe", "model"),
                    PlanItem(NOW.replace(hour=12), 60, "having lunch", "the Ville:Hobbs Cafe:cafe", "model"),
                    PlanItem(NOW.replace(hour=13), 240, "inviting friends and customers to the party",
                             "the Ville:Hobbs Cafe:cafe", chosen_tag(3, origin="memory #4 (...)")),
                    party]
    at_nine = NOW.replace(hour=9)
    said = replies._day_answer(m, wd.Voice(m.name, "Maria Lopez", True, False, "1"), at_nine, "day", 1).text
    assert "having lunch" in said and said.endswith("and at 5 pm I'm hosting the Valentine's Day party at Hobbs Cafe.")
    assert "inviting" not in said  # a call to invite is no engagement to name
    m.today.plan[-1] = replace(party, source="model")  # the routine's own evening: only what is next
    said = replies._day_answer(m, wd.Voice(m.name, "Maria Lopez", True, False, "1"), at_nine, "day", 1).text
    assert "5 pm" not in said and "having lunch" in said


def test_a_day_told_to_someone_in_it_says_you():
    """ "Having lunch with Ayesha Khan" told to Ayesha is "having lunch with you"; to Maria it names her."""
    from agents.planning.plan import PlanItem
    m = mind()
    m.today.plan = [PlanItem(NOW.replace(hour=8), 240, "running the cafe", "the Ville:Hobbs Cafe:cafe", "model"),
                    PlanItem(NOW.replace(hour=12), 60, "having lunch with Ayesha Khan", "the Ville:Hobbs Cafe:cafe",
                             "model")]
    at_nine = NOW.replace(hour=9)
    to_ayesha = replies._day_answer(m, wd.Voice(m.name, "Ayesha Khan", True, False, "1"), at_nine, "day", 1).text
    assert "having lunch with you" in to_ayesha and "Ayesha Khan" not in to_ayesha
    to_maria = replies._day_answer(m, wd.Voice(m.name, "Maria Lopez", True, False, "1"), at_nine, "day", 1).text
    assert "having lunch with Ayesha Khan" in to_maria


def test_people_named_are_people_in_the_order_named_not_shops():
    text = ("Carmen buys at Harvey Oak Supply Store and Hobbs Cafe; yesterday Tom Moreno told Maria Lopez "
            "and Arthur Burton; Tom Moreno again; Johnson Park; Oak Hill College")
    assert dg.gr_names(text) == ["Tom Moreno", "Maria Lopez", "Arthur Burton"]  # "Harvey Oak" was asked after
    m = mind(who=replace(persona("Carmen Ortiz"), description="Carmen Ortiz buys her paints at Harvey Oak Supply "
                         "Store; she knows Tom Moreno and Arthur Burton"))
    m.social.known_people.update({"Tom Moreno", "Arthur Burton"})
    # the first person named with the listener, whatever the run's hash seed (a set's order was not)
    assert dg.shared_acquaintance(m, "Arthur Burton", []) == "Tom Moreno"


def test_one_follow_up_a_day_of_each_listener():
    """Asked how one thing went, the listener is not asked after another thing that day (a pair
    asked three follow-ups in a day, of different things); the next day, the other is asked."""
    isabella = mind(pick=choose("you told me"))
    for what, made in (("hosting a study group at Oak Hill College on February 12, from 4 pm to 5 pm", 15),
                       ("hosting a reading at Hobbs Cafe on February 12, from 6 pm to 7 pm", 16)):
        isabella.remember("chat", f'Klaus Mueller told Isabella: "Isabella, I\'m {what}."', 6, subject="Klaus Mueller",
                       predicate="told", object=isabella.name, created=NOW.replace(day=12, hour=made).isoformat())
    first = Conversation(("Klaus Mueller", isabella.name), "x", NOW, [Utterance("Klaus Mueller", "Isabella, hello.")])
    asked = dg.line(isabella, first, NOW, "chatting", "chatting")
    assert asked.act_note.startswith("followup") and "you told me" in asked.text
    later = NOW + timedelta(hours=3)
    again = Conversation(("Klaus Mueller", isabella.name), "x", later, [Utterance("Klaus Mueller", "Isabella, hi.")])
    assert dg.follow_up(isabella, dg.voice(isabella, again), again, later, 1) is None
    tomorrow = NOW + timedelta(days=1)
    fresh = Conversation(("Klaus Mueller", isabella.name), "x", tomorrow, [Utterance("Klaus Mueller", "Isabella, hi.")])
    other = dg.follow_up(isabella, dg.voice(isabella, fresh), fresh, tomorrow, 1)
    assert other is not None and other.fact is not None and other.fact.node_id != asked_fact(isabella, asked)


def asked_fact(m, u):
    """The memory a follow-up line asked after, as the speaker's told list keeps it."""
    marks = [k for k in m.social.told["Klaus Mueller"] if k.startswith("followup:mem:")]
    assert len(marks) == 1
    return int(marks[0].rsplit(":", 1)[1])
