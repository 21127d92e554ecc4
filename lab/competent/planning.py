"""The planning tasks: the day plan (paper mode), the guided mode's words, a
rewritten rest of the day, an hour's 5-15 minute steps at fitting objects, and
whether to react to something noticed."""
from __future__ import annotations

import json
import re

from lab.competent.happenings import find_happenings, intentions, label_for, occupation, today_of, wants_to_go
from lab.competent.prompt import Prompt, clip_words, gerund_phrase, hhmm, minutes_of


def _labels_of(p: Prompt) -> list[str]:
    return p.enum("items", "place")


def _home_labels(p: Prompt, labels: list[str]) -> tuple[str, str, str]:
    """(bathroom, kitchen, bedroom) labels of the resident's home, read from "lives at X"."""
    home = p.find(r"lives at ([^.;]+?) and works")
    sector = home.split(":")[0].strip() if home else ""
    mine = [x for x in labels if sector and x.startswith(sector)]
    first = p.find(r"lives at [^.]+? and works or studies at [^;.]+[;.] (\w+) wakes") or p.find(r"(\w+)'s plan")
    bath = next((x for x in mine if "bathroom" in x and (first in x or "'s bathroom" not in x)), None) or next(
        (x for x in mine if "bathroom" in x), home)
    kitchen = next((x for x in mine if "kitchen" in x), None) or next((x for x in mine if "main room" in x), home)
    return bath or home, kitchen or home, home


def _work_words(p: Prompt) -> str:
    head = p.text.splitlines()[0] if p.text else ""
    occ = occupation([head])
    m = re.match(r"(runs|owns|studies|teaches|works at|works on|works as) (.*)", occ)
    if m:
        verb = {"runs": "running", "owns": "running", "studies": "studying", "teaches": "teaching",
                "works at": "working at", "works on": "working on", "works as": "working as"}[m.group(1)]
        return clip_words(f"{verb} {m.group(2)}", 6)
    m = re.match(r"is an? ([\w' -]+)", occ)
    if m:
        role = m.group(1).split(" who")[0].strip()
        return clip_words(f"working as a {role}", 6)
    return "working on the day's tasks"


def day_plan(p: Prompt) -> dict:
    """The paper's day plan: a resident's ordinary day around what the prompt says is
    special today (an event it remembers or arranged, at its time and place)."""
    labels = _labels_of(p)
    starts = p.enum("items", "start")
    wake = minutes_of(starts[0])
    bed = minutes_of(p.find(r"bed around (\d{2}:\d{2})", "22:00"))
    bath, kitchen, home = _home_labels(p, labels)
    work = p.find(r"works or studies at ([^;.]+)[;.]") or home
    work_label = work if work in labels else (label_for(work, labels) or home)
    cafe = next((x for x in labels if x.lower().endswith(":cafe")), kitchen)
    today = today_of(p)
    memories = p.block(r"remembers about plans for today") + p.block(r"Already arranged for today")
    first = p.find(r"Write (\w+)'s plan")
    events = [h for h in find_happenings(memories)
              if h.start is not None and (h.month_day is None or h.month_day == today) and wake < h.start < bed
              and wants_to_go(first, h, memories)]
    future = [h for h in find_happenings(memories) if h.month_day and today and h.month_day > today]
    doing = _work_words(p)
    extra = intentions(memories)
    if future and future[0].hosting:  # the afternoon goes to inviting people
        extra = [clip_words(f"inviting people to the {future[0].what}", 8)] + extra
    items = [(wake, 30, "waking up and getting ready", bath), (wake + 30, 30, "having breakfast", kitchen)]
    t = max(wake + 60, 8 * 60)
    items.append((t, 12 * 60 - t, doing, work_label))
    items.append((12 * 60, 60, "having lunch", cafe))
    if extra:
        items.append((13 * 60, 300, extra[0], work_label))
    else:
        items.append((13 * 60, 300, doing, work_label))
    evening = ["reading a book", "relaxing at home", "taking an evening walk"][p.rng("evening") % 3]
    items.append((18 * 60, 60, "having dinner", kitchen))
    items.append((19 * 60, 180, evening, home if "walk" not in evening else (
        next((x for x in labels if x.lower().endswith(":park")), home))))
    for h in events[:2]:
        place = label_for(h.place, labels) or work_label
        end = h.end if h.end is not None else h.start + 120
        verb = "hosting" if h.hosting or (h.host and h.host.split()[0] in p.text.splitlines()[0]) else "attending"
        ev = (h.start, end - h.start, clip_words(f"{verb} the {h.what}", 8), place)
        kept = []
        for it in items:  # what the event overlaps gives way
            s, e = it[0], it[0] + it[1]
            if e <= ev[0] or s >= ev[0] + ev[1]:
                kept.append(it)
            elif s < ev[0]:
                kept.append((s, ev[0] - s, it[2], it[3]))
            elif e > ev[0] + ev[1]:
                kept.append((ev[0] + ev[1], e - ev[0] - ev[1], it[2], it[3]))
        items = kept + [ev]
    items.sort()
    items.append((bed, 480, "going to bed", home))
    allowed = set(starts)
    out = []
    for s, mins, what, where in items:
        hh = hhmm(s)
        if hh not in allowed:
            hh = min(allowed, key=lambda x: abs(minutes_of(x) - s))
        out.append({"start": hh, "minutes": _nearest_minutes(p, mins), "activity": what, "place": where})
    dedup = {}
    for it in out:
        dedup.setdefault(it["start"], it)
    items = list(dedup.values())[: p.max_items("items")]
    if items[-1]["activity"] != "going to bed":
        items[-1] = out[-1]
    return {"items": items}


