"""The `smallville` command: play | map | sim | interview | replay | why (the game's) and
bench | evaluate (the lab's). This module builds the argument parser and hands
each subcommand to its module; it is the one place that wires the game and
the lab together (the game never imports the lab).

No subcommand pays for what it does not use: pygame loads only for `play`,
litellm, torch and matplotlib only when a model, an embedder or a plot is
first needed.
"""
from __future__ import annotations

import os

# Before anything imports litellm or huggingface: no network at start-up.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import argparse
import logging
import sys
from collections.abc import Callable
from typing import Any

import lab.competent  # noqa: F401 - registers the scripted/competent model for --model scripted/competent
from game.headless import main_sim
from game.interview_cli import main_interview
from game.support import folders
from game.support.errors import MapError, UserError
from game.support.logs import setup_logging
from game.why_cli import main_why
from game.world.map_reader import main_map
from lab.bench.runner import main_bench
from lab.controlled import main_ablations, main_compare_evaluations, main_rate
from lab.evaluate.command import main_evaluate
from lab.experiment.compare import main_compare
from lab.experiment.fork import main_fork

# None: the Ville that ships with the game (game/support/folders.py), found from any folder.
DEFAULT_MAP = None
MAP_HELP = "a Tiled .tmx town (default: the Ville that ships with the game)"
SAVED_MAP_HELP = "the town's map, when the save does not name one"


def _add_model_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model (strongest first: flags, SMALLVILLE_* environment, smallville.toml)")
    g.add_argument("--model", help="litellm model string, e.g. ollama/qwen2.5:7b or gpt-4o-mini")
    g.add_argument("--api-base", help="base URL of an OpenAI-compatible or Ollama server")
    g.add_argument("--concurrency", type=int, help="model calls in flight at once")
    g.add_argument("--router", metavar="YAML",
                   help="several servers of one model: a litellm router config (model_list)")
    g.add_argument("--cache", help="SQLite response cache file (replays seeded runs for free)")
    g.add_argument("--planning", choices=("paper", "guided", "auto"),
                   help="paper: the model writes the day; guided: the routine's times, the model's words "
                        "(auto: guided for the embedded model, paper for any other)")
    g.add_argument("--grounded", choices=("on", "off", "auto"),
                   help="on: answers and lines are the resident's own memories, chosen by the model and worded "
                        "by a rule; off: the paper's free generation (auto: on for the embedded model only)")
    g.add_argument("--budget", type=int,
                   help="model calls per resident per sim day, then rules stand in (0: none; default: none for "
                        "local models, 300 for hosted ones)")


def _add_cast_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agents", type=int, help="the first N residents in the scenario's order; past the scenario's, "
                                              "generated residents (the same N and --seed, the same town)")
    p.add_argument("--residents", help='comma-separated names, e.g. "Isabella Rodriguez,Maria Lopez"')
    p.add_argument("--seed", type=int, default=0, help="the run's seed (and the generated residents')")


