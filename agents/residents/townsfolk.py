"""More residents than the scenario has: a seeded persona generator.

``grow_cast(cast, addresses, n, seed)`` is the first ``n`` residents of a town: the
scenario's own, untouched, then generated ones. A generated resident gets a name,
an age, an occupation tied to one of the town's workplaces (a sector without beds),
a home in one of its bed arenas (shared, the least crowded first, when there are
more residents than beds), the places it knows, a wake hour, a look borrowed from
a scenario resident's sprite sheet, and relationships (housemates, coworkers,
friends) written into its description, whose phrases become its first memories and
which the social code reads like any scenario resident's.

The same cast, addresses, ``n`` and ``seed`` always give the same town. Only the
addresses are read: the generator works on any map whose tree has bed arenas.
"""
from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agents.residents.persona import CastError, Persona

MAX_RESIDENTS = 2000  # the name pools give far more; past this a town is not worth a run here

_FEMALE = (
    "Amelia Beatrice Camila Daniela Elena Fatima Grace Hana Ingrid Julia Keiko Leila Maya Nadia Olivia Priya "
    "Quinn Rosa Sofia Tara Uma Vera Wendy Ximena Yara Zoe Alice Bianca Clara Diana Esther Freya Gloria Helen "
    "Irene Joanna Kira Lucia Marta Nora Paula Ruth Sara Teresa Valeria Wanda Lena Anika Mina Lydia"
).split()
_MALE = (
    "Aaron Bruno Caleb Dmitri Elias Felix Gabriel Hugo Ivan Jonas Kenji Leo Mateo Nikhil Omar Pablo Rafael "
    "Samuel Theo Victor Walter Xavier Yusuf Zane Andre Benjamin Cyrus David Emil Frank George Henry Isaac "
    "Jorge Karl Lucas Marcus Nathan Oscar Peter Ravi Simon Tobias Ulrich Vincent William Dante Hiro Kofi Liam"
).split()
_SURNAMES = (
    "Abbott Alvarez Anderson Bauer Becker Bennett Bianchi Brooks Castillo Chandra Cohen Costa Cruz Dubois Duarte "
    "Edwards Eriksen Farah Fischer Fleming Garcia Grant Gupta Haddad Hansen Hayes Herrera Hughes Ito Jensen "
    "Kaur Keller Kim Kowalski Larsen Levy Mendes Meyer Mitchell Morales Murphy Nakamura Nguyen Novak Okafor "
    "Olsen Ortega Petrov Price Quinn Ramos Reyes Richter Romano Russo Sato Schmidt Silva Sokolov Stein Sullivan "
    "Suzuki Tanaka Torres Turner Vargas Vogel Wagner Walsh Weber Wong Yilmaz Young Zhang Ziegler Baker Carter"
).split()
_TRAITS = (
    "kind curious patient cheerful quiet talkative thoughtful practical funny stubborn generous careful "
    "ambitious easy-going observant gentle outspoken loyal restless organised dreamy warm blunt proud"
).split()
_HOBBIES = (
    "{they} {likes} long walks in the evening", "{they} {is} learning to play the guitar",
    "{they} {likes} cooking for friends", "{they} {reads} mystery novels before bed",
    "{they} {is} training for a marathon", "{they} {likes} painting small landscapes",
    "{they} {keeps} a vegetable garden", "{they} {is} an avid birdwatcher",
    "{they} {likes} board games and puzzles", "{they} {collects} old records",
    "{they} {is} learning French", "{they} {likes} to bake bread on weekends",
)


@dataclass(frozen=True)
class _Job:
    """An occupation at a kind of workplace: its phrase, ages, wake hours and weight."""

    phrase: str  # "{name} ... {place}"; {place} is the workplace sector as the town names it
    ages: tuple[int, int]
    wake: tuple[int, int]
    weight: int = 2
    student: bool = False


