"""What residents agree to, they do (issue 46): a yes to lunch or to a gathering enters the
plan at once in place of what was there, stays there through later replans and reactions,
and both sides go to the same arena. Each cause found in the week of 8 residents
(/tmp/runs/week8) is reproduced here with the scripted model."""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from agents.mind.core import Mind
from agents.planning import day as days
from agents.planning import plan as planning
from agents.planning.arrangements import keep_arrangements
from agents.planning.decompose import step_candidates
from agents.planning.plan import PlanItem, item_at
from agents.planning.react import react
from agents.planning.replan import replan_guided
from agents.recall.spatial import SpatialMemory
from agents.residents.mind_settings import MindSettings
from agents.support.types import Conversation, Utterance
from tests.fakes import HashEmbedder, make_gateway
from tests.scripted_minds import event, persona, plausible

NOW = datetime(2023, 2, 14, 8, 0)
NOON = NOW.replace(hour=12)
HOBBS = "the Ville:Hobbs Cafe:cafe"


def resident(name: str, responder=plausible, **changes) -> Mind:
    m = Mind(replace(persona(name), **changes), make_gateway(responder, timeout=30.0, deadline=60.0),
             HashEmbedder(64), MindSettings(grounded=True, planning="guided"))
    m.start_turn(NOW)
    return m


def day_with_lunch_at_home(m: Mind) -> None:
    """A plan for today with lunch at home at noon, as the guided day plan makes it."""
    home = m.persona.home
    m.today.plan = [PlanItem(NOW, 240, "working at the cafe", HOBBS, "model"),
                    PlanItem(NOON, 60, "having lunch", home, "model"),
                    PlanItem(NOON.replace(hour=13), 540, "reading a book", home, "model"),
                    PlanItem(NOW.replace(hour=22), 480, "sleeping", home, "model")]
    m.today.planned_for = NOW.date()


def offer_and_yes(host: str, guest: str, offer: str, act: str = "meet") -> Conversation:
    said = Utterance(host, offer, source=f"repaired: grounded: today's plan; act {act}")
    yes = Utterance(guest, "Gladly! I'll join you today at 12 pm.",
                    source="repaired: grounded: the invitation; chosen from 2 acts; act accept")
    return Conversation((host, guest), HOBBS, NOW, [said, yes])


def reacting(purpose, messages, schema):
    if purpose == "react":
        return {"react": True, "activity": "chatting with Klaus Mueller", "minutes": 60}
    return plausible(purpose, messages, schema)


LUNCH_AT_HOBBS = "Wolfgang, I'll be having lunch at Hobbs Cafe today at 12 pm. Would you like to join me?"


def test_a_yes_to_lunch_elsewhere_replaces_lunch_at_home():
    """week8, Feb 15: Jennifer said yes to lunch with Sam at Hobbs Cafe and cooked lunch at home:
    her plan's 'having lunch' at noon was taken for the same arrangement, which never entered it."""
    m = resident("Wolfgang Schulz")
    day_with_lunch_at_home(m)
    m.end_conversation(offer_and_yes("Maria Lopez", m.name, LUNCH_AT_HOBBS), NOW)
    at_noon = item_at(m.today.plan, NOON)
    assert at_noon is not None and at_noon.address == HOBBS and "Maria Lopez" in at_noon.description
    assert at_noon.minutes == 60  # lunch together: an hour
    assert any(x.kind == "plan" and "having lunch with Maria Lopez at Hobbs Cafe" in x.description
               for x in m.memory.nodes)


def test_the_one_who_offered_keeps_it_as_an_arrangement_too():
    """The offer came from the host's own plan; it is an arrangement all the same (one, however
    many said yes), so a replan cannot take it away."""
    m = resident("Maria Lopez")
    day_with_lunch_at_home(m)
    m.today.plan[1] = PlanItem(NOON, 60, "having lunch", HOBBS, "model")
    for guest in ("Wolfgang Schulz", "Klaus Mueller"):
        offer = LUNCH_AT_HOBBS.replace("Wolfgang", guest.split()[0])
        m.end_conversation(offer_and_yes(m.name, guest, offer), NOW)
    assert [a.address for a in m.today.arrangements] == [HOBBS]
    at_noon = item_at(m.today.plan, NOON)
    assert at_noon is not None and at_noon.address == HOBBS and at_noon.description == "having lunch"


