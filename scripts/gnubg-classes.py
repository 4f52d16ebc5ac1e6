"""Generate gammon/tests/data/backgammon-classes.txt: gnubg 1.07's class of positions built
to sit on both sides of its "crashed" rule, for the test of Tabula's `NetClass`.

Run from the repository root (needs `apt-get install gnubg`):

    /usr/games/gnubg -t -q -p scripts/gnubg-classes.py > /dev/null

Each position gives each side a number of checkers in play (1 to 15, most of them 5 to 12,
where the rule turns), a pile on its ace point and one on its deuce point (0 to 5 each), and
the rest on random points 3 to 24 or the bar, never on a point the other side holds. gnubg's
`classifypos` names the class (10 contact, 9 crashed, 4 to 8 race and its bear-off kinds).
One line per position: its gnubg Position ID and `contact`, `crashed` or `race`.
"""

import random

import gnubg

SEED = 20261125
N = 4000
OUT = "gammon/tests/data/backgammon-classes.txt"

rng = random.Random(SEED)


def side(other):
    """One side's 25 counts (index 0 = its ace point, 24 = its bar); `other` is the other
    side's counts, from its own point of view."""
    n = rng.choice([rng.randint(1, 15), rng.randint(5, 12), rng.randint(5, 12)])
    b = [0] * 25
    a = min(n, rng.choice([0, 0, 1, 2, 2, 3, 4, 5]))
    b[0] = a
    d = min(n - a, rng.choice([0, 0, 1, 1, 2, 3, 4, 5]))
    b[1] = d
    free = [i for i in range(2, 25) if i == 24 or other[23 - i] == 0]
    for _ in range(n - a - d):
        b[rng.choice(free)] += 1
    if other[23] or other[22]:
        # The other side holds the points opposite our ace or deuce: our pile cannot be there.
        for i in (0, 1):
            if other[23 - i] and b[i]:
                b[rng.choice([j for j in free])] += b[i]
                b[i] = 0
    return b


def main():
    seen = set()
    lines = []
    names = {10: "contact", 9: "crashed"}
    while len(lines) < N:
        first = side([0] * 25)
        second = side(first)
        # gnubg's board: (the opponent, the player on roll), each from its own point of view.
        board = (tuple(second), tuple(first)) if rng.random() < 0.5 else (tuple(first), tuple(second))
        pid = gnubg.positionid(board)
        if pid in seen:
            continue
        seen.add(pid)
        c = gnubg.classifypos(board)
        lines.append(f"{pid} {names.get(c, 'race' if 4 <= c <= 8 else str(c))}\n")
    counts = {}
    for line in lines:
        counts[line.split()[1]] = counts.get(line.split()[1], 0) + 1
    with open(OUT, "w") as f:
        f.write(f"# gnubg 1.07 classifypos, scripts/gnubg-classes.py, seed {SEED}: {counts}\n")
        f.writelines(lines)


main()
