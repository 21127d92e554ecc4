"""What a resident is doing, in words fit for a timeline: validators for the
model's activity texts and persona-specific fallbacks that replace the junk.

A 135M model writes "5 minutes", "life", "👍👍👍", "working at the classroom"
(in a bathroom) or "Isabella is opening the cafe and greeting her first
customers with a smile". ``normalize`` turns the usable ones into a short
verb-led phrase ("opening the cafe"), ``problem`` says why the rest are junk,
``fits_place`` catches texts that clash with where they happen, and
``fallback_steps`` composes varied, believable steps from the plan item, the
place and the persona when the model's are not usable.
"""
from __future__ import annotations

import re
import zlib

# Base forms of verbs a resident's activity may start with ("make coffee" -> "making coffee").
VERBS = set("""
wake get take brush shower wash dress make have eat drink cook prepare bake brew serve greet open close
clean wipe tidy sweep mop organize organise arrange set check answer reply write read study review revise
research attend go walk head return leave arrive sit stand relax rest nap sleep watch listen play practice
practise paint draw sketch photograph edit shoot stream code program debug work finish start begin continue
plan schedule call talk chat discuss meet visit help teach lecture grade buy shop pick stock restock count
order deliver unpack sort file fix repair build water weed plant garden feed jog run exercise stretch train
lift swim think reflect meditate journal browse search look pack decorate taste chop dry fold iron do send
email text post update record compose rehearse sing perform note jot sip enjoy grab fetch carry welcome
catch assist tutor analyze analyse calculate solve brainstorm outline draft proofread sign balance lock
unlock turn switch light refill fill hang put lay interview invite announce campaign canvass shave comb
floss use spend bring stop chill sketch type design tune strum hum bike cycle pour mix knead slice fry boil
toast heat warm grill roast set lead host prep proofread underline highlight memorize memorise copy print
scan tally ring bag price label display arrange polish dust vacuum empty collect gather greet welcome
thank hug wave shake stroll wander explore observe feed pet pray think plan take skim annotate summarize
summarise present film edit mend sew knit bathe hydrate breathe yawn stretch inspect test experiment
measure weigh mix label order grade mark
""".split())
IRREGULAR = {"lie": "lying", "die": "dying", "tie": "tying", "be": "being", "see": "seeing", "free": "freeing"}
DOUBLE = {"get", "set", "sit", "run", "shop", "plan", "jog", "chat", "stop", "swim", "put", "cut", "begin",
          "dig", "hit", "nap", "mop", "jot", "grab", "skip", "tap", "wrap", "drop", "prep", "hug", "pet",
          "jam", "hum", "strum", "knit", "sip", "chop", "stir"}
NOT_GERUNDS = {"morning", "evening", "something", "nothing", "anything", "everything", "thing", "things",
               "ceiling", "building", "string", "spring", "king", "wedding", "during", "ring", "wing",
               "sibling", "pudding", "bring", "sing", "swing", "sling", "sting", "wring", "ping", "bling",
               "meeting", "clothing", "feeling", "being", "ending", "beginning", "timing", "setting"}
SUBJECTS = ("he", "she", "they", "i", "we", "you", "then", "and", "also", "now", "first", "next", "finally",
            "still", "is", "was", "are", "will", "to", "starts", "begins", "continues", "keeps")
VAGUE = {"living", "being", "existing", "spinning", "feeling", "doing", "activity", "happening", "going"}
PHRASE_CUT = re.compile(r"\s*(?:[,;:.!?(]| - | -- | – | — "
                        r"| and then | while | so that | because | after which | before )")
DURATION = re.compile(r"^\W*\d+\s*(?:-\s*\d+\s*)?(?:min\w*|m|h|hr\w*|hour\w*|sec\w*)?\b", re.I)


def gerund(verb: str) -> str:
    v = verb.lower()
    if v in IRREGULAR:
        return IRREGULAR[v]
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v in DOUBLE:
        return v + v[-1] + "ing"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")) and len(v) > 2:
        return v[:-1] + "ing"
    return v + "ing"


def _base(word: str) -> str | None:
    """The base form of a verb as written ("makes" -> "make"), or None when not a known verb."""
    w = word.lower()
    if w in VERBS:
        return w
    if w == "has":
        return "have"
    if w == "does":
        return "do"
    if w.endswith("ies") and w[:-3] + "y" in VERBS:
        return w[:-3] + "y"
    if w.endswith("es") and w[:-2] in VERBS:
        return w[:-2]
    if w.endswith("s") and w[:-1] in VERBS:
        return w[:-1]
    return None