def test_an_arrangement_for_today_survives_a_replan_and_a_reaction():
    """Cut into the plan once, a yes was lost to the next replan: it was kept only for other days."""
    m = resident("Wolfgang Schulz", reacting)
    day_with_lunch_at_home(m)
    m.end_conversation(offer_and_yes("Maria Lopez", m.name, LUNCH_AT_HOBBS), NOW)
    assert [a.address for a in m.today.arrangements] == [HOBBS]
    # a replan after news (agents/planning/day.py consider_news) asks every slot again
    m.today.plan = keep_arrangements(replan_guided(m, NOW.replace(hour=9), ""), m.today.arrangements,
                                     NOW.replace(hour=9))
    at_noon = item_at(m.today.plan, NOON)
    assert at_noon is not None and at_noon.address == HOBBS and "Maria Lopez" in at_noon.description
    # a reaction at 11:30 for an hour (a long chat with a neighbour) gives way at noon
    m.now = NOW.replace(hour=11, minute=30)
    m.senses.last_react = None
    assert react(m, [event("Klaus Mueller", "chatting about the news")], HOBBS) is not None
    at_noon = item_at(m.today.plan, NOON)
    assert at_noon is not None and at_noon.address == HOBBS and "Maria Lopez" in at_noon.description
    # a plan rewritten by the rule's words: the arrangement comes back
    day_with_lunch_at_home(m)
    m.today.plan = keep_arrangements(m.today.plan, m.today.arrangements, NOW)
    assert item_at(m.today.plan, NOON).address == HOBBS


def test_a_place_not_yet_visited_is_learnt_from_the_offer():
    """Said yes to lunch at The Rose and Crown Pub, which it had never been to: the arrangement
    went to an arena it knew (Hobbs Cafe), where it ate alone."""
    m = resident("Wolfgang Schulz")
    day_with_lunch_at_home(m)
    assert not m.spatial.knows("the Ville:The Rose and Crown Pub")
    offer = "Wolfgang, I'll be having lunch at The Rose and Crown Pub today at 12 pm. Would you like to join me?"
    m.end_conversation(offer_and_yes("Maria Lopez", m.name, offer), NOW)
    at_noon = item_at(m.today.plan, NOON)
    assert at_noon is not None and at_noon.address == "the Ville:The Rose and Crown Pub:pub"
    assert m.spatial.knows("the Ville:The Rose and Crown Pub:pub:bar counter")


def test_host_and_guest_go_to_the_same_arena_whatever_their_workplaces():
    """week8: Maria hosted the study group at Oak Hill College in the classroom (her workplace),
    Ayesha went to it in the library (hers); neither saw the other."""
    college = ["the Ville:Oak Hill College:classroom", "the Ville:Oak Hill College:library",
               "the Ville:Oak Hill College:hallway"]
    host = resident("Maria Lopez", workplace=college[0], places=college)
    guest = resident("Ayesha Khan", workplace=college[1], places=college)
    invite = ("Ayesha, you're invited! I'm hosting a study group at Oak Hill College on February 14, "
              "from 3 pm to 5 pm.")
    said = Utterance(host.name, invite, source="rule: grounded: memory #7; act invite")
    yes = Utterance(guest.name, "Yes, Maria, I'll come to the study group. Thank you!",
                    source="repaired: grounded: the invitation; chosen from 2 acts; act accept")
    c = Conversation((host.name, guest.name), HOBBS, NOW, [said, yes])
    for m in (host, guest):
        day_with_lunch_at_home(m)
        m.end_conversation(c, NOW)
    hosting, going = host.today.arrangements, guest.today.arrangements
    assert len(hosting) == len(going) == 1
    assert hosting[0].description.startswith("hosting") and going[0].description.startswith("attending")
    assert hosting[0].address == going[0].address
    # ... and so does the host's own intention, read from its memory (agents/planning/agenda.py)
    host.remember("thought", "I want to host a study group at Oak Hill College on February 14, from 3 pm to 5 pm", 8,
                  subject=host.name)
    own = [e for e in planning.agenda_of(host, NOW) if "study group" in e.description]
    assert own and {e.address for e in own} == {going[0].address}


