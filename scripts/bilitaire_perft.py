#!/usr/bin/env python3
"""Independent, deliberately naive reference model of Bi-litaire (shared/rules/bilitaire.md),
used to confirm the perft counts of the Rust engine.  Standard library only; written from the
rules text alone, without looking at the engine.

Usage (from the repository root):

    python3 scripts/bilitaire_perft.py [--free-chains] "<position>" DEPTH [DEPTH...]
        prints  <position> ; <depth> <nodes> ; <depth> <nodes> ...
    python3 scripts/bilitaire_perft.py [--free-chains] --file FILE
        recomputes every line `<position> ; <depth> <nodes> ; ...` of FILE ('#' lines and blank
        lines are skipped), prints each recomputed line followed by OK or MISMATCH, exit 1 on any
        mismatch
    python3 scripts/bilitaire_perft.py [--free-chains] --moves "<position>"
        prints the legal moves, sorted, one per line

Position string: ranks 8..1 separated by '/', 8 characters each (files a..h):
'o' ball, '.' empty hole, '-' no hole; then a space and the side to move:
'r' opening removal, 's' slider, 'b' ball player (one simple jump), 'bN' ball player who must
make a chain of exactly N jumps (N >= 2).

Move notation: opening removal `xd4`; jump `d2-d4`; chain `d2-d4-f4-f6`; tile removal `xB2`;
slide `A2-C2` (rear tile's slot -> the slot where that tile arrives); announcement `!N`.

Model (all per-square loops, no bitboards):
- holes: dict {(file, rank): True (ball) / False (empty)}, file/rank 0..7; a key exists only
  where the hole exists.  Tiles are derived from the holes: slot (X, Y) holds holes
  (2X..2X+1, 2Y..2Y+1).
- side: ('r', 0), ('s', 0) or ('b', N) with N = 1 for a plain simple-jump turn.

Exit status: 0 ok, 1 mismatch in --file mode, 2 invalid input.
"""

import sys

FILES = "abcdefgh"
SLOT_FILES = "ABCD"
DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1)]


class InputError(Exception):
    pass


# ----------------------------------------------------------------------------- geometry

def slot_holes(sx, sy):
    return [(2 * sx + dx, 2 * sy + dy) for dy in (0, 1) for dx in (0, 1)]