def is_gerund(word: str) -> bool:
    w = word.lower()
    return len(w) > 4 and w.endswith("ing") and w not in NOT_GERUNDS and w.isalpha()


def normalize(text: str, name: str = "") -> str:
    """A model's activity as a short phrase: no emoji or JSON, no leading subject
    ("Isabella is ..."), the first clause only, a gerund first ("make coffee" ->
    "making coffee"). May return a text that ``problem`` still rejects."""
    t = str(text or "")
    t = re.sub(r"[{}\[\]\"\\_*#`|<>~]+", " ", t)
    t = "".join(ch if ord(ch) < 0x2000 and (ch.isalnum() or ch in " ,;:.!?'&()-/") else " " for ch in t)
    t = " ".join(t.split())
    t = re.sub(r"^(?:step\s*\d+\s*[:.)-]?|\d+\s*[.):]\s+)", "", t, flags=re.I).strip()
    names = [n.lower() for n in ([name, name.split()[0]] if name else []) if n]
    for _ in range(4):  # "Isabella Rodriguez is then ..." -> "..."
        low = t.lower()
        cut = next((len(n) for n in names if low.startswith((n + " ", n + "'s "))), 0)
        if not cut:
            w = low.split(" ", 1)[0]
            cut = len(w) if w in SUBJECTS and " " in low else 0
        if not cut:
            break
        t = t[cut:].lstrip(" ,:'s").strip() if t[cut:cut + 2] == "'s" else t[cut:].strip(" ,:")
    m = PHRASE_CUT.search(t, 1)
    while m and len(t[: m.start()].split()) < 2:  # keep a clause of at least 2 words
        m = PHRASE_CUT.search(t, m.end())
    if m:
        t = t[: m.start()]
    t = t.strip(" ,;:.!?-'()")
    words = t.split()
    if len(words) > 8:  # "opening the cafe and greeting her first customers with a smile"
        at = next((i for i, w in enumerate(words) if i >= 2 and w.lower() in ("and", "with", "while", "then")
                   and not _in_name(words, i)), None)
        words = words[:at] if at else words
    if len(words) > 3 and words[0].lower() in ("going", "go", "goes") and words[1].lower() == "to" and not any(
            re.search(rx, " ".join(words[2:]).lower().split(" at ")[0]) for rx, _ in PLACE_WORDS):
        words = ["attending"] + words[2:]  # "going to the party": attending it (the sim does the walking)
    if words:
        base = _base(words[0])
        if base and not is_gerund(words[0]):
            words[0] = gerund(base)
        else:
            words[0] = words[0].lower() if words[0][1:].islower() or len(words[0]) == 1 else words[0]
    return " ".join(words[:12])


def problem(text: str) -> str | None:
    """Why a (normalized) activity text is not usable, or None when it is."""
    t = (text or "").strip()
    if not t:
        return "empty"
    if DURATION.match(t) or re.match(r"^\W*\d", t):
        return "a number or a duration, not an activity"
    words = t.lower().split()
    if len(words) < 2:
        return "a single word"
    if len(words) > 10:
        return "too long"
    if not (is_gerund(words[0]) or _base(words[0])):
        return "does not start with a verb"
    if words[0] in VAGUE or words[-1] in ("and", "the", "a", "to", "with", "of", "at", "for"):
        return "vague or unfinished"
    if any(not re.search(r"[a-z]", w) for w in words):
        return "has words without letters"
    if len(set(words)) < len(words) * 0.6 or any(words.count(w) >= 3 for w in set(words)):
        return "repeats itself"
    if re.search(r"\b(activity|step|task|minutes?|json|emoji|place|description)\b", t.lower()) and len(words) <= 4:
        return "names the form, not an activity"
    return None


def _in_name(words: list[str], i: int) -> bool:
    """Whether word ``i`` joins a place's name ("The Rose and Crown Pub"), not two doings."""
    return 0 < i < len(words) - 1 and words[i - 1][:1].isupper() and words[i + 1][:1].isupper()


def clean_activity(text: str, name: str = "") -> str | None:
    """The usable activity phrase, or None."""
    t = normalize(text, name)
    return None if problem(t) else t


# When, how often, for whom: what makes a memory a date, not an activity.
_MEMORY_TAIL = re.compile(r"[,;(]|\s+(?:on|from|until|till|by|since|every|each|this|next|tomorrow|today|tonight"
                          r"|who|which|because)\b", re.I)


