"""Dialogue: ending (flag, turn limit, repetition), cached relationship, memories, talk decisions."""
from datetime import datetime, timedelta

from agents.support.types import Conversation, Utterance
from tests.scripted_minds import event, garbage, make_mind, persona, plausible, situation

NOW = datetime(2023, 2, 13, 10, 0)


def convo(lines=()):
    c = Conversation(("Isabella Rodriguez", "Maria Lopez"), "the Ville:Hobbs Cafe:cafe", NOW)
    c.lines = [Utterance(s, t) for s, t in lines]
    return c


def scripted(line, ends=False):
    def responder(purpose, messages, schema):
        if purpose == "utterance":
            return {"utterance": line, "ends": ends}
        return plausible(purpose, messages, schema)

    return responder


def test_ends_flag_is_honoured():
    m, _ = make_mind(scripted("Bye for now!", ends=True))
    u = m.utter(convo(), NOW, "drinking coffee")
    assert u.speaker == "Isabella Rodriguez" and u.text == "Bye for now!" and u.ends


def test_turn_limit_ends_it():
    m, _ = make_mind(scripted("Something new to say."))
    c = convo([("Isabella Rodriguez" if i % 2 else "Maria Lopez", f"line {i}") for i in range(7)])
    assert m.utter(c, NOW, "chatting").ends  # the 8th line is the last
    assert not m.utter(convo([("Maria Lopez", "hi")]), NOW, "chatting").ends


def test_repetition_ends_it():
    m, _ = make_mind(scripted("How are you?"))
    u = m.utter(convo([("Isabella Rodriguez", "How are you?"), ("Maria Lopez", "Fine.")]), NOW, "chatting")
    assert u.ends and u.text != "How are you?"


def test_relationship_summary_is_cached_per_conversation():
    m, gw = make_mind(plausible)
    m.queue_thought("Maria Lopez is my closest friend", 6)
    c = convo()
    for i in range(3):
        c.lines.append(m.utter(c, NOW, "reading"))
        c.lines.append(Utterance("Maria Lopez", f"reply {i}"))
    calls = [p for p, _, _ in gw.fake.calls]
    assert calls.count("relationship") == 1 and calls.count("utterance") == 3
    prompt = next(msgs[-1]["content"] for p, msgs, _ in gw.fake.calls if p == "relationship")
    assert "closest friend" in prompt  # the paper's retrieval queries found it


def test_end_conversation_remembers_it():
    m, _ = make_mind(plausible)
    m.now = NOW
    c = convo([("Isabella Rodriguez", "Come to my party!"), ("Maria Lopez", "I'd love to.")])
    m.end_conversation(c, NOW + timedelta(minutes=3))
    chat = m.memory.by_kind("chat")
    assert len(chat) == 1 and chat[0].description.startswith("conversed with Maria Lopez about")
    assert chat[0].importance == 4 and "Maria Lopez" in m.inspect().known_people


def test_failed_summary_keeps_what_was_said():
    m, _ = make_mind(garbage)
    m.now = NOW
    m.end_conversation(convo([("Isabella Rodriguez", "Hi"), ("Maria Lopez", "Party on Friday at 5!")]), NOW)
    assert "Party on Friday" in m.memory.by_kind("chat")[0].description


def test_talk_decision_rules_and_fallback_no():
    m, gw = make_mind(plausible)
    t = datetime(2023, 2, 13, 9, 0)
    d = m.decide(situation(t, events=[event("Maria Lopez", "reading")], can_talk_to=["Maria Lopez"]))
    assert d.talk_to == "Maria Lopez"
    m.end_conversation(convo([("Isabella Rodriguez", "Hi"), ("Maria Lopez", "Hi")]), t + timedelta(minutes=5))
    n = len(gw.fake.calls)
    d = m.decide(situation(t + timedelta(minutes=10), action=d.action, can_talk_to=["Maria Lopez"]))
    assert d.talk_to is None  # cooldown: no call either
    assert "talk_decision" not in [p for p, _, _ in gw.fake.calls[n:]]
    late = m.decide(situation(datetime(2023, 2, 13, 23, 0), can_talk_to=["Klaus Mueller"]))
    assert late.talk_to is None  # nobody starts a chat at 23:00
    g, _ = make_mind(garbage, who=persona())
    d = g.decide(situation(t, can_talk_to=["Maria Lopez"]))
    assert d.talk_to is None and d.action is not None  # a failed decision means "no"


def test_hallucinated_relationship_falls_back_to_memories():
    def responder(purpose, messages, schema):
        if purpose == "relationship":
            return {"summary": "Maria Rodriguez is hosting a party for Tom Hanks."}
        return plausible(purpose, messages, schema)

    m, _ = make_mind(responder)
    m.queue_thought("Maria Lopez is my closest friend", 6)
    from agents.talk.converse import relationship

    m.now = NOW
    m.utter(convo(), NOW, "reading")  # folds the thought in
    text = relationship(m, convo([("Maria Lopez", "hi")]), "reading")
    assert "Rodriguez is hosting" not in text and "Maria" in text
    assert m.rejected["relationship"] >= 1


def test_a_bare_name_is_not_a_line():
    m, _ = make_mind(scripted("Maria Lopez"))
    u = m.utter(convo(), NOW, "reading")
    assert u.text != "Maria Lopez" and len(u.text.split()) > 2


def test_the_speakers_own_name_is_stripped():
    m, _ = make_mind(scripted("Isabella Rodriguez: What a pleasure to see you, Maria!"))
    assert m.utter(convo(), NOW, "reading").text == "What a pleasure to see you, Maria!"


def test_what_was_heard_is_kept_without_its_greeting_or_the_listeners_name():
    from agents.residents.mind_settings import MindSettings
    from agents.talk.converse import heard_words, memo, remember_heard

    # said to Klaus, "Klaus, Isabella told me ..." retold by Klaus was "I, Isabella told me ..."
    assert heard_words("Wolfgang! So good to see you. I heard Isabella is hosting a party.",
                       "Wolfgang Schulz") == "I heard Isabella is hosting a party."
    assert heard_words("Oh, Klaus, hello! Isabella told me there's a party.", "Klaus Mueller") \
        == "Isabella told me there's a party."
    assert heard_words("Klausi is here.", "Klaus Mueller") == "Klausi is here."  # a name, not a word's start
    assert heard_words("Hello!", "Klaus Mueller") == "Hello!"  # nothing but the greeting: kept as said
    m, _ = make_mind(plausible, MindSettings(grounded=True), who=persona("Maria Lopez"))
    m.start_turn(NOW)
    c = convo()
    c.lines = [Utterance("Isabella Rodriguez", "Maria, I heard Klaus Mueller is writing a paper.",
                         source="repaired: grounded: memory #3 (x); act tell")]
    remember_heard(m, c, NOW)
    heard = m.memory.nodes[-1].description
    assert heard == 'Isabella Rodriguez told Maria: "I heard Klaus Mueller is writing a paper."'
    assert memo(m, c)[0].startswith("Isabella said I heard Klaus Mueller")  # the memo is cleaned of quotes