def test_a_second_yes_at_the_same_hour_leaves_the_first_and_the_resident_knows_why():
    """Two yeses at noon: the first stands (what was agreed first is done), and a memory says
    why it will not be at the second."""
    m = resident("Wolfgang Schulz")
    day_with_lunch_at_home(m)
    m.end_conversation(offer_and_yes("Maria Lopez", m.name, LUNCH_AT_HOBBS), NOW)
    pub = "Wolfgang, I'll be having lunch at The Rose and Crown Pub today at 12 pm. Would you like to join me?"
    m.end_conversation(offer_and_yes("Klaus Mueller", m.name, pub), NOW)
    assert [a.made for a in m.today.arrangements] == ["agreed with Maria Lopez on Tuesday February 14"]
    assert "Maria Lopez" in item_at(m.today.plan, NOON).description
    why = [x for x in m.memory.nodes if x.predicate == "cannot keep"]
    assert len(why) == 1 and why[0].object == "Klaus Mueller"
    assert why[0].description == ("I won't be having lunch with Klaus Mueller at The Rose and Crown Pub at 12:00 "
                                  "on Tuesday February 14 (agreed with Klaus Mueller on Tuesday February 14): I will "
                                  "be having lunch with Maria Lopez then (agreed with Maria Lopez on Tuesday "
                                  "February 14 before)")


def test_one_leaves_for_what_one_agreed_to_ahead_of_its_hour():
    """Both set off at noon and came 10 to 15 minutes late to lunch (week8, b25): a quarter of
    an hour before an arrangement elsewhere, its first step begins, the walk in it."""
    m = resident("Wolfgang Schulz")
    day_with_lunch_at_home(m)
    offer = "Wolfgang, I'll be having lunch at The Rose and Crown Pub today at 12 pm. Would you like to join me?"
    m.end_conversation(offer_and_yes("Maria Lopez", m.name, offer), NOW)
    m.now = NOON.replace(hour=11, minute=30)
    assert days.next_action(m).address.startswith(HOBBS)  # at work till a quarter to
    m.now = NOON.replace(hour=11, minute=45)
    act = days.next_action(m)
    assert act.address.startswith("the Ville:The Rose and Crown Pub:pub") and act.start == m.now
    # ... not for what it does where it is anyway, nor for what it did not agree to
    m.today.arrangements.clear()
    m.today.pending = []
    assert days.next_action(m).address.startswith(HOBBS)


def test_a_yes_to_a_place_it_cannot_find_is_no_arrangement_somewhere_else():
    """week8: Isabella said yes to Wolfgang's study group at Oak Hill College, which she did not
    know, and her arrangement put it at her own Hobbs Cafe."""
    m = resident("Isabella Rodriguez")
    day_with_lunch_at_home(m)
    invite = "Isabella, I'm hosting a study group at Oak Hill College on February 14, from 3 pm to 5 pm."
    m.end_conversation(offer_and_yes("Wolfgang Schulz", m.name, invite, act="invite"), NOW)
    assert m.today.arrangements == [] and m.rejected["arrangement"] == 1
    assert not any("study group" in x.description for x in m.today.plan)


def test_a_gathering_is_broken_into_its_own_steps_not_the_places_work():
    """week8: Maria's plan held 'hosting the study group' at 15:00 in the classroom; its steps,
    chosen among a student's class steps, had her 'attending a physics lecture' instead."""
    college = "the Ville:Oak Hill College:classroom"
    maria = replace(persona("Maria Lopez"), workplace=college)
    sp = SpatialMemory()
    sp.seed(maria)
    three = NOW.replace(hour=15)
    for words, steps in (("hosting the study group", ["greeting the guests at the door", "chatting with the guests"]),
                         ("attending the study group", ["greeting the host", "chatting with the other guests"])):
        got = [t for t, _ in step_candidates(sp, PlanItem(three, 120, words, college), three,
                                             three.replace(hour=16), maria, ["I am attending physics classes"])]
        assert got == [words] + steps
    lecture = step_candidates(sp, PlanItem(three, 60, "attending a physics lecture", college), three,
                              three.replace(hour=16), maria)
    assert "taking notes in class" in [t for t, _ in lecture]  # class is class