def own_activity(memory: str, name: str) -> str | None:
    """A memory of the resident's own doing as an activity phrase, or None: "Isabella
    Rodriguez is planning a Valentine's Day party at Hobbs Cafe on February 14" ->
    "planning a Valentine's Day party at Hobbs Cafe"; "Isabella Rodriguez runs Hobbs
    Cafe" -> "running Hobbs Cafe". Another's doing, "Isabella's plan for ..." or a
    phrase with a number (a date, a time) is no activity of hers."""
    t = " ".join(str(memory or "").split())
    first = name.split()[0] if name else ""
    if not first or not re.match(rf"^(?:{re.escape(name)}|{re.escape(first)})\b(?!')\s", t):
        return None
    m = _MEMORY_TAIL.search(t, len(first))
    t = t[: m.start()] if m else t
    if re.search(r"\d", t):
        return None
    return clean_activity(t, name)


# ----------------------------------------------------------------------------- places
def arena_kind(address: str) -> str:
    """The kind of an arena: bathroom, bedroom, kitchen, main room, common room,
    cafe, pub, classroom, library, hallway, park, store, supply store, garden, other."""
    parts = (address or "").split(":")
    a = parts[2].lower() if len(parts) >= 3 else ""
    if "bathroom" in a:
        return "bathroom"
    if "kitchen" in a:
        return "kitchen"
    if a in ("main room", "common room", "cafe", "pub", "classroom", "library", "hallway", "park",
             "supply store", "store", "garden"):
        return a
    if a.endswith("'s room") or "bedroom" in a:
        return "bedroom"
    return "other"


EAT_KINDS = {"kitchen", "main room", "cafe", "pub", "common room", "park", "garden", "bedroom"}
# Words naming a kind of place: a text naming another kind than where it happens clashes.
PLACE_WORDS = [
    (r"\bbathroom\b", {"bathroom"}),
    (r"\bkitchen\b", {"kitchen", "main room"}),
    (r"\b(cafe|café|coffee shop)\b", {"cafe"}),
    (r"\bpub\b", {"pub"}),
    (r"\bclassroom\b", {"classroom"}),
    (r"\blibrary\b", {"library"}),
    (r"\bpark\b", {"park"}),
    (r"\b(grocery store|market|pharmacy)\b", {"store"}),
    (r"\bsupply store\b", {"supply store"}),
    (r"\bgarden\b", {"garden", "park"}),
    (r"\b(bedroom|bed)\b", {"bedroom", "main room"}),
]
# Activity words -> kinds of place where they can happen.
ACTIVITY_PLACES = [
    (r"\b(shower\w*|toilet|brush\w* (?:\w+ )?teeth|bath|bathe|bathing|shav\w*|floss\w*)\b", {"bathroom"}),
    (r"\b(sleep\w*|nap\w*|asleep)\b", {"bedroom", "main room"}),
    (r"\b(cook\w*|stove|fridge|refrigerator|frying|boil\w*)\b", {"kitchen", "main room", "cafe", "pub"}),
    (r"\b(eat\w*|breakfast|lunch|dinner|meal|snack\w*|supper)\b", EAT_KINDS),
    (r"\b(customers?|cashier|cash register|serv\w* (?:drinks|coffee|food|customers))\b",
     {"cafe", "pub", "store", "supply store"}),
    (r"\b(lectur\w*|teach\w*|attend\w* (?:a |the )?(?:class|lecture|seminar)|blackboard)\b", {"classroom", "hallway"}),
    (r"\b(groceries|grocery)\b", {"store", "kitchen", "main room"}),
    (r"\b(beer|pint|wine|cocktail)\b", {"pub", "kitchen", "main room", "common room"}),
    (r"\b(weed\w*|vegetable\w*|water\w* the plants)\b", {"garden", "park"}),
    (r"\b(jog\w*|feed\w* the ducks)\b", {"park", "garden"}),
    (r"\b(tv|television)\b", {"common room", "main room", "pub", "bedroom"}),
]
BATHROOM_OK = re.compile(r"\b(shower|toilet|teeth|brush|wash|bath|shav|floss|comb|hair|face|dress|ready|fresh"
                         r"|wak|morning routine|skincare|makeup|mirror|sink|clean|tidy)\w*")
MOVING = re.compile(r"^(going|heading|walking|leaving|returning|coming|driving|travell?ing|arriving|moving)"
                    r"\b.*\b(to|for|at|from|back|home|into|towards?)\b")


def fits_place(text: str, address: str) -> bool:
    """Whether an activity can happen at `address` (an arena or object address)."""
    kind = arena_kind(address)
    t = (text or "").lower()
    if kind == "other":
        return True
    if MOVING.search(t):
        return False  # the sim walks them there; the action is what they do on arrival
    for rx, kinds in PLACE_WORDS:
        if re.search(rx, t) and kind not in kinds:
            if kind == "main room" and rx in (r"\bkitchen\b", r"\b(bedroom|bed)\b"):
                continue
            return False
    if kind == "bathroom" and not BATHROOM_OK.search(t):
        return False
    return all(not (re.search(rx, t) and kind not in kinds) for rx, kinds in ACTIVITY_PLACES)


