"""The simulation (no pygame): the town in motion, one 10-second step at a time.

The public API is this list; everything outside ``game/sim/`` imports from
here (``from game.sim import Simulation, STEP``) and uses only it.

    core.py           Simulation: clock, bodies, event log, mind jobs, step()
    jobs.py           Job (what a pool job is for) and JobQueue (one job per mind)
    settings.py       STEP, KINDS (event kinds), SimSettings
    speeds.py         the play speeds (keys 1-5) and the morning a skip runs to
    bodies.py         Body, is_sleep
    places.py         cached map lookups (arena of a tile, addresses in view, resolving names)
    movement.py       A* paths, walking one tile a step, arriving
    perception.py     what a resident sees, whom it may talk to, its Situation
    decisions.py      when a mind is asked, and what its decision does (set_action, fallback)
    conversations.py  mind-to-mind conversations
    greetings.py      PlaySimulation: residents greet the visitor (the game's simulation)
    objects.py        object states, what actions leave behind, world edits
    visitor.py        the visitor's body; holding a resident for the visitor's chat
    play_as.py        the player walking a resident
    routine.py        the routine fallback (no model)
    state.py          to_state / from_state (the save's ``sim`` part)
    eventlog.py       the event log: every event of a run, a bounded window in memory
    path_service.py   A* searches off the step's critical path, in slices
    clocks.py         out-of-order stepping: a clock per resident, groups who cannot reach each other step apart

The parts never import core.py, not even for type hints (issue 38): each declares the small
protocol it uses of the simulation (``ObjectsSim`` in objects.py, ``MovementSim`` in
movement.py, ...; a part that calls another's functions takes that part's protocol into its
own), and mypy checks ``Simulation`` against each where core.py hands itself to the part.
"""
from game.sim.bodies import Body, is_sleep
from game.sim.conversations import Chat
from game.sim.core import Simulation
from game.sim.greetings import Greeting, PlaySimulation
from game.sim.jobs import Job, JobQueue, OnResult, Pool
from game.sim.routine import routine_action
from game.sim.settings import KINDS, STEP, SimSettings

__all__ = [
    "KINDS",
    "STEP",
    "Body",
    "Chat",
    "Greeting",
    "Job",
    "JobQueue",
    "OnResult",
    "PlaySimulation",
    "Pool",
    "SimSettings",
    "Simulation",
    "is_sleep",
    "routine_action",
]