# long: the command's whole table of subcommands and options, read as one
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smallville", description="A town of generative agents you can walk into.")
    sub = parser.add_subparsers(dest="command")

    play = sub.add_parser("play", help="open the game window (default)")
    play.add_argument("map", nargs="?", default=DEFAULT_MAP, help=MAP_HELP)
    play.add_argument("--headless", action="store_true", help="render off-screen (no window)")
    play.add_argument("--frames", type=int, help="stop after N frames")
    play.add_argument("--screenshot", help="write a PNG of the last frame here")
    play.add_argument("--load", nargs="?", const="@newest", metavar="SAVE",  # game.savegame.NEWEST
                      help="a save slot name or a path to a .sqlite save; alone: the newest save (continue)")
    play.add_argument("--visitor-name", help="your name in town (skips the prompt)")
    play.add_argument("--pace", choices=("minds", "clock"),
                      help="minds (default): the clock waits for the residents' decisions, within a couple of "
                           "sim minutes; clock: the chosen speed whatever the minds manage (routines fill in)")
    _add_cast_flags(play)
    _add_model_flags(play)

    mp = sub.add_parser("map", help="inspect a Tiled town")
    mp.add_argument("map", nargs="?", default=DEFAULT_MAP, help=MAP_HELP)
    mp.add_argument("--tree", action="store_true", help="print every address, one per line")

    sim = sub.add_parser("sim", help="run the town headless and write a run folder")
    sim.add_argument("--map", default=DEFAULT_MAP, help=MAP_HELP)
    sim.add_argument("--start", help='sim start, e.g. "2023-02-13 07:00" (default: the scenario\'s)')
    sim.add_argument("--hours", type=float, default=2.0, help="sim hours to run")
    sim.add_argument("--out", help="run folder (default runs/<timestamp>)")
    sim.add_argument("--resume", help="continue the run folder's last save (runs/NAME), or a save file (a game's "
                                      "gets a run folder of its own under runs/): --hours more sim hours")
    sim.add_argument("--think-s", type=int, metavar="S",
                     help="sim seconds from a resident asking its mind to the answer landing (default 10, one step; "
                          "longer lets the clock run on while one resident thinks: faster, still reproducible)")
    stepping = sim.add_mutually_exclusive_group()
    stepping.add_argument("--out-of-order", dest="out_of_order", action="store_true", default=True,
                          help="a clock per resident (the default): those who cannot reach each other meanwhile "
                               "step apart, so the model answers for all at once; the same run as lockstep, event "
                               "for event (docs/stepping.md)")
    stepping.add_argument("--lockstep", dest="out_of_order", action="store_false",
                          help="step the whole town as one, each step waiting for every answer due")
    sim.add_argument("--autosave-min", type=float, default=60.0,
                     help="save the run into <run>/saves/ every N sim minutes, keeping the last 3 (0: only at the end)")
    _add_cast_flags(sim)
    _add_model_flags(sim)

    bench = sub.add_parser("bench", help="measure speed and cost on this machine; writes bench/results.json and .md")
    bench.add_argument("--only", help="comma-separated: astar,retrieval,models,engines,batching,frame,frame_real,"
                                      "play_real,saves,economy,chain,quit,recording,soak,gcheld,simspeed,factual,feed; "
                                      "scale (hours; only when named, docs/scale.md) (default: all but scale)")
    bench.add_argument("--quick", action="store_true", help="small N: a smoke run, not figures to quote")
    bench.add_argument("--out", default="bench/results.json", help="results file (the table goes beside it as .md)")
    bench.add_argument("--map", default=DEFAULT_MAP, help=MAP_HELP)
    bench.add_argument("--economy-run",
                       help="take the economy from this run folder's summary.json instead of a new run")
    bench.add_argument("--economy-hours", type=float,
                       help="sim hours of each economy run (default 24: a whole day; quick 2)")
    bench.add_argument("--seed", type=int, default=0)

    ev = sub.add_parser("evaluate", help="the paper's evaluations of a run folder or a save: diffusion, relationships, "
                        "the party; or --battery: the interview battery")
    ev.add_argument("target", help="a run folder (runs/NAME: its events and newest save) or a save file")
    ev.add_argument("--out", help="folder for evaluation.md/.json and the plots (default: the run folder)")
    ev.add_argument("--no-interviews", action="store_true",
                    help="memory- and event-based measures only: no model calls")
    ev.add_argument("--judge", choices=("rule", "model"), default="rule",
                    help="who classifies interview answers: keyword rules (default, deterministic) or the model")
    ev.add_argument("--battery", action="store_true",
                    help="instead: ask the paper's 25 interview questions and the factual questions (a score), "
                         "and write interviews.md")
    ev.add_argument("--factual", action="store_true",
                    help="with --battery: only the factual questions about the residents' own lives (the score)")
    ev.add_argument("--agent", help="with --battery or --ablations: only this resident")
    ev.add_argument("--ablations", action="store_true",
                    help="instead: the paper's controlled evaluation: the battery under each condition (memory kinds "
                         "hidden), into an evaluation folder (--out; default RUN/controlled) for `smallville rate`")
    ev.add_argument("--conditions", metavar="FILE",
                    help="with --ablations: your own conditions (JSON; default the paper's five)")
    ev.add_argument("--human", metavar="EVAL",
                    help="with --ablations: reuse people's answers from another evaluation (same residents, same "
                         "questions)")
    ev.add_argument("--questions", type=int, metavar="N",
                    help="with --ablations: only the first N questions of each category (default all 5)")
    ev.add_argument("--map", default=DEFAULT_MAP, help=SAVED_MAP_HELP)
    _add_model_flags(ev)

    iv = sub.add_parser("interview", help="talk to one resident of a save as a persona (interactive, or a "
                        "scripted battery with --question); --whisper: their inner voice")
    iv.add_argument("--load", required=True, help="a save slot name, a .sqlite file or a run folder (its newest save)")
    iv.add_argument("--agent", required=True, help='the resident, e.g. "John Lin" (or a first name)')
    iv.add_argument("--as", dest="as_", default="a news reporter", help="who the resident takes you for")
    iv.add_argument("--question", "-q", action="append", help="ask this (repeat for a battery); prints a transcript")
    iv.add_argument("--out", help="also write the transcript (Markdown) here")
    iv.add_argument("--remember", action="store_true",
                    help="the resident remembers the interview: written to a NEW save <name>-interviewed.sqlite")
    iv.add_argument("--whisper", help='inner voice: "You are going to ..." becomes their own thought (importance 9) '
                    "and their plan makes room for it; written to a NEW save <name>-whispered.sqlite")
    iv.add_argument("--map", default=DEFAULT_MAP, help=SAVED_MAP_HELP)
    _add_model_flags(iv)

    rp = sub.add_parser("replay", help="watch a recorded run or game (timeline, events, inspector; no model), "
                        "or write a span of it as a GIF / MP4")
    rp.add_argument("target", help="a run folder (runs/NAME), the game's save folder, or a recording (.jsonl)")
    rp.add_argument("--map", help="the town's map (default: the one the recording names)")
    rp.add_argument("--at", help='start at this moment, e.g. "2023-02-14 16:30" (or "16:30": the first day)')
    rp.add_argument("--headless", action="store_true", help="render off-screen: with --screenshot, one frame")
    rp.add_argument("--screenshot", help="with --headless: write a PNG of the frame at --at here")
    rp.add_argument("--frames", type=int, help=argparse.SUPPRESS)
    rp.add_argument("--gif", metavar="PATH", help="write an animation of --from .. --to here (.gif; .mp4 with ffmpeg)")
    rp.add_argument("--from", dest="from_", metavar="TIME", help="the animation's start (default: the recording's)")
    rp.add_argument("--to", metavar="TIME", help="the animation's end (default: the recording's)")
    rp.add_argument("--follow", metavar="NAME", help="keep the camera on this resident")
    rp.add_argument("--area", metavar="PLACE", help='keep the camera on this place, e.g. "Hobbs Cafe"')
    rp.add_argument("--rate", type=float, help="animation: sim minutes per second (default: the span in ~15 s)")
    rp.add_argument("--fps", type=int, help="animation: pictures per second (default 10)")
    rp.add_argument("--size", help="picture size WIDTHxHEIGHT (default 800x450 for an animation, else 1280x720)")
    sub.add_parser("where", help="say where the towns, saves, logs, runs and settings are")
    _add_experiment_commands(sub)

    wy = sub.add_parser("why", help="why a resident did what they did: the memories retrieved with their scores, "
                        "the prompt and the answer (or --spread: who told whom)")
    wy.add_argument("target", help="a run folder (runs/NAME), a save in one, or a game's save")
    wy.add_argument("resident", nargs="?", help='the resident, e.g. "Isabella Rodriguez" (or a first name)')
    wy.add_argument("--at", help='the moment, e.g. "2023-02-14 17:10" (or "17:10": the first day; default: the end)')
    wy.add_argument("--spread", metavar="WORD",
                    help='instead: the conversations a fact travelled through, e.g. "party"')
    wy.add_argument("--json", action="store_true", help="print JSON")
    return parser


