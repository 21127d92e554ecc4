"""Grounded answers and dialogue (agents/recall/grounding.py): the wording rule, the chooser and
the "none" path through the real gateway (litellm and the scripted provider), fact passing
between two residents, the setting, and the factual score with the embedded model."""
from __future__ import annotations

import re
from datetime import datetime

import pytest

from agents import provenance as pv
from agents.mind.core import Mind
from agents.mind.interview import respond, respond_traced
from agents.model.config import ModelConfig
from agents.recall import grounding as gr
from agents.residents.mind_settings import MindSettings
from agents.support.errors import ConfigError
from agents.support.types import Conversation, Utterance
from tests.fakes import HashEmbedder, make_gateway
from tests.real_model import needs_model
from tests.scripted_minds import persona, plausible
from tests.scripted_minds import talk as scripted_talk

NOW = datetime(2023, 2, 13, 10, 0)
GROUNDED = MindSettings(grounded=True)


# ---------------------------------------------------------------------------- the wording rule

@pytest.mark.parametrize("fact,name,said", [
    ("Isabella Rodriguez runs Hobbs Cafe, the cafe she owns in the Ville", "Isabella Rodriguez",
     "I run Hobbs Cafe, the cafe I own in the Ville."),
    ("she lives alone in her apartment", "Isabella Rodriguez", "I live alone in my apartment."),
    ("she counts Maria Lopez among her closest friends", "Isabella Rodriguez",
     "I count Maria Lopez among my closest friends."),
    ("she opens the cafe at eight in the morning and closes it at eight at night", "Isabella Rodriguez",
     "I open the cafe at eight in the morning and close it at eight at night."),
    ("Arthur Burton owns and tends the bar at The Rose and Crown Pub", "Arthur Burton",
     "I own and tend the bar at The Rose and Crown Pub."),
    ("Maria Lopez studies physics at Oak Hill College", "Maria Lopez", "I study physics at Oak Hill College."),
    ("she is close friends with Isabella Rodriguez and often studies at Hobbs Cafe", "Maria Lopez",
     "I am close friends with Isabella Rodriguez and often study at Hobbs Cafe."),
    ("he lives with his wife Mei Lin, a college professor, and their son Eddy Lin", "John Lin",
     "I live with my wife Mei Lin, a college professor, and our son Eddy Lin."),
    ("he and John are friends", "Tom Moreno", "John and I are friends."),
    ("Sam Moore is a retired navy officer", "Sam Moore", "I am a retired navy officer."),
    ("I want to host a Valentine's Day party at Hobbs Cafe", "Isabella Rodriguez",
     "I want to host a Valentine's Day party at Hobbs Cafe."),
    # someone else's fact keeps its subject; only the speaker's own name changes
    ("Maria Lopez is studying at the desk", "Isabella Rodriguez", "Maria Lopez is studying at the desk."),
    ('Isabella Rodriguez told Maria: "I am hosting a party"', "Maria Lopez",
     'Isabella Rodriguez told me: "I am hosting a party"'),
    ("he likes cats and dogs", "Ryan Park", "I like cats and dogs."),
    ("Giorgio Rossi dislikes his neighbour Carlos Gomez and avoids him", "Giorgio Rossi",
     "I dislike my neighbour Carlos Gomez and avoid him."),
    ("she shares a house with Tamara Taylor and is helping her settle in", "Carmen Ortiz",
     "I share a house with Tamara Taylor and am helping her settle in."),
    ("she helps her mother at the store", "Carmen Ortiz", "I help my mother at the store."),
    ("Adam Smith sees Sam Moore as a mentor and values his advice", "Adam Smith",
     "I see Sam Moore as a mentor and value his advice."),
    ("he values his time alone", "Adam Smith", "I value my time alone."),
])
def test_first_person(fact, name, said):
    assert gr.first_person(fact, name) == said


