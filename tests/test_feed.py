"""The town feed (issue 34): what the event log says worth noticing (game/runs/feed.py), built
on its own thread (game/runs/live_feed.py), and the arrangements a conversation makes going
into the event log (game/sim/conversations.py). No pygame here: tests/test_feed_view.py drives
the panel, the saves and the replay."""
from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest

from game.runs.feed import FOLD_MIN, MAX_ENTRIES, Entry, FeedBuilder, news_topic, news_word
from game.runs.live_feed import LiveFeed
from game.sim.eventlog import EventLog

ISA, MARIA, KLAUS, AYESHA, WOLF = "Isabella Rodriguez", "Maria Lopez", "Klaus Mueller", "Ayesha Khan", "Wolfgang Schulz"
CAFE = "the Ville:Hobbs Cafe:cafe:counter"
PARK = "the Ville:Johnson Park:park:bench"
HOME = "the Ville:Isabella Rodriguez's apartment:main room:bed"
T0 = datetime(2023, 2, 13, 10, 0)


def at(minutes: float) -> str:
    return (T0 + timedelta(minutes=minutes)).isoformat(sep=" ")


def ev(when: float, resident, kind: str, text: str = "", address: str = "", **extra) -> dict:
    return {"time": at(when), "resident": resident, "kind": kind, "text": text, "address": address, **extra}


def talk(minutes: float, cid: str, a: str, b: str, *lines: tuple[str, str]) -> list[dict]:
    """A whole conversation as the simulation logs it: chat, its lines, the end."""
    out = [ev(minutes, a, "chat", f"starts a conversation with {b}", CAFE, conversation=cid, partner=b)]
    for k, (who, text) in enumerate(lines, 1):
        out.append(ev(minutes + k * 0.5, who, "line", text, CAFE, conversation=cid, partner=b if who == a else a))
    out.append(ev(minutes + len(lines) * 0.5 + 0.5, a, "chat", f"ends the conversation with {b}", CAFE,
                  conversation=cid, partner=b, ended=True))
    return out


def builder(**kw) -> FeedBuilder:
    return FeedBuilder([ISA, MARIA, KLAUS, AYESHA, WOLF], [HOME], ["Hobbs Cafe", "Johnson Park"], **kw)


# ---------------------------------------------------------------------- what each kind of event makes
def test_news_names_who_told_whom_what():
    assert news_topic("I'm hosting a Valentine's Day party at Hobbs Cafe tomorrow at 5 pm!", ["Hobbs Cafe"]) \
        == "the Valentine's Day party at Hobbs Cafe"
    assert news_topic("Sam is running in the local mayoral election", []) == "the election"
    # An event word as a verb is no news: the feed had "Hailey told Adam about the Still reading".
    assert news_topic("Adam! So good to see you. Still reading about a research paper at a library table?", []) == ""
    assert news_topic("I'm meeting Klaus at the library at noon", ["the library"]) == ""
    assert news_topic("Are you coming to the Party?", []) == "the party"
    assert news_topic("Lovely weather today.", ["Hobbs Cafe"]) == ""
    assert news_word("the Valentine's Day party at Hobbs Cafe") == "party"
    assert news_word("the election") == "election" and news_word("") == ""


def test_a_talk_then_the_news_it_carried():
    b = builder()
    b.extend(talk(0, "c1", ISA, MARIA, (ISA, "Hi Maria, how are you?"), (MARIA, "Fine, thanks!")))
    (e,) = b.newest()
    assert e.kind == "talk" and e.who == (ISA, MARIA)
    assert e.text.startswith("Isabella and Maria talked at Hobbs Cafe: “Hi Maria")
    assert e.why == ("line", at(0.5), "Hi Maria, how are you?")  # the Why? of its first line
    b.extend(talk(60, "c2", ISA, KLAUS, (ISA, "Hi Klaus!"),
                  (ISA, "I'm hosting a Valentine's Day party at Hobbs Cafe tomorrow at 5 pm.")))
    news = b.newest()[0]
    assert news.kind == "news" and news.category == "talk"
    assert news.text == "Isabella told Klaus about the Valentine's Day party at Hobbs Cafe"
    assert news.topic == "the Valentine's Day party at Hobbs Cafe"
    assert news.why == ("line", at(61), "I'm hosting a Valentine's Day party at Hobbs Cafe tomorrow at 5 pm.")
    assert news.line().startswith("11:01 Isabella told Klaus")