def test_something_urgent_makes_one_late_and_one_remembers_why():
    """A chat does not keep one from lunch agreed at noon; a stove on fire at 11:55 does, for
    as long as it takes, and the resident remembers why it was late."""
    m = resident("Wolfgang Schulz")
    day_with_lunch_at_home(m)
    m.end_conversation(offer_and_yes("Maria Lopez", m.name, LUNCH_AT_HOBBS), NOW)
    m.now = NOON.replace(hour=11, minute=55)
    stove = f"{m.persona.home}:stove"
    got = react(m, [event(stove, "burning", address=m.persona.home)], m.persona.home)
    assert got is not None and "stove" in got.action.description
    assert item_at(m.today.plan, NOON).description == got.action.description  # the fire first
    after = item_at(m.today.plan, NOON.replace(minute=10))
    assert after is not None and after.address == HOBBS and "Maria Lopez" in after.description  # then lunch
    late = [x for x in m.memory.nodes if x.predicate == "late for"]
    assert len(late) == 1 and late[0].description.startswith(
        "I am late for having lunch with Maria Lopez at Hobbs Cafe at 12:00 (agreed with Maria Lopez on ")
    assert "stove" in late[0].description


def test_lunch_with_someone_offered_on_is_lunch_with_both():
    m = resident("Klaus Mueller")
    day_with_lunch_at_home(m)
    offer = "Klaus, I'll be having lunch with Maria Lopez at Hobbs Cafe today at 12 pm. Would you like to join me?"
    m.end_conversation(offer_and_yes("Wolfgang Schulz", m.name, offer), NOW)
    assert item_at(m.today.plan, NOON).description == "having lunch with Maria Lopez and Wolfgang Schulz"


def test_a_gap_of_seconds_before_an_arrangement_is_no_nap():
    # a 25-resident run: a plan item cut in at 16:56:50 ended at 16:59:50; in the ten seconds
    # before her party Isabella was "asleep" and walked home to bed, 33 minutes late to it
    m = resident("Isabella Rodriguez")
    party = NOW.replace(hour=17)
    m.today.plan = [PlanItem(NOW, 536, "running the cafe", HOBBS, "model"),
                    PlanItem(party.replace(hour=16, minute=56, second=50), 3, "running the cafe", HOBBS, "model"),
                    PlanItem(party, 120, "hosting the Valentine's Day party", HOBBS, "model"),
                    PlanItem(party.replace(hour=19), 180, "reading a book", m.persona.home, "model")]
    m.today.planned_for = NOW.date()
    m.today.pending = []
    gap = party.replace(hour=16, minute=59, second=50)
    assert item_at(m.today.plan, gap) is None
    m.start_turn(gap)
    act = days.next_action(m)
    assert "sleep" not in act.description and act.address.startswith(HOBBS), act
    # before the day's first item, one still sleeps
    m.start_turn(NOW.replace(hour=5))
    assert days.next_action(m).description == "sleeping"


def test_two_yeses_in_one_talk_are_two_arrangements():
    # a 25-resident run: Wolfgang said yes to Adam's study group and to his drink at 7 pm in one
    # talk; only the first was kept, and at 18:41 he told Rajiv he would be at the library at 7
    m = resident("Wolfgang Schulz")
    day_with_lunch_at_home(m)
    m.spatial.add("the Ville:The Rose and Crown Pub:pub", with_defaults=True)
    lunch, drink = (offer_and_yes("Adam Smith", m.name, LUNCH_AT_HOBBS),
                    offer_and_yes("Adam Smith", m.name, "Wolfgang, I'll be having a drink at the bar at The Rose "
                                                       "and Crown Pub today at 7 pm. Would you like to join me?"))
    both = Conversation(lunch.participants, HOBBS, NOW, lunch.lines + drink.lines)
    made = m.end_conversation(both, NOW)
    assert [(a.start.hour, a.address.split(":")[1]) for a in made] == [(12, "Hobbs Cafe"),
                                                                       (19, "The Rose and Crown Pub")]
    assert len(m.today.arrangements) == 2
    assert "The Rose and Crown Pub" in item_at(m.today.plan, NOW.replace(hour=19, minute=10)).address