def test_first_person_of_nothing_and_base_verbs():
    assert gr.first_person("", "Isabella Rodriguez") == ""
    assert gr.first_person("   ", "Isabella Rodriguez") == ""
    assert [gr.base_verb(w) for w in ("runs", "studies", "is", "has", "watches", "goes", "miss", "I")] == \
        ["run", "study", "am", "have", "watch", "go", "miss", "I"]


def test_questions_in_the_residents_words():
    assert gr.my_question("What's your occupation?") == "What is my occupation?"
    assert gr.my_question("Who do you live with?") == "Who do I live with?"
    assert gr.third_person_question("What's your job?", "Ann Lee") == "What is Ann Lee's job?"
    assert gr.is_question("Who is Maria?") and gr.is_question("tell me about the cafe")
    assert not gr.is_question("I like your cafe.")
    assert gr.is_greeting("Hello there") and not gr.is_greeting("Who is Maria?")
    assert gr.hint_bonus("What is my occupation?", "I run Hobbs Cafe.") > 0
    assert gr.hint_bonus("What is my occupation?", "I love gatherings.") == 0


def test_memory_of_reads_the_provenance():
    fact = gr.Fact(12, "Isabella Rodriguez runs Hobbs Cafe: the cafe she owns", 0.5)
    src = pv.tag(pv.REPAIRED, f"grounded: {gr.source_note(fact)}")
    assert gr.memory_of(src) == 12 and pv.kind_of(src) == pv.REPAIRED
    assert pv.short_label(src).startswith("repaired: grounded: memory #12 (Isabella")
    assert gr.memory_of("model") is None and gr.memory_of(None) is None and gr.memory_of("rule: x") is None


# ---------------------------------------------------------------------------- the chooser (real gateway)

def choosing(answer):
    def responder(purpose, messages, schema):
        if purpose in ("choose_fact", "choose_line"):
            return answer(messages) if callable(answer) else answer
        return plausible(purpose, messages, schema)
    return responder


def grounded_mind(responder, who=None):
    gw = make_gateway(responder, timeout=30.0, deadline=60.0)  # via litellm and the scripted provider
    m = Mind(who or persona(), gw, HashEmbedder(64), MindSettings(grounded=True))
    m.start_turn(NOW)  # the seed phrases become memories
    return m, gw


def fact_number(messages, words):
    """The number of the listed fact that holds ``words`` (what a good chooser picks)."""
    for line in messages[-1]["content"].splitlines():
        if words in line and line[:1].isdigit():
            return {"fact": line.split(".", 1)[0]}
    return {"fact": "none"}


def test_the_model_chooses_the_fact_and_a_rule_words_it():
    m, gw = grounded_mind(choosing(lambda msgs: fact_number(msgs, "Maria Lopez")))
    r = respond_traced(m, "Interviewer", "Who is Maria Lopez?", now=NOW, remember=False)
    assert r.text == "I am a friend of Maria Lopez."
    assert r.mode == "grounded" and pv.kind_of(r.source) == pv.REPAIRED
    assert r.memory_id is not None and m.memory_text(r.memory_id) == "she is a friend of Maria Lopez"
    assert gr.memory_of(r.source) == r.memory_id
    calls = [c for c in gw.fake.calls if c[0] == "choose_fact"]
    assert len(calls) == 1
    prompt = calls[0][1][-1]["content"]
    assert '"Who is Maria Lopez?"' in prompt and "1. " in prompt
    # decoding is constrained to the numbers shown and "none"
    enum = calls[0][2].model_json_schema()["properties"]["fact"]["enum"]
    assert enum[-1] == "none" and enum[:-1] == [str(i) for i in range(1, len(enum))]


def test_who_the_resident_is_stays_in_reach_and_prompt_echoes_do_not():
    from agents.mind.interview import grounded_facts
    m, _gw = grounded_mind(choosing({"fact": "1"}))
    for i in range(60):  # a long day of newer, important memories
        m.remember("reflection", f"The most salient high-level questions about Maria Lopez number {i}", 9,
                   subject=m.name)
        m.remember("chat", f"Klaus Mueller told Isabella: we talked about Maria Lopez and the weather {i}", 8,
                   subject="Klaus Mueller")
    facts = grounded_facts(m, "Who is Maria Lopez?", NOW, touch=False)
    assert any(f.text == "she is a friend of Maria Lopez" for f in facts)
    assert not any("salient" in f.text for f in facts)
    assert gr.echoes_prompt("The most salient high-level questions you can answer about me are: 1.")
    assert gr.echoes_prompt("1. I am exploring") and not gr.echoes_prompt("I run Hobbs Cafe.")