# By arena kind (the arena's name); the phrases use the words agents/words/activity.py reads
# ("studies X at", "teaches", "pharmac", "works at") so a generated resident's routine fits.
_JOBS: dict[str, tuple[_Job, ...]] = {
    "cafe": (_Job("{name} works as a barista at {place}", (19, 40), (5, 7), 2),
             _Job("{name} bakes the pastries at {place}", (24, 60), (4, 6), 1)),
    "pub": (_Job("{name} works behind the bar at {place}", (21, 50), (8, 10), 2),
            _Job("{name} cooks in the kitchen of {place}", (25, 55), (8, 10), 1)),
    "store": (_Job("{name} works as a cashier at {place}", (18, 60), (6, 8), 2),
              _Job("{name} works as a pharmacist at {place}", (28, 62), (6, 8), 1)),
    "supply store": (_Job("{name} works as a clerk at {place}", (18, 60), (6, 8), 2),),
    "classroom": (_Job("{name} studies {subject} at {place}", (18, 24), (6, 8), 5, student=True),
                  _Job("{name} teaches {subject} at {place}", (32, 66), (5, 7), 1)),
    "library": (_Job("{name} works as a librarian at {place}", (25, 64), (6, 8), 1),
                _Job("{name} studies {subject} at {place} and reads in its library most days", (18, 26), (6, 8), 2,
                     student=True)),
    "park": (_Job("{name} works as a gardener at {place}", (22, 62), (5, 7), 1),
             _Job("{name} is retired and spends {their} mornings at {place}", (63, 82), (5, 8), 1)),
    "hallway": (_Job("{name} works as a caretaker at {place}", (25, 64), (5, 7), 1),),
}
_OTHER = _Job("{name} works at {place}", (20, 62), (6, 8), 1)  # a workplace of a kind the table does not know
_AT_HOME = (_Job("{name} is a writer who works at home", (24, 70), (6, 9), 1),
            _Job("{name} is a software engineer who works from home", (22, 50), (7, 9), 1),
            _Job("{name} is an illustrator who works at home", (20, 55), (7, 9), 1))
_SUBJECTS = ("biology", "history", "economics", "music", "mathematics", "chemistry", "philosophy", "architecture",
             "psychology", "computer science")
_HOME_SHARE = 8  # of 100: how many generated residents work at home


@dataclass
class _Draft:
    """A generated resident before its relationships are written."""

    name: str
    g: str  # "she" or "he"
    home: str
    workplace: str
    job: _Job
    age: int
    wake: int
    subject: str
    traits: str
    hobby: str
    sprite: str


def _kind(arena: str) -> str:
    a = arena.lower()
    return "store" if a.endswith("store") and a != "supply store" else a


def _named(sector: str) -> str:
    """A sector as a sentence names it: "Hobbs Cafe", "Isabella Rodriguez's apartment",
    "the Lin family's house", "the Dorm for Oak Hill College", "2 Maple Street"."""
    if (sector.lower().startswith("the ") or re.match(r"^[A-Z]\w+ [A-Z]\w+( and [A-Z]\w+ [A-Z]\w+)?'s ", sector)
            or re.match(r"^\d+ [A-Z]", sector)):
        return sector
    words = sector.split()
    if " for " in sector or " of " in sector or not all(w[:1].isupper() for w in words):
        return "the " + sector
    return sector


@dataclass
class _Places:
    """What the generator needs of the map's tree."""

    homes: list[str]  # bed arenas
    workplaces: list[str]  # arenas of sectors without beds
    arenas_of: dict[str, list[str]]  # sector -> its arenas, in tree order


def read_places(addresses: Iterable[str]) -> _Places:
    """Homes (arenas with a bed) and workplaces (arenas in sectors with no bed) from an
    address tree; CastError when the map has neither."""
    arenas_of: dict[str, list[str]] = defaultdict(list)
    beds: set[str] = set()
    for a in addresses:
        parts = a.split(":")
        if len(parts) == 3 and a not in arenas_of[parts[1]]:
            arenas_of[parts[1]].append(a)
        elif len(parts) == 4 and re.search(r"\bbed\b", parts[3].lower()):
            beds.add(":".join(parts[:3]))
    homes = [a for arenas in arenas_of.values() for a in arenas if a in beds]
    home_sectors = {h.split(":")[1] for h in homes}
    work = [a for s, arenas in arenas_of.items() if s not in home_sectors for a in arenas]
    if not homes:
        raise CastError("the map has no arena with a bed: there is nowhere for a generated resident to live "
                        "(add a 'bed' object to a home's arena, see maps/README.md)")
    if not work:
        raise CastError("the map has no sector without beds: there is nowhere for a generated resident to work")
    return _Places(homes, work, dict(arenas_of))