def test_the_same_two_talking_again_within_minutes_fold_into_one_entry():
    b = builder()
    b.extend(talk(0, "c1", ISA, MARIA, (ISA, "Hi!")))
    b.extend(talk(10, "c2", MARIA, ISA, (MARIA, "Me again!")))  # the other way round: the same pair
    (e,) = b.newest()
    assert e.times == 2 and e.line().endswith("(×2)") and e.time == at(10)
    b.extend(talk(10 + FOLD_MIN + 5, "c3", ISA, MARIA, (ISA, "Later!")))
    assert [x.times for x in b.newest()] == [1, 2]  # later than FOLD_MIN: a new entry
    b.extend(talk(80, "c4", ISA, KLAUS, (ISA, "Hi Klaus")))
    assert len(b.newest()) == 3  # another pair is another entry


def test_plans_arranged_in_talk_one_entry_for_both_sides_and_kept_later():
    b = builder()
    plan = dict(partner=MARIA, start="2023-02-14 17:00:00", minutes=120)
    b.add(ev(5, ISA, "arrange", "the Valentine's Day party", CAFE, **plan))
    b.add(ev(5, MARIA, "arrange", "the Valentine's Day party", CAFE, partner=ISA, start=plan["start"]))
    (e,) = b.newest()
    assert e.kind == "arrangement" and e.category == "plans"
    assert e.text == "Isabella and Maria arranged: the Valentine's Day party at Hobbs Cafe Tue 17:00"
    # the day comes: the plan item the rule cut in says whose arrangement it is
    b.add(ev(60, MARIA, "action", "going to the Valentine's Day party", CAFE,
             source="rule (guided: an arrangement agreed with Isabella Rodriguez on Monday February 13)"))
    assert b.newest()[0].text == ("Maria keeps a plan made with Isabella: going to the Valentine's Day party at "
                                  "Hobbs Cafe")
    b.add(ev(70, MARIA, "action", "dancing at the party", CAFE,
             source="rule (guided: an arrangement agreed with Isabella Rodriguez on Monday February 13)"))
    assert len(b.newest()) == 2  # the next step of the same plan is no news
    # a slot of the guided day chosen from a memory of being told (agents/planning/plan.py chosen_tag)
    heard = ("repaired (guided: chosen from 4 candidates, from memory #12 (Isabella Rodriguez told Klaus "
             "Mueller: \"I'm hosting a Valentine's Day party at Hobbs Cafe tomorrow\"))")
    b.add(ev(80, KLAUS, "action", "going to the party", CAFE, source=heard))
    b.add(ev(85, KLAUS, "action", "chatting at the party", CAFE, source=heard))
    got = b.newest()
    assert len(got) == 3 and got[0].kind == "replan" and got[0].category == "plans"
    assert got[0].text.startswith("Klaus acts on what Isabella told: “I'm hosting a Valentine's Day party")
    assert got[0].text.endswith(": going to the party at Hobbs Cafe")


