"""Duel: Tabula's backgammon engine (gnubg's external player 0) against GNU Backgammon 1.07
(player 1, 0-ply chequer play and cube decisions), money games with the cube.

Driver (run by scripts/duel-gnubg.sh):

    python3 scripts/duel_gnubg.py --tabula BIN --games N --plies P [--seed S] [--log FILE]

starts `BIN backgammon external --listen 127.0.0.1:0 --once --log FILE`, feeds gnubg a
command script on standard input (`new session` plays the first game, each `new game` one
more), reads gnubg's "X wins a ... and N points." lines, and prints the engine's points per
game with a 95% confidence interval and its decision times from the server's log.

Legality is checked twice: the server re-parses every play it sends (`legal` in the log), and
then gnubg itself re-checks every logged play independently: this file, run inside gnubg
(`gnubg -t -q -r -p scripts/duel_gnubg.py` with DUEL_CHECK_LOG=FILE), sets up each logged
position and roll, lists gnubg's legal plays and checks that the play sent (parsed by gnubg's
own parser) gives one of their positions.
"""

import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

GNUBG = os.environ.get("GNUBG", "/usr/games/gnubg")
WIN_RE = re.compile(r"^(tabula|gnubg) wins an? (single game|gammon|backgammon) and (\d+) points?\.")


# ---------------------------------------------------------------- legality check (in gnubg)

def apply_move(board, pairs):
    """The board (opponent, player on roll; gnubg's layout) after the checker moves `pairs`
    ((from, to) points, 0 = off), from the mover's side after the move; None if one is
    impossible."""
    opp, me = list(board[0]), list(board[1])
    for f, t in pairs:
        if me[f - 1] <= 0:
            return None
        me[f - 1] -= 1
        if t > 0:
            if opp[24 - t] == 1:
                opp[24 - t] = 0
                opp[24] += 1
            if opp[24 - t] != 0:
                return None
            me[t - 1] += 1
    return (me, opp)


def check_in_gnubg(log_path, out_path):
    import gnubg  # noqa: only available inside gnubg

    def pid(board):
        return gnubg.positionid((tuple(board[0]), tuple(board[1])))

    gnubg.command("set player 0 human")
    gnubg.command("set player 1 human")
    # Only the list of legal plays matters: rank them at 0-ply, cubeless, quickly.
    gnubg.command("set evaluation chequerplay evaluation plies 0")
    gnubg.command("set evaluation chequerplay evaluation cubeful off")
    gnubg.command("new game")
    checked = bad = 0
    problems = []
    for line in open(log_path):
        entry = json.loads(line)
        if entry.get("kind") != "move":
            continue
        posid = entry["base"]["position"]
        dice = entry["dice"]
        reply = entry["reply"]
        gnubg.command("set board " + posid)
        gnubg.command("set dice %s %s" % (dice[0], dice[1]))
        board = gnubg.board()
        if pid(board) != posid:
            problems.append("%s: gnubg set up %s" % (posid, pid(board)))
            bad += 1
            continue
        try:
            h = gnubg.hint(100000)
            legal = set(pid(apply_move(board, gnubg.parsemove(m["move"]))) for m in h["hint"])
        except Exception:
            legal = set()
        if not legal:
            ok = reply.strip() == ""
        else:
            try:
                after = apply_move(board, gnubg.parsemove(reply))
            except Exception:
                after = None
            ok = after is not None and pid(after) in legal
        checked += 1
        if not ok:
            bad += 1
            problems.append("%s dice %s: %r is not legal" % (posid, dice, reply))
    with open(out_path, "w") as f:
        json.dump({"checked": checked, "illegal": bad, "problems": problems[:20]}, f)


# ---------------------------------------------------------------- driver

def mean_ci(xs):
    n = len(xs)
    if n == 0:
        return 0.0, 0.0
    m = sum(xs) / n
    if n < 2:
        return m, float("inf")
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, 1.96 * math.sqrt(var / n)


