"""Where the game finds its towns and art, and where it writes (agents/support/home.py,
game/support/folders.py): the same answer from any folder."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents import home
from game.support import folders

REPO = Path(__file__).resolve().parents[1]


def test_the_checkout_is_the_data_root_and_home_follows_the_env(tmp_path, monkeypatch):
    assert home.checkout() == REPO and folders.data_root() == REPO
    assert folders.default_map() == REPO / "maps" / "the_ville" / "the_ville.tmx" and folders.default_map().is_file()
    assert (folders.assets_dir() / "icons" / "emoji.json").is_file()
    monkeypatch.setenv("SMALLVILLE_HOME", str(tmp_path))
    assert folders.saves_dir() == tmp_path / "saves" and folders.runs_dir() == tmp_path / "runs"
    assert folders.logs_dir() == tmp_path / "logs" and home.where_home_is() == "SMALLVILLE_HOME"
    monkeypatch.setenv("SMALLVILLE_LOG_DIR", str(tmp_path / "elsewhere"))
    assert folders.logs_dir() == tmp_path / "elsewhere"


def test_without_the_env_a_writable_checkout_is_home_else_the_user_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("SMALLVILLE_HOME")
    if os.access(REPO, os.W_OK):
        assert home.home() == REPO and home.where_home_is() == "checkout"
    monkeypatch.setattr(home, "checkout", lambda: None)  # a regular install
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert home.home() == tmp_path / "xdg" / "smallville" and home.where_home_is() == "user"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")  # the XDG spec: relative folders are invalid
    assert home.home() == Path.home() / ".local" / "share" / "smallville"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert home.user_data_dir() == Path.home() / "Library" / "Application Support" / "Smallville"


def test_a_regular_install_finds_its_data_under_share(tmp_path, monkeypatch):
    share = tmp_path / "prefix" / "share" / "smallville"
    (share / "maps" / "the_ville").mkdir(parents=True)
    (share / "maps" / "the_ville" / "the_ville.tmx").write_text("<map/>")
    monkeypatch.setattr(home, "checkout", lambda: None)
    monkeypatch.setattr(home, "_installed_data", lambda: [tmp_path / "nowhere", share])
    assert home.data_root() == share and folders.default_map() == share / "maps" / "the_ville" / "the_ville.tmx"


def test_resolve_map(tmp_path, monkeypatch):
    assert folders.resolve_map(None) == folders.default_map() and folders.resolve_map("  ") == folders.default_map()
    monkeypatch.chdir(tmp_path)
    rel = "maps/the_ville/the_ville.tmx"
    assert folders.resolve_map(rel) == REPO / rel  # the checkout's map names work from any folder
    (tmp_path / "maps" / "the_ville").mkdir(parents=True)
    (tmp_path / rel).write_text("<map/>")
    assert folders.resolve_map(rel) == Path(rel)  # but a file here wins
    assert folders.resolve_map("no/such.tmx") == Path("no/such.tmx")  # the loader then says it is missing


def test_describe_names_every_folder():
    text = folders.describe()
    for word in ("towns and art", "default town", "saves", "logs", "runs", "settings"):
        assert word in text
    assert str(folders.saves_dir()) in text


@pytest.mark.slow
def test_the_command_works_from_another_folder(tmp_path):
    """`smallville map` and `smallville where` run outside the checkout (the bug:
    "maps/the_ville/the_ville.tmx: no such map file")."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "SMALLVILLE_HOME": str(tmp_path / "home"),
           "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    out = subprocess.run([sys.executable, "-m", "smallville", "map"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "no such map" not in out.stderr and "the_ville" in (out.stdout + out.stderr).lower()
    where = subprocess.run([sys.executable, "-m", "smallville", "where"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=300)
    assert where.returncode == 0 and str(tmp_path / "home" / "saves") in where.stdout
    assert (tmp_path / "home" / "logs" / "smallville.log").is_file()  # the log went home, not to ./logs
    assert not (tmp_path / "logs").exists()


def test_a_town_in_a_folder_with_spaces_and_non_ascii_names(tmp_path, capsys):
    import shutil

    from smallville.cli import main

    root = tmp_path / "Mes villes ü 北 (copy)"
    shutil.copytree(REPO / "maps" / "the_ville", root / "maps" / "the_ville", ignore=shutil.ignore_patterns("*.py"))
    (root / "assets").symlink_to(REPO / "assets")
    tmx = root / "maps" / "the_ville" / "the_ville.tmx"
    assert main(["map", str(tmx)]) == 0
    assert "the Ville" in capsys.readouterr().out