def test_reactions_replans_and_the_inner_voice():
    b = builder()
    b.add(ev(1, KLAUS, "action", "watching the argument", PARK, note="reflected: x; reacted to: Carlos shouting"))
    b.add(ev(2, MARIA, "inner_voice", "You should run for mayor", CAFE))
    b.add(ev(2, MARIA, "action", "writing a campaign speech", CAFE,
             note="replanned for the inner voice: You should run for mayor; inner voice -> writing a speech"))
    b.add(ev(3, KLAUS, "action", "reading", PARK, note="next: reading"))  # the plan going on: no news
    kinds = [e.kind for e in b.newest()]
    assert kinds == ["replan", "inner voice", "reaction"]
    reaction = b.newest()[-1]
    assert reaction.text == "Klaus reacts to “Carlos shouting”: watching the argument"
    assert reaction.why == ("reaction", at(1), "")  # the decision to react


def test_reflections_made_at_once_fold():
    b = builder()
    b.add(ev(1, KLAUS, "reflect", "Klaus cares about his research on gentrification"))
    b.add(ev(1, KLAUS, "reflect", "Klaus enjoys talking with Maria"))
    b.add(ev(30, KLAUS, "reflect", "Klaus should sleep more"))
    got = b.newest()
    assert [e.times for e in got] == [1, 2]
    assert got[1].text == "Klaus reflects: “Klaus cares about his research on gentrification”"
    assert got[1].why == ("reflection", at(1), "Klaus cares about his research on gentrification")


def test_world_edits_and_the_reactions_to_them():
    b = builder()
    b.add(ev(0, None, "edit", "You set the stove to burning", HOME.replace(":bed", ":stove"), by="You",
             state="burning"))
    b.add(ev(3, ISA, "action", "putting out the fire", HOME, note="reacted to: stove is burning"))
    b.add(ev(200, ISA, "action", "calming down", HOME, note="reacted to: stove is burning"))  # hours later
    got = b.newest()
    assert [e.kind for e in got] == ["reaction", "edit reaction", "edit"]
    assert got[2].text == "You set the stove to burning (Isabella Rodriguez's apartment)"
    assert got[2].category == got[1].category == "world"
    assert got[1].text == "Isabella reacts to the stove (burning): putting out the fire"


def test_a_gathering_in_a_public_place_not_at_home_and_more_needed_where_people_eat_at_meals():
    b = builder()
    for k, who in enumerate((ISA, MARIA, KLAUS)):
        b.add(ev(20 + k, who, "arrive", "", PARK))  # 10:20: no meal
    (e,) = b.newest()
    assert e.kind == "gathering" and e.who == (ISA, KLAUS, MARIA)
    assert e.text == "3 residents gather at Johnson Park: Isabella, Klaus, Maria"
    b.add(ev(25, AYESHA, "arrive", "", PARK))  # it grows: the same entry
    assert len(b.newest()) == 1 and b.newest()[0].text.startswith("4 residents")
    for k, who in enumerate((ISA, MARIA, KLAUS)):  # they leave for elsewhere (an action at another place)
        b.add(ev(30 + k, who, "action", "going home", HOME))
    for k, who in enumerate((ISA, MARIA, KLAUS)):  # at home: no gathering
        b.add(ev(40 + k, who, "arrive", "", HOME))
    assert len(b.newest()) == 1
    for k, who in enumerate((ISA, MARIA, KLAUS)):  # lunch at the cafe: 3 is no gathering at noon
        b.add(ev(125 + k, who, "arrive", "", CAFE))
    assert len(b.newest()) == 1
    b.add(ev(130, AYESHA, "arrive", "", CAFE))
    b.add(ev(131, WOLF, "arrive", "", CAFE))
    assert b.newest()[0].text.startswith("5 residents gather at Hobbs Cafe")
    assert b.newest()[0].matches(topic="gatherings")
    for k, who in enumerate((ISA, MARIA, KLAUS)):  # ... but 3 in the park at noon are (nobody eats there)
        b.add(ev(140 + k, who, "arrive", "", PARK))
    assert b.newest()[0].text == "3 residents gather at Johnson Park: Isabella, Klaus, Maria"