MEAL_HOURS = {"breakfast": (5, 11), "lunch": (11, 15), "dinner": (16, 23), "supper": (16, 23)}


PART_OF_DAY = {"morning": (4, 12), "afternoon": (12, 18), "evening": (16, 24), "tonight": (16, 24), "night": (19, 24)}


def fits_time(text: str, hour: int) -> bool:
    """No breakfast at 20:00, no "evening" at 13:00."""
    t = (text or "").lower()
    return not any(re.search(rf"\b{w}\b", t) and not lo <= hour < hi
                   for w, (lo, hi) in {**MEAL_HOURS, **PART_OF_DAY}.items())


# ----------------------------------------------------------------------------- fallbacks
def _subject(persona) -> str:
    d = persona.description.lower()
    m = re.search(r"stud(?:ies|ying) (\w+(?: \w+)?)(?: at| in|;|,|$)", d)
    if m:
        return m.group(1)
    for w in ("sociology", "physics", "chemistry", "literature", "music theory", "philosophy", "mathematics"):
        if w in d:
            return w
    return ""


def work_title(persona) -> str:
    """The routine's words for a resident's working hours ("running the cafe")."""
    kind = arena_kind(persona.workplace)
    d = persona.description.lower()
    sub = _subject(persona)
    if persona.workplace == persona.home:
        steps = work_steps(persona, kind)
        return steps[0] if steps else "working at home"
    if kind in ("cafe", "pub") and any(w in d for w in ("runs", "owns", "owner")):
        return f"running the {kind}"
    if kind == "classroom":
        if any(w in d for w in ("professor", "teaches", "lecturer")):
            return "teaching classes"
        return f"attending {sub} classes" if sub else "attending classes"
    if kind == "library":
        topic = "gentrification" if "gentrification" in d else sub
        return f"researching {topic} at the library" if topic else "studying at the library"
    if kind == "store":
        return "working at the pharmacy counter" if "pharmac" in d else "working at the grocery store"
    if kind == "supply store":
        return "running the supply store" if any(w in d for w in ("runs", "owns")) else "working at the supply store"
    return f"working at the {persona.workplace.split(':')[2]}"


def work_steps(persona, kind: str) -> list[str]:
    """A few believable steps of this resident's work at a place of `kind`."""
    d = persona.description.lower()
    sub = _subject(persona)
    home = persona.workplace == persona.home
    if kind == "cafe":
        if "cafe" in persona.workplace.lower() and not any(w in d for w in ("studies", "student")):
            return ["brewing coffee for the morning rush", "serving customers at the counter",
                    "wiping down the tables", "restocking the pastry case", "chatting with regular customers"]
        return ["sipping a coffee", "reading at a cafe table", "working on a laptop at the cafe"]
    if kind == "pub":
        return ["pouring drinks at the bar", "serving customers at the tables", "wiping down the bar counter",
                "restocking the bar", "chatting with regulars"]
    if kind == "store":
        if "pharmac" in d:
            return ["filling prescriptions at the pharmacy counter", "advising a customer on medicine",
                    "restocking the pharmacy shelves"]
        return ["stocking the grocery shelves", "ringing up customers at the counter",
                "helping a customer find an item", "checking the inventory"]
    if kind == "supply store":
        return ["stocking the supply store shelves", "helping customers at the counter", "taking inventory"]
    if kind == "classroom":
        if any(w in d for w in ("professor", "teaches", "lecturer")):
            return ["giving a lecture", "writing notes on the blackboard", "answering students' questions"]
        topic = f"{sub} " if sub else ""
        return [f"attending a {topic}lecture", "taking notes in class", f"working through {topic}problems",
                "asking the professor a question"]
    if kind == "library":
        topic = "gentrification" if "gentrification" in d else (sub or "a research paper")
        return [f"reading about {topic} at a library table", "browsing the bookshelves",
                f"taking notes on {topic}", "drafting a section of a paper"]
    for words, steps in [
        (("paint",), ["painting at the easel", "mixing paints", "stepping back to study the canvas"]),
        (("photograph",), ["editing photos at the desk", "sorting through new photos"]),
        (("digital art", "animat", "illustrat"), ["drawing on a tablet at the desk", "sketching new ideas"]),
        (("writer", "writes", "novel", "author"), ["writing at the desk", "rereading yesterday's pages"]),
        (("poet", "poem"), ["writing a poem at the desk", "reading poetry for inspiration"]),
        (("actor", "comedian"), ["rehearsing lines", "writing new jokes"]),
        (("software", "engineer", "program"), ["coding at the desk", "debugging a program"]),
        (("lawyer", "tax"), ["reviewing tax documents", "answering client emails"]),
        (("mathematic",), ["working on a proof at the desk", "reading a math paper"]),
        (("philosoph",), ["reading philosophy at the desk", "writing notes on an argument"]),
        (("music",), ["composing at the piano", "studying music theory"]),
        (("campaign", "mayor"), ["writing a campaign speech", "calling supporters"]),
    ]:
        if any(w in d for w in words):
            return steps
    if sub:
        return [f"studying {sub} at the desk", f"reading a {sub} textbook", "doing homework"]
    return ["working at the desk", "answering emails", "tidying up"] if home else [
        "working on the day's tasks", "taking a short break", "tidying up the workspace"]


