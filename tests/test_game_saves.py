"""Games never lost (issue 25): each game its own autosave series and its own
quit save, so a second game in the same folder never rotates away or overwrites
the first one's; the load menu lists games; old saves without a game still load."""
from __future__ import annotations

from datetime import datetime

import pytest

pygame = pytest.importorskip("pygame")
pytest.importorskip("pygame_gui")

from driving import MAP, click_element, frames, press, until
from driving import save_and_quit as _save_and_quit
from driving import saves_writer as _writer

from game.saves.series import group_by_game, new_game_id, short_slot
from game.saves.store import autosave, list_saves, read_info, save_state

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")


def test_a_game_id_is_the_visitor_and_the_start_time_and_safe_as_a_file_name():
    assert new_game_id("Anna", datetime(2026, 11, 25, 20, 44, 31)) == "anna-20261125-204431"
    assert new_game_id("Zoë / ../..", datetime(2026, 1, 2, 3, 4, 5)) == "zo-20260102-030405"
    assert new_game_id("   ", datetime(2026, 1, 2, 3, 4, 5)) == "visitor-20260102-030405"


def test_autosaves_rotate_only_within_their_own_game(tmp_path):
    """Game B's autosaves rotated game A's away: one numbering for the whole folder."""
    for i in range(3):
        autosave({"clock": {"i": i}}, {"game_id": "anna-20261125-100000", "visitor_name": "Anna"}, tmp_path, keep=2)
    for i in range(6):
        autosave({"clock": {"i": i}}, {"game_id": "bert-20261125-101000", "visitor_name": "Bert"}, tmp_path, keep=2)
    autosave({"clock": {"i": 0}}, {}, tmp_path, keep=2)  # a game without an id (a headless run): autosave-<n>
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["anna-20261125-100000-autosave-2.sqlite", "anna-20261125-100000-autosave-3.sqlite",
                     "autosave-1.sqlite",
                     "bert-20261125-101000-autosave-5.sqlite", "bert-20261125-101000-autosave-6.sqlite"]
    games = group_by_game(list_saves(tmp_path))
    assert [g.visitor for g in games] == ["Bert", "Anna", "?"] and [len(g.saves) for g in games] == [2, 2, 1]
    assert games[-1].game_id is None and games[-1].label().startswith("Older saves")
    assert short_slot(games[0].newest) == "autosave 6"




def test_a_second_game_never_eats_the_first_ones_saves(windows, tmp_path):
    """The issue's story: Anna's game saved on quit, then Bert's game in the same folder
    autosaved over and over and saved and quit. Anna's saves are all still there."""
    saves = tmp_path / "saves"
    game_a, anna = windows("Anna", agents=2)
    frames(game_a, 5)
    game_a.panels.savemenu.autosave()
    _writer(game_a)
    _save_and_quit(game_a)
    a_files = {p.name: p.read_bytes() for p in saves.iterdir()}
    assert sorted(a_files) == [f"{anna.game_id}-autosave-1.sqlite", f"{anna.game_id}-continue.sqlite"]

    game_b, bert = windows("Bert", agents=2)
    assert bert.game_id != anna.game_id and bert.game_id.startswith("bert-")
    for _ in range(game_b.panels.savemenu.keep + 3):  # more autosaves than the series keeps
        frames(game_b, 2)
        game_b.panels.savemenu.autosave()
        _writer(game_b)
    _save_and_quit(game_b)
    for name, data in a_files.items():  # every one of Anna's saves, byte for byte
        assert (saves / name).read_bytes() == data, name
    mine = sorted(p.name for p in saves.glob(f"{bert.game_id}-*"))
    assert len([n for n in mine if "-autosave-" in n]) == game_b.panels.savemenu.keep
    assert f"{bert.game_id}-continue.sqlite" in mine
    assert read_info(saves / f"{anna.game_id}-continue.sqlite").meta["visitor_name"] == "Anna"


