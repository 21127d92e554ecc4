"""The bench's results written down: the machine they ran on, results.json (all
figures) and results.md (a table of the headline figures: benchmark, figure,
value, goal, met?), with each benchmark's note below it; and the same table in
docs/performance.md, between two markers, so the page cannot drift from the
figures (tests/test_docs.py checks it).

    python -m lab.bench.report           # rewrite bench/results.md and docs/performance.md from bench/results.json
    python -m lab.bench.report --check   # exit 1 when either differs from what bench/results.json gives
"""
from __future__ import annotations

import json
import os
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from lab.bench.measure import ROOT

# (benchmark, figure) -> (label, unit, goal as (op, value) or None). The table shows these, in this order.
# A goal's value may name a figure of the benchmark's own ("goals.save_s": figures["goals"]["save_s"]).
HEADLINES: list[tuple[str, str, str, str, tuple[str, float | str] | None]] = [
    ("frame", "p50_ms", "frame time p50 (25 residents, minds busy)", "ms", None),
    ("frame", "p99_ms", "frame time p99 (25 residents, minds busy)", "ms", ("<=", 16.7)),
    ("frame", "p99_ms_frames_without_step", "frame time p99, frames without a sim step", "ms", ("<=", 16.7)),
    ("frame", "sim_step_max_ms", "slowest sim step (inside a frame)", "ms", None),
    ("frame", "path_ms_max_per_step", "most path work in one sim step (25 residents walking)", "ms", ("<=", 8.0)),
    ("frame", "p99_ms_speed5", "frame time p99 at speed 5 (60 sim min/s)", "ms", ("<=", 16.7)),
    ("frame", "p99_ms_sim_paused", "frame time p99, same scene, sim paused", "ms", ("<=", 16.7)),
    ("frame", "p99_ms_minds_idle", "frame time p99, same scene, sim paused and minds idle", "ms", ("<=", 16.7)),
    ("frame", "p99_ms_residents_list", "frame time p99 with the residents list open (following one)", "ms",
     ("<=", 16.7)),
    ("frame", "p99_ms_list_and_map", "frame time p99 with the residents list and the town map open", "ms",
     ("<=", 16.7)),
    ("frame_real", "p50_ms_speed1", "frame time p50, 25 real minds (embedded model), speed 1, from 07:00", "ms",
     None),
    ("frame_real", "p99_ms_speed1", "frame time p99, 25 real minds, speed 1", "ms", ("<=", 16.7)),
    ("frame_real", "p99_ms_speed5", "frame time p99, 25 real minds, speed 5", "ms", ("<=", 16.7)),
    ("frame_real", "p99_ms_panels_speed1", "frame time p99, 25 real minds, inspector + residents list + chat open, "
     "speed 1", "ms", ("<=", 16.7)),
    ("frame_real", "p99_ms_panels_speed5", "frame time p99, 25 real minds, the same panels, speed 5", "ms",
     ("<=", 16.7)),
    ("frame_real", "cpu_p99_ms_panels_speed5", "... the frame's own CPU p99 (main thread), same panels, speed 5",
     "ms", None),
    ("frame_real", "runq_ms_per_frame_panels_speed5", "... its mean wait for a core per frame (machine load)", "ms",
     None),
    ("frame_real", "path_ms_max_per_step", "most path work in one sim step (25 real minds, the path budget)", "ms",
     ("<=", 8.0)),
    ("frame_real", "sim_step_max_ms", "slowest sim step (25 real minds)", "ms", None),
    ("play_real", "answer_p50_s_1inst", "playing, 25 real minds, 1 model instance (the window's default on 2 "
     "cores), from 07:00: the visitor's question -> answer on screen, p50", "s", None),
    ("play_real", "answer_p95_s_1inst", "... question -> answer on screen, p95 (unanswered: the phase's end)", "s",
     ("<=", 5.0)),
    ("play_real", "answer_model_share_1inst", "... share of those answers the model gave (the rest a rule's)", "",
     None),
    ("play_real", "answer_p95_s_model_led_1inst", "... question -> the model's answer on screen, p95", "s", None),
    ("play_real", "unanswered_1inst", "... questions not answered within the phase", "", ("<=", 0)),
    ("play_real", "model_led_share_1inst", "... model-led share of awake resident-minutes", "", (">=", 0.9)),
    ("play_real", "pace_reached_1inst", "... pace reached over the phase (speed 1 chooses 1.0)", "sim min/s",
     None),
    ("play_real", "morning_planned_s_1inst", "... the new game's morning planned (the clock waits at 07:00) in", "s",
     None),
    ("play_real", "pace_after_morning_1inst", "... pace reached after the morning was planned", "sim min/s", None),
    ("play_real", "late_max_1inst", "... residents more than 15 sim minutes late for their plan, most at once",
     "", ("<=", 0)),
    ("play_real", "frame_p99_ms_1inst", "... frame time p99", "ms", ("<=", 16.7)),
    ("play_real", "clock_first_5min_s_1inst", "... the first 5 sim minutes done in", "s", ("<=", 45.0)),
    ("play_real", "clock_slowest_5min_first8_s_1inst", "... the slowest 5 sim minutes in the first 8 real minutes",
     "s", ("<=", 30.0)),
    ("play_real", "clock_stopped_share_after_morning_1inst", "... share of wall time the clock stood still (over 1 s "
     "without a step) after the morning", "", ("<=", 0.1)),
    ("play_real", "answer_p95_s_2inst", "playing, 2 model instances: question -> answer on screen, p95", "s",
     ("<=", 5.0)),
    ("play_real", "answer_model_share_2inst", "... share of those answers the model gave", "", None),
    ("play_real", "model_led_share_2inst", "... model-led share of awake resident-minutes", "", (">=", 0.9)),
    ("play_real", "pace_reached_2inst", "... pace reached over the phase", "sim min/s", None),
    ("play_real", "morning_planned_s_2inst", "... the morning planned in", "s", None),
    ("play_real", "pace_after_morning_2inst", "... pace reached after the morning was planned", "sim min/s", None),
    ("play_real", "late_max_2inst", "... residents more than 15 sim minutes late, most at once", "", ("<=", 0)),
    ("play_real", "frame_p99_ms_2inst", "... frame time p99", "ms", ("<=", 16.7)),
    ("play_real", "clock_first_minute_s_xvfb", "playing in a real window (Xvfb), 25 real minds, the window's default "
     "instance count, the first 8 real minutes: the clock's first moving sim minute after the window opened", "s",
     None),
    ("play_real", "clock_first_5min_s_xvfb", "... the first 5 sim minutes done in", "s", ("<=", 45.0)),
    ("play_real", "clock_slowest_5min_first8_s_xvfb", "... the slowest 5 sim minutes in the first 8 real minutes",
     "s", ("<=", 30.0)),
    ("play_real", "clock_stopped_share_after_morning_xvfb", "... share of wall time the clock stood still (over 1 s "
     "without a step) after the morning", "", ("<=", 0.1)),
    ("play_real", "pace_after_morning_xvfb", "... pace after the morning was planned", "sim min/s", None),
    ("play_real", "model_led_share_xvfb", "... model-led share of awake resident-minutes", "", (">=", 0.9)),
    ("play_real", "answer_p95_s_xvfb", "... the visitor's question -> answer on screen, p95", "s", ("<=", 5.0)),
    ("play_real", "frame_p99_ms_xvfb", "... frame time p99 (update + draw; the flip to X apart)", "ms", None),
    ("simspeed", "sim_speed_x", "headless, 25 residents, embedded model, a whole sim day: sim speed", "x real time",
     (">=", 30)),
    ("simspeed", "model_busy_share", "... share of the time the model instances were answering", "", None),
    ("simspeed", "model_bound_x", "... the speed if the instances never waited (the model's work alone)",
     "x real time", None),
    ("simspeed", "calls_per_resident_per_sim_day", "... model calls per resident per sim day (not scaled)", "calls",
     None),
    ("simspeed", "tokens_per_resident_per_sim_day", "... tokens per resident per sim day (not scaled)", "tokens",
     None),
    ("quit", "quit_s_median", "quit with model calls in flight: window closed -> process gone, median", "s",
     ("<=", 1.0)),
    ("recording", "bytes_per_resident_per_sim_hour", "recording a run: bytes per resident per sim hour", "B",
     None),
    ("recording", "after_step_median_ms", "recording: main-thread time after a sim step, median", "ms", None),
    ("recording", "after_step_p99_ms", "recording: main-thread time after a sim step, p99 (GIL waits included)", "ms",
     None),
    ("recording", "headless_share_pct", "recording: share of a headless run's wall time", "%", None),
    ("recording", "frame_ms_speed5", "recording: added to a frame at speed 5 (6 steps)", "ms", None),
    ("retrieval", "ms_1k", "retrieval per query, 1k memories", "ms", None),
    ("retrieval", "ms_10k", "retrieval per query, 10k memories", "ms", None),
    ("retrieval", "ms_100k", "retrieval per query, 100k memories", "ms", None),
    ("retrieval", "ratio_100k_vs_1k", "retrieval 100k / 1k", "x", None),
    ("retrieval", "scan_floor_ms_100k", "one pass over the 100k x 384 float32 embedding bytes (the floor)", "ms",
     None),
    ("retrieval", "ratio_100k_vs_floor", "retrieval at 100k / that floor (measured side by side)", "x", ("<=", 1.5)),
    ("retrieval", "scanned_floor_ms_100k", "one pass over the bytes the 100k scan reads (its int8 copy)", "ms",
     None),
    ("retrieval", "ratio_100k_vs_scanned_floor", "retrieval at 100k / that pass", "x", None),
    ("retrieval", "speedup_vs_loop_1k", "retrieval vs a per-node loop like the original's, 1k memories", "x",
     (">=", 100)),
    ("retrieval", "speedup_vs_loop_10k", "retrieval vs a per-node loop, 10k memories", "x", (">=", 100)),
    ("retrieval", "speedup_vs_loop_100k", "retrieval vs a per-node loop, 100k memories", "x", (">=", 100)),
    ("astar", "median_ms", "A* long path (>= 80 tiles apart), median", "ms", None),
    ("astar", "p90_ms", "A* long path, p90 (one path fits in a frame)", "ms", ("<=", 16.7)),
    ("models", "calls_per_s", "embedded model short calls", "calls/s", None),
    ("models", "median_latency_s", "embedded model call latency, median", "s", None),
    ("models", "total_tokens_per_s", "embedded model short calls, prompt + generated tokens", "tokens/s", None),
    ("models", "f16_speedup", "embedded model: its float16 copy against the shipped 4-bit weights, same calls",
     "x", None),
    ("models", "masks_tokens_per_s", "embedded model writing JSON under llguidance token masks, the minds' calls",
     "tokens/s", None),
    ("models", "gbnf_tokens_per_s", "... the same calls under llama.cpp's GBNF grammar", "tokens/s", None),
    ("models", "masks_calls_speedup", "... masks against GBNF, wall time of the same calls", "x", None),
    ("models", "mask_ms_median", "... the mask's own cost per token, median", "ms", ("<=", 2.0)),
    ("models", "mask_ms_p99", "... the mask's own cost per token, p99", "ms", None),
    ("models", "replay_new_calls_per_s", "recorded residents' calls (07:00-08:30, 25 residents), the new path: "
     "kept prefixes, forced tokens, masks", "calls/s", None),
    ("models", "replay_old_calls_per_s", "... the same calls, alternating, through the old path (GBNF grammar)",
     "calls/s", None),
    ("models", "replay_calls_speedup", "... new / old, calls per second", "x", (">=", 2.0)),
    ("models", "replay_prompt_reused", "... share of prompt tokens the new path did not read again", "", (">=", 0.6)),
    ("engines", "engines_read_llama_over_torch", "llama.cpp / transformers-torch, prompt reading, recorded calls",
     "x", None),
    ("engines", "engines_write_llama_over_torch", "llama.cpp / transformers-torch, writing", "x", None),
    ("batching", "batching_1seq_1thr_tokens_per_s", "one context writing one sequence (one thread), written",
     "tokens/s", None),
    ("batching", "batching_4seq_1thr_tokens_per_s", "... four sequences per pass (one thread)", "tokens/s", None),
    ("batching", "batching_8seq_1thr_tokens_per_s", "... eight sequences per pass (one thread)", "tokens/s", None),
    ("batching", "batching_2x1seq_tokens_per_s", "... two one-sequence instances side by side (today's headless shape)",
     "tokens/s", None),
    ("batching", "batching_4seq_over_2_instances", "... four sequences in one instance / two instances", "x", None),
    ("models", "decode_tokens_per_s", "embedded model decoding (day plans, ~150 tokens)", "tokens/s", None),
    ("models", "plan_latency_s", "embedded model day plan, median latency", "s", None),
    ("models", "embeddings_per_s", "local embeddings", "sentences/s", None),
    ("saves", "freeze_ms_median", "save: main-thread pause (freeze), median", "ms", ("<=", "goals.main_thread_ms")),
    ("saves", "save_s_median", "save after two sim days, median", "s", ("<=", "goals.save_s")),
    ("saves", "load_s_median", "load after two sim days, median", "s", ("<=", "goals.load_s")),
    ("saves", "file_mb", "save file size after two sim days", "MB", None),
    ("saves", "round_trip_equal", "load(save(x)) equals x", "", None),
    ("saves", "game_capture_ms_median", "save of the game: main-thread capture, median", "ms",
     ("<=", "goals.main_thread_ms")),
    ("saves", "game_save_s_median", "save of the game (25 real minds), median", "s", ("<=", "goals.save_s")),
    ("saves", "game_load_total_s_median", "load of the game: read + rebuild, median", "s", ("<=", "goals.load_s")),
    ("saves", "game_commit_ms_median", "load of the game: main-thread swap, median", "ms",
     ("<=", "goals.main_thread_ms")),
    ("saves", "game_round_trip_equal", "game: capture(load(save(x))) equals capture(x)", "", None),
    ("economy", "paper_calls_per_resident_per_sim_day", "embedded, paper planning: model calls per resident per "
     "sim day (a whole day)", "calls", ("<=", 150)),
    ("economy", "paper_tokens_per_resident_per_sim_day", "embedded, paper planning: tokens per resident per sim day",
     "tokens", ("<=", 60000)),
    ("economy", "paper_model_led_share", "embedded, paper planning: model-led share of awake minutes", "", None),
    ("economy", "paper_reflections_per_resident_per_sim_day", "embedded, paper planning: reflections per resident "
     "per sim day", "", None),
    ("economy", "guided_calls_per_resident_per_sim_day", "embedded, guided planning: model calls per resident per "
     "sim day (a whole day)", "calls", ("<=", 150)),
    ("economy", "guided_tokens_per_resident_per_sim_day", "embedded, guided planning: tokens per resident per sim "
     "day", "tokens", ("<=", 60000)),
    ("economy", "guided_model_led_share", "embedded, guided planning: model-led share of awake minutes", "", None),
    ("economy", "guided_reflections_per_resident_per_sim_day", "embedded, guided planning: reflections per resident "
     "per sim day", "", None),
    ("factual", "embedded_grounded_share", "embedded, grounded answers: factual questions about a resident's own "
     "life answered right and briefly", "", (">=", 0.7)),
    ("factual", "embedded_free_share", "embedded, free answers (the paper's way): factual questions right and brief",
     "", None),
    ("factual", "competent_grounded_share", "competent stand-in, grounded answers: factual questions right", "", None),
    ("factual", "competent_free_share", "competent stand-in, free answers: factual questions right", "", None),
    ("factual", "embedded_grounded_s_per_answer", "embedded, grounded answers: seconds per answer", "s", None),
    ("factual", "embedded_free_s_per_answer", "embedded, free answers: seconds per answer", "s", None),
    ("chain", "model_led_share", "competent stand-in, 25 residents, 2 days: model-led share of awake minutes", "",
     (">=", 0.95)),
    ("chain", "calls_per_resident_per_sim_day", "competent stand-in: model calls per resident per sim day", "calls",
     ("<=", 150)),
    ("chain", "tokens_per_resident_per_sim_day", "competent stand-in: tokens per resident per sim day", "tokens",
     ("<=", 60000)),
    ("chain", "reflections_per_resident_per_sim_day", "competent stand-in: reflections per resident per sim day", "",
     None),
    ("chain", "party_invited", "competent stand-in: residents invited to the party", "", None),
    ("chain", "party_planned", "competent stand-in: ... who planned to go", "", None),
    ("chain", "party_attended", "competent stand-in: ... at Hobbs Cafe 17:00-19:00 on Feb 14", "", None),
    ("chain", "candidacy_knew_at_end", "competent stand-in: residents who knew of Sam's candidacy at the end", "",
     None),
    ("chain", "party_knew_at_end", "competent stand-in: residents who knew of the party at the end", "", None),
    ("soak", "step_ratio_last_vs_first", "soak, 25 residents, 3 sim days: mean step, last sim day / first", "x",
     ("<=", 1.2)),
    ("soak", "step_ratio_last_hour_vs_first_hour", "soak: mean step, last sim hour / first sim hour (night vs "
     "wake-up)", "x", None),
    ("soak", "step_ms_last_day", "soak: mean sim step, last sim day", "ms", None),
    ("soak", "rss_mb_per_day", "soak: process memory (RSS) growth after the first day", "MB/day", None),
    ("soak", "memories_per_resident_per_day", "soak: memories stored per resident per sim day", "", None),
    ("soak", "save_mb_per_day", "soak: save size growth", "MB/day", None),
    ("soak", "events_in_memory_max", "soak: events held in memory (the rest streamed to disk)", "", ("<=", 4096)),
    ("soak", "path_ms_max_per_step", "soak: most path work in one step (lockstep: no budget)", "ms", None),
    ("soak", "sim_speed_x", "soak: sim speed (scripted model)", "x real time", None),
    ("gcheld", "frozen_objects", "window gc policy, a sim day of 25 residents: objects frozen", "", None),
    ("gcheld", "held_garbage_objects", "... cyclic garbage the freeze kept from the collector", "", None),
    ("gcheld", "held_share_pct", "... that garbage as a share of the frozen objects", "%", None),
    ("gcheld", "rss_freed_mb", "... memory (RSS) freed by collecting it", "MB", None),
    ("feed", "pump_p99_ms", "town feed: the frame's hand-over of new events to the feed's thread, p99", "ms",
     ("<=", 1.0)),
    ("feed", "read_p99_ms", "town feed: the panel's and the HUD's read of the feed, p99", "ms", ("<=", 1.0)),
    ("feed", "builder_us_per_event", "town feed: its thread's work per event (a busy town's mix)", "us", None),
]


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def machine_info() -> dict:
    cpu = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gib = round(int(line.split()[1]) / 1024 / 1024, 1)
                break
    except OSError:
        pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    return {
        "cpu": cpu or platform.processor() or platform.machine(),
        "cores": cores,
        "ram_gib": ram_gib,
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": {d: _version(d) for d in ("pygame-ce", "pygame_gui", "numpy", "torch", "llama_cpp_python",
                                              "sentence-transformers", "litellm")},
        "commit": _commit(),
    }


