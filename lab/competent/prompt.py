"""Reading a prompt as a capable model would: its lines, blocks and numbered
items, the allowed values of its JSON schema, and a stable "sampling" number;
plus the small time and wording helpers every task uses, and how much a line of
text speaks of what a question asks (``overlap``)."""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from agents import fact_in_first_person


@dataclass
class Prompt:
    text: str
    schema: dict | None
    name: str

    def find(self, rx: str, default: str = "", flags: int = 0) -> str:
        m = re.search(rx, self.text, flags)
        return m.group(1).strip() if m else default

    def block(self, heading_rx: str) -> list[str]:
        """The "- item" lines right after a heading line matching ``heading_rx``."""
        lines = self.text.splitlines()
        out: list[str] = []
        for i, line in enumerate(lines):
            if re.search(heading_rx, line):
                for nxt in lines[i + 1:]:
                    s = nxt.strip()
                    if s.startswith("- "):
                        out.append(s[2:].strip())
                    elif s and not s.startswith("-"):
                        break
                break
        return [x for x in out if x and not x.startswith("(")]

    def numbered(self) -> list[str]:
        return [m.group(2).strip() for m in re.finditer(r"^\s*(\d+)\.\s+(.*)$", self.text, re.M)]

    def enum(self, *path: str) -> list[str]:
        """The allowed values of a field of the schema (places, times, days)."""
        node = self.schema or {}
        for p in path:
            node = _resolve(node, self.schema)
            if node.get("type") == "array":
                node = _resolve(node.get("items", {}), self.schema)
            node = node.get("properties", {}).get(p, {})
        node = _resolve(node, self.schema)
        for alt in node.get("anyOf", []):
            alt = _resolve(alt, self.schema)
            if "enum" in alt:
                return list(alt["enum"])
        return list(node.get("enum", []))

    def max_items(self, *path: str) -> int:
        node = self.schema or {}
        for p in path:
            node = _resolve(node, self.schema).get("properties", {}).get(p, {})
        return int(_resolve(node, self.schema).get("maxItems", 8))

    def min_items(self, *path: str) -> int:
        node = self.schema or {}
        for p in path:
            node = _resolve(node, self.schema).get("properties", {}).get(p, {})
        return int(_resolve(node, self.schema).get("minItems", 1))

    def rng(self, salt: str = "") -> int:
        """A stable pseudo-random number from the prompt (a model's sampling, made repeatable)."""
        return zlib.crc32((self.text + salt).encode("utf-8"))


def _resolve(node: dict, root: dict | None) -> dict:
    while isinstance(node, dict) and "$ref" in node and root:
        target = root
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node or {}


def first_name(name: str) -> str:
    return name.split()[0] if name else name


def hhmm(t: int) -> str:
    return f"{t // 60:02d}:{t % 60:02d}"


def minutes_of(hhmm: str) -> int:
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


def clock_minutes(h: str, m: str | None, ampm: str) -> int:
    hour = int(h) % 12 + (12 if ampm.lower().startswith("p") else 0)
    return hour * 60 + int(m or 0)


