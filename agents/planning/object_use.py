"""What residents do with things: the objects that suit an activity, the state
an object is in while it is used and after, sleep, and actions built at a place.
One table each (everyone perceives object states as events)."""
from __future__ import annotations

import re
from datetime import datetime

from agents.support.types import Action
from agents.words import activity
from agents.words import emoji_vocabulary as emoji_vocab

SLEEP_WORDS = ("sleep", "asleep", "nap", "to bed", "in bed")

# The emoji a resident shows come from the drawable vocabulary (agents/words/emoji_vocabulary.py).
EMOJIS = emoji_vocab.VOCABULARY

# What using things does to them -- ONE table (everyone perceives object states as events):
# object -> (state while an action uses it, words of an activity in its arena that
#            leave it in an after-use state, that state, for how many minutes)
OBJECT_USE: dict[str, tuple[str | None, tuple[str, ...], str | None, int]] = {
    "bed": ("occupied", (), None, 0),  # slept in or sat on
    "coffee machine": ("brewing coffee", (), None, 0),
    "stove": ("cooking", (), None, 0),
    "shower": ("running", (), None, 0),
    "tv": ("on", (), None, 0),
    "refrigerator": ("open", ("breakfast", "lunch", "dinner", "cook", "meal", "snack"), "running low", 180),
    "piano": ("being played", (), None, 0),
    "easel": ("holding a painting in progress", (), None, 0),
    "toilet": ("occupied", (), None, 0),
    "kitchen sink": ("running water", (), None, 0),
    "bathroom sink": ("running water", (), None, 0),
}
# object -> state while an action uses it (the first column of OBJECT_USE).
OBJECT_STATE = {k: v[0] for k, v in OBJECT_USE.items() if v[0]}
USUAL_STATES = frozenset({"idle", *OBJECT_STATE.values(), *(v[2] for v in OBJECT_USE.values() if v[2])})


def after_use(description: str, address: str, arena_objects) -> list[tuple[str, str, int]]:
    """(object, state, minutes) an action leaves behind in its arena once it ends:
    "having breakfast" in a kitchen leaves its refrigerator "running low" for 3 hours."""
    t = str(description or "").lower()
    if not t or is_sleep(t):
        return []
    out = []
    for obj in arena_objects:
        use = OBJECT_USE.get(obj)
        if use and use[2] and any(re.search(rf"\b{w}", t) for w in use[1]):
            out.append((obj, use[2], int(use[3])))
    return out


def unusual_state(state: str | None) -> bool:
    """A state nobody's ordinary use explains (a world edit: "burning", "leaking"):
    residents who see it react to it."""
    st = " ".join(str(state or "").lower().split())
    return bool(st) and st not in USUAL_STATES