def _commit() -> str | None:
    head = ROOT / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            f = ROOT / ".git" / ref[5:]
            if f.exists():
                return f.read_text().strip()[:12]
            packed = ROOT / ".git" / "packed-refs"
            for line in packed.read_text().splitlines() if packed.exists() else []:
                if line.endswith(" " + ref[5:]):
                    return line.split()[0][:12]
            return None
        return ref[:12]
    except OSError:
        return None


def loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _fmt(v: Any) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        if abs(v) >= 100:
            return f"{v:.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        if abs(v) >= 1:
            return f"{v:.2f}"
        return f"{v:.3f}"
    return str(v)


def goal_met(value: Any, goal: tuple[str, float] | None) -> bool | None:
    """Whether ``value`` meets ``goal`` (op, target); None without a goal or a number."""
    if goal is None or not isinstance(value, (int, float)):
        return None
    op, target = goal
    return value <= target if op == "<=" else value >= target


def resolve_goal(goal: tuple[str, float | str] | None, figures: dict) -> tuple[str, float] | None:
    """A goal with its value looked up in the figures when it names one; None when absent."""
    if goal is None or not isinstance(goal[1], str):
        return goal
    node: Any = figures
    for part in goal[1].split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return (goal[0], float(node)) if isinstance(node, (int, float)) else None