def test_none_says_so_in_character():
    m, gw = grounded_mind(choosing({"fact": "none"}))
    r = respond_traced(m, "Alex", "Who is Maria Lopez?", now=NOW, remember=False)
    assert "don't know" in r.text and "Alex" in r.text
    assert r.memory_id is None and r.source == "model: grounded: none of the memories fits"
    assert [c for c in gw.fake.calls if c[0] == "choose_fact"]


def test_nothing_relevant_means_no_call_and_no_invention():
    m, gw = grounded_mind(choosing({"fact": "1"}))
    r = respond_traced(m, "Alex", "Quantum chromodynamics zeppelin?", now=NOW, remember=False)
    assert "know" in r.text and r.memory_id is None
    assert r.source == "rule: grounded: no memory fits"
    assert not [c for c in gw.fake.calls if c[0] == "choose_fact"]


def test_the_chooser_asks_at_its_own_temperature_whichever_asker_carries_it():
    """The gateway and a mind's budget are the same typed asker: the chooser's temperature
    reaches the server through either (it is no piece of writing)."""
    from types import SimpleNamespace

    from agents.model.budget import Budget
    from agents.model.gateway import Gateway

    seen = []

    def completion(**kw):
        seen.append(kw["temperature"])
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content='{"fact": "1"}'))])

    gw = Gateway(ModelConfig(model="scripted/chooser", temperature=0.7, cache=None), completion=completion)
    budget = Budget(gw)
    budget.at(NOW)
    facts = [gr.Fact(3, "Isabella Rodriguez runs Hobbs Cafe", 0.9)]
    for asker in (gw, budget):
        got = gr.choose(asker, facts, name="Isabella Rodriguez", question="What do you do?", asked_by="Alex",
                        purpose="choose_fact")
        assert got.fact is facts[0] and pv.kind_of(got.source) == pv.REPAIRED
    assert seen == [gr.CHOOSER_TEMPERATURE] * 2 and budget.calls == {"choose_fact": 1}


def test_a_spent_budget_stops_the_chooser_and_the_answer_says_so():
    m, _gw = grounded_mind(choosing(lambda msgs: fact_number(msgs, "Maria Lopez")))
    m.gateway = spent = make_gateway(choosing({"fact": "1"}), budget=1)
    m.budget.calls["react"] = 1  # today's one call
    r = respond_traced(m, "Alex", "Who is Maria Lopez?", now=NOW)
    assert pv.kind_of(r.source) == pv.RULE and r.source.endswith("; budget") and "Maria Lopez" in r.text
    assert spent.fake.calls == [] and m.budget.skipped == {"choose_fact": 1}
    assert m.fallbacks["answer: budget"] == 1


def test_an_unusable_answer_takes_the_most_relevant_fact_and_says_so():
    m, _gw = grounded_mind(choosing("I think number seven, definitely"))
    r = respond_traced(m, "Alex", "Who is Maria Lopez?", now=NOW, remember=False)
    assert pv.kind_of(r.source) == pv.RULE and "invalid answer" in r.source
    assert r.memory_id is not None and "Maria Lopez" in r.text


def test_a_number_outside_the_list_is_none():
    facts = [gr.Fact(1, "a", 1.0), gr.Fact(2, "b", 0.5)]
    got = gr.outcome(facts, type("G", (), {"fact": "9"})(), None)
    assert got.fact is None and pv.kind_of(got.source) == pv.MODEL