# words of an activity -> objects that suit it, in order of preference.
OBJECT_HINTS = [
    (SLEEP_WORDS, ["bed"]),
    (("coffee", "espresso", "latte", "brew"), ["coffee machine", "cafe counter"]),
    (("eat", "having breakfast", "having lunch", "having dinner", "meal", "snack", "dining"), [
        "dining table", "cafe customer seating", "pub tables"]),
    (("cook", "breakfast", "making lunch", "making dinner", "make lunch", "make dinner", "prepar"), [
        "stove", "refrigerator", "dining table"]),
    (("dishes",), ["kitchen sink"]),
    (("fridge", "refrigerator", "groceries away"), ["refrigerator"]),
    (("shower", "bath"), ["shower"]),
    (("toilet",), ["toilet"]),
    (("brush", "wash", "get ready", "morning routine", "freshen"), ["bathroom sink", "shower"]),
    (("dishes",), ["kitchen sink"]),
    (("attend", "class", "lesson", "taking notes", "problems"),
     ["classroom student seating", "library tables", "desk"]),
    (("teach", "lecture"), ["lecturer's podium", "blackboard"]),
    (("bookshel", "brows"), ["bookshelves"]),
    (("paint", "canvas"), ["easel", "desk"]),
    (("piano", "compose", "music"), ["piano", "desk"]),
    (("tv", "movie", "watch"), ["tv", "sofa"]),
    (("relax", "rest", "sofa"), ["sofa", "garden bench", "park bench"]),
    (("garden", "vegetable", "plant", "weed"), ["vegetable patch", "park garden"]),
    (("serve", "customer", "counter", "cashier", "open", "close", "register"), [
        "cafe counter", "bar counter", "grocery counter", "pharmacy counter", "supply store counter"]),
    (("drink", "beer", "wine", "bar"), ["bar counter", "pub tables"]),
    (("medicine", "pharmacy", "prescription"), ["pharmacy counter", "pharmacy shelves"]),
    (("stock", "shelves", "shop", "buy", "grocer"), ["grocery shelves", "supply store shelves", "pharmacy shelves"]),
    (("read", "book", "research", "study", "thesis", "homework"),
     ["library tables", "bookshelves", "desk", "classroom student seating"]),
    (("write", "work", "email", "code", "computer", "draw", "animat", "stream", "plan", "edit"), [
        "desk", "library tables", "cafe customer seating", "classroom student seating"]),
    (("walk", "stroll", "photo", "think", "pond"), ["park garden", "pond", "park bench"]),
    (("notice", "bulletin", "poster"), ["bulletin board"]),
    (("dress", "clothes", "closet"), ["closet"]),
]


def emoji_for(text: str, proposed: str | None = None, address: str | None = None) -> str:
    """A drawable emoji: the keyword table first (reliable even with a weak model),
    then the model's own emoji if the game can draw it, then the place's, then a smile."""
    return emoji_vocab.emoji_for(text, proposed, activity.arena_kind(address) if address else None)


def is_sleep(text: str) -> bool:
    t = text.lower()
    return any(re.search(rf"\b{w}\b", t) or (w == "sleep" and "sleep" in t) for w in SLEEP_WORDS)


def pick_object(spatial, arena: str, text: str) -> str:
    """An object of `arena` that suits the activity, or the arena itself."""
    objs = {a.rsplit(":", 1)[1]: a for a in spatial.objects(arena)}
    t = text.lower()
    for words, names in OBJECT_HINTS:
        if any(w in t for w in words):
            for n in names:
                if n in objs:
                    return objs[n]
    return arena


def object_state(address: str, text: str) -> str | None:
    obj = address.rsplit(":", 1)[-1] if address.count(":") >= 3 else None
    return OBJECT_STATE.get(obj) if obj else None


# Objects that serve one purpose: an activity at one of them must say so ("reading a
# book" at the refrigerator is a small model's slip); anything else (a desk, a table,
# a sofa, seating) suits most activities.
SPECIAL_OBJECTS = {
    "bed": r"\b(sleep|nap|bed|rest|lie|lying|lay|wak|read|relax)",
    "refrigerator": r"\b(fridge|refrigerator|groceries|food|snack|breakfast|lunch|dinner|cook|meal|milk|drink"
                    r"|ingredient|leftover)",
    "stove": r"\b(cook|boil|fry|frying|stove|breakfast|lunch|dinner|meal|soup|eggs|heat|kettle|tea|bak|prepar)",
    "kitchen sink": r"\b(dish|wash|rins|sink|clean|water|scrub)",
    "bathroom sink": r"\b(wash|teeth|brush|face|shav|sink|hands|floss|makeup|skincare|groom|ready)",
    "toilet": r"\b(toilet|bathroom|restroom|use)",
    "shower": r"\b(shower|bath|wash|rins|ready)",
    "coffee machine": r"\b(coffee|espresso|latte|brew|cappuccino|barista|drink)",
    "tv": r"\b(tv|television|watch|show|news|movie|film|game)",
    "piano": r"\b(piano|play|music|compos|practi|song|melod|chord)",
    "easel": r"\b(paint|canvas|sketch|draw|art|easel|portrait|brush)",
    "blackboard": r"\b(board|write|writ|lectur|teach|explain|diagram|note)",
    "lecturer's podium": r"\b(lectur|teach|speech|present|talk|class)",
    "closet": r"\b(dress|cloth|closet|outfit|change|wardrobe|shoes|coat|pack)",
    "pond": r"\b(pond|duck|fish|water|look|watch|walk|stroll|sit|think|feed)",
    "bulletin board": r"\b(notice|poster|bulletin|flyer|read|post|pin|announce)",
}


