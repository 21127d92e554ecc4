#!/bin/sh
# A seeded 14-hour headless run of the 25 residents with the scripted model, for checking
# that a change which should not change behaviour does not: run it before and after, then
#   cmp BEFORE/run/events.jsonl AFTER/run/events.jsonl
#   cmp BEFORE/timeline.md AFTER/timeline.md
# (timeline.md here is the run's with its wall-time line taken out). About two minutes.
#   sh scripts/seeded_run.sh OUT [more smallville sim flags, e.g. --lockstep]
#   sh scripts/seeded_run.sh --both OUT   # out of order and lockstep: events, timeline, recording (docs/stepping.md)
# HOURS (default 14) and PYTHON (default the checkout's .venv) may be set in the environment.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$here/.venv/bin/python}
if [ "${1:-}" = "--both" ]; then
    out=${2:?usage: sh scripts/seeded_run.sh --both OUT}
    # out of order also checks, every round, that what it keeps between rounds is what it would work out afresh
    export SMALLVILLE_CHECK_CLOCKS=1
    sh "$0" "$out/out-of-order" --out-of-order
    sh "$0" "$out/lockstep" --lockstep
    cmp "$out/out-of-order/run/events.jsonl" "$out/lockstep/run/events.jsonl"
    cmp "$out/out-of-order/timeline.md" "$out/lockstep/timeline.md"
    # the recordings too, record by record, the wall clock and the calls made by then aside
    "$python" -c 'import json, sys
read = lambda p: [{k: v for k, v in json.loads(x).items() if k not in ("w", "wall", "c", "t")} for x in open(p)]
a, b = (read(f"{sys.argv[1]}/{w}/run/recording.jsonl") for w in ("out-of-order", "lockstep"))
bad = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None if len(a) == len(b) else min(len(a), len(b)))
sys.exit(None if bad is None else f"the recordings differ at record {bad + 1}")' "$out"
    echo "the same run both ways: $(wc -l < "$out/lockstep/run/events.jsonl") events, the same recording;" \
        "$(grep '^stepping' "$out/out-of-order/log")"
    exit 0
fi
out=${1:?usage: sh scripts/seeded_run.sh OUT [flags] | sh scripts/seeded_run.sh --both OUT}
shift
rm -rf "$out" && mkdir -p "$out"
SMALLVILLE_HOME="$out/home" PYTHONPATH="$here" "$python" -m smallville sim \
    --model scripted/competent --hours "${HOURS:-14}" --seed 7 --out "$out/run" "$@" > "$out/log" 2>&1
grep -v "wall time" "$out/run/timeline.md" > "$out/timeline.md"