def _nearest_minutes(p: Prompt, minutes: int) -> int:
    allowed = [int(x) for x in p.enum("items", "minutes")] or [30, 60, 120, 180, 240]
    return min(allowed, key=lambda x: abs(x - minutes))


def guided_plan(p: Prompt) -> dict:
    """The guided mode's slots: the usual day's words, with today's events in their slots."""
    typical = json.loads(p.find(r"usual day:\n(\{.*\})", "{}", re.S) or "{}")
    today = today_of(p)
    events = [h for h in find_happenings(p.block(r"remembers") + [p.text]) if h.start is not None
              and (h.month_day is None or h.month_day == today)]
    out = dict(typical)
    for h in events[:1]:
        slot = max((k for k in out if minutes_of(k) <= h.start), default=None, key=minutes_of)
        if slot:
            out[slot] = clip_words(f"attending the {h.what}", 8)
    return out


def replan(p: Prompt) -> dict:
    """The rest of the day rewritten: what the resident does now first, then an
    arrangement at its time and place, then what still makes sense of the old plan."""
    labels = _labels_of(p)
    starts = p.enum("items", "start")
    now = minutes_of(starts[0])
    bed = minutes_of(p.find(r"until bedtime at (\d{2}:\d{2})", "22:00"))
    rest = []
    for line in p.block(r"plan for the rest of today was"):
        m = re.match(r"(\d{2}:\d{2})-(\d{2}:\d{2}) (.*?)(?: \(([^()]*)\))?$", line)
        if m:
            rest.append((minutes_of(m.group(1)), minutes_of(m.group(2)) or 24 * 60, m.group(3), m.group(4)))
    items: list[tuple[int, int, str, str | None]] = []
    first = re.search(r"does now: (.+?) for (\d+) minutes at ([^.]+)\.", p.text)
    if first:
        items.append((now, int(first.group(2)), first.group(1), first.group(3).strip()))
    agreed = re.search(r"agreed with [^:]+: (.+?) at ([^.]+?) from (\d{2}:\d{2}) for (\d+) minutes", p.text)
    if agreed:
        s = minutes_of(agreed.group(3))
        items.append((s, int(agreed.group(4)), agreed.group(1), agreed.group(2).strip()))
    taken = [(s, s + m) for s, m, _, _ in items]
    for s, e, what, where in rest:
        if "bed" in what or "sleep" in what:
            continue
        s = max(s, now)
        for a, b in sorted(taken):
            if a <= s < b:
                s = b
        cut = min([a for a, _ in taken if a > s] + [e])
        if cut - s >= 15:
            items.append((s, cut - s, what, where))
            taken.append((s, cut))
    items.sort()
    allowed = set(starts)
    out = []
    for s, mins, what, where in items:
        if s >= bed:
            continue
        hh = hhmm(s) if hhmm(s) in allowed else min(allowed, key=lambda x: abs(minutes_of(x) - s))
        place = where if where in labels else (label_for(where, labels) or labels[0])
        out.append({"start": hh, "minutes": _nearest_minutes(p, mins), "activity": clip_words(what, 9), "place": place})
    dedup = {}
    for it in out:
        dedup.setdefault(it["start"], it)
    out = list(dedup.values())[: p.max_items("items")] or [{"start": starts[0], "minutes": 60,
                                                             "activity": "carrying on", "place": labels[0]}]
    return {"items": out}


