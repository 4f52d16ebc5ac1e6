"""Generate the Backgammon fixtures for the engine tests from GNU Backgammon 1.07.

Run from the repository root (needs `apt-get install gnubg`):

    /usr/games/gnubg -t -q -p scripts/gnubg-fixtures.py > /dev/null

Environment: BG_FIXTURE_POSITIONS (default 2100) scales the number of positions;
BG_FIXTURE_PART=moves|fibs|notation runs one part (fibs and notation read the positions of
the moves fixture). The moves part is slow (about an hour on a busy 2-core machine); it can be
split over processes with BG_FIXTURE_FROM=k BG_FIXTURE_TO=m BG_FIXTURE_MOVES_OUT=file (lines of
positions k..m-1, no header), the files then concatenated in order after the header of a
BG_FIXTURE_FROM=0 run. The committed files were made that way (ranges 0-1155, 1155-1208,
1208-1260, 1260-2101), then the fibs and notation parts; the result is the same as one run.

Writes (deterministic, fixed seed):
- engine/tests/data/backgammon-moves.txt: one line per position: its gnubg Position ID, then
  for each of the 21 rolls (in the order of the header) the sorted set of gnubg Position IDs
  of the positions after every legal play (sides switched: the opponent is on roll), as listed
  by gnubg's 0-ply `hint`. Groups are separated by ';', IDs in a group by ' ', each ID
  front/back coded against the previous one of its group (see `compress`).
- engine/tests/data/backgammon-matchids.txt: match states set up through gnubg commands with
  gnubg's Match ID, Position ID and its own reading of the state (cubeinfo/posinfo).
- engine/tests/data/backgammon-xgids.txt: XGIDs fed to gnubg's `set xgid` with the Position
  ID and Match ID gnubg derived from them.
- engine/tests/data/backgammon-fibs.txt: FIBS board lines gnubg sent to an external player
  (captured by a small socket server), with gnubg's Position ID and Match ID of that state.
- engine/tests/data/backgammon-notation.txt: gnubg's notation of every play of one roll for
  500 positions, with the Position ID after each play.

Conventions (checked here, relied on by the engine): gnubg.board() is (opponent, player on
roll), each 25 entries from that side's own point of view (index 0 = its ace point, 24 = bar),
and the Position ID encodes board[0] (the opponent) first.
"""

import os
import random
import sys

import gnubg

SEED = 20261122
N_TOTAL = int(os.environ.get("BG_FIXTURE_POSITIONS", "2100"))
OUT_DIR = "engine/tests/data"
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]  # 11 21 22 31 32 33 ...

rng = random.Random(SEED)


def pid(board):
    return gnubg.positionid((tuple(board[0]), tuple(board[1])))


def apply_move(board, pairs):
    """Apply gnubg move pairs (from, to), 25 = bar, 0 = off, for the player on roll (board[1]).
    Returns the board after the play with sides switched (mover becomes board[0])."""
    opp = list(board[0])
    me = list(board[1])
    for f, t in pairs:
        assert me[f - 1] > 0, (board, pairs)
        me[f - 1] -= 1
        if t > 0:
            if opp[24 - t] == 1:
                opp[24 - t] = 0
                opp[24] += 1
            assert opp[24 - t] == 0, (board, pairs)
            me[t - 1] += 1
    return (me, opp)


def plays(board, d1, d2):
    """All of gnubg's legal plays for the player on roll: list of (notation, board after)."""
    gnubg.command("set board " + pid(board))
    gnubg.command("set dice %d %d" % (d1, d2))
    got = gnubg.board()
    assert [list(got[0]), list(got[1])] == [list(board[0]), list(board[1])], (got, board)
    try:
        h = gnubg.hint(100000)
    except Exception:
        return []
    if not h or "hint" not in h:
        return []
    out = []
    for m in h["hint"]:
        after = apply_move(board, gnubg.parsemove(m["move"]))
        out.append((m["move"], after))
    ids = set(pid(a) for _, a in out)
    assert len(ids) == len(out), ("ambiguous notation", pid(board), d1, d2)
    return out


