"""The emoji a resident may show: only those the game can draw.

The vocabulary is the keys of ``assets/icons/emoji.json`` (read here directly:
agents/ never imports game/). ``nearest`` is the one lookup of an emoji string (the game's icons use it
too): exact key, without variation selectors / skin tones, the json's
aliases, a gendered person made neutral, then each emoji of a string of several.
``emoji_for`` picks the emoji of an activity: a keyword table first (reliable
with a weak model), then the model's proposal if it is drawable, then the
place's emoji, then a smile.
"""
from __future__ import annotations

import json
import re

from agents.support.home import data_root

META_FILE = data_root() / "assets" / "icons" / "emoji.json"
DEFAULT = "🙂"
VS16, ZWJ = "\ufe0f", "\u200d"


def _load() -> dict:
    try:
        return json.loads(META_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # no art: a tiny vocabulary keeps the minds working
        return {"icons": {DEFAULT: 0, "😴": 1, "💬": 2}, "aliases": {}}


_META = _load()
VOCABULARY: tuple[str, ...] = tuple(_META["icons"])
_VOCAB = set(VOCABULARY)


def _is_modifier(ch: str) -> bool:
    o = ord(ch)
    return ch == VS16 or 0x1F3FB <= o <= 0x1F3FF


def _strip(e: str) -> str:
    """Drop variation selectors and skin-tone modifiers."""
    return "".join(ch for ch in e if not _is_modifier(ch))


_BY_STRIPPED = {_strip(e): e for e in VOCABULARY}
_ALIAS_STRIPPED = {_strip(k): v for k, v in _META.get("aliases", {}).items() if v in _VOCAB}
def split_emoji(text: str) -> list[str]:
    """Split a string into emoji clusters (ZWJ sequences, flags and modifiers stay whole).

    Ordinary letters, digits and spaces are dropped.
    """
    out: list[str] = []
    cur = ""
    join_next = False
    for ch in text:
        o = ord(ch)
        if cur and (join_next or _is_modifier(ch) or ch == ZWJ or o == 0x20E3 or 0xE0020 <= o <= 0xE007F):
            cur += ch
            join_next = ch == ZWJ
            continue
        if cur and 0x1F1E6 <= o <= 0x1F1FF and len(cur) == 1 and 0x1F1E6 <= ord(cur) <= 0x1F1FF:
            cur += ch  # the second regional indicator of a flag
            continue
        if cur:
            out.append(cur)
            cur = ""
        if ch.isspace() or (o < 0x2000 and ch not in "#*0123456789©®"):
            continue
        cur = ch
    if cur:
        out.append(cur)
    return out


def _degender(e: str) -> list[str]:
    """Gender-neutral forms of a ZWJ sequence, most specific first."""
    parts = [p for p in e.split(ZWJ) if p]
    cands = []
    no_sign = [p for p in parts if _strip(p) not in ("♀", "♂")]
    if no_sign != parts:
        cands.append(ZWJ.join(no_sign))
    neutral = ["🧑" if _strip(p) in ("👩", "👨") else p for p in no_sign]
    if neutral != no_sign:
        cands.append(ZWJ.join(neutral))
    return cands


def _known_one(e: str) -> str | None:
    if e in _META["icons"]:
        return e
    s = _strip(e)
    if s in _BY_STRIPPED:
        return _BY_STRIPPED[s]
    if s in _ALIAS_STRIPPED:
        return _ALIAS_STRIPPED[s]
    for cand in _degender(s):
        hit = _BY_STRIPPED.get(cand) or _ALIAS_STRIPPED.get(cand)
        if hit:
            return hit
    return None


def nearest(emoji: str | None) -> str | None:
    """The drawable emoji for ``emoji``, or None when none is close: exact key,
    the same without variation selectors / skin tones, the json's aliases, a
    gendered person made neutral, then each emoji of a string of several."""
    if not emoji:
        return None
    hit = _known_one(emoji) or _known_one(emoji.strip())
    if hit:
        return hit
    for part in split_emoji(emoji):
        hit = _known_one(part)
        if hit:
            return hit
    return None


# Words of an activity -> emoji, first match wins. Every emoji here is checked
# against the vocabulary at import (a missing one is skipped, never shown).
_TABLE = [
    (r"\b(sleep|sleeping|asleep|nap|napping|to bed|in bed)\b", "😴"),
    (r"\b(brush\w* (my |her |his |their )?teeth|teeth)\b", "🪥"),
    (r"\b(shower\w*)\b", "🚿"),
    (r"\b(bath|bathe|bathing)\b", "🛁"),
    (r"\btoilet\b", "🚽"),
    (r"\b(dress\w*|clothes|get\w* ready|changing)\b", "👕"),
    (r"\b(wak\w* up|wake|waking)\b", "☀️"),
    (r"\b(coffee|espresso|latte|cappuccino|brew\w*)\b", "☕"),
    (r"\btea\b", "🍵"),
    (r"\b(cook\w*|stove|bak\w*|prepar\w* (breakfast|lunch|dinner|food|a meal))\b", "🍳"),
    (r"\bbreakfast\b", "🥣"),
    (r"\b(lunch|sandwich)\b", "🥪"),
    (r"\b(dinner|supper)\b", "🍝"),
    (r"\b(eat\w*|meal|snack\w*|dining)\b", "🍽️"),
    (r"\b(cake|dessert|pastr\w*|muffin\w*|croissant\w*)\b", "🍰"),
    (r"\b(beer|pint|ale)\b", "🍺"),
    (r"\bwine\b", "🍷"),
    (r"\b(cocktail|bartend\w*)\b", "🍸"),
    (r"\b(dish\w*|clean\w*|tidy\w*|sweep\w*|wip\w*|mop\w*)\b", "🧹"),
    (r"\blaundry\b", "🧺"),
    (r"\b(valentine\w*|party|parties|decorat\w*|celebrat\w*|gathering)\b", "🎉"),
    (r"\b(campaign\w*|mayor|election|vot\w*)\b", "🗳️"),
    (r"\b(medicine|pharmac\w*|prescription\w*|pills?)\b", "💊"),
    (r"\b(stock\w*|restock\w*|inventory|deliver\w*|unpack\w*)\b", "📦"),
    (r"\b(serv\w*|customers?|orders?|cashier|register|counter)\b", "🛎️"),
    (r"\b(groceries|grocery|shop\w*|buy\w*|purchas\w*)\b", "🛒"),
    (r"\b(lectur\w*|teach\w*|grad\w* papers)\b", "🧑‍🏫"),
    (r"\b(class|classes|seminar|course)\b", "🏫"),
    (r"\b(chemistry|experiment\w*|lab)\b", "🧪"),
    (r"\b(research\w*|gentrification|data|survey\w*)\b", "🔬"),
    (r"\b(math\w*|equation\w*|proof\w*|physics|calculat\w*)\b", "🧮"),
    (r"\b(stud\w*|homework|revis\w*|lesson)\b", "📚"),
    (r"\b(read|reads|reading|rereading|book\w*|novel)\b", "📖"),
    (r"\b(news|newspaper)\b", "📰"),
    (r"\b(paint\w*|canvas|easel|watercolou?r)\b", "🎨"),
    (r"\b(draw\w*|sketch\w*|illustrat\w*|animat\w*)\b", "🖌️"),
    (r"\b(photo\w*|camera)\b", "📷"),
    (r"\b(rehears\w*|act|acting|script|comedy|stand-up|perform\w*)\b", "🎭"),
    (r"\b(sing\w*|song\w*)\b", "🎤"),
    (r"\bpiano\b", "🎹"),
    (r"\bguitar\b", "🎸"),
    (r"\b(music|compos\w*|melod\w*|harmony)\b", "🎵"),
    (r"\b(listen\w*|podcast)\b", "🎧"),
    (r"\b(stream\w*|video games?|gaming|play\w* games?)\b", "🎮"),
    (r"\b(tv|television|movie|film)\b", "📺"),
    (r"\b(cod\w*|program\w*|software|debug\w*)\b", "⌨️"),
    (r"\b(computer|laptop|email\w*|online)\b", "💻"),
    (r"\b(phone|call\w*)\b", "📞"),
    (r"\b(writ\w*|poem\w*|poetry|essay|paper|thesis|story|stories)\b", "✍️"),
    (r"\b(notes?|jot\w*|list)\b", "📝"),
    (r"\b(plan\w*|schedul\w*|organi[sz]\w*|agenda)\b", "📅"),
    (r"\b(tax\w*|paperwork|accounts?|bills?|invoice\w*|budget\w*)\b", "🧾"),
    (r"\b(money|cash)\b", "💰"),
    (r"\b(repair\w*|fix\w*|tool\w*)\b", "🔧"),
    (r"\b(run|runs|running|jog\w*)\b", "🏃"),
    (r"\b(exercis\w*|train\w*|gym|workout|work out|lift\w*|stretch\w*|practice)\b", "🏋️"),
    (r"\b(yoga|meditat\w*|relax\w*|unwind\w*|rest\w*)\b", "🧘"),
    (r"\b(sofa|couch)\b", "🛋️"),
    (r"\b(soccer|football|ball|sport\w*)\b", "⚽"),
    (r"\b(walk\w*|stroll\w*)\b", "🚶"),
    (r"\b(garden\w*|plant\w*|water\w* the|weed\w*|flowers?)\b", "🌷"),
    (r"\b(ducks?|pond)\b", "🦆"),
    (r"\bpark\b", "🌳"),
    (r"\b(talk\w*|chat\w*|convers\w*|discuss\w*)\b", "💬"),
    (r"\b(meet\w*|greet\w*|welcom\w*)\b", "🤝"),
    (r"\b(think\w*|ponder\w*|reflect\w*|wonder\w*)\b", "🤔"),
    (r"\b(idea\w*|brainstorm\w*|invent\w*)\b", "💡"),
    (r"\b(announc\w*|poster\w*|flyer\w*|bulletin)\b", "📣"),
    (r"\b(work\w*|office|meeting|job|shift)\b", "💼"),
]
TABLE = [(re.compile(p), e) for p, e in _TABLE if e in _VOCAB]

# The kind of a place (agents.words.activity.arena_kind) -> its emoji, when the words say nothing.
PLACE_EMOJI = {
    "bathroom": "🚿", "bedroom": "🏠", "main room": "🏠", "kitchen": "🍳", "common room": "🛋️",
    "cafe": "☕", "pub": "🍺", "classroom": "🏫", "library": "📚", "hallway": "📣", "park": "🌳",
    "store": "🛒", "supply store": "🔧", "garden": "🌷",
}


def keyword_emoji(text: str) -> str | None:
    t = (text or "").lower()
    for rx, e in TABLE:
        if rx.search(t):
            return e
    return None


def emoji_for(text: str, proposed: str | None = None, place_kind: str | None = None) -> str:
    """A drawable emoji for an activity (see the module docstring)."""
    hit = keyword_emoji(text) or nearest(proposed) or PLACE_EMOJI.get(place_kind or "")
    return hit if hit in _VOCAB else DEFAULT
