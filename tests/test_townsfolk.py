"""A town bigger than the scenario (agents/residents/townsfolk.py): generated residents after the
25, seeded, living and working in real places of the map, knowing each other; and a
short run of such a town through the real sim path with the scripted stand-in."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import pytest

from agents.residents.persona import CastError, load_cast, load_residents
from agents.residents.townsfolk import MAX_RESIDENTS, grow_cast, read_places
from game.runs.build import select_residents, spawns_of
from game.support.errors import UserError
from game.world.map_reader import load_town

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "maps" / "the_ville" / "the_ville.tmx"


@pytest.fixture(scope="module")
def ville():
    town = load_town(MAP)
    cast, scenario = load_cast(MAP.parent)
    return town, cast, scenario


def test_the_same_n_and_seed_give_the_same_town_and_another_seed_another(ville):
    town, cast, _ = ville
    a = grow_cast(cast, town.addresses(), 60, seed=3)
    b = grow_cast(cast, town.addresses(), 60, seed=3)
    c = grow_cast(cast, town.addresses(), 60, seed=4)
    assert [asdict(p) for p in a] == [asdict(p) for p in b]
    assert [p.name for p in a[25:]] != [p.name for p in c[25:]]
    assert a[:25] == cast == c[:25]  # the paper's residents, exactly as the scenario has them
    assert grow_cast(cast, town.addresses(), 10, seed=3) == cast[:10]  # no more than the scenario: its first N


@pytest.mark.parametrize("n", [26, 60, 500])
def test_generated_residents_live_and_work_in_real_places(ville, n):
    town, cast, _ = ville
    people = grow_cast(cast, town.addresses(), n, seed=7)
    assert len(people) == n
    names = [p.name for p in people]
    assert len(set(names)) == n, [k for k, v in Counter(names).items() if v > 1]
    arenas = set(town.arenas())
    beds = {a for a in arenas if f"{a}:bed" in town}
    home_sectors = {h.split(":")[1] for h in beds}
    for p in people[25:]:
        assert len(p.name.split()) == 2 and all(w[0].isupper() for w in p.name.split())
        assert p.home in beds, p.home
        assert p.workplace in arenas and (p.workplace == p.home or p.workplace.split(":")[1] not in home_sectors)
        assert all(a in arenas for a in p.places), p.places
        assert not any(a in beds for a in p.places), p.places  # nobody else's bedroom
        baths = [a for a in p.places if "bathroom" in a and a.split(":")[1] == p.home.split(":")[1]]
        assert baths, f"{p.name} knows no bathroom at home ({p.home})"
        assert not any(a.endswith(":woman's bathroom" if " he " in f" {p.description} " else ":man's bathroom")
                       for a in baths), (p.name, baths)
        assert 3 <= p.wake_hour <= 11 and 0 < p.age < 120
        assert p.sprite in {c.slug for c in cast} and (ROOT / "assets" / "characters" / f"{p.sprite}.png").exists()
        assert p.phrases[0].startswith(p.name) and len(p.phrases) >= 3
    # The least crowded bed first: a bed that took a newcomer held no more than any other then.
    load = Counter(p.home for p in people)
    top = max(load[b] for b in {p.home for p in people[25:]})
    assert all(load[b] >= top - 1 for b in beds), sorted((load[b], b) for b in beds)[:3]


def test_relationships_are_written_both_ways_among_the_generated(ville):
    town, cast, _ = ville
    people = grow_cast(cast, town.addresses(), 80, seed=1)
    everyone = {p.name for p in people}
    generated = people[25:]
    befriended = 0
    for p in generated:
        friends = [ph for ph in p.phrases if "good friends with" in ph]
        for ph in friends:
            for other in (o for o in generated if o.name in ph):
                befriended += 1
                assert any(p.name in x for x in other.phrases if "good friends with" in x), (p.name, other.name)
        mentioned = {o for o in everyone if o != p.name and o in p.description}
        assert mentioned, f"{p.name} knows nobody"
        mates = [ph for ph in p.phrases if "shares with" in ph]
        for o in people:
            if o.name in "".join(mates):
                assert o.home.split(":")[1] == p.home.split(":")[1], (p.name, o.name)
    assert befriended >= len(generated)


def test_generated_personas_pass_the_residents_file_checks(ville, tmp_path):
    """Everything that reads a persona reads these: they load as a residents.json would."""
    town, cast, _ = ville
    people = grow_cast(cast, town.addresses(), 40, seed=2)
    path = tmp_path / "residents.json"
    path.write_text(json.dumps([asdict(p) for p in people]), encoding="utf-8")
    assert load_residents(path) == people


@pytest.mark.parametrize("n, words", [(0, "at least 1"), (-5, "at least 1"), (MAX_RESIDENTS + 1, "ask for fewer"),
                                      (2.5, "whole number"), (True, "whole number")])
def test_a_bad_number_of_residents_is_a_clear_error(ville, n, words):
    town, cast, _ = ville
    with pytest.raises(CastError, match=words):
        grow_cast(cast, town.addresses(), n, seed=0)


def test_a_map_without_beds_or_workplaces_says_what_is_missing(ville):
    _, cast, _ = ville
    with pytest.raises(CastError, match="no arena with a bed"):
        read_places(["w:Shop:counter", "w:Shop:counter:till"])
    with pytest.raises(CastError, match="no sector without beds"):
        read_places(["w:Home:room", "w:Home:room:bed"])
    with pytest.raises(UserError, match="--agents 30 on .*no arena with a bed"):
        select_residents(cast, 30, town=_Town(["w:Shop:counter"]))


class _Town:
    def __init__(self, addresses):
        self._a = addresses
        self.spawns = {}
        self.path = "bare.tmx"

    def addresses(self):
        return list(self._a)


def test_agents_past_the_scenario_come_from_the_generator_and_resume_by_name(ville):
    town, cast, _ = ville
    grown = select_residents(cast, 30, town=town, seed=5)
    assert [p.name for p in grown[:25]] == [p.name for p in cast] and len(grown) == 30
    assert grown == grow_cast(cast, town.addresses(), 30, seed=5)
    # A resumed run names its residents; the generated ones come back from its seed.
    again = select_residents(cast, None, [p.name for p in grown], town=town, seed=5)
    assert again == grown
    with pytest.raises(UserError, match="unknown resident"):
        select_residents(cast, None, [p.name for p in grown], town=town, seed=6)
    with pytest.raises(UserError, match="only 25 residents"):  # no map to grow on: the old refusal
        select_residents(cast, 30)
    with pytest.raises(UserError, match="at least 1"):
        select_residents(cast, 0, town=town)


def test_generated_residents_start_on_their_beds(ville):
    town, cast, _ = ville
    people = grow_cast(cast, town.addresses(), 70, seed=0)
    spawns = spawns_of(town, people)
    assert set(spawns) == {p.name for p in people[25:]}  # the scenario's keep the map's spawns
    for p in people[25:]:
        assert spawns[p.name] in town.use_tiles(f"{p.home}:bed"), (p.name, spawns[p.name])


def test_a_borrowed_sprite_sheet_is_loaded_under_the_residents_own_slug(ville):
    from game.view.sprites import SheetLibrary, slugify

    town, cast, _ = ville
    p = grow_cast(cast, town.addresses(), 26, seed=0)[25]
    lib = SheetLibrary()
    lib.aliases[slugify(p.name)] = p.sprite
    assert lib.get(slugify(p.name)) is lib.get(slugify(p.name))
    assert lib.get(slugify(p.name)).frame_w == lib.get(p.sprite).frame_w
    with pytest.raises(UserError, match="missing character sheet"):
        SheetLibrary().get(slugify(p.name))  # without the alias: the old clear refusal


def test_thirty_residents_run_through_the_sim_with_the_scripted_stand_in(ville, tmp_path):
    """--agents 30 as `smallville sim` builds it: the five generated residents plan, act
    and move like the scenario's."""
    from fakes import HashEmbedder

    from agents.model.config import ModelConfig
    from agents.model.gateway import Gateway
    from game.headless import run_headless

    town, cast, scenario = ville
    people = select_residents(cast, 30, town=town, seed=3)
    gw = Gateway(ModelConfig(model="scripted/competent", embedding_cache=None))
    result = run_headless(town, people, start=scenario.start, hours=1, out=tmp_path / "run", scenario=scenario,
                          gateway=gw, embedder=HashEmbedder(), seed=3, progress=False, echo=None, autosave_min=None)
    assert not result.interrupted
    events = [json.loads(x) for x in (tmp_path / "run" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    new = {p.name for p in people[25:]}
    acted = {e["resident"] for e in events if e["kind"] == "action"}
    assert new <= acted, sorted(new - acted)
    sim = result.sim
    assert all(sim.minds[n].plan for n in new)  # a day plan each
    moved = {e["resident"] for e in events if e["kind"] == "arrive"}
    assert moved & new, "no generated resident walked anywhere"


def test_the_window_starts_with_more_residents_than_the_scenario(windows):
    """`smallville play --agents 40`: the window's session grows the town the same way, and
    the generated residents are drawn in their borrowed sheets."""
    from driving import frames

    from game.view.sprites import slugify

    game, session = windows("Alex", agents=40, seed=2)
    assert len(session.minds) == 40
    new = [p for p in session.sim.personas.values() if p.sprite]
    assert len(new) == 15
    frames(game, 3)
    for p in new:
        assert game.sheets.get(slugify(p.name)) is game.sheets.get(p.sprite)
    drawn = {f.name for f, _ in game.drawn}
    assert drawn, "nothing drawn"


def test_a_saved_generated_town_is_read_back_from_its_seed(ville):
    """interview, evaluate and loading a save know a generated resident by the save's seed."""
    from game.saves.cast import saved_cast

    town, cast, _ = ville
    grown = grow_cast(cast, town.addresses(), 33, seed=9)
    names = [p.name for p in grown]
    personas, scenario = saved_cast(MAP, names, 9)
    assert [personas[n] for n in names] == grown and scenario.start
    personas, _ = saved_cast(MAP, names, 9, town=town)  # the map already loaded
    assert [personas[n] for n in names] == grown
    assert set(saved_cast(MAP, names[:3], 1)[0]) >= set(names[:3])  # the scenario's need no seed
    with pytest.raises(CastError, match=r"does not know: .* and 5 more .*seed 10"):
        saved_cast(MAP, names, 10)


def test_a_generated_town_replays_with_its_residents(ville, tmp_path, display):
    """`smallville replay` of a --agents 27 run: the generated residents' personas come
    back from the run's seed and they are drawn in their borrowed sheets."""
    from driving import frames
    from fakes import HashEmbedder, chatty, make_gateway

    from game.headless import run_headless
    from game.replay.app import load_personas, open_replay, run_seed
    from game.replay.reader import find_recording, read_recording
    from game.view.sprites import slugify

    town, cast, scenario = ville
    people = select_residents(cast, 27, town=town, seed=8)
    run_headless(town, people, start=scenario.start, hours=0.1, out=tmp_path / "run", scenario=scenario,
                 gateway=make_gateway(chatty), embedder=HashEmbedder(), seed=8, progress=False, echo=None,
                 autosave_min=None)
    target = find_recording(tmp_path / "run")
    rec = read_recording(target.recording)
    assert run_seed(target) == 8
    personas = load_personas(MAP, list(rec.residents), run_seed(target), town)
    assert [personas[p.name] for p in people] == people
    game, session = open_replay(rec, town, MAP, target=target, personas=personas, size=display.get_size())
    try:
        frames(game, 2)
        for p in people[25:]:
            assert game.sheets.get(slugify(p.name)).frame_w == game.sheets.get(p.sprite).frame_w
    finally:
        session.close()


def test_a_generated_town_resumes_and_forks_from_its_saves(ville, tmp_path):
    """`sim --resume` and `fork` of a --agents 27 run make its generated residents again
    from the save's seed (a fork's branches run other seeds: the town stays the same)."""
    from agents.model.config import ModelConfig
    from agents.model.gateway import Gateway
    from game.headless import run_headless
    from smallville.cli import main

    town, cast, scenario = ville
    people = select_residents(cast, 27, town=town, seed=4)
    run = tmp_path / "run"
    run_headless(town, people, start=scenario.start, hours=0.5, out=run, scenario=scenario,
                 gateway=Gateway(ModelConfig(model="scripted/competent", embedding_cache=None)), seed=4,
                 progress=False, echo=None, autosave_min=15)
    assert main(["sim", "--resume", str(run), "--hours", "0.1", "--map", str(MAP),
                 "--model", "scripted/competent"]) == 0
    summary = json.loads((run / "summary.json").read_text())
    assert set(summary["residents"]) == {p.name for p in people} and summary["end"] == "2023-02-13 07:36"
    exp = tmp_path / "fork"
    assert main(["fork", str(run), "--at", "07:30", "--hours", "0.1", "--branches", "1", "--whisper",
                 people[26].name, "You are going to open a bakery", "--out", str(exp), "--map", str(MAP)]) == 0
    manifest = json.loads((exp / "manifest.json").read_text())
    for b in manifest["branches"].values():
        ran = json.loads((exp / b["run"] / "summary.json").read_text())
        assert set(ran["residents"]) == {p.name for p in people}


def test_a_town_of_500_in_the_suburbs_lives_three_or_four_to_a_home():
    """maps/the_ville/the_ville_suburbs.tmx: the Ville and 120 apartments south of it. The
    newcomers fill the apartments evenly, the scenario's 25 stay where they live, and a
    home on a street reads as an address ("lives in 2 Maple Street", not "the 2 ...")."""
    suburbs = load_town(MAP.parent / "the_ville_suburbs.tmx")
    cast, _ = load_cast(MAP.parent)
    people = grow_cast(cast, suburbs.addresses(), 500, seed=0)
    assert people[:25] == cast
    homes = Counter(p.home for p in people)
    assert len(homes) == 143 and max(homes.values()) == 4  # 23 of the Ville's homes and 120 apartments
    street = next(p for p in people if " Street:" in p.home)
    sector = street.home.split(":")[1]
    assert f"lives in {sector}," in street.description and f"the {sector}" not in street.description
    where = suburbs.describe(street.home.rsplit(":", 1)[0])  # the sector
    assert sector in where and f"the {sector}" not in where, where