def checkers(side):
    return sum(side)


def valid(board):
    opp, me = board
    if checkers(opp) == 0 or checkers(me) == 0 or checkers(opp) > 15 or checkers(me) > 15:
        return False
    for i in range(24):
        if me[i] and opp[23 - i]:
            return False
    return True


START = ([0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0],) * 2

positions = []  # boards (opponent, on roll)
seen = set()


def add(board, kind):
    board = (list(board[0]), list(board[1]))
    if not valid(board):
        return False
    key = pid(board)
    if key in seen:
        return False
    seen.add(key)
    positions.append((board, kind))
    return True


def self_play(policy, sample_p, quota):
    """Games between random/greedy players; samples positions along the way."""
    board = (list(START[0]), list(START[1]))
    added = 0
    for _ in range(400):
        if added >= quota:
            break
        if rng.random() < sample_p:
            added += add(board, "game-" + policy)
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        ps = plays(board, d1, d2)
        if ps:
            if policy == "best" or (policy == "mix" and rng.random() < 0.6):
                after = ps[0][1]
            else:
                after = rng.choice(ps)[1]
        else:
            after = (board[1], board[0])
        if checkers(after[0]) == 0:  # the mover bore off its last checker
            break
        board = after
    return added


def scatter(n, allowed, bar_max=0):
    side = [0] * 25
    for _ in range(n):
        i = rng.choice(allowed)
        side[i] += 1
    if bar_max:
        side[24] = rng.randint(0, bar_max)
    return side


def random_position():
    """Uniformly scattered checkers of both sides (no shared points), some off, some on the bar."""
    me = [0] * 25
    opp = [0] * 25
    n_me = rng.randint(1, 15)
    n_opp = rng.randint(1, 15)
    for _ in range(n_me):
        me[rng.randrange(24)] += 1
    for _ in range(n_opp):
        while True:
            j = rng.randrange(24)
            if me[23 - j] == 0:
                opp[j] += 1
                break
    for side in (me, opp):
        if rng.random() < 0.3:
            k = rng.randint(1, 3)
            for _ in range(k):
                pts = [i for i in range(24) if side[i]]
                if not pts:
                    break
                i = rng.choice(pts)
                side[i] -= 1
                side[24] += 1
    return (opp, me)


def bearoff_position():
    """Both sides in their home boards; sometimes contact (an opponent checker back)."""
    me = scatter(rng.randint(1, 15), list(range(6)) if rng.random() < 0.8 else list(range(rng.randint(1, 6))))
    opp = [0] * 25
    for _ in range(rng.randint(1, 15)):
        opp[rng.randrange(6)] += 1
    if rng.random() < 0.35:
        # an opponent checker (or two) still in my home board, or on the bar
        for _ in range(rng.randint(1, 2)):
            free = [j for j in range(18, 24) if me[23 - j] == 0]
            if free and rng.random() < 0.7:
                opp[rng.choice(free)] += 1
            else:
                opp[24] += 1
    if rng.random() < 0.2:
        # one of my checkers just outside home: bearing off not yet allowed
        me[rng.randint(6, 8)] += 1
        if checkers(me) > 15:
            me[0] = max(0, me[0] - 1)
    return (opp, me)


def blocked_position():
    """The opponent holds most or all of its home board; I have checkers on the bar."""
    opp = [0] * 25
    held = list(range(6))
    rng.shuffle(held)
    for j in held[: rng.choice([4, 5, 5, 6, 6, 6])]:
        opp[j] = rng.randint(2, 3)
    rest = 15 - checkers(opp)
    for _ in range(rng.randint(0, max(0, rest))):
        opp[rng.randint(6, 23)] += 1
    me = [0] * 25
    me[24] = rng.randint(1, 4)
    for _ in range(rng.randint(0, 15 - me[24])):
        while True:
            i = rng.randrange(24)
            if opp[23 - i] == 0:
                me[i] += 1
                break
    return (opp, me)