def test_chat_is_remembered_with_the_answer_and_greetings_greet():
    m, _gw = grounded_mind(choosing(lambda msgs: fact_number(msgs, "Maria")))
    n = len(m.memory)
    out = respond(m, "Alex", "Hello! Who is Maria Lopez?", now=NOW)
    assert out.startswith("Hi Alex! ") and "Maria Lopez" in out
    assert len(m.memory) == n + 1 and "Alex told Isabella" in m.memory.nodes[-1].description
    assert m.inspect().grounded is True
    assert respond(m, "Alex", "", now=NOW)  # nothing said: still a polite line


def test_the_same_fact_is_not_repeated_in_one_conversation():
    m, _gw = grounded_mind(choosing({"fact": "1"}))
    first = respond_traced(m, "Alex", "Who is Maria Lopez?", now=NOW, remember=False)
    again = respond_traced(m, "Alex", "Who is Maria Lopez?", now=NOW, remember=False,
                           history=[("Alex", "Who is Maria Lopez?"), (m.name, first.text)])
    assert again.text != first.text


def test_the_setting(tmp_path):
    assert ModelConfig().grounded == "on"  # the embedded model
    assert ModelConfig(model="ollama/qwen2.5:7b").grounded == "off"
    assert ModelConfig(model="ollama/qwen2.5:7b", grounded="on").grounded == "on"
    assert ModelConfig(grounded="false").grounded == "off"
    with pytest.raises(ConfigError, match="grounded must be on, off or auto"):
        ModelConfig(grounded="sometimes")
    from agents.model.config import load_config
    assert load_config({}, env={"SMALLVILLE_GROUNDED": "off"}, toml_path=None).grounded == "off"
    assert load_config({"grounded": "on", "model": "ollama/x"}, env={}, toml_path=None).grounded == "on"
    toml = tmp_path / "smallville.toml"
    toml.write_text('model = "ollama/x"\ngrounded = true\n')
    assert load_config({}, env={}, toml_path=toml).grounded == "on"
    m, _ = grounded_mind(choosing({"fact": "none"}))
    assert m.grounded
    free = Mind(persona(), make_gateway(plausible), HashEmbedder(64))
    assert not free.grounded  # a scripted (capable) model: the paper's free generation


# ---------------------------------------------------------------------------- grounded dialogue

def replying(answer):
    """A chooser for dialogue acts: ``answer(options)`` -> the number to pick (1-based)."""
    def responder(purpose, messages, schema):
        if purpose == "choose_line":
            options = [ln.split(". ", 1)[1] for ln in messages[-1]["content"].splitlines() if ln[:1].isdigit()]
            return {"reply": options[answer(options) - 1]}
        return plausible(purpose, messages, schema)
    return responder


def talk(a, b, now=NOW, limit=8):
    return scripted_talk(a, b, now, limit)


def test_a_fact_passes_from_one_resident_to_another():
    first_option = replying(lambda options: 1)
    isabella, _ = grounded_mind(first_option)
    isabella.queue_thought("I want to host a Valentine's Day party at Hobbs Cafe on February 14, 5 pm to 7 pm", 8)
    isabella.start_turn(NOW)
    def declines_then_tells(options):  # she declines, and passes the news on
        for word in ("can't", "Valentine"):
            for i, o in enumerate(options, 1):
                if word in o:
                    return i
        return 1
    maria, _ = grounded_mind(replying(declines_then_tells), who=persona("Maria Lopez"))
    c = talk(isabella, maria)
    first = c.lines[0]
    assert "Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm" in first.text
    assert gr.memory_of(first.source) is not None and "act invite" in first.source  # the host invites: no call
    assert c.lines[-1].ends and len(c.lines) <= 8
    assert len({u.text for u in c.lines}) == len(c.lines)  # nothing said twice
    maria.end_conversation(c, NOW)
    heard = [x for x in maria.memory.nodes if x.description.startswith("Isabella Rodriguez told Maria")]
    assert heard and "Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm" in heard[0].description
    assert pv.kind_of(heard[0].source) == pv.RULE and heard[0].importance >= 6
    # she declined, and that is remembered too
    assert any("declined Isabella Rodriguez's invitation" in x.description for x in maria.memory.nodes)
    # ... and Maria passes it on to someone else, with the day, the hours and the place intact
    klaus_c = Conversation((maria.name, "Klaus Mueller"), "the Ville:Hobbs Cafe:cafe", NOW)
    line = maria.utter(klaus_c, NOW, "chatting")
    assert "a Valentine's Day party at Hobbs Cafe on February 14, from 5 pm to 7 pm" in line.text
    assert re.search(r"Isabella (told me there's|is hosting)", line.text) and "act tell" in line.source


