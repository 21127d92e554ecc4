"""Autosave keeps to the sim clock and to real time: at speed 5 thirty sim
minutes pass twice a second, and the town is not saved that often."""
from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest

from game.view import savemenu
from game.view.savemenu import AUTOSAVE_REAL_S, SaveMenu


@pytest.fixture
def menu(tmp_path):
    sim = SimpleNamespace(now=datetime(2023, 2, 13, 7, 0))
    game = SimpleNamespace(saves_dir=tmp_path, session=SimpleNamespace(sim=sim), toast=lambda text: None)
    m = SaveMenu(game, folder=tmp_path, autosave_min=30)
    saved: list[datetime] = []
    m.saved_at = saved  # type: ignore[attr-defined]
    m.autosave = lambda: saved.append(sim.now)  # type: ignore[method-assign]  # counted; writing is tested elsewhere
    yield m, sim
    m.close()


def _play(m, sim, seconds: float, sim_minutes_per_s: float, fps: int = 60) -> None:
    for _ in range(int(seconds * fps)):
        sim.now += timedelta(minutes=sim_minutes_per_s / fps)
        m.update(1 / fps)


def test_at_speed_1_it_saves_every_30_sim_minutes(menu):
    m, sim = menu
    _play(m, sim, 95, 1.0)  # 95 sim minutes at a sim minute a second
    assert [f"{t:%H:%M}" for t in m.saved_at] == ["07:30", "08:00", "08:30"]


def test_at_speed_5_it_saves_at_most_once_per_real_interval(menu):
    m, sim = menu
    _play(m, sim, 2 * AUTOSAVE_REAL_S + 1, 60.0)  # an hour a second
    # the first 30 sim minutes in (not held back), then one each AUTOSAVE_REAL_S of play, not 2 a second
    assert len(m.saved_at) == 3
    gaps = [(b - a).total_seconds() / 3600 for a, b in zip(m.saved_at, m.saved_at[1:])]
    assert all(g >= AUTOSAVE_REAL_S * 0.99 for g in gaps)  # an hour of sim a real second


def test_turned_off_it_never_saves(menu):
    m, sim = menu
    m.autosave_min = 0
    _play(m, sim, 30, 60.0)
    assert m.saved_at == []
    assert savemenu.AUTOSAVE_MIN > 0  # the default is on