def test_residents_at_their_own_workplace_are_no_gathering():
    b = FeedBuilder([ISA, MARIA, KLAUS, AYESHA], [], [], workplaces={
        ISA: CAFE, MARIA: "the Ville:Oak Hill College:classroom", KLAUS: "the Ville:Oak Hill College:library",
        AYESHA: "the Ville:Oak Hill College:classroom"})
    for k, who in enumerate((MARIA, KLAUS, AYESHA)):  # the students in class
        b.add(ev(k, who, "arrive", "", "the Ville:Oak Hill College:classroom:desk"))
    assert b.newest() == []
    for k, who in enumerate((ISA, MARIA, KLAUS, AYESHA)):  # at the cafe: Isabella works there, the rest came
        b.add(ev(10 + k, who, "arrive", "", CAFE))
    (e,) = b.newest()
    assert e.who == (AYESHA, KLAUS, MARIA) and e.text == "3 residents gather at Hobbs Cafe: Ayesha, Klaus, Maria"
    again = b.blank()
    assert again.workplaces == b.workplaces and again.newest() == []


def test_the_visitor_is_not_news_and_greetings_are_not_either():
    b = builder()
    b.add(ev(0, "Alex", "line", "hello", CAFE, partner=ISA))
    b.add(ev(0, ISA, "chat", "greets Alex", CAFE, partner="Alex", greeting=True))
    b.add(ev(0, ISA, "line", "Hi Alex!", CAFE, partner="Alex", greeting=True))
    assert b.newest() == [] and b.skipped == 0


def test_garbage_events_are_skipped_and_counted_never_a_crash():
    b = builder()
    junk = ["a string", None, 42, {}, {"kind": "line"}, {"time": "yesterday", "kind": "chat", "resident": ISA},
            {"time": at(0), "kind": 7}, {"time": at(0), "kind": "line", "resident": 5},
            {"time": at(0), "kind": "chat", "resident": ISA},  # a conversation without a partner or an id
            {"time": at(0), "kind": "reflect", "resident": KLAUS},  # no text
            {"time": at(0), "kind": "arrange", "resident": ISA, "start": "soon"}]  # no text
    for x in junk:
        assert b.add(x) is None
    assert b.skipped == len(junk) and b.seen == len(junk) and b.newest() == []
    b.extend(talk(1, "c1", ISA, MARIA, (ISA, "Hi")))  # the feed goes on after garbage
    assert len(b.newest()) == 1
    b.add(ev(2, ISA, "mystery", "a kind nobody knows"))  # an unknown kind is no news, and no garbage
    assert b.skipped == len(junk)


def test_the_feed_is_bounded_newest_first_and_filters_by_resident_and_topic():
    b = builder(max_entries=50)
    for k in range(120):
        b.add(ev(k * 40, KLAUS if k % 2 else ISA, "reflect", f"thought {k}"))
    got = b.newest()
    assert len(got) == 50 and got[0].text.endswith("“thought 119”") and got[-1].text.endswith("“thought 70”")
    assert MAX_ENTRIES >= 100
    assert all(e.who == (KLAUS,) for e in b.newest("Klaus"))
    assert all(e.who == (ISA,) for e in b.newest("isabella rodriguez"))
    assert b.newest("thought 101")[0].text.endswith("“thought 101”")  # any word of the line
    assert b.newest(topic="plans") == [] and len(b.newest(topic="reflections", limit=5)) == 5


