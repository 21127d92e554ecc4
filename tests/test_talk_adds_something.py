"""Talk that holds together (agents/talk/dialogue.py, wording.py): a reaction names what it
reacts to in a word and adds to it, never the line said back with "?"; nobody recites a tally
or their own description unasked; news is not told back to whoever told it; an earlier
conversation is followed up; an offer that clashes with one's engagements is neither made nor
accepted; what one says of one's day follows one's arrangements."""
from __future__ import annotations

import re
from datetime import datetime

from agents import dialogue as dg
from agents import wording as wd
from agents.explain import provenance as pv
from agents.mind.core import Mind
from agents.planning.arrangements import Arrangement
from agents.planning.plan import PlanItem
from agents.recall import insights, reflect
from agents.residents.mind_settings import MindSettings
from agents.support.types import Conversation, Utterance
from agents.talk import answers as replies
from agents.talk import knowing
from tests.fakes import HashEmbedder, make_gateway
from tests.scripted_minds import grounded_mind, persona, plausible

NOW = datetime(2023, 2, 14, 10, 0)
YESTERDAY = datetime(2023, 2, 13, 15, 0)
PARTY = ("Maria, I'm hosting a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm.")


def mind(name="Maria Lopez", thoughts=()):
    return grounded_mind(name, NOW, thoughts)


def said(speaker, text, act="tell"):
    return Utterance(speaker, text, source=f"repaired: grounded: memory #3 (x); chosen from 3 acts; act {act}")


def runs(text, n=4):
    """The runs of ``n`` words of a text (lowercased), to tell a line said back."""
    w = re.findall(r"[a-z']+", text.lower())
    return {" ".join(w[i:i + n]) for i in range(len(w) - n + 1)}


# ---------------------------------------------------------------------------- reactions

def test_a_reaction_names_the_news_in_a_word_and_adds_a_question_not_the_line_back():
    heard = [
        (said("Tom Moreno", "Jane, I'm having breakfast today; at 8 am I'm running the grocery counter.", "answer"),
         dg.ANSWER),
        (said("Hailey Johnson", "Giorgio, I see a lot of you."), dg.TELL),
        (said("Ayesha Khan", "Waking up and getting ready for the day is what I'm doing right now.", "answer"),
         dg.ANSWER),
        (said("John Lin", "I am friends with Tom Moreno, who works in the same market."), dg.TELL),
        (said("Isabella Rodriguez", PARTY), dg.TELL),
        (said("Ayesha Khan", "There you are! I have a long feud with my neighbour Carlos Gomez."), dg.TELL),
    ]
    for salt in range(20):
        for u, act in heard:
            v = wd.Voice("Jane Moreno", u.speaker, True, bool(salt % 2), str(salt))
            r = dg.react(v, u, act, NOW, salt).text
            assert not runs(r) & runs(u.text), (u.text, r)  # nothing of four words said back
            assert "?" in r and not wd.fragment(r), r  # it asks something: the other has something to answer
            assert "there me are" not in r and "you're having breakfast" not in r and "waking up" not in r
    topics = {"Jennifer, I have decided to run for mayor of the Ville in the coming local election.": "mayor",
              "Jennifer, I'm attending the Valentine's Day party today.": "Valentine's Day party",
              "Jennifer, I'm having a drink at the bar today.": "a drink",
              "Jennifer, I'm waking up and getting ready for the day today.": "waking up"}
    assert {t: dg.topic_of(t, "Jennifer") for t in topics} == topics
    meals = {wd.reaction(wd.Voice("Hailey Johnson", "Latoya Williams", True, True, str(s)), "dinner", "doing", s)
             for s in range(12)}
    assert not [r for r in meals if "Do you enjoy it" in r], meals  # "Dinner, nice! Do you enjoy it?"
    v = wd.Voice("Maria Lopez", "Isabella Rodriguez", True, True, "1")
    party = {dg.react(wd.Voice(v.me, v.other, True, True, str(s)), said(v.other, PARTY), dg.TELL, NOW, s).text
             for s in range(20)}
    assert any("party" in r for r in party) and not any("February 14" in r for r in party)


def test_a_day_told_with_what_is_next_is_not_asked_what_is_next():
    told = said("Adam Smith", "Ayesha, I'm studying at the library today; at 12 pm I'm having lunch at Hobbs Cafe; "
                "and at 2 pm I'm attending the sketching session at Johnson Park.", "answer")
    got = {dg.react(wd.Voice("Ayesha Khan", "Adam Smith", True, True, str(s)), told, dg.ANSWER, NOW, s).text
           for s in range(20)}
    assert not [r for r in got if re.search(r"next|planned", r)], got  # "Adam, busy day! What's next for you?"
    alone = said("Adam Smith", "Ayesha, I'm studying at the library today.", "answer")
    asked = {dg.react(wd.Voice("Ayesha Khan", "Adam Smith", True, True, str(s)), alone, dg.ANSWER, NOW, s).text
             for s in range(20)}
    assert [r for r in asked if re.search(r"next|planned", r)]  # what is next, asked when not told