def test_a_line_about_the_listener_is_said_to_them():
    from agents.talk.wording import to_listener
    assert to_listener("I am a friend of Maria Lopez.", "Maria Lopez") == "I am a friend of yours."
    assert to_listener("I am good friends with Maria Lopez.", "Maria Lopez") == "I am good friends with you."
    assert to_listener("Maria Lopez is studying.", "Maria Lopez") == "You are studying."


def test_secrets_and_timetables_are_not_topics():
    from agents.talk.converse import topics
    m, _ = grounded_mind(choosing({"fact": "1"}))
    m.queue_thought("I have a secret crush on Klaus Mueller, and I have not told anyone", 9)
    m.queue_thought("Isabella's plan for Monday: 07:00-08:00 breakfast; 08:00-12:00 work at the cafe", 9)
    m.start_turn(NOW)
    to_klaus = [f.text for f in topics(m, Conversation((m.name, "Klaus Mueller"), "x", NOW), "", "chatting")]
    to_maria = [f.text for f in topics(m, Conversation((m.name, "Maria Lopez"), "x", NOW), "", "chatting")]
    assert not any("crush" in t for t in to_klaus + to_maria)  # "I have not told anyone": kept from everyone
    assert not any("07:00" in t for t in to_klaus + to_maria)


def test_what_one_saw_does_not_crowd_out_the_topics():
    from agents.talk.converse import topics
    m, _ = grounded_mind(choosing({"fact": "1"}))
    # news to tell (one's own description is no longer told unasked: agents/talk/dialogue.py tells)
    m.remember("thought", "The library is opening a new reading room next week", 6, subject=m.name)
    for i in range(40):
        m.remember("observation", f"Klaus Mueller is reading book {i} at the table", 3, subject="Klaus Mueller")
    got = topics(m, Conversation((m.name, "Klaus Mueller"), "x", NOW), "reading", "chatting")
    assert got and all("reading book" not in f.text for f in got)


def test_nothing_to_tell_is_a_question_then_goodbye():
    asking = lambda options: next((i for i, o in enumerate(options, 1) if o.endswith("?")), len(options))  # noqa: E731
    m, _gw = grounded_mind(replying(asking))  # a chooser that asks when it can
    m.social.known_people.add("Klaus Mueller")  # someone both know: a second thing to ask about
    m.queue_thought("Maria Lopez often studies with Klaus Mueller", 3)
    c = Conversation((m.name, "Maria Lopez"), "the Ville:Hobbs Cafe:cafe", NOW)
    u = m.utter(c, NOW, "chatting")
    assert "Maria" in u.text and u.text.endswith("?") and not u.ends
    assert "act ask" in u.source and pv.kind_of(u.source) == pv.REPAIRED
    c.lines += [u, Utterance("Maria Lopez", "It's a quiet day for me.", source="repaired: grounded: act answer")]
    c.lines += [m.utter(c, NOW, "chatting")]
    c.lines += [Utterance("Maria Lopez", "Take care, Isabella!", True, "repaired: grounded: act goodbye")]
    u2 = m.utter(c, NOW, "chatting")
    assert u2.ends and "act goodbye" in u2.source