def compress(ids):
    """Front/back coding of a sorted list of 14-character IDs: each ID is written as two hex
    digits p and s (characters shared with the previous ID at the front and at the back) and
    the 14 - p - s characters in between. The first ID of a group is compared with "".
    """
    out = []
    prev = ""
    for x in ids:
        p = 0
        while p < len(prev) and prev[p] == x[p]:
            p += 1
        s = 0
        while prev and s < 14 - p and prev[13 - s] == x[13 - s]:
            s += 1
        out.append("%x%x%s" % (p, s, x[p:14 - s]))
        prev = x
    return out


def main():
    gnubg.command("set player 0 human")
    gnubg.command("set player 1 human")
    gnubg.command("new game")
    add(START, "start")
    # Scattered random positions have up to hundreds of plays per roll (slow for gnubg's hint
    # and large in the file): a few of them; the property tests cover many more.
    quotas = {"game": int(N_TOTAL * 0.55), "random": int(N_TOTAL * 0.05),
              "bearoff": int(N_TOTAL * 0.2), "blocked": int(N_TOTAL * 0.2)}
    policies = ["random", "best", "mix"]
    got = 0
    g = 0
    while got < quotas["game"]:
        got += self_play(policies[g % 3], 0.5, quotas["game"] - got)
        g += 1
    for gen, name in ((random_position, "random"), (bearoff_position, "bearoff"),
                      (blocked_position, "blocked")):
        got = 0
        while got < quotas[name]:
            got += add(gen(), name)

    os.makedirs(OUT_DIR, exist_ok=True)
    # The lists of legal plays do not depend on the evaluation; cubeless 0-ply is much faster
    # for crashed and race positions. (Set only now: the self-play above picks gnubg's best
    # cubeful play, and changing that would change the positions.)
    gnubg.command("set evaluation chequerplay evaluation cubeful off")
    # BG_FIXTURE_FROM=k (and BG_FIXTURE_TO=m) writes only the lines of positions k..m (no
    # header) to BG_FIXTURE_MOVES_OUT, to split the slow part over several gnubg processes.
    first = int(os.environ.get("BG_FIXTURE_FROM", "0"))
    last = int(os.environ.get("BG_FIXTURE_TO", str(len(positions))))
    path = os.environ.get("BG_FIXTURE_MOVES_OUT", os.path.join(OUT_DIR, "backgammon-moves.txt"))
    with open(path, "w") as f:
        if first == 0:
            f.write("# gnubg 1.07 legal plays, generated by scripts/gnubg-fixtures.py (seed %d)\n"
                    % SEED)
            f.write("# position;then per roll (%s) the sorted Position IDs after each play\n"
                    % " ".join("%d%d" % r for r in ROLLS))
        done = 0
        for board, kind in positions[first:last]:
            groups = [pid(board)]
            for d1, d2 in ROLLS:
                groups.append(" ".join(compress(sorted(pid(a) for _, a in plays(board, d1, d2)))))
            f.write(";".join(groups) + "\n")
            done += 1
            if done % 100 == 0:
                print("positions done: %d / %d" % (done, len(positions)), file=sys.stderr, flush=True)

    match_ids()
    xgids()