def test_one_who_knows_the_news_already_says_so_instead_of_calling_it_news():
    maria = mind()
    maria.remember("chat", 'Klaus Mueller told Maria: "Maria, I heard Isabella Rodriguez is hosting a Valentine\'s Day '
                   'party at Hobbs Cafe on February 14, from 5 pm to 7 pm."', 6, subject="Klaus Mueller")
    c = Conversation(("Isabella Rodriguez", maria.name), "x", NOW, [said("Isabella Rodriguez", PARTY)])
    reactions = [o.text for o in dg.offers(maria, c, NOW, "chatting", "chatting") if o.act == dg.REACT]
    assert reactions and "Klaus" in reactions[0], reactions  # "yes, Klaus told me about it."
    # ... and the one telling it hosts it: not asked "Are you going?" of her own party
    assert "Are you going" not in reactions[0]
    for s in range(12):
        heard = wd.reaction(wd.Voice(maria.name, "Isabella Rodriguez", True, True, str(s)), "party", "heard-hosted",
                            s, "Klaus")
        assert "Klaus" in heard and "Are you going" not in heard, heard


def test_a_reaction_brings_ones_own_plan_or_memory_on_the_same_place_or_person():
    maria = mind()
    maria.today.plan = [PlanItem(NOW.replace(hour=12), 60, "having lunch", "the Ville:Hobbs Cafe:cafe", "model")]
    c = Conversation(("Isabella Rodriguez", maria.name), "x", NOW, [said("Isabella Rodriguez", PARTY)])
    got = [o for o in dg.offers(maria, c, NOW, "chatting", "chatting") if o.act == dg.REACT]
    mine = [o.text for o in got if o.note == "today's plan"]
    assert mine and "12 pm" in mine[0] and "having lunch" in mine[0] and "February" not in mine[0], mine
    klaus = mind("Klaus Mueller")
    klaus.remember("thought", "I helped Tom Moreno carry crates at the market last week", 6, subject=klaus.name)
    c = Conversation(("Jane Moreno", klaus.name), "x", NOW, [
        said("Jane Moreno", "Klaus, Tom Moreno is opening a new stall at the market next week.")])
    got = [o.text for o in dg.offers(klaus, c, NOW, "chatting", "chatting") if o.act == dg.REACT]
    assert any("crates" in t for t in got), got


# ---------------------------------------------------------------------------- no recitals

def tally_mind():
    m = mind("Isabella Rodriguez")
    m.remember_many([dict(kind="reflection", text=c.text, importance=9, subject=m.name,
                          source=reflect.grounded_source(c, 4))
                     for c in (insights.Candidate("people", "I often talk with Klaus Mueller.", (1, 2)),
                               insights.Candidate("people", "I see a lot of Klaus Mueller.", (1, 2)),
                               insights.Candidate("topic", "The coffee keeps coming up.", (1, 3)))])
    return m


def test_no_tally_and_no_description_of_oneself_unasked_whatever_the_act():
    m = tally_mind()
    own = [x.description for x in m.memory.nodes if x.source == pv.tag(pv.RULE, pv.SEED)]
    assert own
    recital = re.compile(r"often talk|see a lot of|keeps coming up|runs Hobbs|run Hobbs|loves gatherings|love gather")
    for other in ("Klaus Mueller", "Maria Lopez", "Ayesha Khan"):
        for lines in ([], [said(other, "Isabella, Klaus Mueller is painting a mural at Johnson Park.")],
                      [said(other, "Isabella, have you seen Klaus lately?", "ask (person:Klaus Mueller)")]):
            c = Conversation((other, m.name), "x", NOW, list(lines))
            texts = [o.text for o in dg.offers(m, c, NOW, "chatting", "chatting")]
            assert texts and not [t for t in texts if recital.search(t)], (other, texts)
    asked = Conversation(("Ayesha Khan", m.name), "x", NOW, [said("Ayesha Khan", "So, Isabella, what do you do?",
                                                                   "ask (you)")])
    answers = [o.text for o in dg.offers(m, asked, NOW, "chatting", "chatting")]
    assert answers and all("Hobbs Cafe" in t for t in answers), answers  # asked: now it is said



