"""Talking to a resident (contract section 12): the visitor's chat and interviews.

``respond(mind, speaker, text, now=...)`` answers one line in character, from
retrieval over the resident's memories (the line itself and "who is
<speaker>"), the resident's summary and current action, and the dialogue so
far. One model call per line; how memorable the line is is rated by rule
(length and news words), which keeps the schema to one text field: the
embedded 135M model fills a second field with nonsense (it answered
"importance"), while a second-person prompt with one worked example and the
dialogue as alternating lines gives sensible replies.

``remember=True`` (the visitor's chat) stores the exchange as a ``chat``
memory, so what the visitor says can be retrieved later, e.g. when the
resident talks to others. ``remember=False`` (an interview) leaves the mind
as it was: no memory, no last-access update, nothing counted on the mind.

Every call takes the minds' one road (agents/model/services.py ``ask_model``: its purpose's
token limit, a decision record) through the mind's budget like the mind's own (agents/model/budget.py):
a spent budget withholds it and the rule's answer says so ("rule: budget").
With ``remember=False`` the budget is only read (``Budget.checking``).

Threading: like the Mind's own methods it runs as the resident's pool job
(key: the resident's name), so no other job of that mind runs meanwhile. It
uses only the Mind's public methods (``begin_job``, ``start_turn``, ``search``,
``remember``, ``publish``), which lock what other threads share.

The player's chat goes in two steps so the reply never waits for the
resident's own planning: ``answer_now`` only reads the mind (retrieval without
touching, nothing stored or counted; the memory stream tolerates one reader
beside its writer) and runs at once on an urgent lane beside the resident's
job; ``keep_exchange`` then stores what answering changes (the exchange as a
memory, the line said, the call counted, or withheld) as the resident's next
ordinary job.
The one difference from ``respond``: the memories the answer retrieved keep
their last access time.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from agents.explain import provenance as pv
from agents.mind.core import Mind
from agents.mind.job_tags import job_tag
from agents.model.services import Asker, ask_model
from agents.recall import grounding as gr
from agents.recall.memory import KINDS as MEMORY_KINDS
from agents.recall.memory import MemoryNode
from agents.support.types import Conversation, Utterance
from agents.talk import dialogue
from agents.words.text import clean_text

ANSWER_CHARS = 320
HISTORY_LINES = 8
NEWS_WORDS = gr.NEWS_WORDS


class Answer(BaseModel):
    answer: str = Field(min_length=1)


@dataclass
class _Seed:
    """A phrase of the resident's description standing in for its seed memory before the
    mind's first job stores them (a negative id: no memory to link to)."""

    id: int
    description: str
    kind: str = "thought"
    source: str = pv.tag(pv.RULE, pv.SEED)
    created: datetime = datetime.min  # a description is not dated: it never passes


@dataclass
class Reply:
    """An answer and where it came from: its provenance ("model", "repaired: grounded:
    memory #12 (...)", "rule: ...") and, for a grounded answer, the memory's id and text."""

    text: str
    source: str
    memory_id: int | None = None
    memory: str = ""
    mode: str = "free"  # "grounded" | "free" (the paper's generation)

    def __str__(self) -> str:
        return self.text


def rule_importance(text: str) -> int:
    return gr.news_importance(text)


def _first(name: str) -> str:
    return (name or "there").split()[0]


def _doing(mind: Mind) -> str:
    a = mind.action
    return a.description if a is not None and a.description else "going about the day"


def _place(mind: Mind) -> str:
    a = mind.action
    if a is None or not a.address:
        return "somewhere in town"
    parts = a.address.split(":")
    return ": ".join(parts[1:]) if len(parts) > 1 else a.address