def match_ids():
    """Match states set through gnubg commands, with gnubg's Match ID and its reading."""
    path = os.path.join(OUT_DIR, "backgammon-matchids.txt")
    lines = ["# matchid posid | matchto score0 score1 cube cubeowner(-1 centred) move turn "
             "crawford dice0 dice1 gamestate doubled resigned"]
    for n in range(300):
        length = rng.choice([0, 0, 1, 3, 5, 7, 9, 11, 13, 15, 17, 21, 25])
        if length:
            gnubg.command("new match %d" % length)
        else:
            gnubg.command("new session")
        board, _ = positions[rng.randrange(len(positions))]
        if length:
            s0 = rng.randrange(length)
            s1 = rng.randrange(length)
            gnubg.command("set score %d %d" % (s0, s1))
            if length - max(s0, s1) == 1 and rng.random() < 0.5:
                gnubg.command("set crawford on")
        if rng.random() < 0.5:
            gnubg.command("set turn %d" % rng.randint(0, 1))
        gnubg.command("set board " + pid(board))
        if rng.random() < 0.7:
            gnubg.command("set cube value %d" % rng.choice([1, 2, 4, 8, 16, 32, 64]))
            own = rng.choice(["centre", "0", "1"])
            gnubg.command("set cube owner %s" % own)
        if rng.random() < 0.7:
            gnubg.command("set dice %d %d" % (rng.randint(1, 6), rng.randint(1, 6)))
        c = gnubg.cubeinfo()
        p = gnubg.posinfo()
        dice = p["dice"] if p["dice"] else (0, 0)
        lines.append("%s %s | %d %d %d %d %d %d %d %d %d %d %d %d %d" % (
            gnubg.matchid(), gnubg.positionid(), c["matchto"], c["score"][0], c["score"][1],
            c["cube"], c["cubeowner"], c["move"], p["turn"], c["crawford"], dice[0], dice[1],
            p["gamestate"], p["doubled"], p["resigned"]))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def xgid_of(board, cube_log, cube_pos, turn, dice, s_bottom, s_top, crawford, length):
    """An XGID written from scratch for gnubg to read: uppercase = bottom = board[1] (on roll
    when turn is 1), points numbered from the bottom player's view."""
    opp, me = board
    if turn == -1:
        opp, me = me, opp  # the top player is on roll: the bottom player is board[0]
    chars = []

    def enc(n, upper):
        if n == 0:
            return "-"
        return chr((ord("A") if upper else ord("a")) + n - 1)

    chars.append(enc(opp[24], False))
    for p in range(1, 25):
        if me[p - 1]:
            chars.append(enc(me[p - 1], True))
        else:
            chars.append(enc(opp[24 - p], False))
    chars.append(enc(me[24], True))
    return "XGID=%s:%d:%d:%d:%s:%d:%d:%d:%d:10" % (
        "".join(chars), cube_log, cube_pos, turn, dice, s_bottom, s_top, crawford, length)


def xgids():
    path = os.path.join(OUT_DIR, "backgammon-xgids.txt")
    lines = ["# xgid posid matchid (as gnubg 1.07 reads the XGID with `set xgid`)"]
    for n in range(300):
        board, _ = positions[rng.randrange(len(positions))]
        length = rng.choice([0, 3, 5, 7, 9, 11, 13, 15, 21])
        s_b = rng.randrange(length) if length else 0
        s_t = rng.randrange(length) if length else 0
        crawford = 1 if (length and length - max(s_b, s_t) == 1 and rng.random() < 0.5) else 0
        cube_log = rng.randint(0, 6)
        cube_pos = 0 if cube_log == 0 else rng.choice([-1, 0, 1])
        turn = rng.choice([1, -1])
        dice = rng.choice(["00", "%d%d" % (rng.randint(1, 6), rng.randint(1, 6))])
        x = xgid_of(board, cube_log, cube_pos, turn, dice, s_b, s_t, crawford, length)
        gnubg.command("new session")
        gnubg.command("set xgid " + x)
        lines.append("%s %s %s" % (x, gnubg.positionid(), gnubg.matchid()))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


FIBS_SERVER = r"""
import socket, sys
port, out = int(sys.argv[1]), open(sys.argv[2], "a")
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(5)
while True:
    c, _ = s.accept()
    f = c.makefile("rwb", buffering=0)
    while True:
        line = f.readline()
        if not line:
            break
        out.write(line.decode().rstrip("\n") + "\n")
        out.flush()
        f.write(b"13/11 13/11\n")
    c.close()
"""