def test_a_reflection_resting_only_on_ones_description_or_on_a_secret_is_not_told_unasked():
    m = mind("Isabella Rodriguez")
    own = [x.id for x in m.memory.nodes if x.source == pv.tag(pv.RULE, pv.SEED)]
    secret = m.remember("thought", "I have a secret crush on Klaus Mueller; I have not told anyone.", 8)
    heard = m.remember("chat", 'Maria Lopez told me: "Klaus Mueller is painting a mural at Johnson Park."', 6)
    assert own and secret is not None and heard is not None
    m.remember_many([dict(kind="reflection", text=text, importance=9, subject=m.name, evidence=list(cites),
                          source=reflect.grounded_source(insights.Candidate(kind, text, cites), 4))
                     for kind, text, cites in (
                         ("wants", "I care a lot about making people feel welcome.", tuple(own[:2])),
                         ("wants", "I want to get to know Klaus Mueller better.", (secret.id,)),
                         ("character", "Klaus Mueller is dedicated to painting murals.", (heard.id, own[0])))])
    c = Conversation(("Ayesha Khan", m.name), "x", NOW, [])
    texts = [o.text for o in dg.offers(m, c, NOW, "chatting", "chatting")]
    assert texts and not [t for t in texts if re.search(r"feel welcome|get to know Klaus", t)], texts
    # an insight about the listener is not told to them ("You are planning a study group", to Klaus)
    told_klaus = [o.text for o in dg.offers(m, Conversation(("Klaus Mueller", m.name), "x", NOW, []), NOW,
                                            "chatting", "chatting")]
    assert told_klaus and not [t for t in told_klaus if "murals" in t], told_klaus
    # what rests on something that happened is still news
    assert any(knowing.own_description(x, m.memory) is False and "murals" in x.description for x in m.memory.nodes)



def test_what_someone_is_like_is_no_news_but_what_they_work_towards_is():
    """Played on Feb 15: "Hi Ayesha. Mei Lin is dedicated to teaching classes.", "Hello, Klaus. I am
    dedicated to researching number theory." Insights of character, bond and wants are said when
    asked about the person, not told as news; an aim (Sam's candidacy) still is news."""
    m = mind("Maria Lopez")
    seen = [m.remember("observation", f"Mei Lin is teaching classes at Oak Hill College ({i})", 3) for i in range(3)]
    cites = tuple(x.id for x in seen if x is not None)
    m.remember_many([dict(kind="reflection", text=text, importance=9, subject=m.name, evidence=list(cites),
                          source=reflect.grounded_source(insights.Candidate(kind, text, cites), 4))
                     for kind, text in (("character", "Mei Lin is dedicated to teaching classes."),
                                        ("character", "I am dedicated to studying physics."),
                                        ("bond", "Klaus Mueller wants to spend time with me."),
                                        ("aims", "Sam Moore is working towards running for mayor of the Ville."))])
    c = Conversation(("Ayesha Khan", m.name), "x", NOW, [])
    texts = [o.text for o in dg.offers(m, c, NOW, "chatting", "chatting") if o.act == dg.TELL]
    assert not [t for t in texts if re.search(r"dedicated|spend time with", t)], texts
    news = dg.tells(m, dg.voice(m, c), c, m.memory.nodes, [], NOW)
    assert [o.text for o in news if "mayor" in o.text], [o.text for o in news]
    asked = Conversation(("Ayesha Khan", m.name), "x", NOW, [said("Ayesha Khan", "Maria, how is Mei doing these days?",
                                                                   "ask (person:Mei Lin)")])
    answers = [o.text for o in dg.offers(m, asked, NOW, "chatting", "chatting")]
    assert any("Mei" in t for t in answers), answers  # asked about her: what she is like may be said


def test_asked_about_someone_one_lives_with_the_answer_is_no_description_said_back_as_you():
    # a 25-resident run: Mei asked John "How is Eddy doing these days?" and heard
    # "I live with you, a college professor, and our son Eddy Lin."
    john = persona("John Lin")
    john.description = ("John Lin is a pharmacy shopkeeper; John Lin lives with his wife, Mei Lin, a college "
                        "professor, and son, Eddy Lin")
    m = Mind(john, make_gateway(plausible, timeout=30.0, deadline=60.0), HashEmbedder(64), MindSettings(grounded=True))
    m.start_turn(NOW)
    assert any("Eddy" in x.description for x in m.memory.nodes)
    c = Conversation(("Mei Lin", m.name), "x", NOW, [said("Mei Lin", "How is Eddy doing these days, John?",
                                                          "ask (person:Eddy Lin)")])
    texts = [o.text for o in dg.offers(m, c, NOW, "chatting", "chatting")]
    assert texts and not [t for t in texts if re.search(r"\blive with\b|\bwith you\b", t)], texts
    assert all("Eddy" in t and " them" not in t for t in texts), texts  # "I haven't seen them today" was odd



STUDY = "a study group at Oak Hill College on February 15, from 3 pm to 5 pm"