def item_steps(description: str, kind: str, persona) -> list[str]:
    """Steps for a plan item when the model's are junk; the item itself comes last."""
    t = description.lower()
    meal = next((m for m in ("breakfast", "lunch", "dinner") if m in t), None)
    pick = _chooser(persona, description)
    if "wak" in t or "getting ready" in t or ("morning" in t and kind == "bathroom"):
        return pick([["stretching and waking up", "taking a shower", "brushing teeth", "getting dressed"],
                     ["using the toilet", "brushing teeth", "taking a quick shower", "combing hair"],
                     ["washing face at the sink", "taking a hot shower", "shaving and brushing teeth",
                      "getting dressed for the day"]])
    if meal and kind == "cafe":
        return [f"ordering {meal} at the counter", f"eating {meal} at a cafe table", "sipping a coffee"]
    if meal and kind == "pub":
        return [f"ordering {meal} at the bar", f"eating {meal} at a pub table"]
    if meal == "breakfast":
        return pick([["making toast and coffee", "eating breakfast at the table", "washing the dishes"],
                     ["cooking scrambled eggs", "eating breakfast at the table", "rinsing the plate"],
                     ["making a bowl of oatmeal", "eating breakfast while reading the news", "washing the dishes"]])
    if meal:
        return pick([[f"making {meal}", f"eating {meal} at the table", "washing the dishes"],
                     [f"cooking a simple {meal}", f"eating {meal} at the table", "tidying the kitchen"]])
    if re.search(r"\bhosting\b", t) and re.search(EVENT_RX, t):
        return pick([["decorating for the party", "welcoming the guests", "serving drinks and snacks",
                      "chatting with the guests"],
                     ["setting out snacks and drinks", "greeting the guests at the door", "chatting with the guests",
                      "making sure everyone has a drink"]])
    if re.search(r"\battending\b", t) and re.search(EVENT_RX, t):
        return pick([["greeting the host", "chatting with the other guests", "enjoying the music and snacks"],
                     ["saying hello to everyone", "having a drink and a chat", "dancing to the music"]])
    if any(w in t for w in ("work", "stud", "class", "research", "running the", "teaching")):
        return work_steps(persona, kind)
    if "unwind" in t or "evening" in t or "relax" in t:
        if kind == "pub":
            return ["having a drink at the bar", "chatting with friends at the pub"]
        if kind == "park":
            return ["taking an evening stroll", "sitting on a park bench", "watching the ducks on the pond"]
        return ["reading a book", "watching tv", "relaxing on the sofa"]
    if "bed" in t:
        return ["brushing teeth", "getting into bed"]
    return [description]


EVENT_RX = r"\b(party|parties|gathering|celebration|get-together|festival|concert|reading|picnic|potluck)\b"


def _chooser(persona, salt: str):
    """Deterministic per resident: two residents with the same routine do not do the same things."""
    key = zlib.crc32(f"{getattr(persona, 'name', '')}|{salt}".encode())
    return lambda options: options[key % len(options)]


def fallback_steps(description: str, address: str, persona, minutes: int, step_min: int = 15) -> list[tuple[str, int]]:
    """(text, minutes) steps that cover `minutes` with varied, believable texts."""
    kind = arena_kind(address)
    texts = [s for s in item_steps(description, kind, persona) if fits_place(s, address)] or [description]
    n = max(1, min(len(texts), -(-minutes // step_min)))
    out, left = [], minutes
    for i in range(n):
        d = left if i == n - 1 else max(5, min(step_min, 5 * round(left / (n - i) / 5)))
        out.append((texts[i], d))
        left -= d
    return out