def fibs_boards():
    """Board lines gnubg 1.07 sends to an external player (`set player 0 external`): a small
    socket server records them; each is stored with gnubg's Position ID and Match ID of the
    state it described. Reads its positions from the moves fixture (run that part first)."""
    import subprocess
    import tempfile
    import time

    frng = random.Random(SEED + 2)
    ids = [l.split(";")[0] for l in open(os.path.join(OUT_DIR, "backgammon-moves.txt"))
           if not l.startswith("#")]
    cap = tempfile.NamedTemporaryFile(delete=False, suffix=".txt").name
    port = 31000 + frng.randrange(1000)
    srv = subprocess.Popen(["python3", "-c", FIBS_SERVER, str(port), cap])
    time.sleep(1.0)
    lines = ["# board-line | posid matchid (gnubg's state when it asked external player 0)"]
    try:
        for n in range(300):
            ext = frng.randint(0, 1)
            gnubg.command("set player %d human" % (1 - ext))
            gnubg.command("set player %d external localhost:%d" % (ext, port))
            length = frng.choice([0, 3, 5, 7, 9, 11, 13, 15, 21])
            if length:
                gnubg.command("new match %d" % length)
                s0, s1 = frng.randrange(length), frng.randrange(length)
                gnubg.command("set score %d %d" % (s0, s1))
                if length - max(s0, s1) == 1:
                    gnubg.command("set crawford %s" % frng.choice(["on", "off"]))
            else:
                gnubg.command("new session")
            gnubg.command("set turn %d" % ext)
            gnubg.command("set board " + frng.choice(ids))
            if frng.random() < 0.6:
                gnubg.command("set cube value %d" % frng.choice([1, 2, 4, 8, 16, 32, 64]))
                gnubg.command("set cube owner %s" % frng.choice(["centre", "0", "1"]))
            gnubg.command("set dice %d %d" % (frng.randint(1, 6), frng.randint(1, 6)))
            before = open(cap).read().count("\n")
            pid, mid = gnubg.positionid(), gnubg.matchid()
            gnubg.command("play")
            # gnubg ends each line with a NUL byte, which the server sees at the next line start
            got = [g.strip("\x00 \r\n") for g in open(cap).read().split("\n")[before:]]
            got = [g for g in got if g.startswith("board:")]
            if got:
                lines.append("%s | %s %s" % (got[0], pid, mid))
    finally:
        srv.kill()
        os.unlink(cap)
    with open(os.path.join(OUT_DIR, "backgammon-fibs.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def notations():
    """gnubg's own notation of every play for one random roll of 500 fixture positions."""
    nrng = random.Random(SEED + 3)
    gnubg.command("set player 0 human")
    gnubg.command("set player 1 human")
    gnubg.command("set evaluation chequerplay evaluation cubeful off")
    gnubg.command("new game")
    ids = [l.split(";")[0] for l in open(os.path.join(OUT_DIR, "backgammon-moves.txt"))
           if not l.startswith("#")]
    lines = ["# position roll | gnubg's notation of each play = Position ID after it ; ..."]
    for pos_id in nrng.sample(ids, min(500, len(ids))):
        d1, d2 = nrng.randint(1, 6), nrng.randint(1, 6)
        board = gnubg.positionfromid(pos_id)
        ps = plays(board, d1, d2)
        lines.append("%s %d%d | %s" % (pos_id, max(d1, d2), min(d1, d2),
                                        " ; ".join("%s = %s" % (m, pid(a)) for m, a in ps)))
    with open(os.path.join(OUT_DIR, "backgammon-notation.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


PART = os.environ.get("BG_FIXTURE_PART", "all")
if PART in ("all", "moves"):
    main()
if PART in ("all", "fibs"):
    fibs_boards()
if PART in ("all", "notation"):
    notations()