def test_one_who_goes_already_is_not_invited_and_never_declines_what_it_goes_to():
    # a 25-resident run: Adam told Giorgio of Klaus's study group; Giorgio: "yes, I'll be there
    # too!"; Adam then invited him to it, and Giorgio said "Thank you, Adam, but I can't come."
    giorgio = mind("Giorgio Rossi")
    giorgio.remember("plan", "Giorgio's plan for Wednesday February 15 at 15:00-17:00: attending the study group at "
                     "Oak Hill College (agreed with Klaus Mueller on Tuesday February 14)", 6, subject=giorgio.name)
    invited = said("Adam Smith", f"Giorgio, I'm going to {STUDY}. Want to come along?", "invite")
    got = dg.offers(giorgio, Conversation(("Adam Smith", giorgio.name), "x", NOW, [invited]), NOW, "chatting",
                    "chatting")
    assert got and {o.act for o in got} == {dg.ACCEPT}, got
    adam = mind("Adam Smith")
    adam.remember("plan", "Adam's plan for Wednesday February 15 at 15:00-17:00: attending the study group at "
                  "Oak Hill College (agreed with Klaus Mueller on Tuesday February 14)", 6, subject=adam.name)
    lines = [said("Adam Smith", "Oh, Giorgio, hello! I'm going to the study group at Oak Hill College on "
                                "February 15, from 3 pm to 5 pm; Klaus is hosting it."),
             said("Giorgio Rossi", "Adam, yes, I'll be there too! Is anyone else coming?", "react")]
    got = dg.offers(adam, Conversation(("Adam Smith", "Giorgio Rossi"), "x", NOW, lines), NOW, "chatting", "chatting")
    assert got and not [o for o in got if o.act == dg.INVITE], got


# ---------------------------------------------------------------------------- news not told back

def test_news_the_listener_told_in_this_conversation_is_not_told_back():
    francisco = mind("Francisco Lopez")
    francisco.remember("chat", 'Maria Lopez told Francisco: "Francisco, I heard Isabella Rodriguez is hosting a '
                       'Valentine\'s Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm."', 6,
                       subject="Maria Lopez")
    told = said("Carlos Gomez", "Francisco, I heard Isabella Rodriguez is hosting a Valentine's Day party at Hobbs "
                "Cafe on February 14, from 5 pm to 7 pm.")
    fresh = Conversation((francisco.name, "Carlos Gomez"), "x", NOW)
    assert [o for o in dg.offers(francisco, fresh, NOW, "chatting", "chatting") if "party" in o.text]
    c = Conversation(("Carlos Gomez", francisco.name), "x", NOW, [told])
    back = [o.text for o in dg.offers(francisco, c, NOW, "chatting", "chatting")
            if o.act in (dg.TELL, dg.INVITE) and "party" in o.text]
    assert not back, back


# ---------------------------------------------------------------------------- earlier conversations

