#!/usr/bin/env python3
"""Generate tablebase/tests/data/gnubg-bearoff.txt from GNU Backgammon's own bearoff databases.

Run from the repository root (needs `apt-get install gnubg`; plain python3, standard library):

    python3 scripts/gnubg-bearoff-fixture.py [--work DIR] [--out FILE]

It builds gnubg's one-sided database (`makebearoff -o 6`: 15 checkers on 6 points, with the
gammon distributions) and two-sided database (`makebearoff -t 6x6`) in DIR (default: a
temporary directory, removed afterwards; files already in DIR are reused), then dumps a fixed,
seeded selection of positions with `bearoffdump -p <Position ID>` and writes what gnubg
printed (the test also checks that gnubg's INDEX is Tabula's rank). The two-sided file
is built with its cubeful equities: bearoffdump 1.07 misreads a cubeless-only (`-C`) file.
gnubg takes about 3 s for the one-sided and 30 s of CPU for the two-sided database.

Lines of the fixture (boards are six checker counts, ace point first):

    os BOARD INDEX MEAN FIRST_MEAN DIST FIRST_DIST
        INDEX: gnubg's bearoff position number; MEAN, FIRST_MEAN: mean rolls to bear off all
        checkers / the first checker (gnubg's "saving gammon" mean); DIST, FIRST_DIST: the
        percentages for 0, 1, 2, ... rolls, comma-separated, as gnubg prints them.
    ts ON_ROLL OPPONENT EQUITY
        EQUITY: gnubg's cubeless equity for the player on roll.

Deterministic: the positions come from a fixed seed, and gnubg's output does not vary.
"""

import argparse
import base64
import os
import random
import re
import subprocess
import sys
import tempfile

MAKEBEAROFF = "/usr/games/makebearoff"
BEAROFFDUMP = "/usr/games/bearoffdump"
SEED = 20261122
N_RANDOM_OS = 28
N_RANDOM_OS_FULL = 8
N_RANDOM_TS = 20
RACE_POINTS = 8
N_RANDOM_RACE = 30
N_RANDOM_RACE_FULL = 30


def position_id(opponent, on_roll):
    """gnubg Position ID: the opponent's 25 slots, then the player's, each checker a 1 bit and
    each slot closed by a 0 bit, 80 bits little-endian, base64 without padding."""
    bits = []
    for side in (opponent, on_roll):
        for i in range(25):
            count = side[i] if i < len(side) else 0
            bits += [1] * count + [0]
    bits += [0] * (80 - len(bits))
    data = bytes(sum(bits[8 * k + j] << j for j in range(8)) for k in range(10))
    return base64.b64encode(data).decode()[:14]


def random_board(rng, checkers, points=6):
    """A uniformly random distribution of `checkers` checkers on `points` points."""
    bars = sorted(rng.sample(range(checkers + points - 1), points - 1))
    counts, prev = [], -1
    for b in bars + [checkers + points - 1]:
        counts.append(b - prev - 1)
        prev = b
    return counts


def fmt_board(board):
    return ",".join(str(c) for c in board)


def dump(db, pid):
    out = subprocess.run(
        [BEAROFFDUMP, db, "-p", pid], check=True, capture_output=True, text=True
    ).stdout
    return out


def one_sided(db, board):
    text = dump(db, position_id([], board))
    index = int(re.search(r"^Position\s+(\d+)\s+(\d+)", text, re.M).group(1))
    rows = {}
    table = text.split("Rolls\tPlayer\tOpponent\tPlayer\tOpponent", 1)[1]
    table = table.split("Average rolls", 1)[0]
    for line in table.strip().splitlines():
        fields = line.split()
        rolls = int(fields[0])
        values = fields[1:]
        # Columns: player, opponent (bearing off), then player, opponent (first checker) while
        # that distribution lasts. The opponent here has no checkers.
        rows[rolls] = (values[0], values[2] if len(values) >= 4 else None)
    mean_line = re.search(r"^Mean\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", text, re.M)
    mean, first_mean = mean_line.group(1), mean_line.group(3)
    last = max(k for k, (p, _) in rows.items() if float(p) > 0)
    last_first = max(k for k, (_, g) in rows.items() if g is not None and float(g) > 0)
    dist = [rows.get(k, ("0.000", None))[0] for k in range(last + 1)]
    first = [rows.get(k, (None, "0.000"))[1] or "0.000" for k in range(last_first + 1)]
    return index, mean, first_mean, dist, first