def test_the_state_round_trips_and_a_damaged_one_is_refused_by_name():
    b = builder()
    b.extend(talk(0, "c1", ISA, MARIA, (ISA, "the party at Hobbs Cafe!")))
    events = talk(5, "c2", ISA, KLAUS, (ISA, "Hi"))
    b.extend(events[:2])  # a conversation under way when saved
    b.add(ev(6, MARIA, "arrive", "", PARK))
    b.add("garbage")
    again = builder()
    again.from_state(b.to_state())
    assert [e.to_dict() for e in again.entries] == [e.to_dict() for e in b.entries]
    assert (again.seen, again.skipped) == (b.seen, b.skipped) == (7, 1)
    for x in (b, again):  # both go on the same way: the conversation under way ends, news and all
        x.extend(events[2:])
        x.add(ev(7, ISA, "arrive", "", PARK))
        x.add(ev(7, KLAUS, "arrive", "", PARK))
    assert [e.to_dict() for e in again.entries] == [e.to_dict() for e in b.entries]
    assert again.newest()[0].kind == "gathering"
    for bad, says in (([], "not a mapping"), ({"entries": [], "pairs": [[1]]}, "damaged")):
        with pytest.raises(ValueError, match=says):
            builder().from_state(bad)
    for entry, says in (({"id": 1}, "lacks time, kind, who, text"),
                        ({"id": 1, "time": "x", "kind": "talk", "who": [], "text": ""}, "not an ISO time"),
                        ("talk", "mapping")):
        with pytest.raises(ValueError, match=says):
            Entry.from_dict(entry)
        kept = builder()  # a damaged entry of a saved feed is left out, and counted; the rest are kept
        kept.from_state({"entries": [entry, b.entries[0].to_dict()]})
        assert kept.dropped == 1 and [e.id for e in kept.entries] == [b.entries[0].id]


# ---------------------------------------------------------------------- the live feed's thread
def test_the_live_feed_reads_the_event_log_on_its_thread_and_only_what_is_new():
    log = EventLog(window=8)
    feed = LiveFeed(builder())
    try:
        assert feed.pump(log) == 0
        log.extend(talk(0, "c1", ISA, MARIA, (ISA, "Hi")))
        assert feed.pump(log) == 3 and feed.pump(log) == 0
        assert feed.flush() and [e.kind for e in feed.newest()] == ["talk"]
        v = feed.version
        log.extend(talk(60, "c2", ISA, KLAUS, (ISA, "the party at Hobbs Cafe")))
        feed.pump(log)
        feed.flush()
        assert feed.version > v and feed.hud_line().endswith("Isabella told Klaus about the party at Hobbs Cafe")
        for k in range(20):  # more than the log keeps in memory between two pumps: the oldest are left out
            log.append(ev(100 + k, KLAUS, "reflect", f"thought {k}"))
        assert feed.pump(log) == 8 and feed.dropped == 12
        feed.flush()
        assert feed.newest()[0].text.endswith("“thought 19”") and feed.builder.seen == len(log)
    finally:
        feed.close()


def test_a_loaded_feed_reads_on_and_one_without_a_save_is_rebuilt_from_the_events():
    log = EventLog()
    log.extend(talk(0, "c1", ISA, MARIA, (ISA, "Hi")))
    feed = LiveFeed(builder())
    try:
        feed.pump(log)
        feed.flush()
        state = feed.to_state()
        log.extend(talk(60, "c2", ISA, KLAUS, (ISA, "Hi Klaus")))  # after the save: not yet read
        assert feed.load(state, len(log)) == "restored"
        feed.pump(log)
        feed.flush()
        assert [e.who for e in feed.newest()] == [(ISA, KLAUS), (ISA, MARIA)]  # read on from the save's place
        assert feed.load(None, len(log)).startswith("rebuilt") and feed.newest() == []
        feed.pump(log)
        feed.flush()
        assert len(feed.newest()) == 2  # rebuilt from the events
        how = feed.load({"entries": "nonsense"}, len(log))
        assert how.startswith("rebuilt (the saved feed was damaged") and "list of entries" in how
        how = feed.load({**state, "seen": 999}, len(log))  # reads past the saved events: not this save's
        assert "999" in how
        feed.pump(log)
        feed.flush()
        assert len(feed.newest()) == 2
    finally:
        feed.close()