def test_an_earlier_conversation_is_followed_up_once_and_answered_without_the_question_back():
    maria = mind()
    maria.remember("chat", 'Klaus Mueller told Maria: "Maria, I\'m hosting a study group at Oak Hill College on '
                   'February 13, from 4 pm to 5 pm."', 6, subject="Klaus Mueller", predicate="told",
                   object=maria.name, created=YESTERDAY.isoformat())
    c = Conversation((maria.name, "Klaus Mueller"), "x", NOW, [said("Klaus Mueller", "Maria, hello there.")])
    ups = [o for o in dg.offers(maria, c, NOW, "chatting", "chatting") if o.topic.startswith("followup")]
    assert len(ups) == 1 and "yesterday" in ups[0].text and "study group" in ups[0].text, ups
    assert re.search(r"[Hh]ow did it go\?|Did it go well\?", ups[0].text)
    assert not [o for o in dg.offers(maria, Conversation(c.participants, "x", NOW, c.lines + [Utterance(
        maria.name, ups[0].text, source=f"repaired: grounded: act ask ({ups[0].topic})")]), NOW, "chatting", "chatting")
        if o.topic.startswith("followup")]  # once a conversation
    klaus = mind("Klaus Mueller")
    asked = Conversation((maria.name, klaus.name), "x", NOW, [Utterance(
        maria.name, ups[0].text, source=f"repaired: grounded: act ask ({ups[0].topic})")])
    answers = dg.offers(klaus, asked, NOW, "chatting", "chatting")
    assert [o.act for o in answers] == [dg.ANSWER] and "?" not in answers[0].text
    went = Conversation(asked.participants, "x", NOW, asked.lines + [Utterance(
        klaus.name, answers[0].text, source=f"repaired: grounded: act answer ({ups[0].topic})")])
    assert not [o for o in dg.offers(maria, went, NOW, "chatting", "chatting") if o.act == dg.REACT]  # "It went fine"
    assert dg.question_topic("Klaus, what do you do?", "Klaus Mueller", "Maria Lopez") == "you"
    # what one said one was doing, the day before, followed up in the listener's words
    maria.remember("chat", 'Klaus Mueller told Maria: "Maria, I\'m writing my research paper on gentrification."', 5,
                   subject="Klaus Mueller", predicate="told", object=maria.name, created=YESTERDAY.isoformat())
    up = dg.follow_up(maria, dg.voice(maria, c), Conversation(c.participants, "x", NOW), NOW, 1)
    assert up is not None and "you were writing your research paper" in up.text, up
    # how one is doing is no pursuit to ask after ("you told me yesterday you were doing right", a two-day run)
    sam = mind("Sam Moore")
    sam.remember("chat", 'Jennifer Moore told Sam: "Sam, I\'m doing all right today."', 5, subject="Jennifer Moore",
                 predicate="told", object=sam.name, created=YESTERDAY.isoformat())
    talk = Conversation((sam.name, "Jennifer Moore"), "x", NOW)
    assert dg.follow_up(sam, dg.voice(sam, talk), talk, NOW, 1) is None
    # a gathering still to come, asked of its host: not "Are you still going?", and not once the
    # host has spoken of it in this talk (Hailey asked Isabella so, after Isabella told of her party)
    hailey = mind("Hailey Johnson")
    hailey.remember("chat", 'Isabella Rodriguez told Hailey: "Hailey, I\'m hosting a Valentine\'s Day party at '
                    'Hobbs Cafe on February 14, from 5 pm to 7 pm."', 6, subject="Isabella Rodriguez",
                    predicate="told", object=hailey.name, created=NOW.replace(hour=8).isoformat())
    for s in range(8):
        c = Conversation((hailey.name, "Isabella Rodriguez"), "x", NOW, [said("Isabella Rodriguez", "Hailey, hello.")])
        up = dg.follow_up(hailey, wd.Voice(hailey.name, "Isabella Rodriguez", True, True, str(s)), c, NOW, s)
        assert up is not None and "party" in up.text and "still going?" not in up.text, up
    told = said("Isabella Rodriguez", "Hosting the Valentine's Day party at Hobbs Cafe keeps me busy today.", "answer")
    c = Conversation((hailey.name, "Isabella Rodriguez"), "x", NOW, [told])
    assert dg.follow_up(hailey, dg.voice(hailey, c), c, NOW, 1) is None


def test_small_talk_asks_about_the_place_both_are_at_and_it_is_answered_from_memory():
    maria = mind()
    maria.social.known_people.add("Klaus Mueller")
    day_asked = [said("Maria Lopez", "Klaus, how is your day going?", "ask (day)"),
                 said("Klaus Mueller", "Maria, it's a quiet day for me.", "answer (day)")]
    at_cafe = Conversation((maria.name, "Klaus Mueller"), "the Ville:Hobbs Cafe:cafe", NOW, day_asked)
    asks = [o for o in dg.offers(maria, at_cafe, NOW, "chatting", "chatting") if o.act == dg.ASK]
    assert [o for o in asks if o.topic == "place:Hobbs Cafe" and "Hobbs Cafe" in o.text], asks
    at_work = [said("Maria Lopez", "Klaus, how is your day going?", "ask (day)"),
               said("Klaus Mueller", "Maria, I'm running the cafe today.", "answer (day)")]
    working = Conversation((maria.name, "Klaus Mueller"), "the Ville:Hobbs Cafe:cafe", NOW, at_work)
    assert not [o for o in dg.offers(maria, working, NOW, "chatting", "chatting") if o.topic.startswith("place")]
    assert not [o for o in dg.offers(maria, at_cafe, NOW, "running the cafe", "chatting")
                if o.topic.startswith("place")]  # seen at work there: not "do you come here often?"
    at_home = Conversation((maria.name, "Klaus Mueller"), "the Ville:Klaus Mueller's apartment:main room", NOW,
                           day_asked)
    assert not [o for o in dg.offers(maria, at_home, NOW, "chatting", "chatting") if o.topic.startswith("place")]
    isabella = mind("Isabella Rodriguez")  # her description: she runs Hobbs Cafe
    q = next(o for o in asks if o.topic.startswith("place"))
    assert dg.question_topic(q.text, "Isabella Rodriguez", "Maria Lopez") == "place:Hobbs Cafe"
    asked = Conversation(("Maria Lopez", isabella.name), "the Ville:Hobbs Cafe:cafe", NOW,
                         [Utterance("Maria Lopez", q.text, source=f"repaired: grounded: act ask ({q.topic})")])
    answers = [o for o in dg.offers(isabella, asked, NOW, "chatting", "chatting") if o.act == dg.ANSWER]
    assert answers and "I run Hobbs Cafe" in answers[0].text, answers
    # asked back after saying the same of oneself, one says "me too", not one's line back
    # (Hailey to Adam: "I write in the Oak Hill College library", after he said he reads and writes there)
    back = Conversation(("Maria Lopez", isabella.name), "the Ville:Hobbs Cafe:cafe", NOW, [Utterance(
        "Maria Lopez", "Isabella, I run Hobbs Cafe too, you know. How about you?",
        source=f"repaired: grounded: act answer ({q.topic})")])
    again = dg.answer(isabella, dg.voice(isabella, back), back.lines[-1].text, q.topic, NOW, [], [], 1)
    assert again is not None and "I run Hobbs Cafe" not in again.text and "Maria" in again.text, again