def two_sided(db, on_roll, opponent):
    text = dump(db, position_id(opponent, on_roll))
    return re.search(r"Cubeless equity\s*:\s*(\S+)", text).group(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", help="directory for gnubg's databases (default: temporary)")
    ap.add_argument("--out", help="default: tablebase/tests/data/gnubg-bearoff.txt, or "
                    "gnubg-race8.txt there with --race")
    ap.add_argument("--race", action="store_true",
                    help="the race fixture instead: gnubg's one-sided database of 8 points")
    args = ap.parse_args()
    make = generate_race if args.race else generate
    out = args.out or ("tablebase/tests/data/gnubg-race8.txt" if args.race
                       else "tablebase/tests/data/gnubg-bearoff.txt")
    if args.work:
        os.makedirs(args.work, exist_ok=True)
        make(args.work, out)
    else:
        with tempfile.TemporaryDirectory(prefix="gnubg-bearoff-") as work:
            make(work, out)


def generate_race(work, out):
    """gnubg's one-sided database of 8 points (`makebearoff -o 8`, 24 s), dumped for a seeded
    selection of boards: the figures `RaceTable::build(8)` must give."""
    points = RACE_POINTS
    db = os.path.join(work, "gnubg-os8.bd")
    if not os.path.exists(db):
        print(f"building {db}", file=sys.stderr)
        subprocess.run([MAKEBEAROFF, "-o", str(points), "-f", db], check=True, cwd=work,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rng = random.Random(SEED + 1)
    boards = [[0] * (points - 1) + [15], [0] * (points - 1) + [1], [2] * 7 + [1],
              [0, 0, 0, 0, 0, 0, 5, 10], [10, 0, 0, 0, 0, 0, 0, 5]]
    boards += [random_board(rng, 15, points) for _ in range(N_RANDOM_RACE_FULL)]
    boards += [random_board(rng, rng.randint(1, 14), points) for _ in range(N_RANDOM_RACE)]
    # Only boards outside the home board test the race database's own part.
    boards = [b for b in boards if any(b[6:])]
    lines = [
        "# GNU Backgammon 1.07 one-sided database of 8 points (makebearoff -o 8), dumped by",
        "# scripts/gnubg-bearoff-fixture.py --race",
        "# race BOARD MEAN FIRST_MEAN DIST% FIRST_DIST% (boards: 8 counts, ace point first)",
    ]
    for board in boards:
        _, mean, first_mean, dist, first = one_sided(db, board)
        lines.append(f"race {fmt_board(board)} {mean} {first_mean} {','.join(dist)} "
                     f"{','.join(first)}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {out}: {len(boards)} boards", file=sys.stderr)


def generate(work, out):
    os_db = os.path.join(work, "gnubg-os6.bd")
    ts_db = os.path.join(work, "gnubg-ts6x6.bd")
    for path, flags in ((os_db, ["-o", "6"]), (ts_db, ["-t", "6x6"])):
        if not os.path.exists(path):
            print(f"building {path}", file=sys.stderr)
            subprocess.run(
                [MAKEBEAROFF, *flags, "-f", path],
                check=True,
                cwd=work,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

    rng = random.Random(SEED)
    os_boards = [
        [0, 0, 0, 0, 0, 1],
        [1, 0, 0, 0, 0, 0],
        [15, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 15],
        [3, 3, 3, 2, 2, 2],
        [0, 0, 0, 0, 0, 2],
    ]
    os_boards += [random_board(rng, rng.randint(1, 14)) for _ in range(N_RANDOM_OS)]
    os_boards += [random_board(rng, 15) for _ in range(N_RANDOM_OS_FULL)]
    ts_pairs = [([0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 2]), ([0, 0, 0, 0, 0, 6], [6, 0, 0, 0, 0, 0])]
    for _ in range(N_RANDOM_TS):
        # Sides of similar size, so that few of the races are already decided.
        n = rng.randint(2, 6)
        ts_pairs.append((random_board(rng, n), random_board(rng, rng.randint(max(1, n - 2), 6))))

    lines = [
        "# GNU Backgammon 1.07 bearoff databases, dumped by scripts/gnubg-bearoff-fixture.py",
        "# os BOARD INDEX MEAN FIRST_MEAN DIST% FIRST_DIST% (boards: ace point first)",
        "# ts ON_ROLL OPPONENT CUBELESS_EQUITY",
    ]
    for board in os_boards:
        index, mean, first_mean, dist, first = one_sided(os_db, board)
        lines.append(
            f"os {fmt_board(board)} {index} {mean} {first_mean} {','.join(dist)} {','.join(first)}"
        )
    for on_roll, opponent in ts_pairs:
        equity = two_sided(ts_db, on_roll, opponent)
        lines.append(f"ts {fmt_board(on_roll)} {fmt_board(opponent)} {equity}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {out}: {len(os_boards)} one-sided, {len(ts_pairs)} two-sided", file=sys.stderr)


if __name__ == "__main__":
    main()