def fallback_answer(mind: Mind, speaker: str, text: str, history: Sequence[tuple[str, str]] = ()) -> str:
    """A polite, in-character line from the persona and the current action (never empty)."""
    p = mind.persona
    sp = _first(speaker)
    doing = _doing(mind)
    n = len(history) // 2
    if n == 0:
        return f"Oh, hello {sp}! I'm {p.first_name}. I'm {doing} right now, but I have a moment. What's on your mind?"
    if text.strip().endswith("?"):
        lines = (f"That's a good question, {sp}. I'd have to think about it; I'm {doing} at the moment.",
                 f"Hmm, I'm not sure, {sp}. Ask me again when I'm not {doing}?",
                 f"I couldn't say for certain, {sp}. What do you think?")
    else:
        lines = (f"I see, {sp}. Thanks for telling me, I'll keep that in mind.",
                 f"That's interesting, {sp}. Tell me more?",
                 f"I'll remember that, {sp}. Anyway, I should get back to {doing} soon.")
    return lines[n % len(lines)]


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9 ]", "", s.lower()).strip()


def _clean_answer(raw: str, mind: Mind, speaker: str, text: str, history: Sequence[tuple[str, str]] = ()) -> str:
    t = clean_text(raw, ANSWER_CHARS)
    # A weak model may prefix the speaker's name or quote the line back.
    for who in (mind.name, mind.persona.first_name):
        if t.lower().startswith(who.lower() + ":"):
            t = t[len(who) + 1:].strip()
    first = mind.persona.first_name
    t = re.sub(rf"^((?:hi|hello|hey|good \w+),? ){re.escape(first)}\b", rf"\g<1>{_first(speaker)}", t, flags=re.I)
    n = _norm(t)
    if not t or len(n) < 2 or n in _norm(text) or n in ("answer", "importance"):  # empty, or parroting
        return ""
    if any(n == _norm(b) for a, b in history if a == mind.name):  # a weak model repeats itself
        return ""
    return t


def respond(mind: Mind, speaker: str, text: str, *, now: datetime, speaker_is: str | None = None,
            history: Sequence[tuple[str, str]] = (), remember: bool = True) -> str:
    """One in-character answer of ``mind``'s resident to ``speaker`` saying ``text``."""
    return respond_traced(mind, speaker, text, now=now, speaker_is=speaker_is, history=history,
                          remember=remember).text


def respond_traced(mind: Mind, speaker: str, text: str, *, now: datetime, speaker_is: str | None = None,
                   history: Sequence[tuple[str, str]] = (), remember: bool = True) -> Reply:
    """``respond``, with the answer's provenance and (grounded mode) the memory it came from."""
    text = " ".join(str(text or "").split())[:600]
    history = [(str(a), str(b)) for a, b in (history or ())]
    if remember:
        # What a Mind's own job does first: mark the job (a save taken meanwhile uses the
        # mind as it was before it; game/saves/saveload.py maps the sim's "call" job to this tag),
        # then today's counters, seeds and queued thoughts.
        mind.begin_job(job_tag("respond"))
        mind.start_turn(now)
    if not text:
        return Reply(fallback_answer(mind, speaker, "", history), pv.tag(pv.RULE, "nothing was said"))
    # Counted on the mind's budget when the exchange changes the mind; else only read.
    asker: Asker = mind.budget if remember else mind.budget.checking(now)
    reply = (_grounded(mind, asker, speaker, text, now, history, remember) if mind.grounded
             else _free(mind, asker, speaker, text, now, speaker_is, history, remember))
    if remember:
        mind.note_said(speaker, reply.text, reply.source)
        _remember(mind, speaker, text, reply.text, now, rule_importance(text))
    return reply


def answer_now(mind: Mind, speaker: str, text: str, *, now: datetime, speaker_is: str | None = None,
               history: Sequence[tuple[str, str]] = ()) -> Reply:
    """The answer alone, leaving the mind as it was: safe beside the resident's own job
    (the player's reply: game/sim/jobs.py, urgent). ``keep_exchange`` stores it after."""
    return respond_traced(mind, speaker, text, now=now, speaker_is=speaker_is, history=history, remember=False)