# ---------------------------------------------------------------------------- engagements

def busy_klaus():
    klaus = mind("Klaus Mueller")
    klaus.today.plan = [PlanItem(NOW.replace(hour=12), 60, "having lunch", "the Ville:Hobbs Cafe:cafe", "model"),
                        PlanItem(NOW.replace(hour=13), 240, "reading at the library",
                                 "the Ville:Oak Hill College:library", "model")]
    klaus.today.arrangements = [
        Arrangement(NOW.replace(hour=12), 60, "having lunch with Ayesha Khan at The Rose and Crown Pub",
                    "the Ville:The Rose and Crown Pub:pub", "with Ayesha Khan on Tuesday February 14"),
        Arrangement(NOW.replace(hour=17), 120, "hosting a game night at The Rose and Crown Pub",
                    "the Ville:The Rose and Crown Pub:pub", "with Sam Moore on Monday February 13")]
    return klaus


def test_an_offer_that_clashes_with_an_engagement_is_not_made_and_is_declined_with_the_reason():
    klaus = busy_klaus()
    v = wd.Voice(klaus.name, "Maria Lopez", True, False, "1")
    meeting = dg.meet(klaus, v, NOW, 1)
    assert meeting is None or "Hobbs Cafe" not in meeting.text  # lunch is at the pub with Ayesha now
    invite = said("Isabella Rodriguez", PARTY.replace("Maria, I'm hosting", "Klaus, I'm hosting").replace(
        ".", ". Would you like to come?"), "invite")
    c = Conversation(("Isabella Rodriguez", klaus.name), "x", NOW, [invite])
    got = dg.offers(klaus, c, NOW, "chatting", "chatting")
    assert [o.act for o in got] == [dg.DECLINE], got
    assert "game night" in got[0].text and "5 pm" in got[0].text, got[0].text
    lunch = said("Maria Lopez", "Klaus, I'll be having lunch at Hobbs Cafe today at 12 pm. Would you like to join me?",
                 "meet")
    got = dg.offers(klaus, Conversation(("Maria Lopez", klaus.name), "x", NOW, [lunch]), NOW, "chatting", "chatting")
    assert [o.act for o in got] == [dg.DECLINE] and "Ayesha" in got[0].text, got


def test_lunch_elsewhere_is_a_reason_given_with_its_place():
    klaus = mind("Klaus Mueller")
    klaus.today.plan = [PlanItem(NOW.replace(hour=12), 60, "having lunch",
                                 "the Ville:Klaus Mueller's apartment:main room", "model")]
    lunch = said("Maria Lopez", "Klaus, I'll be having lunch at Hobbs Cafe today at 12 pm. Would you like to join me?",
                 "meet")
    got = dg.offers(klaus, Conversation(("Maria Lopez", klaus.name), "x", NOW, [lunch]), NOW, "chatting", "chatting")
    no = [o.text for o in got if o.act == dg.DECLINE]
    assert no and "having lunch at home" in no[0], no


def test_what_one_says_of_ones_day_follows_its_arrangements():
    klaus = busy_klaus()
    for s in range(10):
        v = wd.Voice(klaus.name, "Maria Lopez", True, False, str(s))
        day = replies._day_answer(klaus, v, NOW, "day", s).text
        assert "Rose and Crown" in day and "Hobbs Cafe" not in day, day
        assert "game night" in day  # the evening's engagement is named
    assert "Rose and Crown" in dg.day_in_words(klaus, "Alex", NOW, 1)


def offers_in_talk(m, other, lines):
    """What ``m`` may say next in a talk with ``other`` that has had ``lines``."""
    return dg.offers(m, Conversation((other, m.name), "x", NOW, lines), NOW, "working", "chatting")


