"""Residents on screen: figures from the simulation's bodies, their action's
emoji, a thinking marker while their mind works, and zzz while they sleep.

``install(game)`` (needs ``game.session``) adds:

- a figure source: one ``Figure`` per resident body, placed between
  ``prev_tile`` and ``tile`` by ``session.step_fraction`` (the sim steps in
  whole tiles; the view glides over the step's duration at the current
  speed), walking animation while the body walks or just moved; a sleeping
  resident lies in bed (drawn on its spawn tile, which is on its bed, when
  within 2 tiles of it: head on the pillow, a blanket over the rest; slug
  ``<slug>@asleep``) -- figures keep the resident's full name in ``name``
  (clicks map a drawn figure to a resident by name); a figure is marked
  ``focus`` while the player follows, inspects or talks to it (its label
  stays in full, at home, on top), ``hover`` under the mouse (its label opens
  to the full name where it stands), and carries the height of its
  markers as ``crest`` (a crowd's stacked labels keep them clear: labels.py);
- a blocker: the visitor cannot step onto a tile a resident stands on (or is
  stepping onto);
- an overlay drawing, over each drawn resident, the emoji of the current
  action (a 💬 while talking), zzz while asleep, and a small thought-cloud
  marker while ``sim.thinking(name)``, over the resident's label wherever the
  layout put it. ``view.head_top[name]`` is the screen y just above those
  markers (speech bubbles stand there).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

import pygame

from game.view.emoji import icons
from game.view.host import Drawn, Host, TownSession
from game.view.overlay import Overlay
from game.view.sprites import CharacterSheet, Figure, SheetLibrary, slugify

if TYPE_CHECKING:
    from game.view.camera import Camera

ASLEEP = "@asleep"
ICON = 20  # px: the action emoji over a head
THINK = 16  # px: the thinking marker
ZZZ = 24  # px: the sleeping marker (the icon atlas's size)
CREST = ICON + 1  # px the markers take over (or beside) a label: an emoji ...
CREST_ASLEEP = ZZZ + 2  # ... or zzz, which bobs


class SleepySheets(SheetLibrary):
    """A SheetLibrary that also serves ``<slug>@asleep``: the standing front frame
    turned on its side, in 48x48 frames (bottom-aligned: lying on the tile)."""

    def get(self, slug: str) -> CharacterSheet:
        if not slug.endswith(ASLEEP):
            return super().get(slug)
        sheet = self.sheets.get(slug)
        if sheet is None:
            base = super().get(slug[: -len(ASLEEP)])
            stand = base.frames[0][1]  # facing down, standing
            fw, fh = base.frame_w, base.frame_h
            head_h = max(1, round(fh * 0.45))
            head = stand.subsurface((0, 0, fw, head_h))
            image = pygame.Surface((fw * 3, fh * 4), pygame.SRCALPHA)
            tile_top = fh - fw  # the frame's bottom square is the tile it lies on
            for r in range(4):
                for c in range(3):
                    x0, y0 = c * fw, r * fh
                    # head and shoulders on the pillow, a blanket over the rest
                    image.blit(head, (x0, y0 + tile_top - 2))
                    blanket = pygame.Rect(x0 + 4, y0 + tile_top + head_h - 10, fw - 8, fw - head_h + 8)
                    pygame.draw.rect(image, (92, 118, 170, 255), blanket, border_radius=4)
                    pygame.draw.rect(image, (60, 80, 125, 255), blanket, width=1, border_radius=4)
            sheet = CharacterSheet(image, name=slug)
            self.sheets[slug] = sheet
        return sheet

    @classmethod
    def wrap(cls, lib: SheetLibrary) -> SleepySheets:
        if isinstance(lib, SleepySheets):
            return lib
        new = cls(lib.folder)
        new.sheets.update(lib.sheets)
        new.aliases.update(lib.aliases)
        return new


class ResidentsHost(Host, Drawn, Protocol):
    """What the residents' view uses of the window: the character sheets (it adds the
    sleepers'), the sources of figures and of taken tiles, the mouse, the labels' switch."""

    sheets: SheetLibrary

    @property
    def figure_sources(self) -> list[Callable[[], Iterable]]: ...

    @property
    def blockers(self) -> list[Callable[[int, int], bool]]: ...

    @property
    def mouse_pos(self) -> tuple[int, int] | None: ...

    @property
    def show_labels(self) -> bool: ...


class ResidentsView(Overlay):
    """The figure source, blocker and marker overlay for a session's residents."""

    name = "residents_view"

    def __init__(self, game: ResidentsHost, session: TownSession) -> None:
        self.game = game
        self.session = session
        self.slugs = {n: slugify(n) for n in session.minds}
        spawns = session.town.spawns
        self.beds = {n: tuple(spawns[n]) for n in session.minds if n in spawns}
        self.head_top: dict[str, int] = {}
        self.thinking_drawn: set[str] = set()  # residents whose thinking marker was drawn last frame
        self.show_markers = True
        self._walked: dict[str, float] = {n: 0.0 for n in session.minds}
        self._last_steps = session.sim.steps
        self._occupied: set[tuple[int, int]] = set()
        self._occupied_at = -1
        self._t = 0.0
        self._dressed: object = session.sim  # the simulation whose residents' sheets are set up

    def dress(self) -> None:
        """The residents' sheets, borrowed ones too (a generated resident wears a scenario
        resident's), and who can be clicked: at install, and again after a load brings
        other residents (a game started with 25 loading a save of 27)."""
        session = self.session
        self._dressed = session.sim
        self.slugs = {n: slugify(n) for n in session.minds}
        personas = getattr(session.sim, "personas", None) or getattr(session, "personas", None) or {}  # (a replay's)
        self.game.sheets.aliases.update({slugify(n): p.sprite for n, p in personas.items()
                                         if getattr(p, "sprite", "")})  # a mind without its persona: no sprite
        self.game.sheets.preload(self.slugs.values())  # a missing sheet stops the game now, not mid-frame

    # -- figures ------------------------------------------------------------------------
    def figures(self) -> list[Figure]:
        if self.session.sim is not self._dressed:  # a load swapped the town in
            self.dress()
        sim = self.session.sim
        f = self.session.step_fraction
        stepped = sim.steps != self._last_steps
        self._last_steps = sim.steps
        focus, hover = self.focused(), self.hovered()
        markers = self.show_markers  # their room is kept clear of other labels in a crowd
        out = []
        for name, b in sim.bodies.items():
            if b.visitor or b.controlled:
                continue  # the visitor and a resident the player plays are the player's figure
            slug = self.slugs.get(name) or slugify(name)
            moved = b.prev_tile is not None and b.prev_tile != b.tile
            if moved and stepped:
                self._walked[name] = self._walked.get(name, 0.0) + 1.0
            moving = moved or b.walking
            asleep = b.asleep and not moving and b.conversation is None
            x, y = self._place(name, b, f)
            out.append(Figure(
                name=name,
                slug=slug + ASLEEP if asleep else slug,
                x=float(x), y=float(y),
                facing="down" if asleep else b.facing,
                moving=moving,
                walked=self._walked.get(name, 0.0) + (f if moved else 0.0),
                label=True,
                focus=name in focus,
                hover=name == hover,
                crest=(CREST_ASLEEP if asleep else CREST) if markers else 0,
            ))
        return out

    def focused(self) -> set[str]:
        """Whom the player keeps an eye on (their labels stay in full, at home,
        on top): the followed, the inspected, the one talked to."""
        panels = self.game.panels
        out = set()
        if panels.follower is not None and panels.follower.target:
            out.add(panels.follower.target)
        insp = panels.inspector
        if insp is not None and insp.is_open and insp.selected:
            out.add(insp.selected)
        for talk in (panels.chat, panels.interview):
            if talk is not None and talk.is_open and talk.partner:
                out.add(talk.partner)
        return out

    def hovered(self) -> str | None:
        """The resident under the mouse: on a label (drawn over figures) or the
        front-most figure, as drawn last frame; nobody while over a panel."""
        game = self.game
        pos = game.mouse_pos
        if pos is None:
            return None
        if game.ui.get_hovering_any_element():
            return None
        drawn = game.drawn or []
        for fig, _ in reversed(drawn):
            if fig.tag is not None and fig.tag.rect.collidepoint(pos) and fig.name in self.slugs:
                return fig.name
        for fig, rect in reversed(drawn):
            if rect.collidepoint(pos) and fig.name in self.slugs:
                return fig.name
        return None

    def _place(self, name: str, b, f: float) -> tuple[float, float]:
        """Where a body is drawn, in fractional tiles: glided between its last two
        tiles by the step fraction, or in its bed while asleep near it."""
        x, y = b.tile
        prev = b.prev_tile
        if prev is not None and prev != b.tile:
            px, py = prev
            return (px + (x - px) * f, py + (y - py) * f)
        if b.asleep and not b.walking and b.conversation is None:
            bed = self.beds.get(name)
            if bed is not None and max(abs(bed[0] - x), abs(bed[1] - y)) <= 2:
                return (float(bed[0]), float(bed[1]))  # in bed (the spawn is on it), not on the floor beside it
        return (float(x), float(y))

    def position(self, name: str) -> tuple[float, float] | None:
        """Where the resident ``name`` is drawn now (fractional tiles), or None."""
        b = self.session.sim.bodies.get(name)
        return None if b is None else self._place(name, b, self.session.step_fraction)

    # -- blocking the visitor --------------------------------------------------------------
    def blocked(self, x: int, y: int) -> bool:
        sim = self.session.sim
        if self._occupied_at != sim.steps:
            occ = set()
            for b in sim.bodies.values():
                if not b.visitor and not b.controlled:
                    x0, y0 = b.tile
                    occ.add((x0, y0))
            self._occupied = occ
            self._occupied_at = sim.steps
        return (x, y) in self._occupied

    # -- markers ---------------------------------------------------------------------------
    def update(self, dt: float) -> None:
        self._t += dt

    def draw_world(self, surface: pygame.Surface, camera: Camera) -> None:
        self.head_top.clear()
        self.thinking_drawn = set()
        sim = self.session.sim
        pool = self.session.pool
        try:
            busy = set(pool.keys_in_flight()) if hasattr(pool, "keys_in_flight") else None  # a replay: no pool
        except Exception:  # noqa: BLE001
            busy = None
        ic = icons()
        blits: list[tuple] = []
        bob = 1 if int(self._t * 2) % 2 else 0
        for fig, rect in self.game.drawn:
            b = sim.bodies.get(fig.name)
            if b is None or b.visitor:
                continue
            tag = fig.tag if self.game.show_labels else None
            top = tag.rect.top - 1 if tag is not None else rect.top - 1  # over the label, wherever it went
            if self.show_markers:
                zzz = b.asleep and b.conversation is None and not b.walking
                icon = ic.zzz() if zzz else (ic.get(b.emoji, ICON) if b.emoji else None)
                thinking = (fig.name in busy) if busy is not None else sim.thinking(fig.name)
                mark = _think_icon(ic) if thinking else None
                if tag is not None and tag.packed:
                    top = min(top, _beside(blits, tag.rect, icon, zzz, mark, bob))
                else:
                    cx = tag.rect.centerx if tag is not None else rect.centerx
                    top = _over(blits, cx, top, icon, zzz, mark, bob)
                if thinking:
                    self.thinking_drawn.add(fig.name)
            self.head_top[fig.name] = top
        if blits:
            surface.blits(blits, doreturn=False)