def pretty_time(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    suffix = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return f"{h12}:{m:02d} {suffix}" if m else f"{h12} {suffix}"


def gerund_phrase(text: str) -> str:
    """"run for mayor" -> "running for mayor"."""
    words = text.strip().split()
    if not words:
        return text
    v = words[0].lower()
    if v.endswith("ing"):
        return text
    if v == "be":
        g = "being"
    elif v.endswith("ie"):
        g = v[:-2] + "ying"
    elif v.endswith("e") and not v.endswith("ee"):
        g = v[:-1] + "ing"
    elif len(v) <= 4 and re.match(r".*[^aeiou][aeiou][bdgmnprt]$", v):
        g = v + v[-1] + "ing"
    else:
        g = v + "ing"
    return " ".join([g] + words[1:])


STOP_END = {"a", "an", "the", "at", "in", "on", "of", "for", "to", "and", "with", "by", "from"}


def clip_words(text: str, n: int) -> str:
    """The first ``n`` words, without a dangling "at the"."""
    words = text.split()[:n]
    while len(words) > 1 and words[-1].lower().strip(",;") in STOP_END:
        words.pop()
    return " ".join(words).strip(" ,;")



def in_my_words(fact: str, me: str) -> str:
    """A line about ``me`` as ``me`` would say it: "Ann Lee runs the bakery; she lives
    alone" -> "I run the bakery; I live alone." Others keep their names (the minds' own rule)."""
    t = " ".join(str(fact or "").split()).strip().rstrip(".")
    return fact_in_first_person(t, me) if t else ""


# ---------------------------------------------------------------------------- weighing words
# How the stand-in weighs what a question asks against a line of text: the
# question's content words, cut to their stems, and a few general synonyms (a
# question about one's occupation is answered by "runs the bakery", one about home
# by "lives in the college dorm"). Used to answer and to judge (interview.py).

STOP = {
    "what", "your", "you", "with", "about", "have", "does", "this", "that", "from", "they", "there", "would",
    "tell", "who", "whom", "which", "when", "where", "why", "how", "are", "was", "were", "the", "and", "for",
    "will", "can", "could", "should", "did", "had", "has", "its", "it's", "their", "them", "then", "than", "some",
    "any", "one", "just", "give", "also", "get", "let", "yes", "not", "but", "all", "out", "our", "his",
    "her", "she", "him", "into", "been", "being", "very", "most", "much", "more", "think", "guess", "know",
    "right", "now", "today", "say", "said", "i'm", "i'd", "i'll", "my", "me", "myself", "yourself's",
}

# A few general synonyms: each group is one topic a question may ask about in other words.
SYNONYMS = {
    "work": "occupation job work works working career profession runs owns own run study studies student teach "
            "teaches teacher business manage manages employ employed",
    "home": "live lives living home house family apartment dorm roommate roommates wife husband partner son "
            "daughter parents children kids alone",
    "self": "introduction introduce yourself",
    "likes": "interest interests hobby hobbies like likes love loves enjoy enjoys passion passionate fun inspire "
             "inspires inspiration care cares dream dreams favourite favorite "
             # what one does for its own sake: "I stream video games" answers an interest question
             "stream streams play plays paint paints compose composes practise practises sketch sketches "
             "garden gardens collect collects",
    "talk": "talk talked talking conversation conversed chat chatted said told asked discuss discussed spoke spoken",
    "day": "schedule routine typical weekday usually usual day days daily plan plans morning evening open opens "
           "close closes",
    "met": "met meet meeting recently recent saw seen spend spending spent time company friend friends",
    "party": "party parties celebration gathering gatherings",
    "election": "election mayor candidate candidacy campaign running run vote",
    "praise": "compliment admire admires value values respect respects great",
}


def stem(word: str) -> str:
    """A rough stem, so "lives", "living" and "live" meet: the ending cut, a doubled last letter undone."""
    w = word.lower().strip("'")
    w = re.sub(r"'s$", "", w)
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("e", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + repl
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "ls":
        w = w[:-1]
    return w


_GROUPS = {name: {stem(w) for w in words.split()} for name, words in SYNONYMS.items()}


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z][a-z']*", text.lower())


def stems(text: str) -> set[str]:
    """The stems of ``text``'s words of three letters or more, stop words left out."""
    return {stem(w) for w in tokens(text) if len(w) > 2 and w not in STOP}


def topics(text: str) -> set[str]:
    """The synonym groups (their names) ``text``'s words belong to."""
    s = stems(text)
    return {name for name, g in _GROUPS.items() if s & g}


def overlap(question: str, text: str) -> float:
    """How much of what ``question`` asks ``text`` speaks of: a shared word counts 1,
    a shared topic (two words of one synonym group) 1.5."""
    shared = stems(question) & stems(text)
    same_topic = topics(question) & topics(text)
    return len(shared) + 1.5 * len(same_topic)