def main():
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tabula", required=True, help="the tabula binary")
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--plies", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", help="decision log (default: a temporary file)")
    ap.add_argument("--nice", type=int, default=10)
    args = ap.parse_args()
    if args.games < 1:
        sys.exit("error: GAMES must be at least 1")

    log = args.log or tempfile.NamedTemporaryFile(delete=False, suffix=".jsonl").name
    open(log, "w").close()
    server = subprocess.Popen(
        ["nice", "-n", str(args.nice), args.tabula, "backgammon", "external",
         "--listen", "127.0.0.1:0", "--once", "--plies", str(args.plies), "--log", log],
        stdout=subprocess.PIPE, stderr=open(log + ".err", "w"), text=True)
    first = server.stdout.readline()
    m = re.search(r"listening on (\S+)", first)
    if not m:
        server.kill()
        sys.exit("error: the engine did not start: %r" % first)
    addr = m.group(1)

    commands = [
        "set rng mersenne",
        "set seed %d" % args.seed,
        "set jacoby off",
        "set beavers 0",
        "set automatic game off",
        "set display off",
        "set player 0 name tabula",
        "set player 1 name gnubg",
        "set player 1 gnubg",
        "set player 1 chequerplay evaluation plies 0",
        "set player 1 cubedecision evaluation plies 0",
        "set player 0 external " + addr,
        "new session",
    ] + ["new game"] * (args.games - 1) + ["show score"]
    started = time.time()
    g = subprocess.run(["nice", "-n", str(args.nice), GNUBG, "-t", "-q", "-r"],
                       input="\n".join(commands) + "\n", capture_output=True, text=True)
    elapsed = time.time() - started
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()

    points = []
    for line in g.stdout.splitlines():
        w = WIN_RE.match(line.strip())
        if w:
            n = int(w.group(3))
            points.append(n if w.group(1) == "tabula" else -n)
    warnings = [l for l in g.stdout.splitlines() + g.stderr.splitlines()
                if re.search(r"(?i)warning|illegal|badly formed|error|connection closed", l)]

    entries = [json.loads(l) for l in open(log)]
    moves = [e for e in entries if e.get("kind") == "move"]
    cube = [e for e in entries if e.get("kind") in ("double", "take")]
    errors = [e for e in entries if e.get("kind") == "error"]
    self_illegal = [e for e in moves if not e.get("legal", False)]

    # gnubg's independent re-check of every play.
    res = tempfile.NamedTemporaryFile(delete=False, suffix=".json").name
    env = dict(os.environ, DUEL_CHECK_LOG=log, DUEL_CHECK_OUT=res)
    subprocess.run(["nice", "-n", str(args.nice), GNUBG, "-t", "-q", "-r", "-p",
                    os.path.abspath(__file__)], env=env, capture_output=True, text=True)
    try:
        check = json.load(open(res))
    except (OSError, ValueError):
        check = {"checked": 0, "illegal": None, "problems": ["gnubg re-check did not run"]}
    os.unlink(res)

    ppg, ci = mean_ci(points)
    wins = sum(1 for p in points if p > 0)
    move_ms = [e["ms"] for e in moves]
    cube_ms = [e["ms"] for e in cube]
    doubles = sum(1 for e in cube if e["kind"] == "double" and e["reply"] == "double")
    takes = sum(1 for e in cube if e["kind"] == "take" and e["reply"] == "take")
    drops = sum(1 for e in cube if e["kind"] == "take" and e["reply"] == "drop")
    print("tabula (%d-ply) vs gnubg 0-ply, money with cube, seed %d: %d of %d games played"
          % (args.plies, args.seed, len(points), args.games))
    print("points per game for tabula: %+.3f +/- %.3f (95%% CI), %d wins (%.1f%%)"
          % (ppg, ci, wins, 100.0 * wins / max(1, len(points))))
    print("decisions: %d plays, mean %.2f ms (max %.1f ms); %d cube decisions, mean %.2f ms"
          % (len(move_ms), sum(move_ms) / max(1, len(move_ms)), max(move_ms or [0]),
             len(cube_ms), sum(cube_ms) / max(1, len(cube_ms))))
    print("cube: tabula doubled %d times; took %d, dropped %d of gnubg's doubles"
          % (doubles, takes, drops))
    print("legality: %d plays not re-parsed by the engine, %s of %d rejected by gnubg's re-check,"
          " %d error replies" % (len(self_illegal), check.get("illegal"), check.get("checked", 0),
                                 len(errors)))
    for p in check.get("problems", [])[:5]:
        print("  " + p)
    for w in warnings[:5]:
        print("gnubg: " + w)
    print("log: %s; %.0f s" % (log, elapsed))
    ok = (len(points) == args.games and not self_illegal and not errors
          and check.get("illegal") == 0 and check.get("checked", 0) == len(moves))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    if os.environ.get("DUEL_CHECK_LOG"):
        check_in_gnubg(os.environ["DUEL_CHECK_LOG"], os.environ["DUEL_CHECK_OUT"])
    else:
        main()
