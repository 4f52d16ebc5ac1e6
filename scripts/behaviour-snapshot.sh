#!/usr/bin/env bash
# Prints a fixed set of engine answers with timings removed, so that two builds can be compared
# line by line (`diff`): perft counts, exact solve values, best moves, principal variations and
# node counts (one thread), and `backgammon hint --json` over a fixed list of positions.
# Usage: scripts/behaviour-snapshot.sh TARGET_DIR > snapshot.txt
# (TARGET_DIR holds release/tabula and release/examples/solve_suite, e.g. `target`.)
set -euo pipefail
cd "$(dirname "$0")/.."
T="$1/release/tabula"
SUITE="$1/release/examples/solve_suite"
export TABULA_CACHE_DIR="${TABULA_CACHE_DIR:-$(mktemp -d)}"
strip_times() { python3 -c '
import json, sys
def walk(v):
    if isinstance(v, dict):
        return {k: walk(x) for k, x in v.items() if k not in ("time_ms", "elapsed_ms", "nps")}
    if isinstance(v, list):
        return [walk(x) for x in v]
    return v
for line in sys.stdin:
    line = line.strip()
    if line:
        print(json.dumps(walk(json.loads(line)), sort_keys=True))
'; }

echo "## perft"
$T bilitaire perft --depth 5 --json
$T bilitaire perft --depth 3 --rules free-chains --json \
  --position "oooo--oo/ooo.--oo/ooo.--oo/o...--oo/o.o.oooo/.....o.o/------../------oo s"
for r in children standard mature; do $T pylos perft --depth 5 --rules $r --json; done

echo "## bilitaire suites (value and nodes, one thread)"
for balls in 19 21 23; do "$SUITE" $balls 9 | sed -E 's/ time [0-9.]+s//; s/median .*//'; done

echo "## bilitaire solve --json"
for p in "--.o----/--..----/--o.oo../--o...o./--..----/--.o----/--..--.o/--.o--o. s" \
         ".o------/.o------/..--oo--/o.--.o--/----o.--/----..--/----...o/----o.oo b"; do
  $T bilitaire solve --threads 1 --json --position "$p" | strip_times
done
"$SUITE" 17 4 | grep ' value ' | sed -E 's/ value.*//' | while read -r board side; do
  $T bilitaire solve --threads 1 --json --position "$board $side" | strip_times
  $T bilitaire analyze --threads 1 --json --nodes 20000 --position "$board $side" | strip_times
done

echo "## pylos solve --json (children's rules)"
for p in "bwbw/wbwb/bwbw/wbw.|b../.../...|../..|. b" "bwbw/bwbw/wbwb/wbwb|bw./w../...|../..|. b"; do
  $T pylos solve --rules children --threads 1 --hash 256 --json --position "$p" 2>/dev/null | strip_times || echo "rc=$?"
done

echo "## backgammon hint --json"
grep -v '^#' engine/tests/data/backgammon-xgids.txt | head -24 | while read -r xgid posid matchid; do
  $T backgammon hint --threads 1 --json --position "$posid" --match-id "$matchid" | strip_times
  $T backgammon hint --threads 1 --json --plies 1 --position "$posid" --dice 52 | strip_times
done
$T backgammon hint --threads 1 --json --dice 31 | strip_times
$T backgammon hint --threads 1 --json --plies 0 --dice 66 | strip_times