def _add_ceiling_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-cost", type=float, metavar="USD", help="stop cleanly (with an end save) once the run has "
                   "spent this many dollars on a hosted model")
    p.add_argument("--max-tokens", type=int, metavar="N", help="stop cleanly (with an end save) after N tokens")
    p.add_argument("--dry-run", action="store_true", help="print the forecast (calls, tokens, wall time, money) only")


def _add_experiment_commands(sub: Any) -> None:
    """fork and compare (lab/experiment/), and the forecast and ceiling flags of sim."""
    _add_ceiling_flags(sub.choices["sim"])
    fk = sub.add_parser("fork", help="controlled experiment: a control and a treatment arm from one moment of a "
                        "run or save, several seeds each (then: smallville compare)")
    fk.add_argument("source", help="a run folder (its saves) or a save (slot name or .sqlite)")
    fk.add_argument("--at", help='the branch point, e.g. "2023-02-13 09:00" (default: the newest save)')
    fk.add_argument("--hours", type=float, default=6.0, help="sim hours each branch runs (default 6)")
    fk.add_argument("--branches", type=int, default=2, help="seeds per arm (default 2); the control gets the same")
    fk.add_argument("--seed", type=int, default=0, help="the first seed (then seed+1, ...)")
    fk.add_argument("--whisper", nargs=2, action="append", metavar=("NAME", "TEXT"),
                    help="treatment: the resident's inner voice, e.g. \"Isabella Rodriguez\" \"You are going to "
                    "run for mayor\"")
    fk.add_argument("--event", action="append", metavar='"<ADDRESS> is STATE"',
                    help="treatment: an object's state, e.g. \"<Hobbs Cafe: cafe: cafe customer seating> is broken\"")
    fk.add_argument("--remove", action="append", metavar="NAME", help="treatment: this resident leaves the town")
    fk.add_argument("--add-persona", action="append", metavar="FILE",
                    help="treatment: a new resident (JSON written like an entry of residents.json)")
    fk.add_argument("--model", help="treatment: this model instead of the save's")
    fk.add_argument("--cache", help="the shared response cache (default <experiment>/cache.sqlite)")
    fk.add_argument("--out", help="the experiment folder (default runs/fork-<timestamp>)")
    fk.add_argument("--workers", type=int, default=1, help="branches run at once, as local processes (default 1)")
    fk.add_argument("--ray", metavar="ADDRESS", help='run the branches as tasks on a Ray cluster ("auto", '
                    '"ray://host:10001", or "local" to start one here)')
    fk.add_argument("--map", default=DEFAULT_MAP, help=SAVED_MAP_HELP)
    _add_ceiling_flags(fk)
    cp = sub.add_parser("compare", help="an experiment's arms side by side: diffusion, relationships, coordination "
                        "and run quality, with the spread across seeds and a test per measure; or two controlled "
                        "evaluations side by side; writes comparison.md and plots")
    cp.add_argument("experiment", nargs="+", metavar="FOLDER",
                    help="the experiment folder smallville fork wrote, or two evaluation folders "
                         "(evaluate --ablations)")
    cp.add_argument("--out", help="folder for comparison.md/.json and the plots (default: the (second) folder)")
    cp.add_argument("--map", default=DEFAULT_MAP, help="the town's map, when the runs do not name one")
    _add_rate_command(sub)


