#!/usr/bin/env python3
"""Independent, deliberately naive Pylos perft (shares no code or tables with the Rust engine).

Written from /work/shared/rules/pylos.md alone: the board is a dict from (level, file, rank) to
'b'/'w', every test is a loop over cells, take-backs are enumerated as ordered sequences and
de-duplicated as sets, and the last ply is counted by building the moves.

Usage:
  scripts/pylos_perft.py --rules standard --takeback optional --position "<pos>" --depth 5
  scripts/pylos_perft.py --board 3 --rules mature --depth 8
  scripts/pylos_perft.py --check engine/tests/data/pylos-standard-optional.perft [--max-nodes N]
Counts are memoised on (board, side, depth) unless --no-memo (a plain tree walk); with
--symmetric the board is first reduced to the smallest of its 8 images (faster deep counts).
A data file's rules come from its name (pylos-<rules>-<takeback>.perft on the 4x4 board,
pylos3-<rules>-<takeback>.perft on the 3x3 board).

--board 3: the small pyramid of the rules' "small board for tests": a 3x3 base, levels 3x3, 2x2
and the apex, 7 balls each, squares on levels 0 and 1, mature lines of 3 on level 0 and of 2 on
level 1. Position strings have three levels (start ".../.../...|../..|. b").
"""

import argparse
import functools
import os
import sys

STARTS = {
    4: "..../..../..../....|.../.../...|../..|. b",
    3: ".../.../...|../..|. b",
}
BALLS = {4: 15, 3: 7}
# The board size in use (4 or 3): set once by main() or check_file() before any counting.
SIZE = 4


def cells():
    for level in range(SIZE):
        n = SIZE - level
        for rank in range(n):
            for file in range(n):
                yield (level, file, rank)


def all_cells():
    return list(cells())


@functools.lru_cache(maxsize=None)
def supports(cell):
    level, f, r = cell
    if level == 0:
        return ()
    return tuple([(level - 1, f + df, r + dr) for df in (0, 1) for dr in (0, 1)])


@functools.lru_cache(maxsize=None)
def above(cell, size):
    """Cells resting on this one (on the board of that size)."""
    return tuple(c for c in all_cells() if cell in supports(c))


def patterns(rules):
    """All take-back patterns (lists of cells) for a rule set."""
    pats = []
    if rules == "children":
        return pats
    for level in range(SIZE):
        n = SIZE - level
        for f in range(n - 1):
            for r in range(n - 1):
                pats.append([(level, f + a, r + b) for a in (0, 1) for b in (0, 1)])
    if rules == "mature":
        for level in range(2):
            n = SIZE - level
            for a in range(n):
                pats.append([(level, b, a) for b in range(n)])  # a row
                pats.append([(level, a, b) for b in range(n)])  # a column
    return pats


def _sym(fn):
    def apply(cell):
        level, f, r = cell
        last = SIZE - 1 - level
        nf, nr = fn(f, r, last)
        return (level, nf, nr)
    return apply


SYMMETRIES = [
    _sym(lambda f, r, m: (f, r)),
    _sym(lambda f, r, m: (m - r, f)),
    _sym(lambda f, r, m: (m - f, m - r)),
    _sym(lambda f, r, m: (r, m - f)),
    _sym(lambda f, r, m: (m - f, r)),
    _sym(lambda f, r, m: (f, m - r)),
    _sym(lambda f, r, m: (r, f)),
    _sym(lambda f, r, m: (m - r, m - f)),
]


def parse(text):
    board_text, side = text.strip().split(" ")
    assert side in ("b", "w")
    board = {}
    levels = board_text.split("|")
    assert len(levels) == SIZE, f"{len(levels)} levels on a board of {SIZE}"
    for level, lt in enumerate(levels):
        rows = lt.split("/")
        n = SIZE - level
        assert len(rows) == n
        for i, row in enumerate(rows):
            assert len(row) == n
            rank = n - 1 - i
            for file, ch in enumerate(row):
                if ch in "bw":
                    board[(level, file, rank)] = ch
                else:
                    assert ch == "."
    for c in board:
        for s in supports(c):
            assert s in board, "unsupported ball"
    for col in "bw":
        assert sum(1 for v in board.values() if v == col) <= BALLS[SIZE]
    apex = (SIZE - 1, 0, 0)
    assert board.get(apex) != side, "the apex ball belongs to the side to move"
    return board, side


def can_hold(board, cell):
    return cell not in board and all(s in board for s in supports(cell))


def is_free(board, cell):
    return all(a not in board for a in above(cell, SIZE))


