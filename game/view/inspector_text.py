"""What the inspector says (pure: a body and a mind's snapshot in, text and
markup out; no pygame): the often-changing header lines, the plan, memories,
reflections and people, an object's state. game/view/inspector.py shows them."""
from __future__ import annotations

from datetime import datetime

from game.runs.readings import Inspection
from game.runs.readings import provenance as pv
from game.sim import Body
from game.view.markup import C_DIM, C_HEAD, C_IMP, C_NOW, C_RULE, C_TEXT, esc, source_colour, source_tag

TEXT_PX = 15
SMALL_PX = 13
MAX_MEMORIES = 10
MEMORY_CHARS = 110


def pretty(address: str | None) -> str:
    """'the Ville:Hobbs Cafe:cafe:coffee machine' -> 'Hobbs Cafe: cafe: coffee machine'."""
    if not address:
        return "somewhere"
    parts = str(address).split(":")
    return ": ".join(parts[1:]) if len(parts) > 1 else parts[0]


def _hm(t: datetime | None) -> str:
    return f"{t:%H:%M}" if isinstance(t, datetime) else "?"


def _current_plan_index(plan: list[str], now: datetime | None) -> int | None:
    """Which 'HH:MM-HH:MM description' line holds now (None if none)."""
    if now is None:
        return None
    cur = f"{now:%H:%M}"
    found = None
    for i, line in enumerate(plan):
        start, _, rest = line.partition("-")
        end = rest[:5]
        if len(start) == 5 and start <= cur and (end <= start or cur < end):  # end <= start: past midnight
            found = i
    return found


def _clip(text, n: int) -> str:
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def _h(title: str) -> str:
    return f"<br><font color='{C_HEAD}' pixel_size={TEXT_PX}><b>{esc(title)}</b></font><br>"


def resident_html(name: str, body: Body | None, snap: Inspection, *, thinking: bool, now: datetime | None,
                  memory_text=None) -> str:
    """The inspector's whole text for one resident (pure: body and snapshot in, markup out)."""
    return header_html(name, body, snap, thinking=thinking) + body_html(snap, now=now, memory_text=memory_text)


def header_lines(name: str, body: Body | None, snap: Inspection, *, thinking: bool) -> list[tuple[str, str, bool]]:
    """What changes often -- the action, since/until, thinking -- as (text, colour, bold) lines.
    Drawn straight into an image (a pygame_gui re-layout would cost ~10 ms each time)."""
    out: list[tuple[str, str, bool]] = []
    act = body.action if body is not None else None
    if body is not None and act is not None:
        where = act.address if act.talking_to else (body.target or act.address)
        out.append((f"{name} is {act.description} @ {pretty(where)}", C_TEXT, True))
        if act.talking_to:
            out.append((f"since {_hm(act.start)}", C_DIM, False))
        else:
            walking = " (walking there)" if body.walking else ""
            out.append((f"since {_hm(act.start)} until {_hm(act.end)}{walking}", C_DIM, False))
    elif snap.action is not None:
        out.append((f"{name} is {snap.action.description} @ {pretty(snap.action.address)}", C_TEXT, True))
    else:
        out.append((f"{name} is just arriving", C_TEXT, True))
    shown = act if act is not None else snap.action
    source = shown.source if shown is not None else None
    label = pv.short_label(source)
    if label:  # what the model did not choose, said plainly
        out.append((f"chosen by: {label}", source_colour(source) or C_RULE, False))
    if snap.budget_hit:
        out.append((f"call budget ({snap.budget}) spent at {_hm(snap.budget_hit)}: rules stand in until "
                    "tomorrow", C_RULE, False))
    out.append(("thinking…" if thinking else "not thinking", C_NOW if thinking else C_DIM, False))
    return out


def header_html(name: str, body: Body | None, snap: Inspection, *, thinking: bool) -> str:
    parts = []
    for text, colour, bold in header_lines(name, body, snap, thinking=thinking):
        t = f"<b>{esc(text)}</b>" if bold else esc(text)
        parts.append(f"<font color='{colour}'>{t}</font><br>")
    return f"<font pixel_size={TEXT_PX}>" + "".join(parts) + "</font>"


def _why(spec: str, on: bool) -> str:
    """A "why?" link to the act's decision record (game/view/why_panel.py)."""
    return f" <a href='why:{spec}'>why?</a>" if on else ""


def body_html(snap: Inspection, *, now: datetime | None, memory_text=None, why_links: bool = False) -> str:
    """What changes when the mind finishes a job: summary, plan, memories, reflections, people
    (``why_links``: a "why?" after each plan item and each line said)."""
    out: list[str] = [f"<font pixel_size={TEXT_PX} color='{C_TEXT}'>"]
    if snap.note:  # where this snapshot comes from, when not the live mind (a replay's save)
        out.append(f"<font pixel_size={SMALL_PX} color='{C_NOW}'><i>{esc(snap.note)}</i></font><br>")
    if snap.summary:
        out.append(f"<font pixel_size={SMALL_PX} color='{C_DIM}'>{esc(snap.summary)}</font><br>")
    out += _plan_html(snap, now, why_links)
    out += _memories_html(snap)
    out += _said_html(snap, memory_text, why_links)
    out += _reflections_html(snap, memory_text)
    out += _people_html(snap)
    out.append("</font>")
    return "".join(out)