def render_markdown(doc: dict) -> str:
    m = doc["machine"]
    lines = [
        "| benchmark | figure | value | goal | met? |",
        "|---|---|---|---|---|",
    ]
    results = doc["results"]
    for bench, entry in results.items():
        if entry["status"] != "ok":
            what = "skipped" if entry["status"] == "skipped" else "error"
            why = (entry.get("reason") or entry.get("error") or "").replace("|", "/").replace("\n", " ")
            lines.append(f"| {bench} | {what}: {why} | — | — | — |")
            continue
        figs = entry.get("figures", {})
        rows = [h for h in HEADLINES if h[0] == bench and h[1] in figs]
        if not rows:
            lines.append(f"| {bench} | ran (figures in results.json) | — | — | — |")
        for _, key, label, unit, goal in rows:
            value = figs[key]
            goal = resolve_goal(goal, figs)
            goal_text = f"{goal[0]} {_fmt(float(goal[1]))} {unit}" if goal else "—"
            met = goal_met(value, goal)
            met_text = "—" if met is None else ("yes" if met else "**no**")
            lines.append(f"| {bench} | {label} | {_fmt(value)} {unit}".rstrip() + f" | {goal_text} | {met_text} |")
    notes = [f"- **{b}**: {e['note']}" for b, e in results.items() if e.get("note")]
    head = [
        f"Measured {doc['date']} on {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM, "
        f"Python {m['python']}" + (f", commit {m['commit']}" if m.get("commit") else "")
        + f"; load average {doc['load_before']} before, {doc['load_after']} after"
        + (" (quick run: small N)" if doc.get("quick") else "") + ".",
        "Figures are medians / percentiles over repeats; `smallville bench` (or `make bench`) reproduces them.",
        "",
    ]
    return "\n".join(head + lines + ([""] + notes if notes else [])) + "\n"


