"""The emoji icon atlas: reproducibility, coverage and the lookup rules."""
from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

pygame = pytest.importorskip("pygame")

from game.view import emoji as em

ROOT = Path(__file__).resolve().parents[1]
ICON_DIR = ROOT / "assets" / "icons"
FILES = ("emoji.png", "emoji.json", "ui.png")

REQUIRED = ("😴 🛏️ 🚿 🪥 🚽 👕 ☕ 🍳 🥣 🍽️ 🥪 🍝 🍺 🍷 🧹 🧺 🛒 💊 🧾 💼 💻 ⌨️ 📚 📖 ✍️ 📝 🎨 🖌️ 📷 🎭 🎤 🎹 🎵 🎸 "
            "🎮 📺 🧪 🔬 🧮 🏃 🏋️ ⚽ 🚶 🌳 🌷 🦆 🪑 💬 🗣️ 📞 🤔 💡 🎉 💝 ❤️ 🗳️ 📣 🏫 🧑‍🏫 🛍️ 📦 🔧 🧘 🛁 "
            "🐕 🚌 ❓ 🙂 🌱 🛎️ 🛋️").split()


def _load_script():
    spec = importlib.util.spec_from_file_location("draw_icons", ROOT / "assets" / "draw_icons.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("icons")
    _load_script().build(out)
    return out


@pytest.fixture(scope="module")
def atlas():
    pygame.init()
    return em.EmojiIcons()


def test_script_reproduces_committed_files(built):
    for name in FILES:
        new, old = (built / name).read_bytes(), (ICON_DIR / name).read_bytes()
        assert hashlib.sha256(new).hexdigest() == hashlib.sha256(old).hexdigest(), \
            f"{name} differs: rerun `python assets/draw_icons.py` and commit"


def test_json_layout():
    meta = json.loads((ICON_DIR / "emoji.json").read_text(encoding="utf-8"))
    assert meta["size"] == 24 and meta["columns"] == 16
    assert sorted(meta["icons"].values()) == list(range(len(meta["icons"])))
    assert tuple(meta["icons"]) == em.VOCABULARY
    for target in meta["aliases"].values():
        assert target in meta["icons"]


def test_vocabulary_covers_the_everyday_actions():
    assert len(em.VOCABULARY) >= 60
    missing = [e for e in REQUIRED if e not in em.VOCABULARY]
    assert not missing, missing


def test_every_icon_is_non_empty_and_distinct(atlas):
    seen = {}
    for e in em.VOCABULARY:
        surf = atlas.get(e)
        assert surf.get_size() == (24, 24)
        alpha = pygame.surfarray.array_alpha(surf)
        assert (alpha > 0).sum() >= 60, f"{e} is (nearly) empty"
        assert (alpha == 0).sum() >= 40, f"{e}: no transparent background"
        key = pygame.image.tobytes(surf, "RGBA")
        assert key not in seen, f"{e} looks the same as {seen.get(key)}"
        seen[key] = e


def test_lookup_rules():
    nk = em.nearest_known
    assert nk("☕") == "☕"
    assert nk("🛏") == "🛏️"            # missing variation selector
    assert nk("🛏️") == "🛏️"
    assert nk("❤") == "❤️"
    assert nk("☕\ufe0f") == "☕"       # a stray one
    assert nk("🏃🏽") == "🏃"           # skin tone
    assert nk("🏃🏽‍♀️") == "🏃"          # skin tone + gender
    assert nk("👩‍🏫") == "🧑‍🏫"          # gendered person -> neutral
    assert nk("🧑🏿‍🏫") == "🧑‍🏫"
    assert nk("☕📖") == "☕"           # the first of two emoji
    assert nk("🦖📖") == "📖"           # ... or the first one we know
    assert nk("🍴") == "🍽️"            # an alias
    assert nk("🦖") == "❓"
    assert nk("") == "❓"
    assert nk("coffee") == "❓"
    assert all(nk(e) == e for e in em.VOCABULARY)


def test_split_emoji():
    assert em.split_emoji("☕📖") == ["☕", "📖"]
    assert em.split_emoji("🧑‍🏫 and 🛏️") == ["🧑‍🏫", "🛏️"]
    assert em.split_emoji("🏃🏽‍♀️🇩🇪") == ["🏃🏽‍♀️", "🇩🇪"]


def test_lookup_needs_no_display():
    import subprocess
    import sys
    code = ("import sys; from game.view.emoji import nearest_known, VOCABULARY; "
            "assert 'pygame' not in sys.modules; print(nearest_known('🛏'), len(VOCABULARY))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "🛏️"


def test_get_returns_the_right_cell(atlas):
    a, b = atlas.get("☕"), atlas.get("🦖")
    assert pygame.image.tobytes(b, "RGBA") == pygame.image.tobytes(atlas.get("❓"), "RGBA")
    assert pygame.image.tobytes(a, "RGBA") != pygame.image.tobytes(b, "RGBA")
    assert atlas.get("☕", 48).get_size() == (48, 48)
    assert atlas.get("☕") is atlas.get("☕\ufe0f")


def test_ui_pieces(atlas):
    for name in ("think", "zzz", "bubble", "bubble_tail"):
        surf = atlas.ui(name)
        assert (pygame.surfarray.array_alpha(surf) > 0).sum() > 10


def test_bubble_grows_with_the_text(atlas):
    sizes = []
    for w, h in ((1, 1), (20, 10), (80, 12), (160, 30)):
        text = pygame.Surface((w, h), pygame.SRCALPHA)
        text.fill((0, 0, 0, 255))
        b = em.bubble(text)
        assert b.get_width() >= w + 6 and b.get_height() >= h + 6
        sizes.append(b.get_size())
    assert sizes == sorted(sizes)
    assert sizes[1][0] < sizes[2][0] < sizes[3][0] and sizes[2][1] < sizes[3][1]
    # the tail hangs at the bottom centre, the corners stay clear
    b = em.bubble(pygame.Surface((80, 12), pygame.SRCALPHA))
    w, h = b.get_size()
    assert any(b.get_at((x, h - 1)).a == 255 for x in range(w // 2 - 2, w // 2 + 2))
    assert b.get_at((0, 0)).a == 0 and b.get_at((w - 1, h - 1)).a == 0
    # the text lands inside the white box
    text = pygame.Surface((40, 10))
    text.fill((255, 0, 0))
    b = em.bubble(text)
    assert b.get_at((b.get_width() // 2, 8))[:3] == (255, 0, 0)