def _over(blits: list, cx: int, top: int, icon, zzz: bool, mark, bob: int) -> int:
    """Markers over a label (or a head): the icon centred (zzz a little right,
    bobbing), the thinking cloud at its top right. Returns their top."""
    icon_top = None
    if icon is not None:
        if zzz:
            pos = (cx - icon.get_width() // 2 + 6, top - icon.get_height() - bob)
        else:
            pos = (cx - ICON // 2, top - ICON)
        blits.append((icon, pos))
        top = icon_top = pos[1]
    if mark is not None:
        my = (icon_top if icon_top is not None else top) - THINK // 2 - bob
        blits.append((mark, (cx + ICON // 2 - 2, my)))
        top = min(top, my)
    return top


def _beside(blits: list, pill: pygame.Rect, icon, zzz: bool, mark, bob: int) -> int:
    """A crowd's markers left of the name (the label stacked above sits where
    they would go over it): the icon level with the label, the thinking cloud on
    the icon's top right corner (or in its place). Returns their top."""
    size = icon.get_width() if icon is not None else THINK
    x, y = pill.left - size - 1, pill.centery - size // 2 - (bob if zzz else 0)
    if icon is not None:
        blits.append((icon, (x, y)))
    if mark is None:
        return y
    my = y + 1 - bob if icon is not None else y
    blits.append((mark, (x + size - THINK + 4 if icon is not None else x, my)))
    return min(y, my)


_THINK_CACHE: dict = {}


def _think_icon(ic):
    s = _THINK_CACHE.get(id(ic))
    if s is None:
        s = pygame.transform.smoothscale(ic.think(), (THINK, THINK))
        _THINK_CACHE.clear()
        _THINK_CACHE[id(ic)] = s
    return s


def install(game: ResidentsHost) -> ResidentsView:
    """Show ``game.session``'s residents in ``game`` (figures, blocker, markers)."""
    session = game.session
    if session is None:
        raise ValueError("the residents are a town's: attach a session first")
    game.sheets = SleepySheets.wrap(game.sheets)
    view = ResidentsView(game, session)
    view.dress()
    game.figure_sources.append(view.figures)
    game.blockers.append(view.blocked)
    game.add_overlay(view)
    game.panels.residents_view = view
    return view


__all__ = ["ASLEEP", "ResidentsView", "SleepySheets", "install"]