RESULTS = ROOT / "bench" / "results.json"
PAGE = ROOT / "docs" / "performance.md"
PAGE_BEGIN = ("<!-- generated from bench/results.json by lab/bench/report.py (smallville bench, or "
              "python -m lab.bench.report) down to the end marker: edit the generator, not this -->")
PAGE_END = "<!-- end of the generated part -->"


def measured_later(doc: dict) -> list[str]:
    """A line per benchmark whose figures were measured apart from the run the header dates
    (results.json keeps when: ``measured``, or ``date`` and ``commit``)."""
    lines = []
    for bench, entry in doc["results"].items():
        when = entry.get("measured") or " ".join(
            x for x in (entry.get("date"), f"(commit {entry['commit']})" if entry.get("commit") else "") if x)
        if when:
            lines.append(f"- **{bench}**: {when}")
    return lines


def render_page_part(doc: dict) -> str:
    """docs/performance.md's generated part, markers included: the table and notes of
    results.md, and which benchmarks were measured on another date than the header's."""
    later = measured_later(doc)
    extra = (["", "Measured apart from the run above, as results.json records it (a benchmark's note may say more):",
              "", *later] if later else [])
    return "\n".join([PAGE_BEGIN, "", render_markdown(doc).rstrip("\n"), *extra, "", PAGE_END]) + "\n"


