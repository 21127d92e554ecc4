"""README.md and docs/ stay true (issue 38): every relative link and picture points at a file
that exists, and a ``#anchor`` at a heading of that file; every page in docs/ can be reached
from the README; the README stays short, with its picture at the top and its two commands;
and docs/performance.md's table is what the bench makes of bench/results.json."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lab.bench import report

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
README_MAX_LINES = 300  # the issue asks for about 250
FIRST_PICTURE_BY_LINE = 20

FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
# [text](target) and ![alt](target); the text may hold one level of brackets and span lines.
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]+)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.M)
HTML = re.compile(r"""<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']""", re.I)
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$", re.M)


def _blank(match: re.Match) -> str:
    """Code, blanked but for its newlines (so line numbers hold)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def prose(text: str) -> str:
    """The text with fenced blocks and code spans blanked: links are not looked for in code."""
    return CODE_SPAN.sub(_blank, FENCE.sub(_blank, text))


def links(text: str) -> list[str]:
    """Every link and picture target in a page's prose, in order."""
    p = prose(text)
    found = [(m.start(), m.group(1)) for rx in (INLINE, REFERENCE, HTML) for m in rx.finditer(p)]
    return [target for _, target in sorted(found)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its words lower-cased, punctuation dropped, spaces as hyphens
    (links and code spans count by their text)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors a page's headings give (a repeated heading gets -1, -2, ... as on GitHub)."""
    seen: dict[str, int] = {}
    out = set()
    for m in HEADING.finditer(FENCE.sub(_blank, text)):
        s = slug(m.group(2))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with a page's relative links: a missing file, or an anchor no heading gives."""
    wrong = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
            continue  # http(s):, mailto: ...: not ours to check
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.exists():
            wrong.append(f"{page.relative_to(root)}: {target} (no such file)")
            continue
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text(encoding="utf-8")):
            wrong.append(f"{page.relative_to(root)}: {target} (no heading gives #{anchor})")
    return wrong


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


# ---- the checker checks ------------------------------------------------------------------------
def test_the_checker_finds_links_and_pictures_but_not_in_code(tmp_path):
    (tmp_path / "there.md").write_text("# A page\n\n## Two words: more\n", encoding="utf-8")
    (tmp_path / "pic.png").write_bytes(b"")
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n![a picture](pic.png) and [there](there.md#two-words-more), [a\nsplit link](there.md),\n"
        "[gone](missing.md), [bad anchor](there.md#nowhere), [self](#title), [web](https://example.com/x).\n\n"
        "```sh\n[not a link](nowhere.md)\n```\n\nInline `[code](nowhere.md)` is not one either.\n"
        "`MIGRATIONS[n](meta, parts)`\n\n[ref]: there.md\n",
        encoding="utf-8")
    text = page.read_text(encoding="utf-8")
    assert links(text) == ["pic.png", "there.md#two-words-more", "there.md", "missing.md", "there.md#nowhere",
                           "#title", "https://example.com/x", "there.md"]
    assert broken_links(page, tmp_path) == ["page.md: missing.md (no such file)",
                                            "page.md: there.md#nowhere (no heading gives #nowhere)"]


def test_anchors_are_githubs():
    assert slug("Figures (one instance, 8 real minutes a phase, 2 cores)") == \
        "figures-one-instance-8-real-minutes-a-phase-2-cores"
    assert slug("A waking day: Feb 14 07:00-19:00") == "a-waking-day-feb-14-0700-1900"
    assert slug("Why did they do that?") == "why-did-they-do-that"
    assert slug("One tick: `Simulation.step()` (10 sim seconds)") == "one-tick-simulationstep-10-sim-seconds"
    assert anchors("# A\n## A\n```\n# not a heading\n```\n") == {"a", "a-1"}


# ---- the pages ---------------------------------------------------------------------------------
@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_picture_points_at_something_that_exists(page):
    assert broken_links(page) == []


def test_every_page_in_docs_can_be_reached_from_the_readme():
    reached, todo = set(), [README.resolve()]
    while todo:
        page = todo.pop()
        if page in reached:
            continue
        reached.add(page)
        for target in links(page.read_text(encoding="utf-8")):
            dest = (page.parent / target.partition("#")[0]).resolve()
            if dest.suffix == ".md" and dest.exists() and DOCS.resolve() in dest.parents:
                todo.append(dest)
    unreached = [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in reached]
    assert unreached == []


def test_the_readme_is_short_with_its_picture_first_and_its_two_commands():
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move the rest into docs/"
    pictures = [n for n, line in enumerate(prose(text).splitlines(), 1) if re.search(r"!\[[^\]]*\]\(", line)]
    assert pictures and pictures[0] <= FIRST_PICTURE_BY_LINE, "the README's first picture belongs at the top"
    first_block = FENCE.search(text)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(0).splitlines()[1:-1]]
    assert commands == ["make play", "make test"]  # .ci/run runs `make test`; CI and a newcomer read the same


# ---- the performance page ----------------------------------------------------------------------
def test_the_performance_page_is_what_the_bench_makes_of_results_json():
    doc = json.loads((ROOT / "bench" / "results.json").read_text(encoding="utf-8"))
    page = (DOCS / "performance.md").read_text(encoding="utf-8")
    assert report.PAGE_BEGIN in page and report.PAGE_END in page
    assert page == report.render_page(doc, page), "docs/performance.md is stale: run python -m lab.bench.report"
    assert (ROOT / "bench" / "results.md").read_text(encoding="utf-8") == report.render_markdown(doc)
    assert report.main(["--check"]) == 0


def _doc(value: float, **entry) -> dict:
    return {"date": "2026-01-01 00:00 UTC", "quick": False, "load_before": [1.0], "load_after": [1.0],
            "machine": {"cpu": "a CPU", "cores": 2, "ram_gib": 4.0, "python": "3.11"},
            "results": {"astar": {"status": "ok", "figures": {"median_ms": value}, **entry}}}


def test_the_bench_rewrites_only_the_generated_part_and_only_for_the_checkouts_results(tmp_path, monkeypatch):
    page = tmp_path / "docs" / "performance.md"
    page.parent.mkdir()
    page.write_text(f"# Performance\n\nwords before\n\n{report.PAGE_BEGIN}\nold table\n{report.PAGE_END}\n\n"
                    "## What the figures mean\n\nwords after\n", encoding="utf-8")
    results = tmp_path / "bench" / "results.json"
    monkeypatch.setattr(report, "RESULTS", results)
    monkeypatch.setattr(report, "PAGE", page)

    report.write_results(_doc(2.5), tmp_path / "elsewhere" / "results.json")
    assert "old table" in page.read_text(encoding="utf-8")  # a results file elsewhere leaves the page alone

    report.write_results(_doc(2.5, measured="2026-01-02 03:04 UTC (commit abc)"), results)
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Performance\n\nwords before\n\n" + report.PAGE_BEGIN)
    assert text.endswith(report.PAGE_END + "\n\n## What the figures mean\n\nwords after\n")
    assert "old table" not in text
    assert "| astar | A* long path (>= 80 tiles apart), median | 2.50 ms | — | — |" in text
    assert "- **astar**: 2026-01-02 03:04 UTC (commit abc)" in text
    assert report.main(["--check"]) == 0

    results.write_text(json.dumps(_doc(3.5)), encoding="utf-8")  # figures change, the page does not
    assert report.main(["--check"]) == 1
    assert report.main([]) == 0
    assert "3.50 ms" in page.read_text(encoding="utf-8") and report.main(["--check"]) == 0
