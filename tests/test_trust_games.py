"""Games never lost (issue 35): a load that goes back in time starts a branch and
never touches the newer line; the save menu acts on the row's own file."""
from __future__ import annotations

import pytest

pygame = pytest.importorskip("pygame")
pytest.importorskip("pygame_gui")

from driving import MAP, click_element, frames, press, until
from driving import save_and_quit as _save_and_quit
from driving import saves_writer as _writer

from game.saves.series import group_by_game
from game.saves.store import list_saves, read_info, save_state

pytestmark = pytest.mark.skipif(not MAP.exists(), reason="the Ville's map is not built")




def _open_menu(game):
    menu = game.panels.savemenu
    menu.rows = {}
    if not menu.open:
        press(pygame.K_F6)
    assert until(game, lambda: menu.open and bool(menu.rows), limit=300, wait=lambda g: menu.wait(5))
    menu.widgets["list"].set_item_list(list(menu.rows))
    return menu


def _click_row(game, menu, label):
    item = next(i for i in menu.widgets["list"].item_list if i["text"] == label)
    click_element(game, item["button_element"])
    frames(game, 1)


def test_loading_an_older_save_then_quitting_starts_a_branch_and_keeps_the_newer_game(windows, tmp_path):
    """The issue's story: Anna plays on (autosaves, then Save and quit at the newest
    moment); later she loads an older autosave of that game, plays on and quits. Every
    file of the newer line is still there, byte for byte; the loaded game's saves are a
    branch, shown as one in the load menu."""
    saves = tmp_path / "saves"
    game_a, anna = windows("Anna", agents=2)
    for _ in range(5):  # more autosaves than the series keeps: the rotation has to bite
        frames(game_a, 4)
        game_a.panels.savemenu.autosave()
        _writer(game_a)
    _save_and_quit(game_a)
    newer = {p.name: p.read_bytes() for p in saves.iterdir()}
    oldest = min((p for p in saves.glob(f"{anna.game_id}-autosave-*")), key=lambda p: read_info(p).sim_time)

    game_b, again = windows("Anna", agents=2)
    menu = game_b.panels.savemenu
    menu.load(str(oldest))
    assert until(game_b, lambda: any(m.startswith("loaded slot") for m in menu.messages), limit=600, wait=_writer)
    assert again.game_id == f"{anna.game_id}-branch-1", again.game_id
    assert any("branch" in m for m in menu.messages)
    for _ in range(menu.keep + 1):
        frames(game_b, 4)
        menu.autosave()
        _writer(game_b)
    _save_and_quit(game_b)
    for name, data in newer.items():
        assert (saves / name).read_bytes() == data, name  # the newer line, untouched
    branch = sorted(p.name for p in saves.glob(f"{again.game_id}-*"))
    assert f"{again.game_id}-continue.sqlite" in branch and len(branch) == menu.keep + 1
    labels = [g.label() for g in group_by_game(list_saves(saves))]
    assert any("branch 1" in x for x in labels) and any("branch" not in x for x in labels)


def test_the_newest_save_of_a_game_continues_its_line_and_a_second_branch_gets_its_own_number(tmp_path):
    from datetime import datetime, timedelta

    from game.saves.series import line_after_load

    t0 = datetime(2023, 2, 13, 7)
    for i, gid in enumerate(["anna-1", "anna-1", "anna-1-branch-1", "bert-1"]):
        save_state(tmp_path / f"s{i}.sqlite", {"clock": {"i": i}},
                   {"game_id": gid, "sim_time": (t0 + timedelta(hours=i)).isoformat(), "slot": f"s{i}"})
    infos = {i.path.name: i for i in list_saves(tmp_path)}
    assert line_after_load(infos["s1.sqlite"], [tmp_path]) == "anna-1"  # its newest: the same line
    assert line_after_load(infos["s0.sqlite"], [tmp_path]) == "anna-1-branch-2"  # branch 1 is taken
    assert line_after_load(infos["s3.sqlite"], [tmp_path]) == "bert-1"


def test_the_save_menu_deletes_and_loads_the_rows_own_file_not_another_of_the_same_slot(windows, tmp_path):
    """Two files holding the same slot name (a backup copy, a downloaded save): Delete
    and Load act on the file of the row picked."""
    import shutil

    saves = tmp_path / "saves"
    game_a, _anna = windows("Anna", agents=2)
    frames(game_a, 5)
    game_a.panels.savemenu.save("before the party")
    _writer(game_a)
    game_b, bert = windows("Bert", agents=2)
    frames(game_b, 9)
    from game.saves.saveload import capture

    parts, meta = capture(bert)
    save_state(saves / "downloaded.sqlite", parts, {**meta, "slot": "before the party"})
    backup = saves / "backup of anna.sqlite"
    shutil.copy(saves / "before the party.sqlite", backup)

    menu = _open_menu(game_b)
    rows = [(label, row[1]) for label, row in menu.rows.items()
            if row[0] == "save" and row[1].slot == "before the party"]
    assert len(rows) == 3
    # the file the slot name alone would find is not the one picked
    label = next(lb for lb, info in rows if info.path.name == "downloaded.sqlite")
    _click_row(game_b, menu, label)
    click_element(game_b, menu.widgets["load"])
    assert until(game_b, lambda: any(m.startswith("loaded slot") for m in menu.messages), limit=600, wait=_writer)
    assert bert.visitor_name == "Bert"  # Bert's save, not Anna's of the same name

    menu = _open_menu(game_b)
    label = next(lb for lb, row in menu.rows.items() if row[0] == "save" and row[1].path == backup)
    _click_row(game_b, menu, label)
    click_element(game_b, menu.widgets["delete"])
    click_element(game_b, menu.widgets["delete"])
    menu.wait(10)
    assert not backup.exists()
    assert (saves / "before the party.sqlite").exists() and (saves / "downloaded.sqlite").exists()