def test_the_load_menu_lists_games_and_loads_one_which_goes_on_with_its_own_series(windows, tmp_path):
    saves = tmp_path / "saves"
    game_a, anna = windows("Anna", agents=2)
    frames(game_a, 5)
    game_a.panels.savemenu.save(game_a.panels.savemenu.own("quick"))
    game_a.panels.savemenu.autosave()
    _writer(game_a)
    anna_time = anna.sim.now
    # a save from before games had ids: no game_id in its meta
    from game.saves.saveload import capture

    parts, meta = capture(anna)
    meta.pop("game_id")
    save_state(saves / "continue.sqlite", parts, {**meta, "slot": "continue"})

    game_b, bert = windows("Bert", agents=2)
    frames(game_b, 30)
    menu = game_b.panels.savemenu
    press(pygame.K_F6)
    assert until(game_b, lambda: bool(menu.rows), limit=300, wait=lambda g: menu.wait(5))
    lines = list(menu.rows)
    anna_line = next(x for x in lines if x.startswith("Anna's game"))
    assert "2 saves" in anna_line and anna_time.strftime("%H:%M") in anna_line and "(saved " in anna_line
    assert any(x.startswith("Older saves (1 save:") for x in lines)
    under_anna = lines[lines.index(anna_line) + 1: lines.index(anna_line) + 3]
    assert sorted(x.split(":")[0].strip() for x in under_anna) == ["autosave 1", "quick"]
    # pick Anna's game (its line) and Load: its newest save
    menu.widgets["list"].set_item_list(lines)
    lst = menu.widgets["list"]
    item = next(i for i in lst.item_list if i["text"] == anna_line)
    click_element(game_b, item["button_element"])
    frames(game_b, 1)
    click_element(game_b, menu.widgets["load"])
    assert until(game_b, lambda: any(m.startswith("loaded slot") for m in menu.messages), limit=600, wait=_writer)
    assert bert.sim.now == anna_time and bert.visitor_name == "Anna"
    assert bert.game_id == anna.game_id  # the loaded game goes on with Anna's own saves
    menu.autosave()
    _writer(game_b)
    assert (saves / f"{anna.game_id}-autosave-2.sqlite").exists()
    # an old save without a game loads, and goes on as a game of its own
    from game.saves.saveload import load_into

    load_into(game_b, saves / "continue.sqlite")
    assert bert.game_id not in (anna.game_id,) and bert.game_id.startswith("anna-")
    menu.autosave()
    _writer(game_b)
    assert (saves / f"{bert.game_id}-autosave-1.sqlite").exists()


def test_save_as_over_another_games_save_asks_first(windows, tmp_path):
    saves = tmp_path / "saves"
    game_a, _anna = windows("Anna", agents=2)
    frames(game_a, 5)
    game_a.panels.savemenu.save("before the party")
    _writer(game_a)
    before = (saves / "before the party.sqlite").read_bytes()

    game_b, _bert = windows("Bert", agents=2)
    frames(game_b, 5)
    menu = game_b.panels.savemenu
    press(pygame.K_F6)
    assert until(game_b, lambda: "before the party" in menu.infos, limit=300, wait=lambda g: menu.wait(5))
    menu.widgets["name"].set_text("before the party")
    menu._save_as()
    _writer(game_b)
    assert "Anna's game" in menu.widgets["status"].text and "again" in menu.widgets["status"].text
    assert (saves / "before the party.sqlite").read_bytes() == before  # not written
    menu._save_as()  # asked, and confirmed
    _writer(game_b)
    assert read_info(saves / "before the party.sqlite").meta["visitor_name"] == "Bert"
    menu.widgets["name"].set_text("before the party")
    n = len(menu.messages)
    frames(game_b, 3)
    menu.wait(5)
    menu._save_as()  # now Bert's own: no question
    _writer(game_b)
    assert any(m == "saved slot before the party" for m in menu.messages[n:])


def test_continue_offers_the_most_recent_game(windows, tmp_path):
    game_a, _anna = windows("Anna", agents=2)
    frames(game_a, 5)
    _save_and_quit(game_a)
    game_b, _bert = windows("Bert", agents=2)
    frames(game_b, 5)
    game_b.panels.savemenu.autosave()
    _writer(game_b)
    game_c, _cleo = windows("Cleo", agents=2)
    game_c.ask_visitor_name("Cleo", offer_continue=True)
    box = game_c.panels.namebox
    assert until(game_c, lambda: box.continue_button is not None, limit=300)
    assert "Bert's game" in box.continue_button.text


def test_load_quick_by_name_is_the_most_recent_games_own(tmp_path):
    """`smallville play --load quick` (and `interview --load quick`): the latest game's quick save."""
    from game.saves.saveload import resolve_path

    for gid, who in (("anna-20261125-100000", "Anna"), ("bert-20261125-110000", "Bert")):
        save_state(tmp_path / f"{gid}-quick.sqlite", {"clock": {}}, {"game_id": gid, "visitor_name": who,
                                                                   "slot": f"{gid}-quick"})
    assert resolve_path("quick", tmp_path) == tmp_path / "bert-20261125-110000-quick.sqlite"
    save_state(tmp_path / "quick.sqlite", {"clock": {}}, {"slot": "quick"})  # a file of that very name wins
    assert resolve_path("quick", tmp_path) == tmp_path / "quick.sqlite"
    assert resolve_path("before the party", tmp_path) == tmp_path / "before the party.sqlite"