def test_a_failed_model_still_grounds_the_line_and_says_so():
    def down(purpose, messages, schema):
        if purpose == "choose_line":
            raise TimeoutError("the model is down")
        return plausible(purpose, messages, schema)
    m, _gw = grounded_mind(down)
    # news heard, not a thought of her own (a talk begun with that opens with it, no choice asked)
    m.remember("chat", 'Klaus Mueller told Isabella: "Sam Moore is running for mayor of the Ville in the coming '
               'election."', 8)
    c = Conversation((m.name, "Maria Lopez"), "the Ville:Hobbs Cafe:cafe", NOW)
    u = m.utter(c, NOW, "chatting")
    assert pv.kind_of(u.source) == pv.RULE and gr.memory_of(u.source) is not None and "act tell" in u.source
    assert m.fallbacks


# ---------------------------------------------------------------------------- the real model

@pytest.mark.slow
@needs_model
@pytest.mark.timeout(900)
def test_factual_score_with_the_embedded_model():
    """The factual questions of two residents, asked of the real embedded model with the real
    embedder as the story starts: most answered right and briefly (the issue's bar is 70%
    over the battery's residents; `smallville evaluate --battery` measures all of them)."""
    from agents.model.gateway import Gateway, load_config
    from agents.recall.embeddings import make_embedder
    from agents.residents.persona import load_cast
    from lab.evaluate.factual import factual_rows, factual_score
    from lab.evaluate.interviews import start_minds

    config = load_config({"seed": 0}, env={}, toml_path=None)
    assert config.grounded == "on"
    cast, scenario = load_cast("maps/the_ville")
    personas = {p.name: p for p in cast}
    names = ["Isabella Rodriguez", "Maria Lopez"]
    minds = start_minds(names, personas, scenario, Gateway(config), make_embedder(config), scenario.start)
    rows = factual_rows(minds, scenario.start)
    score = factual_score(rows)
    print("\n" + "\n".join(f"{r['resident']}: {r['question']} -> {r['answer']} ({r['verdict']})" for r in rows))
    assert score["questions"] >= 8
    assert score["correct"] / score["questions"] >= 0.7  # the bar
    assert all(r["memory_id"] is not None for r in rows if r["verdict"] == "correct")


# ---------------------------------------------------------------------------- where it shows

def test_the_inspector_and_the_timeline_show_the_memory():
    from game.runs.timeline import render_timeline
    from game.view.inspector_text import body_html

    m, _ = grounded_mind(choosing(lambda msgs: fact_number(msgs, "Maria")))
    reply = respond_traced(m, "Alex", "Who is Maria Lopez?", now=NOW)  # the visitor's chat: remembered
    snap = m.inspect()
    assert snap.said[-1].memory == reply.memory_id and snap.said[-1].to == "Alex"
    html = body_html(snap, now=NOW, memory_text=m.memory_text)
    assert f"from memory #{reply.memory_id}: she is a friend of Maria Lopez" in html
    assert "I am a friend of Maria Lopez." in html
    events = [
        {"time": "2023-02-13 10:00:00", "resident": m.name, "kind": "chat", "text": "", "address": "",
         "conversation": 1, "partner": "Maria Lopez"},
        {"time": "2023-02-13 10:00:10", "resident": m.name, "kind": "line", "text": reply.text, "address": "",
         "conversation": 1, "partner": "Maria Lopez", "source": reply.source},
    ]
    md = render_timeline(events)
    assert f"memory #{reply.memory_id} (she is a friend of Maria Lopez)" in md


# ---------------------------------------------------------------------------- the measures

def test_the_factual_judge():
    from lab.evaluate.factual import judge_factual
    phrases = ["Isabella Rodriguez runs Hobbs Cafe", "she lives alone in her apartment",
               "she counts Maria Lopez among her closest friends", "she loves organising gatherings"]
    assert judge_factual("I run Hobbs Cafe.", r"hobbs|cafe", phrases)[0] == "correct"
    assert judge_factual("I love organising gatherings.", r"hobbs|cafe", phrases)[0] == "wrong"
    assert judge_factual("I don't know much about that.", r"hobbs|cafe", phrases)[0] == "denies"
    assert judge_factual("", r"hobbs", phrases)[0] == "wrong"
    dump = ("I run Hobbs Cafe; I live alone in my apartment; I count Maria Lopez among my closest friends; "
            "I love organising gatherings")
    assert judge_factual(dump, r"hobbs|cafe", phrases, "Isabella Rodriguez")[0] == "long"  # a dump is no answer
    assert judge_factual("I run Hobbs Cafe; I live alone.", r"hobbs", phrases, "Isabella Rodriguez")[0] == "correct"
    assert judge_factual("word " * 50 + "Hobbs", r"hobbs", phrases)[0] == "long"