class Game:
    def __init__(self, rules, takeback, symmetric=False):
        self.symmetric = symmetric
        self.rules = rules
        self.takeback = takeback
        self.pats = patterns(rules)
        self.cells = all_cells()
        self.apex = (SIZE - 1, 0, 0)
        self.balls = BALLS[SIZE]

    def takeback_sets(self, board, me):
        """Distinct sets of 0, 1 or 2 own balls that can be returned one after the other."""
        sets = set()
        for a in self.cells:
            if board.get(a) == me and is_free(board, a):
                sets.add(frozenset([a]))
                b2 = dict(board)
                del b2[a]
                for b in self.cells:
                    if b2.get(b) == me and is_free(b2, b):
                        sets.add(frozenset([a, b]))
        if self.takeback == "optional" or not sets:
            sets.add(frozenset())
        return sets

    def moves(self, board, me):
        if self.apex in board:
            return []
        result = []
        reserve = self.balls - sum(1 for v in board.values() if v == me)
        candidates = []  # (source, target, board after the ball moved)
        if reserve > 0:
            for t in self.cells:
                if can_hold(board, t):
                    b2 = dict(board)
                    b2[t] = me
                    candidates.append((None, t, b2))
        for s in self.cells:
            if board.get(s) != me or not is_free(board, s):
                continue
            for t in self.cells:
                if t[0] <= s[0] or not can_hold(board, t) or s in supports(t):
                    continue
                b2 = dict(board)
                del b2[s]
                assert can_hold(b2, t)
                b2[t] = me
                candidates.append((s, t, b2))
        for s, t, b2 in candidates:
            completed = any(t in p and all(b2.get(c) == me for c in p) for p in self.pats)
            if completed:
                for taken in self.takeback_sets(b2, me):
                    result.append((s, t, taken))
            else:
                result.append((s, t, frozenset()))
        assert len(set(result)) == len(result)
        return result

    def play(self, board, me, move):
        s, t, taken = move
        b2 = dict(board)
        if s is not None:
            del b2[s]
        b2[t] = me
        for c in taken:
            del b2[c]
        return b2, ("w" if me == "b" else "b")

    def memo_key(self, board):
        if not self.symmetric:
            return tuple(sorted(board.items()))
        # The smallest of the 8 images under the symmetries of the square (rules are symmetric).
        images = []
        for sym in SYMMETRIES:
            images.append(tuple(sorted((sym(c), v) for c, v in board.items())))
        return min(images)

    def perft(self, board, me, depth, memo=None):
        """Move sequences of length `depth`; `memo` caches counts of transposed positions."""
        if depth == 0:
            return 1
        key = None
        if memo is not None and depth >= 2:
            key = (self.memo_key(board), me, depth)
            if key in memo:
                return memo[key]
        moves = self.moves(board, me)
        if depth == 1:
            return len(moves)
        total = sum(self.perft(*self.play(board, me, m), depth - 1, memo) for m in moves)
        if key is not None:
            memo[key] = total
        return total


def check_file(path, max_nodes, no_memo, symmetric):
    global SIZE
    name = os.path.basename(path)
    prefix, rules, takeback = name[: -len(".perft")].split("-")
    SIZE = {"pylos": 4, "pylos3": 3}[prefix]
    game = Game(rules, takeback, symmetric)
    ok = True
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(";")]
        board, me = parse(fields[0])
        for field in fields[1:]:
            depth, nodes = map(int, field.split())
            if nodes > max_nodes:
                print(f"skip  {fields[0]} d{depth} {nodes}")
                continue
            got = game.perft(board, me, depth, None if no_memo else {})
            status = "ok   " if got == nodes else "FAIL "
            ok &= got == nodes
            print(f"{status} {fields[0]} d{depth} {nodes} (python {got})", flush=True)
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", default="standard", choices=["children", "standard", "mature"])
    ap.add_argument("--takeback", default="optional", choices=["optional", "compulsory"])
    ap.add_argument("--board", type=int, default=4, choices=[4, 3], help="width of the base")
    ap.add_argument("--position", default=None, help="default: the board's start position")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--check", nargs="*")
    ap.add_argument("--max-nodes", type=int, default=10**12)
    ap.add_argument("--no-memo", action="store_true", help="plain tree walk, no transposition cache")
    ap.add_argument("--symmetric", action="store_true", help="memoise up to the 8 symmetries")
    args = ap.parse_args()
    if args.check:
        ok = all([check_file(p, args.max_nodes, args.no_memo, args.symmetric) for p in args.check])
        sys.exit(0 if ok else 1)
    global SIZE
    SIZE = args.board
    game = Game(args.rules, args.takeback, args.symmetric)
    board, me = parse(args.position or STARTS[SIZE])
    for d in range(1, args.depth + 1):
        print(d, game.perft(board, me, d, None if args.no_memo else {}), flush=True)


if __name__ == "__main__":
    main()