def test_a_yes_given_earlier_in_the_talk_holds_for_its_later_lines():
    # a 25-resident run: Eddy said yes to Mei's invitation to the party at 5 pm, then, asked
    # about his day in the same talk, "at 5:30 pm I'm having dinner at home"
    eddy = mind("Eddy Lin")
    eddy.spatial.add("the Ville:Hobbs Cafe:cafe", with_defaults=True)
    eddy.today.plan = [PlanItem(NOW, 420, "studying music theory", "the Ville:Oak Hill College:classroom", "model"),
                       PlanItem(NOW.replace(hour=17, minute=30), 60, "having dinner", eddy.persona.home, "model")]
    lines = [said("Mei Lin", "Eddy, there's a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm. "
                             "Would you like to come?", "invite"),
             said("Eddy Lin", "Mei, I'd love to come! I'll be there on February 14, from 5 pm to 7 pm.", "accept"),
             said("Mei Lin", "Eddy, what are you doing this evening?", "ask (plans)")]
    texts = [o.text for o in offers_in_talk(eddy, "Mei Lin", lines)]
    assert texts and all("dinner" not in t for t in texts) and any("party" in t for t in texts), texts
    # and a second offer at that hour is declined with the party as the reason
    lunch = said("Mei Lin", "Eddy, I'll be having a drink at Hobbs Cafe today at 6 pm. Would you like to join me?",
                 "meet")
    got = offers_in_talk(eddy, "Mei Lin", lines[:2] + [lunch])
    assert [o.act for o in got] == [dg.DECLINE] and "party" in got[0].text, got


def test_a_yes_to_a_place_not_yet_been_to_holds_for_the_talk_too():
    # a 25-resident run: Tamara said yes to a drink at The Rose and Crown Pub at 7 pm, a pub she
    # had not been to, then told Carmen "at 7 pm I'm writing books for children at Johnson Park"
    tamara = mind("Tamara Taylor")
    tamara.today.plan = [PlanItem(NOW, 540, "writing books", tamara.persona.home, "model"),
                         PlanItem(NOW.replace(hour=19), 120, "writing books for children",
                                  "the Ville:Johnson Park:park", "model")]
    assert not [a for a in tamara.spatial.arenas() if "Rose and Crown" in a]
    lines = [said("Carmen Ortiz", "Oh, Tamara, hello! Why don't you join me? I'll be having a drink at the bar at The "
                                  "Rose and Crown Pub today at 7 pm.", "meet"),
             said("Tamara Taylor", "Carmen, I'd love that! See you today at 7 pm.", "accept"),
             said("Carmen Ortiz", "Tamara, what are you up to today?", "ask (day)")]
    texts = [o.text for o in offers_in_talk(tamara, "Carmen Ortiz", lines)]
    assert texts and all("Johnson Park" not in t for t in texts) and any("Rose and Crown" in t for t in texts), texts


def test_who_told_of_a_gathering_in_this_talk_is_not_invited_to_it_in_return():
    # a 25-resident run: Klaus told Ayesha "I heard there's a Valentine's Day party at Hobbs Cafe
    # on February 14, at 5 pm"; she answered by inviting him to it, his news told back
    ayesha = mind("Ayesha Khan")
    ayesha.remember("plan", "Ayesha's plan for Tuesday February 14 at 17:00-19:00: going to the Valentine's Day party "
                    "at Hobbs Cafe (agreed with Isabella Rodriguez on Tuesday February 14)", 6, subject=ayesha.name)
    told = said("Klaus Mueller", "Ayesha, I heard there's a Valentine's Day party at Hobbs Cafe on February 14, "
                                 "at 5 pm.")
    c = Conversation(("Klaus Mueller", ayesha.name), "x", NOW, [said("Klaus Mueller", "Hi Ayesha.", "greet"), told])
    got = dg.offers(ayesha, c, NOW, "chatting", "chatting")
    assert got and not [o for o in got if o.act == dg.INVITE], got
    forward = said("Klaus Mueller", "Hey Ayesha! I am looking forward to the Valentine's Day party on February 14 "
                                    "from 5 pm to 7 pm.")  # no place named: the party's name is enough
    c = Conversation(("Klaus Mueller", ayesha.name), "x", NOW, [forward])
    assert not [o for o in dg.offers(ayesha, c, NOW, "chatting", "chatting") if o.act == dg.INVITE]
    alone = Conversation(("Maria Lopez", ayesha.name), "x", NOW, [said("Maria Lopez", "Hi Ayesha.", "greet")])
    assert any(o.act == dg.INVITE for o in dg.offers(ayesha, alone, NOW, "chatting", "chatting"))