STEP_TEMPLATES = [
    (r"breakfast|lunch|dinner|meal|snack", lambda w, meal: [f"preparing {meal}", f"eating {meal}",
                                                              "cleaning up after the meal"]),
    (r"wak|getting ready|morning routine", lambda w, meal: ["using the toilet", "taking a shower", "brushing teeth",
                                                             "getting dressed"]),
    (r"inviting|telling people", lambda w, meal: ["serving customers at the counter", "telling customers about it",
                                                   "chatting with regular customers", "inviting friends over"]),
    (r"hosting", lambda w, meal: ["welcoming the guests", "chatting with guests", "serving drinks to guests",
                                   "thanking guests for coming"]),
    (r"party|celebration|gathering|attending", lambda w, meal: ["greeting friends at the party",
                                                                 "chatting with other guests", "enjoying a drink",
                                                                 "dancing with friends"]),
    (r"\b(running|serving|working) (the|a|at the)\b.*\b(counter|store|shop|pub|cafe|bar|market|pharmacy)\b|"
     r"\b(counter|cafe|pub|bar)\b", lambda w, meal: [
        "serving customers at the counter", "tidying up the counter", "restocking supplies",
        "chatting with customers", "making fresh coffee", "wiping down the tables"]),
    (r"studying|class|lecture|homework|thesis|research", lambda w, meal: [
        "reviewing notes", "working through problems", "reading the course material", "writing up notes"]),
    (r"teaching", lambda w, meal: ["giving a lecture", "answering students' questions", "writing on the blackboard"]),
    (r"paint|draw|art|animat|sketch", lambda w, meal: ["sketching ideas", "painting at the easel",
                                                        "reviewing the work"]),
    (r"writ|poem|novel|book", lambda w, meal: ["drafting new pages", "rereading the draft", "editing the draft"]),
    (r"read", lambda w, meal: ["reading a book", "making a cup of tea", "reading a few more chapters"]),
    (r"walk|stroll|park", lambda w, meal: ["taking a walk", "sitting on a bench", "watching the pond"]),
    (r"campaign|mayor|election", lambda w, meal: ["writing a campaign speech", "making a list of supporters",
                                                  "thinking about the town's problems"]),
    (r"relax|unwind|tv|rest", lambda w, meal: ["relaxing on the sofa", "watching tv", "listening to music"]),
]


def steps(p: Prompt) -> dict:
    """A plan item's chunk as 5-15 minute steps at fitting objects."""
    m = re.search(r"\((\d+) minutes\) (\w+) is (.+?) at (.+?)\.\n", p.text)
    minutes = int(m.group(1)) if m else 60
    activity = m.group(3) if m else "carrying on"
    objects = p.enum("steps", "place")
    n = max(1, min(p.max_items("steps"), -(-minutes // 15)))
    meal = next((w for w in ("breakfast", "lunch", "dinner") if w in activity), "a meal")
    texts = None
    for rx, make in STEP_TEMPLATES:
        if re.search(rx, activity, re.I):
            texts = make(activity, meal)
            break
    if texts is None:
        texts = [activity, f"taking a short break from {clip_words(gerund_phrase(activity), 4)}", activity]
    # A later chunk of the same activity goes on where the last one left off.
    shift = int(p.find(r"From (\d{2}):", "0")) % len(texts)
    texts = texts[shift:] + texts[:shift]
    texts = (texts * n)[:n] if len(texts) < n else texts[:n]
    out, left = [], minutes
    for text in texts:
        d = 15 if left >= 15 else (10 if left >= 10 else 5)
        left -= d
        out.append({"activity": text, "minutes": d, "place": _object_for(text, objects)})
    return {"steps": out}


OBJECT_WORDS = [
    (r"coffee|espresso", ("coffee machine", "cafe counter", "bar counter")),
    (r"serv|counter|customer|restock|supplies",
     ("cafe counter", "bar counter", "grocery counter", "pharmacy counter", "supply store counter",
      "grocery shelves", "supply store shelves")),
    (r"tables", ("cafe customer seating", "pub tables", "dining table")),
    (r"preparing|cook", ("stove", "refrigerator")),
    (r"eating|meal|guests|welcoming|chatting", ("dining table", "cafe customer seating", "pub tables")),
    (r"cleaning up|dishes", ("kitchen sink",)),
    (r"toilet", ("toilet",)),
    (r"shower", ("shower",)),
    (r"brushing|washing", ("bathroom sink",)),
    (r"dressed", ("closet", "bathroom sink")),
    (r"lecture|blackboard", ("lecturer's podium", "blackboard")),
    (r"notes|problems|course|reading|draft|pages|writing|editing",
     ("desk", "library tables", "classroom student seating")),
    (r"paint|sketch|reviewing the work", ("easel", "desk")),
    (r"sofa|relax|tv|music", ("sofa", "tv")),
    (r"bench|pond|walk", ("park bench", "pond", "park garden")),
    (r"book|tea", ("bookshelves", "desk", "sofa")),
]


def _object_for(text: str, objects: list[str]) -> str:
    for rx, names in OBJECT_WORDS:
        if re.search(rx, text, re.I):
            for n in names:
                if n in objects:
                    return n
    general = [o for o in objects if any(w in o for w in ("desk", "table", "seating", "sofa", "counter", "bench"))]
    return (general or objects or [""])[0]


URGENT = r"(burning|on fire|smoking|leaking|flooding|overflowing|broken|sparking)"


def react(p: Prompt) -> dict:
    noticed = p.find(r"notices: (.+)")
    m = re.search(r"([\w' ]+?) is " + URGENT, noticed)
    if m:
        obj, state = m.group(1).strip(), m.group(2)
        fix = {"burning": f"putting out the fire on the {obj}", "on fire": f"putting out the fire on the {obj}",
               "smoking": f"turning off the smoking {obj}"}.get(state, f"fixing the {state} {obj}")
        return {"react": True, "activity": fix, "minutes": 15}
    return {"react": False, "activity": "", "minutes": 10}