def object_fits(text: str, address: str) -> bool:
    """Whether an activity can be done at the object of ``address`` (any activity
    suits an arena itself or a general-purpose object)."""
    if address.count(":") < 3:
        return True
    rx = SPECIAL_OBJECTS.get(address.rsplit(":", 1)[1])
    return rx is None or bool(re.search(rx, (text or "").lower()))


# What a resident can do at an object, in a few words (candidates a small model chooses
# from, agents/planning/decompose.py and agents/planning/plan.py); the words say the object, so a step
# keeps its place. Workers' own steps come from agents/words/activity.py (work_steps).
OBJECT_ACTIVITIES: dict[str, tuple[str, ...]] = {
    "bed": ("making the bed",),
    "desk": ("working at the desk", "writing in a notebook at the desk"),
    "closet": ("picking out clothes from the closet",),
    "shelf": ("tidying the shelf",),
    "refrigerator": ("getting food from the fridge",),
    "stove": ("cooking at the stove", "boiling water for tea"),
    "kitchen sink": ("washing the dishes",),
    "dining table": ("eating at the dining table", "sitting at the table with a cup of tea"),
    "toilet": ("using the toilet",),
    "shower": ("taking a shower",),
    "bathroom sink": ("brushing teeth at the sink", "washing face at the sink"),
    "coffee machine": ("brewing a coffee",),
    "cafe counter": ("ordering at the cafe counter",),
    "cafe customer seating": ("sipping a coffee at a cafe table", "reading at a cafe table"),
    "piano": ("playing the piano",),
    "bar counter": ("having a drink at the bar",),
    "pub tables": ("chatting at a pub table",),
    "classroom student seating": ("taking notes in class",),
    "blackboard": ("reading the notes on the blackboard",),
    "bookshelves": ("browsing the bookshelves",),
    "library tables": ("reading at a library table",),
    "bulletin board": ("reading the notices on the bulletin board",),
    "park bench": ("sitting on a park bench",),
    "park garden": ("strolling through the park garden",),
    "pond": ("watching the ducks on the pond",),
    "supply store shelves": ("browsing the supply store shelves",),
    "grocery shelves": ("shopping for groceries",),
    "pharmacy counter": ("picking up medicine at the pharmacy counter",),
    "sofa": ("relaxing on the sofa", "reading a book on the sofa"),
    "tv": ("watching tv",),
    "vegetable patch": ("watering the vegetable patch",),
    "garden bench": ("sitting on the garden bench",),
    "easel": ("painting at the easel",),
}


def object_activities(spatial, arena: str, hinted_by: str | None = None) -> list[tuple[str, str]]:
    """(activity, object address) for the known objects of ``arena``; with ``hinted_by``,
    only the objects that suit that activity (OBJECT_HINTS: "having breakfast" -> the
    stove, the refrigerator, the dining table), unless it hints none of them."""
    objs = spatial.objects(arena)
    if hinted_by:
        t = hinted_by.lower()
        names = [n for words, ns in OBJECT_HINTS if any(w in t for w in words) for n in ns]
        hinted = [o for o in objs if o.rsplit(":", 1)[1] in names]
        objs = hinted or objs
    return [(text, o) for o in objs for text in OBJECT_ACTIVITIES.get(o.rsplit(":", 1)[1], ())]


def make_action(spatial, description: str, address: str, start: datetime, minutes: int,
                emoji: str | None = None, source: str = "", kind: str = "") -> Action:
    return Action(description=description, address=address, start=start, duration_min=int(minutes),
                  emoji=emoji_for(description, emoji, address), object_state=object_state(address, description),
                  source=source, kind=kind)
