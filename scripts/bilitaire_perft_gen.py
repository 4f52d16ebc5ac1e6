#!/usr/bin/env python3
"""Generate the Bi-litaire perft test positions by seeded random play with the independent naive
model in scripts/bilitaire_perft.py, and compute their perft counts with it.

    python3 scripts/bilitaire_perft_gen.py            # writes the two .perft files
    python3 scripts/bilitaire_perft_gen.py --dry-run  # only prints

Every game is played from the start position with random.Random(seed).  Random policy:
the ball player picks a uniformly random legal move; the slider removes an empty tile with
probability REMOVE_P when one can be removed, otherwise picks a uniformly random action, and
then announces a uniformly random legal length with probability ANNOUNCE_P (else no
announcement).  For each category, seeds base, base+1, ... are tried until the game contains a
position matching the category's predicate; the first matching position (in ply order, after
a seed-dependent skip) is used.
"""

import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bilitaire_perft as bp  # noqa: E402

START = "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--oooo--/--oooo-- r"
REMOVE_P = 0.6
ANNOUNCE_P = 0.35
NODE_LIMIT = 200_000
TIME_LIMIT = 40.0  # estimated seconds for the next depth


def play_game(seed, free_chains=False):
    """Returns the list of (holes, side) from the start to the end of the round."""
    rng = random.Random(seed)
    holes, side = bp.parse_position(START)
    traj = [(holes, side)]
    while True:
        kind = side[0]
        if kind == "s":
            acts = bp.slider_actions(holes)
            if not acts:
                break
            removals = [a for a in acts if a[0].startswith("x")]
            if removals and rng.random() < REMOVE_P:
                name, new = rng.choice(removals)
            else:
                name, new = rng.choice(acts)
            anns = bp.legal_announcements(new)
            if anns and rng.random() < ANNOUNCE_P:
                nside = ("b", rng.choice(anns))
            else:
                nside = ("b", 1)
            holes, side = new, nside
        else:
            moves = bp.legal_moves(holes, side, free_chains)
            if not moves:
                break
            _, holes, side = rng.choice(moves)
        traj.append((holes, side))
    return traj


def balls(holes):
    return sum(1 for v in holes.values() if v)


def ntiles(holes):
    return len(bp.tiles_of(holes))


def has_announce(holes, side):
    return side[0] == "s" and any(bp.legal_announcements(new) for _, new in bp.slider_actions(holes))


# (label, first seed, predicate(ply, holes, side, plies_to_end))
CATEGORIES = [
    ("early ply 3", 101, lambda p, h, s, e: p == 3),
    ("early ply 4", 111, lambda p, h, s, e: p == 4),
    ("early ply 5", 121, lambda p, h, s, e: p == 5),
    ("early ply 6", 131, lambda p, h, s, e: p == 6),
    ("early ply 8", 141, lambda p, h, s, e: p == 8),
    ("mid slider 30-35 balls", 201, lambda p, h, s, e: s[0] == "s" and 30 <= balls(h) <= 35),
    ("mid ball 25-30 balls", 211, lambda p, h, s, e: s == ("b", 1) and 25 <= balls(h) <= 30),
    ("mid slider 20-25 balls", 221, lambda p, h, s, e: s[0] == "s" and 20 <= balls(h) <= 25),
    ("late slider 10-15 balls", 301, lambda p, h, s, e: s[0] == "s" and 10 <= balls(h) <= 15),
    ("late ball 6-12 balls", 311, lambda p, h, s, e: s == ("b", 1) and 6 <= balls(h) <= 12),
    ("late slider 6-10 balls", 321, lambda p, h, s, e: s[0] == "s" and 6 <= balls(h) <= 10),
    ("tiles removed: slider, <=10 tiles", 401,
     lambda p, h, s, e: s[0] == "s" and ntiles(h) <= 10),
    ("tiles removed: ball, <=9 tiles", 411,
     lambda p, h, s, e: s[0] == "b" and ntiles(h) <= 9),
    ("tiles removed: slider, <=8 tiles", 421,
     lambda p, h, s, e: s[0] == "s" and ntiles(h) <= 8),
    ("announcement b2", 501, lambda p, h, s, e: s == ("b", 2)),
    ("announcement b2 later", 511, lambda p, h, s, e: s == ("b", 2) and balls(h) <= 30),
    ("announcement b3", 521, lambda p, h, s, e: s == ("b", 3)),
    ("announcement b3+ later", 531, lambda p, h, s, e: s[0] == "b" and s[1] >= 3 and balls(h) <= 32),
    ("slider, announcements available", 601,
     lambda p, h, s, e: s[0] == "s" and p > 6 and has_announce(h, s)),
    ("slider, announcements available, mid", 611,
     lambda p, h, s, e: s[0] == "s" and balls(h) <= 30 and has_announce(h, s)),
    ("near end: 4 plies to go", 701, lambda p, h, s, e: e == 4),
    ("near end: 3 plies to go", 711, lambda p, h, s, e: e == 3),
    ("near end: terminal", 721, lambda p, h, s, e: e == 0 and s[0] == "b"),
]