def owe_exchange(mind: Mind, speaker: str, text: str, reply: Reply, *, now: datetime) -> int:
    """When the answer lands (main thread), before ``keep_exchange`` is queued: the mind
    owes the exchange to its memory until that job has kept it, so a save taken at any
    point in between (the job queued, running, or done with its result not yet read)
    carries it, and the loaded game keeps it (``keep_owed``). Returns the number to
    pass to ``keep_exchange(..., owed=)``."""
    return mind.owed.add({"speaker": speaker, "text": text, "now": now, "reply": reply.text, "source": reply.source,
                     "mode": reply.mode})


def keep_exchange(mind: Mind, speaker: str, text: str, reply: Reply, *, now: datetime,
                  owed: int | None = None) -> None:
    """What answering ``text`` with ``reply`` changes in the mind, as its own job: the
    call counted, a fallback noted, the line said and the exchange remembered.
    ``owed``: the number ``owe_exchange`` gave (the job's tag names it; a save taken
    while it runs keeps the exchange again after loading)."""
    mind.begin_job(job_tag("respond") + ((owed,) if owed is not None else ()))
    try:
        mind.start_turn(now)
        text = " ".join(str(text or "").split())[:600]
        if not text:
            return
        # The answer was asked reading the budget only (``answer_now``): its call counts now.
        mind.budget.count("choose_fact" if reply.mode == gr.GROUNDED else "respond", withheld=_withheld(reply))
        if pv.kind_of(reply.source) == pv.RULE:
            mind.fallbacks[f"answer: {pv.why_of(reply.source) or pv.INVALID}"] += 1
        mind.note_said(speaker, reply.text, reply.source)
        _remember(mind, speaker, text, reply.text, now, rule_importance(text))
        mind.publish()
    finally:
        if owed is not None:
            mind.owed.drop(owed)


def keep_owed(mind: Mind) -> int:
    """Keep the exchanges a loaded mind still owes (a save taken before their jobs had
    kept them), oldest first, on this thread (the loader's: the mind is not running
    yet). Returns how many."""
    owed = mind.owed.copy()
    for x in owed:
        reply = Reply(str(x.get("reply") or ""), str(x.get("source") or ""), mode=str(x.get("mode") or "free"))
        keep_exchange(mind, str(x.get("speaker") or "someone"), str(x.get("text") or ""), reply, now=x["now"],
                      owed=x["owed"])
    return len(owed)


def _withheld(reply: Reply) -> bool:
    """The budget withheld the answer's call: its provenance gives that reason last
    ("rule: budget", "rule: grounded: memory #3 (...); budget")."""
    return pv.kind_of(reply.source) == pv.RULE and pv.why_of(reply.source).endswith(pv.BUDGET)


DURABLE_K = 3  # the free mode's memories beside the question's: the durable ones (issue 49)
# ... and its reflections, in places of their own: in six places beside what happened, a
# reflection that did not answer the question pushed out a sighting or a talk that did
# (docs/controlled-evaluation.md: full and no reflection tied, 48% and 47% of their rankings)
REFLECTION_K = 1  # a search's k is per query: one for the question, one for who asks
_HAPPENED = tuple(k for k in MEMORY_KINDS if k != "reflection")
_DURABLE_HAPPENED = tuple(k for k in gr.DURABLE_KINDS if k != "reflection")