# ---------------------------------------------------------------------- arrangements into the event log
def test_an_arrangement_a_conversation_made_goes_into_the_event_log():
    from game.sim.conversations import log_arrangement

    logged = []
    sim = SimpleNamespace(log_event=lambda *a, **k: logged.append((a, k)))
    conv = SimpleNamespace(other=lambda name: MARIA)
    job = SimpleNamespace(conversation=conv)
    plan = SimpleNamespace(start=datetime(2023, 2, 14, 17), minutes=120, description="the party", address=CAFE)
    log_arrangement(sim, ISA, job, plan)
    assert logged == [((ISA, "arrange", "the party", CAFE),
                       {"partner": MARIA, "start": "2023-02-14 17:00:00", "minutes": 120})]
    for nothing in (None, "done", SimpleNamespace(start="tomorrow", description="x")):
        log_arrangement(sim, ISA, job, nothing)
    assert len(logged) == 1


def test_the_timeline_shows_an_arrangement_too():
    from game.runs.timeline import render_timeline

    md = render_timeline([ev(5, ISA, "arrange", "the Valentine's Day party", CAFE, partner=MARIA,
                             start="2023-02-14 17:00:00", minutes=120)])
    assert ("- 📅 **Isabella Rodriguez** arranged with Maria Lopez: the Valentine's Day party — "
            "*Hobbs Cafe › cafe › counter*, 2023-02-14 17:00") in md


def test_the_feed_bench_reports_the_frames_share_and_the_threads():
    from lab.bench.feed import bench_feed, town_events
    from lab.bench.measure import Context

    got = bench_feed(Context(quick=True))
    assert got["events"] == 3000 and got["entries"] == got["state_entries"] == MAX_ENTRIES
    assert got["pump_n"] == 375 and got["read_n"] > 0 and got["builder_us_per_event"] > 0
    kinds = {e["kind"] for e in town_events(500, 0)}
    assert kinds == {"chat", "line", "reflect", "arrive", "action"}  # the mix the simulation logs


def test_a_replay_finds_gatherings_by_the_games_rules_from_where_everyone_was():
    import numpy as np

    from game.replay.feed import arrivals, build_entries

    names = [ISA, MARIA, KLAUS, AYESHA]
    frames = 60
    tiles = np.zeros((frames, 5, 2), dtype=np.int16)  # [frame, slot, (x, y)]; slot 4: the visitor
    tiles[:, :, 0] = [0, 1, 2, 3, 9]  # everyone in the west (the park) but ...
    tiles[:12, 2, 0] = 8  # ... Klaus, east (the cafe, his workplace here) for the first two minutes
    tiles[30:, 1, 0] = 8  # Maria goes east at frame 30
    sector_ids = np.array([[0] * 5 + [1] * 5], dtype=np.int32)
    town = SimpleNamespace(sector_ids=sector_ids,
                           sector_at=lambda x, y: "the Ville:Johnson Park" if x < 5 else "the Ville:Hobbs Cafe",
                           sectors=lambda: ["the Ville:Johnson Park", "the Ville:Hobbs Cafe"])
    rec = SimpleNamespace(residents=names, last=frames - 1, tiles=tiles, events=[], actions=[([], [])] * 4,
                          time_of=lambda f: T0 + timedelta(seconds=10 * f))
    got = arrivals(rec, town)
    assert [(e["resident"], e["s"], e["address"]) for e in got if e["resident"] == MARIA] == [
        (MARIA, 0, "the Ville:Johnson Park"), (MARIA, 30, "the Ville:Hobbs Cafe")]
    personas = {n: SimpleNamespace(home="", workplace="the Ville:Hobbs Cafe:cafe" if n == KLAUS else "")
                for n in names}
    entries, skipped = build_entries(rec, town, personas)
    assert skipped == 0
    (g,) = [e for e in entries if e.kind == "gathering"]
    assert g.text == "4 residents gather at Johnson Park: Ayesha, Isabella, Klaus, Maria" and g.frame == 12