FREE_CATEGORIES = [
    ("free: after opening", 801, lambda p, h, s, e: p == 2),
    ("free: early ply 5", 811, lambda p, h, s, e: p == 5),
    ("free: mid ball 25-35 balls", 821, lambda p, h, s, e: s == ("b", 1) and 25 <= balls(h) <= 35),
    ("free: mid slider 20-30 balls", 831, lambda p, h, s, e: s[0] == "s" and 20 <= balls(h) <= 30),
    ("free: ball, chain of 2+ open, mid", 851,
     lambda p, h, s, e: s == ("b", 1) and balls(h) <= 35 and bp.max_chain_length(h) >= 2),
    ("free: ball, chain of 3+ open", 861,
     lambda p, h, s, e: s == ("b", 1) and bp.max_chain_length(h) >= 3),
    ("free: late ball 8-15 balls", 841, lambda p, h, s, e: s == ("b", 1) and 8 <= balls(h) <= 15),
]


def pick(base_seed, pred, free_chains):
    for seed in range(base_seed, base_seed + 50):
        traj = play_game(seed, free_chains)
        n = len(traj)
        for ply, (h, s) in enumerate(traj):
            if pred(ply, h, s, n - 1 - ply):
                return seed, ply, h, s
    raise RuntimeError("no position found from seed %d" % base_seed)


def perft_depths(holes, side, free_chains, max_depth=8):
    """Depths 1, 2, ... while the next count is estimated at most NODE_LIMIT and its time at most
    TIME_LIMIT.  Branching alternates between slider and ball plies, so the next count is
    estimated from the ratio two plies back: n[d+1] ~ n[d] * n[d-1] / n[d-2]."""
    counts = [1]  # counts[d] = perft(d); counts[0] = 1
    res = []
    last_t = 0.0
    for d in range(1, max_depth + 1):
        if d >= 2:
            if counts[-1] == 0:
                break
            ratio = counts[-1] / counts[-2] if d == 2 else counts[-2] / counts[-3]
            est = counts[-1] * max(ratio, 1.0)
            if est > NODE_LIMIT or last_t * max(ratio, 1.0) > TIME_LIMIT:
                break
        t0 = time.time()
        n = bp.perft(holes, side, d, free_chains)
        last_t = time.time() - t0
        counts.append(n)
        res.append((d, n))
    return res


def main():
    dry = "--dry-run" in sys.argv
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for free, cats, fname in ((False, CATEGORIES, "bilitaire.perft"),
                              (True, FREE_CATEGORIES, "bilitaire-free-chains.perft")):
        lines = []
        seeds = []
        if not free:
            h, s = bp.parse_position(START)
            lines.append(START + " ; " + " ; ".join("%d %d" % (d, bp.perft(h, s, d)) for d in range(1, 6)))
            print(lines[-1], flush=True)
        for label, base, pred in cats:
            t0 = time.time()
            seed, ply, h, s = pick(base, pred, free)
            seeds.append(seed)
            res = perft_depths(h, s, free)
            line = bp.format_position(h, s) + " ; " + " ; ".join("%d %d" % dn for dn in res)
            lines.append("# %s: seed %d, ply %d, %d balls, %d tiles" % (label, seed, ply, balls(h), ntiles(h)))
            lines.append(line)
            print(lines[-2], "(%.1fs)" % (time.time() - t0), flush=True)
            print(line, flush=True)
        flag = " --free-chains" if free else ""
        header = [
            "# Bi-litaire perft (%s rules). Generated and confirmed by `python3 scripts/bilitaire_perft.py`"
            % ("free-chains" if free else "standard"),
            "# (independent naive model, written from shared/rules/bilitaire.md only).",
            "# Positions from seeded random play: `python3 scripts/bilitaire_perft_gen.py`, Python",
            "# random.Random(seed) with seeds %s." % ", ".join(str(x) for x in seeds),
            "# Re-check: python3 scripts/bilitaire_perft.py%s --file engine/tests/data/%s" % (flag, fname),
            "# Format: <position> ; <depth> <nodes> ; ...   ('#' lines are comments)",
        ]
        text = "\n".join(header + lines) + "\n"
        if dry:
            print(text)
        else:
            with open(os.path.join(root, "engine", "tests", "data", fname), "w") as fh:
                fh.write(text)


if __name__ == "__main__":
    main()