def _free(mind: Mind, asker: Asker, speaker: str, text: str, now: datetime, speaker_is: str | None,
          history: list[tuple[str, str]], remember: bool) -> Reply:
    """The paper's way: the model writes the answer from retrieved memories."""
    known = speaker in mind.known_people
    who = speaker_is or ("someone you have met before" if known else "a visitor to the town you do not know yet")
    s = mind.settings
    queries = [text, f"who is {speaker}"]
    nodes: list[MemoryNode] = mind.search(queries, now, k=6, char_budget=s.retrieve_chars // 2 + 100, touch=remember,
                                          kinds=_HAPPENED)
    # ... and among what it thinks, was told, planned and concluded (its description's phrases among
    # them): after hours of sightings the first search held only those, and "Who is Maria Lopez?" got
    # "Earlier I saw Maria Lopez having lunch." where the seed alone said "one of my closest friends"
    seen = {x.id for x in nodes}
    nodes += [x for x in mind.search(queries, now, k=DURABLE_K, char_budget=s.retrieve_chars // 3, touch=remember,
                                     kinds=_DURABLE_HAPPENED) if x.id not in seen]
    # ... and what it concluded, beside them rather than instead of them
    nodes = nodes[:10] + mind.search(queries, now, k=REFLECTION_K, char_budget=s.retrieve_chars // 4,
                                     touch=remember, kinds=("reflection",))
    if nodes:
        memories = "\n".join(f"- {x.description}" for x in nodes)
    else:
        memories = "\n".join(f"- {ph}" for ph in mind.persona.phrases[:5]) or "- (nothing in particular)"
    transcript = ("\nYour conversation with " + speaker + " so far:\n"
                  + "".join(f"{'You' if a == mind.name else a}: {b}\n" for a, b in history[-HISTORY_LINES:])
                  if history else "")

    p = mind.persona
    values = dict(summary=mind.summary, first_name=p.first_name, full_name=p.name, age=p.age,
                  traits=p.traits, time=f"{now:%H:%M}", date=f"{now:%A %B %d}", doing=_doing(mind),
                  place=_place(mind), speaker=speaker, speaker_first=_first(speaker), speaker_is=who,
                  memories=memories, transcript=transcript, text=text)
    fb = Answer(answer=fallback_answer(mind, speaker, text, history))
    got, why = ask_model(asker, Answer, "respond", values, purpose="respond", resident=mind.name, now=now,
                         fallback=fb)
    answer = _clean_answer(got.answer, mind, speaker, text, history)
    source = pv.MODEL
    if not answer or why is not None:
        answer = fb.answer
        source = pv.tag(pv.RULE, pv.reason_of_failure(why or "invalid"))
        if remember:  # counted on the mind (an interview leaves it unchanged)
            mind.fallbacks[f"answer: {pv.reason_of_failure(why or 'invalid')}"] += 1
    return Reply(answer, source)


# "Do you remember me?", "Who am I?": a question about the one asking, answered from what the
# resident remembers of them (their name, what they said, whether they came)
_ABOUT_ASKER = re.compile(r"\b(remember me|know me|recogni[sz]e me|met me|about me|of me|who am i|my name|"
                          r"remember who i am|know who i am)\b", re.I)
ASKER_BONUS = 0.3  # a memory naming the one asking ranks above the description's phrases


