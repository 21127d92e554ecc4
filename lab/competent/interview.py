"""Questions from outside the town: a visitor's or an interviewer's question
answered from the memories in the prompt, and the evaluation's model judge."""
from __future__ import annotations

import re

from lab.competent.prompt import Prompt, clip_words, first_name


def answer(p: Prompt) -> dict:
    """A visitor's or an interviewer's question, answered from the memories in the prompt."""
    said = p.find(r'says: "(.*)"\s*$', "", re.S) or ""
    mems = p.block(r"You remember:")
    words = {w for w in re.findall(r"[a-z]+", said.lower()) if len(w) > 3}
    best = max(mems, key=lambda x: len(words & set(re.findall(r"[a-z]+", x.lower()))), default="")
    overlap = len(words & set(re.findall(r"[a-z]+", best.lower())))
    me = p.find(r"You are ([A-Z][a-z]+ [A-Z][a-z]+)")
    if overlap == 0:
        return {"answer": "I'm not sure, I don't know much about that."}
    text = best.replace(me, "I").replace(f"{first_name(me)} ", "I ") if me else best
    return {"answer": f"Yes: {clip_words(text, 40)}"}


_STOP = {"what", "your", "with", "about", "have", "does", "this", "that", "from", "they", "there", "would", "tell"}


def choose(p: Prompt) -> dict:
    """The grounded mode's chooser (agents/recall/grounding.py): the numbered fact that shares the
    most words with the question, else the first (the list comes most relevant first, and
    only facts relevant enough are listed); asked what to tell someone, the first (most
    important first)."""
    facts = p.numbered()
    question = p.find(r'asks: "(.*)"', "")
    if not facts:
        return {"fact": "none"}
    if question.startswith("What would you tell"):
        return {"fact": "1"}
    words = {w for w in re.findall(r"[a-z]+", question.lower()) if len(w) > 3} - _STOP
    hits = [len(words & set(re.findall(r"[a-z]+", f.lower()))) for f in facts]
    best = max(range(len(facts)), key=lambda i: hits[i])
    return {"fact": str(best + 1)} if hits[best] > 0 else {"fact": "1"}


def judge(p: Prompt) -> dict:
    fact = p.find(r"The fact: (.+?)\.\n")
    said = p.find(r'answered: "(.*)"', "")
    words = {w for w in re.findall(r"[a-z]+", fact.lower()) if len(w) > 3}
    hit = len(words & set(re.findall(r"[a-z]+", said.lower())))
    return {"knows": hit >= 2 and not re.search(r"don't know|not sure|no idea", said, re.I)}


def rank(p: Prompt) -> dict:
    """The controlled evaluation's judge (lab/controlled/judge.py): answers that say
    something specific the person's description or the question speaks of, in a few
    sentences, above vague ones; a denial or a polite non-answer last."""
    who = p.find(r"Who they are: (.+)")
    question = p.find(r'They were asked: "(.*)"')
    context = {w for w in re.findall(r"[a-z]+", f"{who} {question}".lower()) if len(w) > 3} - _STOP
    answers = p.numbered()

    def score(i: int) -> float:
        a = answers[i]
        words = re.findall(r"[a-z]+", a.lower())
        s = 2.0 * len(context & set(words)) + min(len(words), 30) / 10
        if re.search(r"don't know|not sure|no idea|have to think|couldn't say|what's on your mind", a, re.I):
            s -= 10
        return s

    order = sorted(range(len(answers)), key=lambda i: (-score(i), i))
    return {"ranking": [i + 1 for i in order]}