def render_page(doc: dict, page_text: str | None) -> str:
    """The page with its generated part made from ``doc``: the part between the markers
    replaced, or (no page, or no markers) a bare page of that part."""
    part = render_page_part(doc)
    if page_text and PAGE_BEGIN in page_text and PAGE_END in page_text:
        head, rest = page_text.split(PAGE_BEGIN, 1)
        tail = rest.split(PAGE_END, 1)[1]
        return head + part.rstrip("\n") + tail
    return "# Performance\n\n" + part


def write_page(doc: dict, page: Path | None = None) -> Path:
    """docs/performance.md (or ``page``) with its generated part made from ``doc``."""
    page = page or PAGE
    old = page.read_text(encoding="utf-8") if page.exists() else None
    new = render_page(doc, old)
    if new != old:
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(new, encoding="utf-8")
    return page


def write_results(doc: dict, out: Path) -> tuple[Path, Path]:
    """results.json and results.md at ``out``; when that is the checkout's own
    bench/results.json, docs/performance.md's table too."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    md = out.with_suffix(".md")
    md.write_text(render_markdown(doc), encoding="utf-8")
    if out.resolve() == RESULTS.resolve() and PAGE.exists():
        write_page(doc)
    return out, md


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main(argv: list[str]) -> int:
    """``python -m lab.bench.report [--check]``: bench/results.md and docs/performance.md
    from bench/results.json, without measuring anything."""
    if argv not in ([], ["--check"]):
        print("usage: python -m lab.bench.report [--check]", file=sys.stderr)
        return 2
    doc = json.loads(RESULTS.read_text(encoding="utf-8"))
    md = RESULTS.with_suffix(".md")
    wanted = {md: render_markdown(doc),
              PAGE: render_page(doc, PAGE.read_text(encoding="utf-8") if PAGE.exists() else None)}
    stale = [p for p, text in wanted.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    if argv == ["--check"]:
        for p in stale:
            print(f"{_shown(p)} differs from what bench/results.json gives: run python -m lab.bench.report",
                  file=sys.stderr)
        return 1 if stale else 0
    for p in stale:
        p.write_text(wanted[p], encoding="utf-8")
        print(f"wrote {_shown(p)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