def grounded_facts(mind: Mind, question: str, now: datetime, *, touch: bool,
                   skip: Sequence[str] = (), asker: str = "") -> list[gr.Fact]:
    """The few memories that could answer ``question``: the paper's retrieval on the
    question (also asked about the resident by name), then ranked by how near each fact,
    in the resident's own words, is to the question in the resident's words (names left
    out: "Isabella ..." in every seed phrase would make each look relevant)."""
    about = gr.third_person_question(question, mind.name)
    nodes: list[Any] = mind.search([about, question], now, k=8, char_budget=2000, touch=touch)
    # ... and among what the resident thinks, was told, planned and concluded: after a few
    # hours, what it saw ("Maria Lopez is having breakfast") fills the first search
    seen = {x.id for x in nodes}
    nodes += [x for x in mind.search([about, question], now, k=8, char_budget=2000, touch=touch,
                                     kinds=gr.DURABLE_KINDS) if x.id not in seen]
    # ... and always who the resident is (its description's phrases, the first memories; by
    # evening a day's memories outrank them in retrieval, as the paper's identity summary would not)
    seen = {x.id for x in nodes}
    stream = mind.stream
    nodes += [x for x in (stream.nodes[:len(mind.persona.phrases)] if stream is not None else [])
              if x.source == pv.tag(pv.RULE, pv.SEED) and x.id not in seen]
    if not mind.seeded:  # its first job has not run yet (the morning's queue): who it is, not stored
        nodes += [_Seed(-1 - i, ph) for i, ph in enumerate(mind.persona.phrases)]
    about_asker = bool(asker) and bool(_ABOUT_ASKER.search(question))
    if about_asker and stream is not None:  # the newest memories that name them, whatever the search found
        named: list[Any] = [x for x in stream.nodes if asker in (x.description or "") or x.subject == asker][-6:]
        # what they said, without the resident's answer: an answer that named a party now over would make
        # the whole memory past (dated.ended), and what the visitor said with it forgotten
        named = [_Seed(x.id, x.description.split('" and ', 1)[0] + '"', x.kind, x.source, x.created)
                 if x.kind == "chat" and x.subject == asker and '" and ' in x.description else x for x in named]
        ids = {x.id for x in named}
        nodes = [x for x in nodes if x.id not in ids] + named
    # a memory that repeats a prompt, or a reflection the small model wrote freely, answers nothing
    nodes = [x for x in nodes if gr.offered(x, now)]
    if not nodes:
        return []
    mine = gr.my_question(question)
    if about_asker:  # "Do I remember me?" reads nothing; what one remembers of them does
        mine = f"what I remember of {asker}: what {asker} said to me"
    said = [_norm(t) for t in skip]
    nodes = [x for x in nodes  # what the resident already answered in this conversation is not said again
             if not any(_norm(gr.first_person(x.description, mind.name)) in t for t in said if t)
             # a talk's memo: in this mode what was told is a memory of its own ("X told me: ...")
             and not x.description.startswith("conversed with")]
    if not nodes:
        return []
    worded = [gr.first_person(x.description, mind.name) for x in nodes]
    try:
        vecs = mind.embed([mine] + worded)
    except Exception:  # noqa: BLE001 - an embedding server down: no facts, "I don't know"
        mind.fallbacks["retrieval: embedding failed"] += 1
        return []
    return gr.candidates(nodes, list(vecs[1:]), vecs[0], worded=worded,
                         bonus=[gr.hint_bonus(mine, w) - (gr.SEEN_PENALTY if x.kind == "observation" else 0.0)
                                + (ASKER_BONUS if about_asker and asker in x.description else 0.0)
                                for x, w in zip(nodes, worded)])