def test_fact_passing_counts_news_new_to_the_listener_and_whether_it_stuck():
    from lab.evaluate.memories import MemoryView
    from lab.evaluate.passing import fact_passing
    names = ["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"]
    ev = [
        {"time": "2023-02-13 08:00:00", "resident": "Isabella Rodriguez", "kind": "line", "conversation": 1,
         "partner": "Maria Lopez", "text": "Hi Maria! I want to host a Valentine's Day party at Hobbs Cafe."},
        {"time": "2023-02-13 08:00:10", "resident": "Maria Lopez", "kind": "line", "conversation": 1,
         "partner": "Isabella Rodriguez", "text": "Oh, a party at Hobbs Cafe? Lovely."},  # Isabella knew: no pass
        {"time": "2023-02-13 09:00:00", "resident": "Maria Lopez", "kind": "line", "conversation": 2,
         "partner": "Klaus Mueller", "text": "Isabella told me: a Valentine's party at Hobbs Cafe!"},
        {"time": "2023-02-13 10:00:00", "resident": "Maria Lopez", "kind": "line", "conversation": 3,
         "partner": "Klaus Mueller", "text": "Hi Klaus, how are you?"},
        {"time": "2023-02-13 10:00:00", "resident": "Maria Lopez", "kind": "line", "partner": "Alex",
         "text": "The party at Hobbs Cafe!"},  # the visitor's chat: not a conversation between residents
    ]
    t = datetime(2023, 2, 13, 8, 0)
    views = {"Maria Lopez": MemoryView(['Isabella Rodriguez told Maria: "a Valentine\'s Day party at Hobbs Cafe"'],
                                       ["chat"], [t], [None], [None], None, None)}
    fp = fact_passing(ev, names, views)
    assert fp["conversations"] == 3 and fp["with_a_new_fact"] == 2 and fp["rate"] == round(2 / 3, 4)
    assert [(p["from"], p["to"], p["remembered"]) for p in fp["passes"]] == [
        ("Isabella Rodriguez", "Maria Lopez", True), ("Maria Lopez", "Klaus Mueller", False)]
    assert fact_passing([], names, {})["rate"] == 0.0


def test_asked_about_the_day_the_plan_is_said_as_a_day_not_read_as_a_timetable():
    from agents.planning.plan import PlanItem, chosen_tag

    m, _gw = grounded_mind(choosing(lambda msgs: fact_number(msgs, "plan for")))
    day = [PlanItem(NOW.replace(hour=8), 240, "running the cafe", "the Ville:Hobbs Cafe:cafe", "model"),
           PlanItem(NOW.replace(hour=12), 60, "having lunch", "the Ville:Hobbs Cafe:cafe", "model"),
           PlanItem(NOW.replace(hour=17), 120, "hosting the Valentine's Day party", "the Ville:Hobbs Cafe:cafe",
                    chosen_tag(3, origin="memory #4 (I want to host a Valentine's Day party at Hobbs Cafe)"))]
    m.today.plan = day
    m.remember("plan", f"{m.name}'s plan for {NOW:%A %B %d}: " + "; ".join(x.line() for x in day), 5,
               subject=m.name)
    r = respond_traced(m, "Alex", "What is your plan for today?", now=NOW.replace(hour=9), remember=False)
    assert r.memory_id is not None and "plan for" in (r.memory or "")  # the plan memory answered ...
    assert "08:00" not in r.text and "having lunch" in r.text  # ... in words, not its timetable
    assert r.text.endswith("and at 5 pm I'm hosting the Valentine's Day party at Hobbs Cafe.")
