"""Name labels in a crowd stay readable (issue 23).

The layout (game/view/labels.py) is checked on its own with made-up label
sizes, then through the real game loop (tests/driving.py): nine residents on
adjacent tiles at Hobbs Cafe, as in the reported game, hovered and followed.
"""
from __future__ import annotations

import itertools

import pytest

pygame = pytest.importorskip("pygame")
pytest.importorskip("pygame_gui")

from conftest import RESIDENTS
from driving import MAP, frames

from game.view import labels
from game.view.labels import GAP, Want, layout, short_name

CAFE = "the Ville:Hobbs Cafe:cafe"
CREST = 21  # an emoji's band over a label (residents.ICON + 1)


def measure(text: str) -> tuple[int, int]:
    """A stand-in for the font: 7 px a letter plus the pill's padding, 21 px tall."""
    return (7 * len(text) + 10, 21)


def table(names, cx=400, head=400, step=32, columns=3, crest=CREST, focus=(), hover=None) -> list[Want]:
    """Figures on adjacent tiles, ``columns`` to a row (32 px tiles at zoom 1)."""
    return [Want(n, cx + (i % columns) * step, head + (i // columns) * step, crest, n in focus, n == hover)
            for i, n in enumerate(names)]


def overlapping(blocks) -> list:
    return [(a, b) for a, b in itertools.combinations(blocks, 2) if a.colliderect(b)]


# ---- the layout, without drawing ---------------------------------------------------------
def test_a_lone_label_stays_where_labels_always_were_in_full():
    want = Want("Isabella Rodriguez", cx=300, head=200, crest=CREST)
    (spot,) = layout([want], measure)
    w, h = measure("Isabella Rodriguez")
    assert spot.text == "Isabella Rodriguez"
    assert spot.rect == pygame.Rect(300 - w // 2, 200 - h - 2, w, h)  # the old draw_labels spot
    assert spot.lifted == 0 and spot.leader is None and not spot.packed


def test_residents_far_apart_keep_their_full_names_and_places():
    wants = [Want("Isabella Rodriguez", 100, 300, CREST), Want("Klaus Mueller", 400, 300, CREST)]
    spots = {s.name: s for s in layout(wants, measure)}
    assert {s.text for s in spots.values()} == {"Isabella Rodriguez", "Klaus Mueller"}
    assert all(s.lifted == 0 for s in spots.values())


def test_nine_at_a_table_get_first_names_stacked_clear_of_each_other_and_their_markers():
    names = RESIDENTS[:9]
    wants = table(names)
    spots = layout(wants, measure)
    assert sorted(s.name for s in spots) == sorted(names)
    by = {w.name: w for w in wants}
    assert not overlapping([s.area for s in spots])  # no label covers another, nor another's emoji
    assert all(s.packed and s.area.height == CREST for s in spots)  # emoji beside the name: stacks stay low
    for s in spots:
        w = by[s.name]
        assert s.text == short_name(s.name)  # a crowd reads first names
        assert s.rect.centerx == w.cx  # still straight over its own head
        assert s.rect.bottom <= w.head - GAP  # never over the face
        if s.lifted >= labels.LEADER_MIN:  # a lifted label points down to whose it is
            assert s.leader == ((w.cx, s.rect.bottom), (w.cx, w.head - GAP))
    assert any(s.lifted for s in spots)  # they had to stack: adjacent tiles are 32 px apart
    # front to back: the front row keeps its spots, the stack climbs behind it
    front = [s for s in spots if by[s.name].head == max(w.head for w in wants)]
    assert front[-1].lifted == 0


def test_the_followed_resident_is_in_full_at_home_and_drawn_last():
    names = RESIDENTS[:9]
    pick = names[4]  # the middle of the table
    spots = layout(table(names, focus={pick}), measure)
    top = spots[-1]  # drawn last: on top
    assert top.name == pick and top.text == pick and top.lifted == 0
    assert not overlapping([s.area for s in spots])
    assert all(s.text == short_name(s.name) for s in spots[:-1])


def test_the_hovered_label_opens_in_place_on_top_and_nothing_else_moves():
    names = RESIDENTS[:9]
    before = {s.name: s for s in layout(table(names), measure)}
    pick = max(names, key=lambda n: before[n].lifted)  # one stacked high over the table
    spots = layout(table(names, hover=pick), measure)
    top = spots[-1]
    assert top.name == pick and top.text == pick  # in full, drawn last
    assert top.rect.centerx == before[pick].rect.centerx and top.rect.bottom == before[pick].rect.bottom
    assert top.rect.contains(before[pick].rect)  # still under the mouse that opened it
    assert {s.name: s.rect for s in spots[:-1]} == {n: s.rect for n, s in before.items() if n != pick}


def test_residents_who_share_a_first_name_keep_their_full_names():
    wants = table(["Maria Lopez", "Maria Chen", "Klaus Mueller"])
    said = {s.name: s.text for s in layout(wants, measure)}
    assert said == {"Maria Lopez": "Maria Lopez", "Maria Chen": "Maria Chen", "Klaus Mueller": "Klaus"}


def test_a_crowds_markers_stay_in_the_room_its_label_kept_for_them(display):
    from game.view import residents
    from game.view.emoji import icons

    ic = icons()
    pill = pygame.Rect(300, 200, 50, 14)
    cases = [(ic.get("☕", residents.ICON), False, residents.CREST),
             (ic.zzz(), True, residents.CREST_ASLEEP),
             (None, False, residents.CREST)]  # no action yet: the thinking cloud alone
    for icon, zzz, crest in cases:
        area = labels.block(pill, crest, packed=True)
        for mark, bob in itertools.product((None, residents._think_icon(ic)), (0, 1)):
            blits: list = []
            top = residents._beside(blits, pill, icon, zzz, mark, bob)
            assert all(area.contains(surf.get_rect(topleft=pos)) for surf, pos in blits)
            assert top >= area.top


# ---- through the real game loop -------------------------------------------------------------
needs_town = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")


@pytest.fixture
def cafe(display):
    """A paused game whose first nine residents sit on a 3x3 block of Hobbs Cafe's
    floor, the camera on them (the crowd of the report)."""
    from driving import window

    game, session = window(display, agents=9)
    session.paused = True
    town = session.town
    tiles = set(town.tiles_of(CAFE))
    walk = [t for t in tiles if town.walkable[t[1], t[0]]]
    corner = next(t for t in sorted(walk, key=lambda t: (t[1], t[0]))
                  if all((t[0] + dx, t[1] + dy) in walk for dx in range(3) for dy in range(3)))
    names = sorted(session.minds)
    for i, name in enumerate(names):
        b = session.sim.bodies[name]
        b.tile = (corner[0] + i % 3, corner[1] + i // 3)
        b.prev_tile, b.path, b.routing = None, [], False
    game.look_at_tile((corner[0] + 1, corner[1] + 1))
    frames(game, 3)
    yield game, session, names
    session.close()


def tags(game) -> dict:
    return {fig.name: fig.tag for fig, _ in game.drawn if fig.tag is not None}


def marker_blocks(game) -> list:
    """Each drawn resident's label with the markers over it (emoji, zzz)."""
    return [fig.tag.area for fig, _ in game.drawn if fig.tag is not None]


@needs_town
def test_nine_residents_at_the_cafe_have_readable_labels(cafe):
    game, _session, names = cafe
    placed = tags(game)
    assert set(names) <= set(placed)  # all nine drawn, each with a label
    assert not overlapping(marker_blocks(game))
    assert all(placed[n].text == short_name(n) for n in names)
    view = game.panels.residents_view
    for n in names:  # each one's emoji stands over its own label, wherever it went
        assert view.head_top[n] < placed[n].rect.top


def bare_point(game, name: str):
    """A point on ``name``'s figure that no label and no figure in front covers."""
    drawn = game.drawn
    i = next(i for i, (f, _) in enumerate(drawn) if f.name == name)
    cover = [f.tag.rect for f, _ in drawn if f.tag is not None] + [r for _, r in drawn[i + 1:]]
    rect = drawn[i][1]
    return next((x, y) for y in range(rect.bottom - 1, rect.top, -2) for x in range(rect.left, rect.right, 2)
                if not any(c.collidepoint(x, y) for c in cover))


def hover(game, pos) -> None:
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)))
    frames(game, 3)


@needs_town
def test_hovering_a_resident_in_the_crowd_shows_the_full_name_on_top(cafe):
    game, _session, names = cafe
    before = tags(game)
    front = names[7]  # the middle of the front row: its label had to climb over its neighbours'
    assert before[front].lifted > 0
    hover(game, bare_point(game, front))
    placed = tags(game)
    assert placed[front].text == front  # in full ...
    assert placed[front].rect.bottom == before[front].rect.bottom  # ... where it stood: nothing jumps
    assert {n: t.rect for n, t in placed.items() if n != front} == {n: t.rect for n, t in before.items() if n != front}
    assert all(placed[n].text == short_name(n) for n in names if n != front)
    frames(game, 5)  # the mouse stays still: so does the hover (no flicker)
    assert tags(game)[front].text == front

    # pointing at a label stacked high over the table (not at the figure) opens that one
    behind = max((n for n in names if n != front), key=lambda n: placed[n].lifted)
    hover(game, placed[behind].rect.center)
    assert tags(game)[behind].text == behind and tags(game)[front].text == short_name(front)


@needs_town
def test_the_followed_resident_keeps_a_full_label(cafe):
    game, _session, names = cafe
    assert game.follow_resident(names[7])
    frames(game, 3)
    placed = tags(game)
    assert placed[names[7]].text == names[7]
    assert not overlapping(marker_blocks(game))


@needs_town
def test_a_lone_resident_looks_as_before(display):
    from driving import window

    game, session = window(display, agents=1)
    try:
        session.paused = True
        (name,) = session.minds
        b = session.sim.bodies[name]
        b.prev_tile, b.path, b.routing = None, [], False
        game.look_at_tile(b.tile)
        frames(game, 3)
        fig, rect = next((f, r) for f, r in game.drawn if f.name == name)
        pill = labels.pill(name)
        assert fig.tag.text == name
        assert fig.tag.rect.topleft == (rect.centerx - pill.get_width() // 2, rect.top - pill.get_height() - 2)
        assert fig.tag.leader is None
    finally:
        session.close()


@needs_town
def test_clicking_a_label_lifted_over_a_crowd_inspects_its_resident(cafe):
    game, _session, names = cafe
    placed = tags(game)
    high = max(names, key=lambda n: placed[n].lifted)
    assert placed[high].lifted > 0
    assert game.panels.inspector.pick(placed[high].rect.center) == ("resident", high)