def _grounded(mind: Mind, asker: Asker, speaker: str, text: str, now: datetime, history: list[tuple[str, str]],
              remember: bool) -> Reply:
    """The grounded mode: the model chooses which memory answers, a rule words it."""
    sp = _first(speaker)
    offer = _invited(mind, asker, speaker, text, now, history)
    if offer is not None:
        return offer
    recap = dialogue.recap_asked(mind, text, now)
    if recap is not None:  # asked how a gathering went: what it remembers of it, not its day's plan
        source = pv.tag(pv.RULE, f"{gr.GROUNDED}: {gr.source_note(dialogue.fact_of(recap))}; the gathering asked about")
        return Reply(dialogue.recap_words(mind, recap, now, speaker), source, recap.id, recap.description, gr.GROUNDED)
    said = [b for a, b in history if a == mind.name]
    facts = grounded_facts(mind, text, now, touch=remember, skip=said, asker=speaker)
    got = gr.choose(asker, facts, name=mind.name, question=text, asked_by=speaker, purpose="choose_fact",
                    now=now, fallback_first=True)
    if got.why is not None and remember:
        mind.fallbacks[f"answer: {pv.reason_of_failure(got.why)}"] += 1
    if got.fact is None:
        turn = len(history) // 2
        line = (gr.dont_know(sp, turn) if gr.is_question(text)
                else fallback_answer(mind, speaker, text, history))
        if gr.is_greeting(text) and not history:
            line = fallback_answer(mind, speaker, text, ())
        return Reply(line, got.source, mode=gr.GROUNDED)
    line = gr.first_person(got.fact.text, mind.name)
    if dialogue.is_timetable(got.fact.text):  # the day's plan memory: said as one says one's day
        line = dialogue.day_in_words(mind, speaker, now, len(history) // 2)
    if gr.is_greeting(text) and not history:
        line = f"Hi {sp}! {line}"
    return Reply(line, got.source, got.fact.node_id, got.fact.text, gr.GROUNDED)


def invitation(speaker: str, text: str, now: datetime) -> Utterance | None:
    """The visitor's line as an invitation to a dated thing to come ("I'm having a picnic at
    Johnson Park tomorrow at noon, will you come?"), or None: it must ask (dialogue's rule for
    an invitation) and name an event with a day, an hour and a place."""
    if dialogue.act_by_rule(text, None) != dialogue.INVITE:
        return None
    said = Utterance(speaker, text, False, pv.tag(pv.RULE, f"{pv.PLAYER}; act {dialogue.INVITE}"))
    ev = dialogue.offered_event(said, now)
    return said if ev is not None and ev.starts() > now else None


def _invited(mind: Mind, asker: Asker, speaker: str, text: str, now: datetime,
             history: list[tuple[str, str]]) -> Reply | None:
    """Grounded mode: the visitor's invitation is answered as a resident's is, yes or no
    (dialogue.answers_to_offer: a refusal gives the resident's own plan for that time); the
    model chooses between the two lines. None when the line invites to nothing dated."""
    said = invitation(speaker, text, now)
    if said is None:
        return None
    conv = Conversation((mind.name, speaker), "", now, [said])
    options = dialogue.answers_to_offer(mind, dialogue.voice(mind, conv), said, now, len(history) // 2)
    if not options:
        return None
    chosen, kind, why = options[0], pv.RULE, "the only act that fits"
    if len(options) > 1:
        schema = dialogue.reply_schema(tuple(o.text for o in options))
        p = mind.persona
        values = dict(full_name=p.name, traits=p.traits, time=f"{now:%H:%M}", other=speaker,
                      transcript=f"{speaker}: {text}",
                      options="\n".join(f"{i}. {o.text}" for i, o in enumerate(options, 1)))
        got, failed = ask_model(asker, schema, "choose_act", values, purpose="choose_act", resident=mind.name,
                                now=now, fallback=schema(reply=options[0].text), temperature=gr.CHOOSER_TEMPERATURE)
        if failed is None:
            chosen = next((o for o in options if o.text == getattr(got, "reply", None)), options[0])
            kind, why = pv.REPAIRED, f"chosen from {len(options)} acts"
        else:
            why = pv.reason_of_failure(failed)
    source = pv.tag(kind, f"{gr.GROUNDED}: " + "; ".join(x for x in (chosen.note, why, f"act {chosen.act}") if x))
    return Reply(chosen.text, source, mode=gr.GROUNDED)


def _remember(mind: Mind, speaker: str, text: str, answer: str, now: datetime, importance: int) -> None:
    me = mind.persona.first_name
    desc = f"{speaker} told {me}: \"{text[:300]}\" and {me} answered: \"{answer[:200]}\""
    # The rule's importance until the model rates it with the next observations.
    mind.remember("chat", desc, max(1, min(10, int(importance))), subject=speaker, predicate="said",
                  object=text[:200], source=pv.tag(pv.RULE, pv.PLAYER), rate=True,
                  importance_source=pv.UNRATED)
    mind.social.known_people.add(speaker)
    mind.social.last_talked[speaker] = now
    chats = mind.today.chats
    chats.append(f"with {speaker}: {text[:80]}")
    if len(chats) > 40:
        del chats[:-40]
    mind.publish()


__all__ = [
    "Answer",
    "Reply",
    "answer_now",
    "fallback_answer",
    "grounded_facts",
    "invitation",
    "keep_exchange",
    "keep_owed",
    "owe_exchange",
    "respond",
    "respond_traced",
    "rule_importance",
]