def _add_rate_command(sub: Any) -> None:
    """`rate` (lab/controlled/): the controlled evaluation's rankings, by people or a judge model."""
    rt = sub.add_parser("rate", help="rank a controlled evaluation's answers blind (one question at a time, in the "
                        "terminal), write the human condition's answers, or let a judge model rank; then the report")
    rt.add_argument("evaluation", help="the evaluation folder `smallville evaluate RUN --ablations` wrote")
    rt.add_argument("--rater", help="your name: your rankings (or answers) go into your own file")
    rt.add_argument("--write-answers", action="store_true",
                    help="instead: write the human condition's answers as the resident would (kept in human/NAME.json)")
    rt.add_argument("--agent", help="with --write-answers: only this resident's questions")
    rt.add_argument("--judge", action="store_true",
                    help="instead: a judge model ranks every question's answers (--model: any litellm model)")
    rt.add_argument("--report", action="store_true", help="only write the report again")
    rt.add_argument("--seed", type=int, help="the order of questions and answers (default: drawn from your name)")
    rt.add_argument("--map", default=DEFAULT_MAP, help=SAVED_MAP_HELP)
    g = rt.add_argument_group("the judge model (with --judge)")
    g.add_argument("--model", help="litellm model string, e.g. gpt-4o-mini or ollama/qwen2.5:7b")
    g.add_argument("--api-base", help="base URL of an OpenAI-compatible or Ollama server")
    g.add_argument("--concurrency", type=int, help=argparse.SUPPRESS)
    g.add_argument("--cache", help="SQLite response cache file")


