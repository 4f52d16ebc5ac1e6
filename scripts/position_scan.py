"""Compare Tabula's evaluation with GNU Backgammon's on random positions of one kind.

    python3 scripts/position_scan.py --kind late-race|few-race|late-hit|back-checkers|
                                            back-in-play [--count 200]
                                     [--seed 1] [--plies 0] [--gnubg-plies 2]
                                     [--tabula target/release/tabula] [--weights W.tnet]
                                     [--worst 3]

Hunts the evaluator's blind spots: kinds of positions that ordinary games rarely reach and the
nets may never have seen. One file, two sides, as scripts/cube_judge.py: the driver runs gnubg
(`gnubg -t -q -r -p scripts/position_scan.py` with SCAN_* in the environment) to draw the
positions (gnubg's own Position IDs), gnubg's text interface for its evaluation (`eval`, the
cubeless equity of the player on roll at --gnubg-plies), and
`tabula backgammon hint --position ID --plies K --json` for Tabula's. Prints the mean
|equity difference|, how many differ by more than 0.05 and 0.2, and the worst positions.
Deterministic per seed. gnubg is a yardstick here, not the truth (its race net errs too).

Kinds (the player on roll is drawn at random; positions are legal and, for the races, without
contact):
- late-race: 2 checkers on the 7- to 20-points and 13 off, against 2 to 8 checkers on the
  opponent's 1- to 3-points (the race-net blind spot of stop 37).
- few-race: 1 to 4 checkers anywhere on the 24 points (one outside the home board), the rest
  off, against 1 to 8 on the other side's home board.
- late-hit: 1 to 4 checkers left, one of them on the bar, against a home board of 3 to 6
  made points (at least 2 checkers each) and 2 to 5 checkers of that side elsewhere.
- back-checkers: 2 or 3 checkers back (each on the bar or on a point of the other side's home
  board), 0 to 3 on the home board, against a home board of 3 to 5 made points and 2 to 5
  checkers of that side elsewhere (the blind spot found in stop 38: `bJvAQQwGAAAFAA`).
- back-in-play: 1 to 3 checkers back, 0 to 3 home, against a side with 0 to 2 checkers off,
  3 to 5 made home points and its other checkers on its home board, its outfield or the
  first side's home board (`MzsASwkGAMAAAA`, found by replaying a duel's worst games).
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

GNUBG = "/usr/games/gnubg"


def back_side(rng, me, fewest):
    """`fewest` to 3 checkers back (each on the bar three times in ten, else on a point of the
    other side's home board) and 0 to 3 on the home board."""
    for _ in range(rng.randint(fewest, 3)):
        if rng.random() < 0.3:
            me[24] += 1
        else:
            me[rng.randint(18, 23)] += 1
    for _ in range(rng.randint(0, 3)):
        me[rng.randint(0, 5)] += 1


def make_board(rng, opp, most):
    """3 to `most` made home points, 2 or 3 checkers each."""
    for p in rng.sample(range(6), rng.randint(3, most)):
        opp[p] = 2 + rng.randint(0, 1)


def spread_out(rng, opp):
    """2 to 5 more checkers on the 7- to 24-points; False if that makes more than 15."""
    for _ in range(rng.randint(2, 5)):
        opp[rng.randint(6, 23)] += 1
    return sum(opp) <= 15


def draw(kind, rng):
    """One position as (side to move's 25 counts, other side's 25 counts), points 1..24
    then the bar, each side from its own point of view; None when the draw is refused."""
    me, opp = [0] * 25, [0] * 25
    if kind == "late-race":
        for _ in range(2):
            me[rng.randint(6, 19)] += 1
        for _ in range(rng.randint(2, 8)):
            opp[rng.randint(0, 2)] += 1
    elif kind == "few-race":
        for _ in range(rng.randint(1, 4)):
            me[rng.randint(0, 23)] += 1
        if sum(me[6:24]) == 0:
            return None
        for _ in range(rng.randint(1, 8)):
            opp[rng.randint(0, 5)] += 1
    elif kind == "late-hit":
        me[24] = 1
        for _ in range(rng.randint(0, 3)):
            me[rng.randint(0, 5)] += 1
        make_board(rng, opp, 6)
        if not spread_out(rng, opp):
            return None
    elif kind == "back-checkers":
        back_side(rng, me, 2)
        make_board(rng, opp, 5)
        if not spread_out(rng, opp):
            return None
    elif kind == "back-in-play":
        back_side(rng, me, 1)
        make_board(rng, opp, 5)
        left = 15 - rng.randint(0, 2) - sum(opp)
        if left < 0:
            return None
        for _ in range(left):
            opp[rng.choice([rng.randint(0, 5), rng.randint(6, 17), rng.randint(6, 17),
                            rng.randint(18, 23)])] += 1
    else:
        raise ValueError(kind)
    # My point p (1-based) is the opponent's 25 - p: no point shared; no contact in races.
    for p in range(1, 25):
        if me[p - 1] and opp[24 - p]:
            return None
    if kind not in ("late-hit", "back-checkers", "back-in-play"):
        back = max(p for p in range(1, 25) if me[p - 1])
        oback = max(p for p in range(1, 25) if opp[p - 1])
        if back + oback > 25:
            return None
    return me, opp


def gnubg_side():
    """Inside gnubg: the Position IDs of the draw (the player on roll drawn at random)."""
    import gnubg  # noqa: only available inside gnubg

    rng = random.Random(int(os.environ["SCAN_SEED"]))
    kind, count = os.environ["SCAN_KIND"], int(os.environ["SCAN_COUNT"])
    ids = []
    while len(ids) < count:
        d = draw(kind, rng)
        if d is None:
            continue
        me, opp = d
        # gnubg.positionid takes (player not on roll, player on roll).
        pair = (tuple(opp), tuple(me)) if rng.random() < 0.5 else (tuple(me), tuple(opp))
        ids.append(gnubg.positionid(pair))
    with open(os.environ["SCAN_OUT"], "w") as f:
        json.dump(ids, f)


def gnubg_equities(ids, plies):
    """gnubg's cubeless equity of each position for the player on roll, at `plies`."""
    cmds = ["new session", "set evaluation chequerplay evaluation plies %d" % plies]
    for pid in ids:
        cmds += ["set board " + pid, "eval"]
    out = subprocess.run([GNUBG, "-t", "-q", "-r"], input="\n".join(cmds) + "\n",
                         capture_output=True, text=True).stdout
    label = "static" if plies == 0 else "%d ply" % plies
    rows = re.findall(r"^\s*%s:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)" % label, out,
                      re.M)
    if len(rows) != len(ids):
        sys.exit("gnubg evaluated %d of %d positions" % (len(rows), len(ids)))
    return [float(r[5]) for r in rows]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kind", required=True, choices=["late-race", "few-race", "late-hit",
                                                      "back-checkers", "back-in-play"])
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plies", type=int, default=0)
    ap.add_argument("--gnubg-plies", type=int, default=2)
    ap.add_argument("--tabula", default="target/release/tabula")
    ap.add_argument("--weights", help="Tabula's weights file (default: the shipped weights)")
    ap.add_argument("--worst", type=int, default=3)
    args = ap.parse_args()
    if args.count < 1:
        sys.exit("--count must be at least 1")
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    env = dict(os.environ, SCAN_SEED=str(args.seed), SCAN_KIND=args.kind,
               SCAN_COUNT=str(args.count), SCAN_OUT=path)
    subprocess.run([GNUBG, "-t", "-q", "-r", "-p", os.path.abspath(__file__)], env=env,
                   capture_output=True, text=True)
    try:
        with open(path) as f:
            ids = json.load(f)
    except (OSError, ValueError):
        sys.exit("gnubg did not draw the positions (is gnubg installed?)")
    finally:
        os.unlink(path)
    theirs = gnubg_equities(ids, args.gnubg_plies)
    diffs = []
    for pid, g in zip(ids, theirs):
        r = subprocess.run([args.tabula, "backgammon", "hint", "--position", pid,
                            "--plies", str(args.plies), "--json"]
                           + (["--weights", args.weights] if args.weights else []),
                           capture_output=True, text=True)
        ours = json.loads(r.stdout)
        if "equity" not in ours:
            sys.exit("tabula refused %s: %s" % (pid, r.stdout.strip()))
        diffs.append((abs(ours["equity"] - g), pid, ours["equity"], g))
    d = [x[0] for x in diffs]
    print("%s, %d positions (seed %d): Tabula %d-ply against gnubg %d-ply" % (
        args.kind, len(d), args.seed, args.plies, args.gnubg_plies))
    print("mean |equity difference| %.4f, max %.3f; > 0.05: %d, > 0.2: %d" % (
        sum(d) / len(d), max(d), sum(x > 0.05 for x in d), sum(x > 0.2 for x in d)))
    for diff, pid, ours, g in sorted(diffs, reverse=True)[:args.worst]:
        print("  %s: Tabula %+.3f, gnubg %+.3f" % (pid, ours, g))


if __name__ == "__main__":
    if "SCAN_OUT" in os.environ and "SCAN_KIND" in os.environ:
        gnubg_side()
    else:
        main()