def test_a_follow_up_is_asked_in_one_talk_only_and_answered_from_how_the_gathering_went():
    """Sam asked Jennifer "How did it go?" about the same thing in talk after talk, and every
    answer was a stock "it went all right": the question is kept as asked, and one who was at
    the gathering answers from its recap (agents/planning/recaps.py)."""
    from agents.planning.recaps import RECAP

    maria = mind()
    maria.remember("chat", 'Klaus Mueller told Maria: "Maria, I\'m hosting a study group at Oak Hill College on '
                   'February 13, from 4 pm to 5 pm."', 6, subject="Klaus Mueller", predicate="told",
                   object=maria.name, created=YESTERDAY.isoformat())
    maria.now = NOW
    up = None
    for minute in range(12):  # talks begun at other minutes show the chooser its options in other orders
        first = Conversation((maria.name, "Klaus Mueller"), "x", NOW.replace(minute=minute),
                             [said("Klaus Mueller", "Maria, hello there.")])
        offered = next((o for o in dg.offers(maria, first, NOW, "chatting", "chatting")
                        if o.topic.startswith("followup")), None)
        if dg.line(maria, first, NOW, "chatting", "chatting").act_note.startswith("followup"):
            up = offered
            break
    assert up is not None and f"followup:mem:{up.fact.node_id}" in maria.social.told["Klaus Mueller"]
    later = Conversation((maria.name, "Klaus Mueller"), "x", NOW.replace(hour=15), [said("Klaus Mueller", "Hi.")])
    assert dg.follow_up(maria, dg.voice(maria, later), later, NOW.replace(hour=15), 1) is None

    klaus = mind("Klaus Mueller")
    klaus.remember("thought", "I hosted the study group at Oak Hill College on February 13; Maria Lopez and "
                   "Ayesha Khan came.", 6, subject=klaus.name, source=RECAP,
                   created=YESTERDAY.replace(hour=17).isoformat())
    asked = Conversation((maria.name, klaus.name), "x", NOW, [Utterance(
        maria.name, up.text, source=f"repaired: grounded: act ask ({up.topic})", act="ask", act_note=up.topic)])
    got = dg.offers(klaus, asked, NOW, "chatting", "chatting")
    assert [o.act for o in got] == [dg.ANSWER]
    assert "study group" in got[0].text and "yesterday" in got[0].text and "came" in got[0].text, got[0].text
    assert got[0].text.startswith("Maria, I hosted") and "it went all right" not in got[0].text
    # a follow-up on what one was doing is not answered with a gathering (the embedded model's run:
    # "how did it go? You told me yesterday you were researching english literature." - "Klaus, i went to
    # the Valentine's Day party at Hobbs Cafe yesterday; ...")
    doing = "Klaus, how did it go? You told me yesterday you were researching gentrification."
    asked = Conversation((maria.name, klaus.name), "x", NOW, [Utterance(
        maria.name, doing, source="repaired: grounded: act ask (followup:over)", act="ask", act_note="followup:over")])
    got = dg.offers(klaus, asked, NOW, "chatting", "chatting")
    assert [o.act for o in got] == [dg.ANSWER] and "study group" not in got[0].text, got[0].text


def test_a_related_plan_is_one_at_the_place_named_and_never_ones_bed():
    """"Giorgio, speaking of Oak Hill College: I'll be there myself at 10 pm, going to bed and
    sleeping." (Maria, who lives in the Dorm for Oak Hill College, in a 25-resident week)."""
    from agents.planning.items import PlanItem
    from agents.talk import reactions

    maria = mind()
    maria.now = NOW
    dorm = "the Ville:Dorm for Oak Hill College:Maria Lopez's room"
    maria.today.plan = [PlanItem(NOW.replace(hour=6), 240, "studying", dorm),
                        PlanItem(NOW.replace(hour=14), 120, "attending a physics lecture",
                                 "the Ville:Oak Hill College:classroom"),
                        PlanItem(NOW.replace(hour=22), 480, "going to bed and sleeping", dorm)]
    c = Conversation(("Giorgio Rossi", maria.name), "x", NOW)
    last = said("Giorgio Rossi", "Maria, I give a talk at Oak Hill College next week.")
    got = reactions.related(maria, dg.voice(maria, c), c, last, NOW, 1, [])
    assert got is not None and "2 pm" in got.text and "physics lecture" in got.text, got
    maria.today.plan = [x for x in maria.today.plan if "lecture" not in x.description]
    got = reactions.related(maria, dg.voice(maria, c), c, last, NOW, 1, [])
    assert got is None or "sleeping" not in got.text, got


def test_a_meal_or_a_drink_is_not_asked_after():
    """"Rajiv, you told me yesterday you were cooking breakfast. How did it go?" and "How is having a
    drink at the bar going?" (a 25-resident week)."""
    from agents.talk import reactions

    abigail = mind("Abigail Chen")
    abigail.remember("chat", 'Rajiv Patel told Abigail: "Abigail, I\'m cooking breakfast at home."', 5,
                     subject="Rajiv Patel", predicate="told", object=abigail.name, created=YESTERDAY.isoformat())
    talk = Conversation((abigail.name, "Rajiv Patel"), "x", NOW)
    assert reactions.follow_up(abigail, dg.voice(abigail, talk), talk, NOW, 1) is None
    assert not reactions._askable("having a drink at the bar") and not reactions._askable("eating lunch")
    assert reactions._askable("painting a mural")