def _replay(args: argparse.Namespace) -> int:
    from game.replay.app import main_replay  # lazy: the window (pygame), as for `play`

    return main_replay(args)


# Every subcommand but `play`, which opens the window.
def main_where(args: Any) -> int:
    print(folders.describe())
    return 0


def _evaluate(args: Any) -> int:
    """evaluate: the end-to-end measures (lab/evaluate), or --ablations: the controlled evaluation."""
    return main_ablations(args) if getattr(args, "ablations", False) else main_evaluate(args)


def _compare(args: Any) -> int:
    """compare: an experiment's arms (one folder), or two controlled evaluations."""
    folders_given = list(args.experiment)
    if len(folders_given) == 2:
        return main_compare_evaluations(folders_given[0], folders_given[1], getattr(args, "out", None))
    if len(folders_given) > 2:
        raise UserError("compare: give one experiment folder, or two evaluation folders")
    args.experiment = folders_given[0]
    return main_compare(args)


COMMANDS: dict[str, Callable[[Any], int]] = {
    "where": main_where,
    "map": main_map,
    "sim": main_sim,
    "interview": main_interview,
    "bench": main_bench,
    "evaluate": _evaluate,
    "replay": _replay,
    "fork": main_fork,
    "compare": _compare,
    "rate": main_rate,
    "why": main_why,
}


def _play(args: argparse.Namespace) -> int:
    from game.app import main_play  # lazy: the window (pygame, pygame_gui) loads only for `play`

    return main_play(args)


def main(argv: list[str] | None = None) -> int:
    """The command. Called without ``argv`` it is the `smallville` process itself
    (not a test calling ``main([...])``): then `play` ends the process as soon as
    the window closes, without waiting for model calls still in flight."""
    own_process = argv is None
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["play", *argv]
    args = parser.parse_args(argv)
    if hasattr(args, "map"):  # relative to this folder, else to the game's own data; default: the Ville
        args.map = str(folders.resolve_map(args.map))

    log_file = setup_logging()
    try:
        command = COMMANDS.get(args.command)
        if command is not None:
            return command(args)
        return _leaving(own_process, _play(args))
    except (UserError, MapError) as err:
        print(f"smallville: {err}", file=sys.stderr)
        return _leaving(own_process and args.command == "play", 2)
    except KeyboardInterrupt:
        return _leaving(own_process and args.command == "play", 130)
    except Exception as err:  # last resort: a short message here, the trace in the log
        logging.getLogger("smallville").exception("unexpected error")
        print(f"smallville: unexpected error: {err}\n(details in {log_file})", file=sys.stderr)
        return _leaving(own_process and args.command == "play", 1)


def _leaving(own_process: bool, code: int) -> int:
    """The game is over: in the `smallville` process, end it now (app.leave_process)."""
    if own_process:
        from game.app import leave_process  # lazy: the window's module (pygame), as in _play

        leave_process(code)
    return code
