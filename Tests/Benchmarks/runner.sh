#!/usr/bin/env bash
# The runner's own cost, measured: `bash Tests/Benchmarks/runner.sh [debug|release]` (default: both).
# RUNNER_BINARIES=DIR measures DIR/debug/run-experiments and DIR/release/run-experiments instead of
# building this tree's (a copy of another commit's binaries: the "before" of a change).
# Prints, per build, the median of 3 of:
#   - `list` wall time;
#   - the overhead per experiment: wall (the runner's turn to it → judged, JSON `wallSeconds`) minus
#     the child's measured time, averaged over every experiment of `all --time-scale 0.1` (each
#     run's line also gives the median experiment's, the overhead of a short one);
#   - `all --time-scale 0.1`: its wall time against its work (predicted timed work plus the
#     untimed experiments' measured time), as a ratio.
# Uses bash, /usr/bin/time-free timing (date +%s.%N) and python3's standard library to read JSON.
set -euo pipefail
cd "$(dirname "$0")/../.."
builds=("${@:-debug release}")
read -r -a builds <<<"${builds[*]}"

now() { date +%s.%N; }
median() { python3 -c 'import sys,statistics; print("%.3f" % statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

for build in "${builds[@]}"; do
    if [[ -n "${RUNNER_BINARIES:-}" ]]; then
        binary="$RUNNER_BINARIES/$build/run-experiments"
    else
        swift build -c "$build" --product run-experiments >/dev/null
        binary=".build/$build/run-experiments"
    fi
    echo "== $build build · load average $(cut -d' ' -f1-3 /proc/loadavg)"

    lists=()
    for _ in 1 2 3; do
        start=$(now); "$binary" list >/dev/null; end=$(now)
        lists+=("$(python3 -c "print($end - $start)")")
    done
    echo "list: median $(median "${lists[@]}") s (runs: ${lists[*]})"

    overheads=(); ratios=()
    for run in 1 2 3; do
        json=$(mktemp)
        start=$(now); "$binary" all --time-scale 0.1 --format json >"$json" 2>/dev/null || true; end=$(now)
        read -r overhead ratio detail < <(python3 - "$json" "$start" "$end" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
ran = [e for e in data["experiments"] if e.get("wallSeconds") is not None]
overheads = sorted(e["wallSeconds"] - (e.get("measuredSeconds") or 0) for e in ran)
overhead = sum(overheads) / max(1, len(ran))
typical = overheads[len(overheads) // 2] if overheads else 0
timed = sum(e["expected"]["seconds"] for e in ran if e["timed"])
untimed = sum(e.get("measuredSeconds") or 0 for e in ran if not e["timed"])
work = timed + untimed
print("%.4f %.3f wall=%.2fs timed=%.2fs untimed=%.2fs n=%d median-experiment-overhead=%.4fs" % (overhead, wall / work, wall, timed, untimed, len(ran), typical))
PY
)
        rm -f "$json"
        echo "all --time-scale 0.1 run $run: overhead per experiment ${overhead} s, wall/work ${ratio} ($detail)"
        overheads+=("$overhead"); ratios+=("$ratio")
    done
    echo "overhead per experiment: median $(median "${overheads[@]}") s; all at 0.1, wall/work: median $(median "${ratios[@]}")"
done