def _pronouns(description: str) -> str:
    return "she" if re.search(r"\bshe\b", description) else "he"


def grow_cast(cast: Sequence[Persona], addresses: Iterable[str], n: int, seed: int = 0) -> list[Persona]:
    """The first ``n`` residents of the town: the cast's, then generated ones (seeded).
    CastError for ``n`` below 1 or above MAX_RESIDENTS, or a map with no homes or workplaces."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise CastError(f"the number of residents must be a whole number, got {n!r}")
    if n < 1:
        raise CastError(f"a town needs at least 1 resident, got {n}")
    if n > MAX_RESIDENTS:
        raise CastError(f"{n} residents is more than this generator makes ({MAX_RESIDENTS}); ask for fewer")
    cast = list(cast)
    if n <= len(cast):
        return cast[:n]
    return cast + _Generator(cast, read_places(addresses), seed).make(n - len(cast))


class _Generator:
    def __init__(self, cast: list[Persona], places: _Places, seed: int) -> None:
        # str seeds hash the same in every process (random.Random hashes them with sha512)
        self.rng = random.Random(f"townsfolk:{seed}")
        self.cast, self.places = cast, places
        self.occupants: dict[str, list[str]] = defaultdict(list)  # home arena -> its residents' names
        self.pronoun = {p.name: _pronouns(p.description) for p in cast}
        for p in cast:
            self.occupants[p.home].append(p.name)
        self.looks = {g: [p.slug for p in cast if _pronouns(p.description) == g] for g in ("she", "he")}

    def _names(self, count: int) -> list[tuple[str, str]]:
        """(full name, pronoun): no full name twice, nor any of the cast's; first names
        are used up before any repeats, the cast's last of all."""
        taken = {p.name for p in self.cast}
        cast_firsts = {p.first_name for p in self.cast}
        pools = {g: self.rng.sample(pool, len(pool)) for g, pool in (("she", _FEMALE), ("he", _MALE))}
        for pool in pools.values():
            pool.sort(key=lambda f: f in cast_firsts)  # stable: the shuffle stays within each group
        out: list[tuple[str, str]] = []
        uses: Counter[str] = Counter()
        while len(out) < count:
            g = "she" if self.rng.random() < 0.5 else "he"
            first = min(pools[g], key=lambda f: (uses[f], pools[g].index(f)))
            uses[first] += 1
            for last in self.rng.sample(_SURNAMES, len(_SURNAMES)):
                if f"{first} {last}" not in taken:
                    break
            else:
                continue  # this first name has every surname already: the next draw takes another
            taken.add(f"{first} {last}")
            out.append((f"{first} {last}", g))
        return out

    def _home(self, g: str) -> str:
        """The least crowded bed arena; among those, one nobody of the other sex sleeps in
        (a dorm room, a couple's bedroom); then a seeded order."""
        order = {h: self.rng.random() for h in self.places.homes}
        return min(self.places.homes, key=lambda h: (len(self.occupants[h]),
                                                     any(self.pronoun[o] != g for o in self.occupants[h]), order[h]))

    def _job(self, home: str) -> tuple[str, _Job]:
        if self.rng.randrange(100) < _HOME_SHARE:
            return home, self.rng.choice(_AT_HOME)
        choices = [(w, j) for w in self.places.workplaces for j in _JOBS.get(_kind(w.split(":")[2]), (_OTHER,))]
        return self.rng.choices(choices, weights=[j.weight for _, j in choices])[0]

    def make(self, count: int) -> list[Persona]:
        rng = self.rng
        drafts = []
        for k, (name, g) in enumerate(self._names(count)):
            home = self._home(g)
            self.occupants[home].append(name)
            self.pronoun[name] = g
            workplace, job = self._job(home)
            looks = self.looks[g] or self.looks["she"] or self.looks["he"]
            drafts.append(_Draft(name=name, g=g, home=home, workplace=workplace, job=job,
                                 age=rng.randint(*job.ages), wake=rng.randint(*job.wake),
                                 subject=rng.choice(_SUBJECTS), traits=", ".join(rng.sample(_TRAITS, 3)),
                                 hobby=rng.choice(_HOBBIES), sprite=looks[k % len(looks)] if looks else ""))
        friends = self._friends([d.name for d in drafts], drafts)
        return [self._persona(d, drafts, friends) for d in drafts]

    def _friends(self, names: list[str], drafts: list[_Draft]) -> dict[str, list[str]]:
        """One or two friends each among the generated, both ways, never a housemate or a
        coworker (those are written already)."""
        close = {d.name: {e.name for e in drafts if e.name != d.name and
                          (e.home.split(":")[1] == d.home.split(":")[1] or e.workplace == d.workplace)}
                 for d in drafts}
        friends: dict[str, list[str]] = {n: [] for n in names}
        for who in names:
            want = 1 + (self.rng.random() < 0.5)
            pool = [o for o in names if o != who and o not in close[who] and o not in friends[who]
                    and len(friends[o]) < 2]
            for other in self.rng.sample(pool, min(len(pool), max(0, want - len(friends[who])))):
                friends[who].append(other)
                friends[other].append(who)
        return friends

    def _persona(self, d: _Draft, drafts: list[_Draft], friends: dict[str, list[str]]) -> Persona:
        name, g, home, workplace, job = d.name, d.g, d.home, d.workplace, d.job
        they, their = g, ("her" if g == "she" else "his")
        verb = {"likes": "likes", "is": "is", "reads": "reads", "keeps": "keeps", "collects": "collects"}
        sector = home.split(":")[1]
        work_sector = workplace.split(":")[1]
        phrases = [job.phrase.format(name=name, place=_named(work_sector), subject=d.subject, their=their)]
        mates = [n for n in self.occupants[home] if n != name]
        mates += [e.name for e in drafts if e.home != home and e.home.split(":")[1] == sector]
        mates += [p.name for p in self.cast if p.home != home and p.home.split(":")[1] == sector]
        if mates:
            phrases.append(f"{they} lives in {_named(sector)}, which {they} shares with {_listing(mates[:3])}")
        else:
            phrases.append(f"{they} lives alone in {_named(sector)}")
        coworkers = [e.name for e in drafts if e.name != name and e.workplace == workplace
                     and workplace != home and e.job.student == job.student][:2]
        if coworkers:
            together = "studies" if job.student else "works"
            phrases.append(f"{they} {together} alongside {_listing(coworkers)} at {_named(work_sector)}")
        if friends[name]:
            phrases.append(f"{they} is good friends with {_listing(friends[name])}")
        phrases.append(d.hobby.format(they=they, **verb))
        places = self._known(home, workplace, g)
        return Persona(name=name, age=d.age, traits=d.traits, description="; ".join(phrases), home=home,
                       workplace=workplace, wake_hour=d.wake, places=places, sprite=d.sprite)

    def _known(self, home: str, workplace: str, g: str) -> list[str]:
        """The home's other rooms (not another's private bathroom, not the other sex's), and
        two public places besides the workplace."""
        sector = home.split(":")[1]
        owner = re.match(r"^(.*)'s (room|bedroom)$", home.split(":")[2])
        out = []
        for a in self.places.arenas_of.get(sector, []):
            arena = a.split(":")[2]
            if a == home or "bed" in arena or arena.endswith("'s room"):
                continue  # another bedroom is someone else's
            if "bathroom" in arena:
                private = re.match(r"^([A-Z]\w+ [A-Z]\w+)'s bathroom$", arena)  # a resident's own, not "man's"
                if private and not (owner and private.group(1) == owner.group(1)):
                    continue
                if arena.startswith(("man's", "men's")) and g == "she":
                    continue
                if arena.startswith(("woman's", "women's")) and g == "he":
                    continue
            out.append(a)
        public = [w for w in self.places.workplaces if w != workplace and _kind(w.split(":")[2]) != "hallway"]
        out += self.rng.sample(public, min(2, len(public)))
        return out


def _listing(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


__all__ = ["MAX_RESIDENTS", "grow_cast", "read_places"]
