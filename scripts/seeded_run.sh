#!/bin/sh
# A seeded 14-hour headless run of the 25 residents with the scripted model, for checking
# that a change which should not change behaviour does not: run it before and after, then
#   cmp BEFORE/run/events.jsonl AFTER/run/events.jsonl
#   cmp BEFORE/timeline.md AFTER/timeline.md
# (timeline.md here is the run's with its wall-time line taken out). About two minutes.
#   sh scripts/seeded_run.sh OUT
set -eu
out=${1:?usage: sh scripts/seeded_run.sh OUT}
here=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$out" && mkdir -p "$out"
SMALLVILLE_HOME="$out/home" PYTHONPATH="$here" "$here/.venv/bin/python" -m smallville sim \
    --model scripted/competent --hours 14 --seed 7 --out "$out/run" > "$out/log" 2>&1
grep -v "wall time" "$out/run/timeline.md" > "$out/timeline.md"