def tiles_of(holes):
    """Set of occupied slots (sx, sy)."""
    return {(f // 2, r // 2) for (f, r) in holes}


def hole_name(h):
    return FILES[h[0]] + str(h[1] + 1)


def slot_name(s):
    return SLOT_FILES[s[0]] + str(s[1] + 1)


# ----------------------------------------------------------------------------- parsing

def parse_position(text):
    text = text.strip()
    parts = text.split()
    if len(parts) != 2:
        raise InputError("position must be '<board> <side>': %r" % text)
    board, side_s = parts
    ranks = board.split("/")
    if len(ranks) != 8 or any(len(r) != 8 for r in ranks):
        raise InputError("board must be 8 ranks of 8 characters separated by '/'")
    holes = {}
    for i, row in enumerate(ranks):
        rank = 7 - i
        for f, ch in enumerate(row):
            if ch == "o":
                holes[(f, rank)] = True
            elif ch == ".":
                holes[(f, rank)] = False
            elif ch == "-":
                pass
            else:
                raise InputError("bad board character %r" % ch)
    # holes must form whole 2x2 tiles
    for (sx, sy) in tiles_of(holes):
        for h in slot_holes(sx, sy):
            if h not in holes:
                raise InputError("slot %s is only partly covered by holes" % slot_name((sx, sy)))
    if len(tiles_of(holes)) > 12:
        raise InputError("more than 12 tiles")
    if side_s == "r":
        side = ("r", 0)
    elif side_s == "s":
        side = ("s", 0)
    elif side_s == "b":
        side = ("b", 1)
    elif side_s.startswith("b") and side_s[1:].isdigit() and not side_s[1:].startswith("0"):
        n = int(side_s[1:])
        if n < 2:
            raise InputError("announcement must be at least 2: %r" % side_s)
        side = ("b", n)
    else:
        raise InputError("bad side to move %r" % side_s)
    if side[0] == "b" and side[1] >= 2 and max_chain_length(holes) < side[1]:
        raise InputError("side %s but no chain of exactly %d jumps exists" % (side_s, side[1]))
    if side[0] == "r" and not any(holes.values()):
        raise InputError("opening removal with no ball on the board")
    return holes, side


def format_position(holes, side):
    rows = []
    for rank in range(7, -1, -1):
        row = ""
        for f in range(8):
            if (f, rank) not in holes:
                row += "-"
            elif holes[(f, rank)]:
                row += "o"
            else:
                row += "."
        rows.append(row)
    kind, n = side
    s = kind if (kind != "b" or n == 1) else "b%d" % n
    return "/".join(rows) + " " + s


# ----------------------------------------------------------------------------- jumps

def jumps_from(holes, src):
    """Simple jumps available to the ball on src: list of (over, dest)."""
    out = []
    f, r = src
    for dx, dy in DIRS:
        over = (f + dx, r + dy)
        dest = (f + 2 * dx, r + 2 * dy)
        if holes.get(over) is True and holes.get(dest) is False:
            out.append((over, dest))
    return out


def chain_paths(holes, src, min_len, max_len):
    """All jump paths of the ball on src with min_len <= length <= max_len.
    A path is a list of holes [src, land1, land2, ...].  The board is modified during the
    search and restored afterwards."""
    result = []
    path = [src]

    def rec(pos):
        depth = len(path) - 1
        if depth >= min_len:
            result.append(list(path))
        if depth == max_len:
            return
        for over, dest in jumps_from(holes, pos):
            holes[pos] = False
            holes[over] = False
            holes[dest] = True
            path.append(dest)
            rec(dest)
            path.pop()
            holes[dest] = False
            holes[over] = True
            holes[pos] = True

    rec(src)
    return result


def longest_chain_from(holes, pos):
    best = 0
    for over, dest in jumps_from(holes, pos):
        holes[pos] = False
        holes[over] = False
        holes[dest] = True
        best = max(best, 1 + longest_chain_from(holes, dest))
        holes[dest] = False
        holes[over] = True
        holes[pos] = True
    return best


def max_chain_length(holes):
    """Length of the longest chain of any single ball.  Every prefix of a chain is a chain, so a
    chain of exactly N exists iff 1 <= N <= this value."""
    best = 0
    for h in sorted(holes):
        if holes[h]:
            best = max(best, longest_chain_from(holes, h))
    return best


def legal_announcements(holes):
    return list(range(2, max_chain_length(holes) + 1))


def apply_path(holes, path):
    new = dict(holes)
    for a, b in zip(path, path[1:]):
        over = ((a[0] + b[0]) // 2, (a[1] + b[1]) // 2)
        assert new[a] is True and new[over] is True and new[b] is False
        new[a] = False
        new[over] = False
        new[b] = True
    return new


# ----------------------------------------------------------------------------- slider actions

def slider_actions(holes):
    """List of (notation, new_holes) for every slider action (announcement not included)."""
    tiles = tiles_of(holes)
    actions = []
    # 1. remove an empty tile
    for (sx, sy) in sorted(tiles):
        hs = slot_holes(sx, sy)
        if not any(holes[h] for h in hs):
            new = {h: v for h, v in holes.items() if h not in hs}
            actions.append(("x" + slot_name((sx, sy)), new))
    # 2. slides: rear tile + direction + distance
    for rear in sorted(tiles):
        for dx, dy in DIRS:
            group = [rear]
            nxt = (rear[0] + dx, rear[1] + dy)
            while nxt in tiles:
                group.append(nxt)
                nxt = (nxt[0] + dx, nxt[1] + dy)
            # nxt is the first slot ahead of the front that holds no tile (maybe off the tray)
            free = 0
            while 0 <= nxt[0] < 4 and 0 <= nxt[1] < 4 and nxt not in tiles:
                free += 1
                nxt = (nxt[0] + dx, nxt[1] + dy)
            for d in range(1, free + 1):
                new = dict(holes)
                moved = {}
                for (sx, sy) in group:
                    for (hf, hr) in slot_holes(sx, sy):
                        moved[(hf + 2 * d * dx, hr + 2 * d * dy)] = new.pop((hf, hr))
                for h, v in moved.items():
                    assert h not in new
                    new[h] = v
                to = (rear[0] + d * dx, rear[1] + d * dy)
                actions.append((slot_name(rear) + "-" + slot_name(to), new))
    return actions


# ----------------------------------------------------------------------------- move generation

def legal_moves(holes, side, free_chains=False):
    """List of (notation, new_holes, new_side)."""
    kind, n = side
    moves = []
    if kind == "r":
        for h in sorted(holes):
            if holes[h]:
                new = dict(holes)
                new[h] = False
                moves.append(("x" + hole_name(h), new, ("s", 0)))
    elif kind == "s":
        for name, new in slider_actions(holes):
            moves.append((name, new, ("b", 1)))
            for a in legal_announcements(new):
                moves.append((name + "!%d" % a, new, ("b", a)))
    else:  # ball player
        if n >= 2:
            lo, hi = n, n
        elif free_chains:
            lo, hi = 1, 10 ** 9
        else:
            lo, hi = 1, 1
        for h in sorted(holes):
            if holes[h]:
                for path in chain_paths(holes, h, lo, hi):
                    name = "-".join(hole_name(p) for p in path)
                    moves.append((name, apply_path(holes, path), ("s", 0)))
    return moves


def perft(holes, side, depth, free_chains=False):
    if depth == 0:
        return 1
    moves = legal_moves(holes, side, free_chains)
    if depth == 1:
        return len(moves)
    total = 0
    for _, new, nside in moves:
        total += perft(new, nside, depth - 1, free_chains)
    return total


# ----------------------------------------------------------------------------- CLI

def perft_line(pos_text, depths, free_chains):
    holes, side = parse_position(pos_text)
    canon = format_position(holes, side)
    parts = [canon]
    results = []
    for d in depths:
        n = perft(holes, side, d, free_chains)
        results.append(n)
        parts.append("%d %d" % (d, n))
    return " ; ".join(parts), results


def parse_depth(s):
    if not s.isdigit():
        raise InputError("bad depth %r" % s)
    return int(s)


def run_file(path, free_chains):
    bad = 0
    with open(path) as fh:
        lines = fh.readlines()
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = [x.strip() for x in line.split(";")]
        pos = fields[0]
        depths, expected = [], []
        for f in fields[1:]:
            dn = f.split()
            if len(dn) != 2:
                raise InputError("line %d: bad field %r" % (lineno, f))
            depths.append(parse_depth(dn[0]))
            expected.append(int(dn[1]))
        out, got = perft_line(pos, depths, free_chains)
        ok = got == expected
        if not ok:
            bad += 1
        print(out + "  " + ("OK" if ok else "MISMATCH (expected %s)" % " ; ".join(fields[1:])),
              flush=True)
    return bad


def main(argv):
    free_chains = False
    args = []
    mode = "perft"
    for a in argv:
        if a == "--free-chains":
            free_chains = True
        elif a == "--file":
            mode = "file"
        elif a == "--moves":
            mode = "moves"
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            args.append(a)
    try:
        if mode == "file":
            if len(args) != 1:
                raise InputError("--file takes one file name")
            return 1 if run_file(args[0], free_chains) else 0
        if mode == "moves":
            if len(args) != 1:
                raise InputError("--moves takes one position")
            holes, side = parse_position(args[0])
            for name in sorted(m[0] for m in legal_moves(holes, side, free_chains)):
                print(name)
            return 0
        if len(args) < 2:
            raise InputError("usage: bilitaire_perft.py [--free-chains] \"<position>\" DEPTH...")
        depths = [parse_depth(x) for x in args[1:]]
        out, _ = perft_line(args[0], depths, free_chains)
        print(out)
        return 0
    except InputError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
