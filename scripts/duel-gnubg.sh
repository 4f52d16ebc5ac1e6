#!/usr/bin/env bash
# Duel: Tabula's backgammon engine against GNU Backgammon 1.07 (0-ply; any level with
# `--duplicate --gnubg-plies K`), money games with the cube, through the external protocol.
#
#   scripts/duel-gnubg.sh GAMES PLIES [SEED [DRIVER OPTIONS...]]
#
# DRIVER OPTIONS go to scripts/duel_gnubg.py, e.g. `--duplicate --out duel.jsonl` for
# duplicate dice (each game seed played twice, seats swapped; resumable with `--resume`).
#
# Builds the release binary (honours CARGO_TARGET_DIR), starts `tabula backgammon external`
# on a free local port, lets gnubg (GNUBG, default /usr/games/gnubg) connect and play GAMES
# games, then prints the engine's points per game with a 95% confidence interval, its mean
# decision time, and the legality checks (the engine's own and gnubg's re-check of every play).
# Everything runs under `nice`. Exit status 1 when a game is missing or a play was illegal.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 GAMES PLIES [SEED [DRIVER OPTIONS...]]" >&2
    exit 2
fi
GAMES=$1
PLIES=$2
SEED=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}
nice -n 10 cargo build --release -q -p tabula
exec python3 scripts/duel_gnubg.py --tabula "$TARGET/release/tabula" \
    --games "$GAMES" --plies "$PLIES" --seed "$SEED" ${DUEL_LOG:+--log "$DUEL_LOG"} "$@"