def _plan_html(snap: Inspection, now: datetime | None, why_links: bool) -> list[str]:
    """Today's plan, the current item marked; what was arranged; what comes next."""
    plan = list(snap.plan)
    sources = list(snap.plan_sources) + [""] * len(plan)
    mode = f" ({snap.planning} planning)" if snap.planning else ""
    out = [_h(f"Today's plan{mode}")]
    if not plan:
        return out + [f"<font color='{C_DIM}'>(not planned yet)</font><br>"]
    cur = _current_plan_index(plan, now)
    for i, line in enumerate(plan):
        tag = source_tag(sources[i], SMALL_PX)
        link = _why(f"plan:{i}", why_links)
        if i == cur:
            out.append(f"<font color='{C_NOW}'><b>» {esc(line)}</b></font>{tag}{link}<br>")
        else:
            colour = source_colour(sources[i]) or C_TEXT
            out.append(f"<font color='{colour}'>   {esc(line)}</font>{tag}{link}<br>")
    for line in snap.arrangements:
        out.append(f"<font pixel_size={SMALL_PX} color='{C_DIM}'>arranged: {esc(line)}</font><br>")
    pending = snap.pending
    if pending:
        out.append(f"<font pixel_size={SMALL_PX} color='{C_DIM}'>next: {esc('; '.join(pending[:4]))}</font><br>")
    return out


def _memories_html(snap: Inspection) -> list[str]:
    """The latest memories (reflections have their own part), with their importance."""
    mems = [m for m in snap.memories if m.kind != "reflection"]
    out = [_h(f"Recent memories ({snap.memory_count} in all)")]
    if not mems:
        return out + [f"<font color='{C_DIM}'>(none yet)</font><br>"]
    out.append(f"<font pixel_size={SMALL_PX} color='{C_DIM}'>[importance]; * rated by a rule, not the model"
               "</font><br>")
    for m in reversed(mems[-MAX_MEMORIES:]):
        rule = "*" if pv.kind_of(m.importance_source) == pv.RULE else ""
        out.append(f"<font pixel_size={SMALL_PX}><font color='{C_IMP}'>[{m.importance}{rule}]</font> "
                   f"<font color='{C_DIM}'>{_hm(m.created)} {esc(m.kind)}</font> "
                   f"{esc(_clip(m.description, MEMORY_CHARS))}</font><br>")
    return out


def _said_html(snap: Inspection, memory_text, why_links: bool) -> list[str]:
    """The last lines said, each with the memory a grounded one came from."""
    said = snap.said
    if not said:
        return []
    out = [_h("Said lately" + (" (grounded: from memories)" if snap.grounded else ""))]
    for j in reversed(range(max(0, len(said) - 4), len(said))):
        x = said[j]
        mid = x.memory
        src = x.source
        if mid is not None:  # the memory is shown below in full; the tag says only who chose it
            src = pv.tag(pv.kind_of(src), "grounded") if pv.kind_of(src) in pv.KINDS else src
        out.append(f"<font color='{C_DIM}'>{_hm(x.time)} to {esc(x.to.split(' ')[0])}:"
                   f"</font> {esc(_clip(x.text, MEMORY_CHARS))}{source_tag(src, SMALL_PX)}"
                   f"{_why(f'line:{j}', why_links)}<br>")
        text = memory_text(mid) if (mid is not None and memory_text) else None
        if mid is not None:
            out.append(f"<font pixel_size={SMALL_PX} color='{C_DIM}'>   from memory #{mid}"
                       + (f": {esc(_clip(text, MEMORY_CHARS))}" if text else "") + "</font><br>")
    return out


def _reflections_html(snap: Inspection, memory_text) -> list[str]:
    """The reflections, each with the memories it cites."""
    refl = snap.reflections
    out = [_h("Reflections")]
    if not refl:
        return out + [f"<font color='{C_DIM}'>(none yet)</font><br>"]
    by_id = {m.id: m.description for m in snap.memories}
    for r in reversed(refl):
        out.append(f"<font color='{C_IMP}'>[{r.importance}]</font> "
                   f"<i>{esc(r.description)}</i>{source_tag(r.source, SMALL_PX)}<br>")
        for e in r.evidence[:5]:
            text = by_id.get(e) or (memory_text(e) if memory_text else None)
            if text:
                out.append(f"<font pixel_size={SMALL_PX} color='{C_DIM}'>   cites: {esc(text)}</font><br>")
    return out


def _people_html(snap: Inspection) -> list[str]:
    """Whom the resident knows, each with the latest memory naming them."""
    people = snap.known_people
    out = [_h(f"Knows ({len(people)})")]
    if not people:
        return out + [f"<font color='{C_DIM}'>(nobody yet)</font><br>"]
    descs = [m.description for m in reversed(snap.memories)]
    for p in people:
        first = p.split()[0]
        line = next((d for d in descs if first in d), "")
        out.append(f"<b>{esc(p)}</b>" + (f"<font pixel_size={SMALL_PX} color='{C_DIM}'> - {esc(line[:140])}</font>"
                                         if line else "") + "<br>")
    return out


def object_html(address: str, state: str) -> str:
    name = address.split(":")[-1]
    return (f"<font pixel_size={TEXT_PX} color='{C_TEXT}'><b>{esc(name)}</b><br>"
            f"<font color='{C_DIM}'>{esc(pretty(address))}</font><br>"
            f"state: <font color='{C_NOW}'>{esc(state)}</font></font>")
