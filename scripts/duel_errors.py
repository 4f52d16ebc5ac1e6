"""Split the engine's equity loss in a finished duel (scripts/duel_gnubg.py's decision log) into
chequer-play errors and cube errors, as judged by GNU Backgammon.

    python3 scripts/duel_errors.py LOG [LOG ...] [--plies 0] [--every 1] [--cube-every 1]
                                   [--games 1000] [--detail FILE.jsonl] [--out FILE]

runs gnubg (`gnubg -t -q -r -p scripts/duel_errors.py` with DUEL_ERRORS_LOG etc. in the
environment; this file is the in-gnubg script too) and prints a summary. Several LOGs (the
per-chunk logs of `duel_gnubg.py --duplicate --keep-logs DIR`) are judged as one log.

Money game, Jacoby off, no beavers (as in the duel). All equities are gnubg's cubeful equities,
normalised to a 1-point cube (gnubg's convention); "points" figures multiply each error by the
cube value at the time of the decision.

- Chequer plays ("move"): each logged position is set up with its cube value and owner and the
  roll, gnubg's hint lists every legal play with its cubeful equity at PLIES; the error is the
  best play's equity minus the equity of the play the engine sent (identified by the position it
  leads to). At PLIES > 0 gnubg prunes: plays outside its move filter keep a lower-ply equity
  (as in gnubg's own analysis); their count is reported. --every K evaluates only every K-th play
  (deterministic) and scales the totals by K.
- Cube decisions: gnubg's cfevaluate gives No double, Double/take and Double/pass equities for
  the player on roll (the engine for "double", gnubg, the doubler, for "take"). The engine's
  action costs optimal minus the equity of that action (a double is answered optimally).
- At PLIES > 0 a cube decision that 0 plies find right by more than --screen (default 0.1)
  is counted as right without the deeper evaluation: most of a duel's cube decisions are far
  from any doubling window, and the screen makes a 2-ply judge of every one affordable.
- The summary also splits both by gnubg's class of the position (`classifypos`: contact,
  crashed, race, bear-off), and --detail names each decision's class.
"""

import json
import os
import subprocess
import sys
import tempfile

GNUBG = os.environ.get("GNUBG", "/usr/games/gnubg")
BLUNDER = 0.08
# The summary's split by gnubg's position class (`gnubg.classifypos`: 10 contact, 9 crashed,
# 8 race, 1-7 the bear-off databases' classes and hypergammon, 0 game over).
CLASS_ORDER = ["contact", "crashed", "race", "bear-off"]


def class_name(code):
    return {10: "contact", 9: "crashed", 8: "race"}.get(code, "bear-off")


def in_gnubg(log_path, out_path, plies, every, games, detail_path, cube_every=1, screen=0.0):
    import gnubg  # noqa: only available inside gnubg

    def pid(board):
        return gnubg.positionid((tuple(board[0]), tuple(board[1])))

    sys.path.insert(0, os.environ["DUEL_SCRIPTS_DIR"])
    from duel_gnubg import apply_move

    for c in ["set jacoby off", "set beavers 0", "set player 0 human", "set player 1 human",
              "set evaluation chequerplay evaluation plies %d" % plies,
              "set evaluation chequerplay evaluation cubeful on",
              "set evaluation chequerplay evaluation deterministic on",
              "set evaluation chequerplay evaluation noise 0",
              "new game", "set turn 0"]:
        gnubg.command(c)
    ec = gnubg.evalcontext(1, plies, 1, 1, 0.0)
    ec0 = gnubg.evalcontext(1, 0, 1, 1, 0.0)
    owner_of = {"Centred": -1, "Me": 0, "Opponent": 1}  # relative to the player on roll
    owner_cmd = {"Centred": "set cube centre", "Me": "set cube owner 0",
                 "Opponent": "set cube owner 1"}

    mv = {"n": 0, "evaluated": 0, "err": 0.0, "pts": 0.0, "blunders": 0, "nonzero": 0,
          "no_play": 0, "skipped": 0, "pruned": 0, "top": []}
    cb = {"double": 0, "take": 0, "err": 0.0, "pts": 0.0, "blunders": 0,
          "missed_double": [0, 0.0], "wrong_double": [0, 0.0], "too_good_double": [0, 0.0],
          "wrong_take": [0, 0.0], "wrong_drop": [0, 0.0], "doubles": 0, "takes": 0,
          "drops": 0, "screened": 0, "top": []}
    by_class = {}  # class -> decisions, points lost and blunders, plays and cube apart

    def tally(board, what, pts, blunder):
        """Counts one decision (`what`: "play" or "cube") under the class of `board`."""
        name = class_name(gnubg.classifypos(board))
        c = by_class.setdefault(name, {"play": 0, "play_pts": 0.0, "play_blunders": 0,
                                       "cube": 0, "cube_pts": 0.0, "cube_blunders": 0})
        c[what] += 1
        c[what + "_pts"] += pts
        c[what + "_blunders"] += int(blunder)
        return name

    detail = open(detail_path, "w") if detail_path else None
    move_index = cube_index = 0
    for line in open(log_path):
        e = json.loads(line)
        kind = e.get("kind")
        base = e.get("base", {})
        posid, cube, owner = base.get("position"), base.get("cube", 1), base.get("owner")
        if kind == "move":
            mv["n"] += 1
            move_index += 1
            if (move_index - 1) % every:
                continue
            try:
                gnubg.command("set board " + posid)
                gnubg.command("set cube value %d" % cube)
                gnubg.command(owner_cmd[owner])
                gnubg.command("set dice %s %s" % (e["dice"][0], e["dice"][1]))
                board = gnubg.board()
                if pid(board) != posid:
                    raise ValueError("set up %s" % pid(board))
                h = gnubg.hint(100000)["hint"]
                if not h:
                    raise ValueError("no legal play")
            except Exception as ex:  # no legal play makes hint() raise
                if e["reply"].strip() == "":
                    mv["no_play"] += 1
                    mv["evaluated"] += 1
                else:
                    mv["skipped"] += 1
                    print("skipped move %s %s: %s" % (posid, e["dice"], ex))
                continue
            mv["evaluated"] += 1
            best = h[0]["equity"]
            after = apply_move(board, gnubg.parsemove(e["reply"]))
            target = pid(after) if after else None
            mine = None
            for m in h:
                if pid(apply_move(board, gnubg.parsemove(m["move"]))) == target:
                    mine = m
                    break
            if mine is None:
                mv["skipped"] += 1
                print("skipped move %s %s: %r not among gnubg's plays" % (posid, e["dice"],
                                                                        e["reply"]))
                continue
            if mine["context"]["plies"] < plies:
                mv["pruned"] += 1
            err = max(0.0, best - mine["equity"])
            mv["err"] += err
            mv["pts"] += err * cube
            mv["nonzero"] += err > 1e-6
            mv["blunders"] += err > BLUNDER
            cls = tally(board, "play", err * cube, err > BLUNDER)
            rec = {"kind": "move", "class": cls, "position": posid, "cube": cube, "owner": owner,
                   "dice": e["dice"], "played": e["reply"], "best": h[0]["move"],
                   "error": err, "engine_equity": e.get("equity")}
            mv["top"] = sorted(mv["top"] + [rec], key=lambda r: -r["error"])[:8]
            if detail:
                detail.write(json.dumps(rec) + "\n")
        elif kind in ("double", "take"):
            cube_index += 1
            if (cube_index - 1) % cube_every:
                continue
            cb[kind] += 1
            reply = e["reply"]
            key = {"double": "doubles", "take": "takes", "drop": "drops"}.get(reply)
            if key:  # the engine's actions, screened or not
                cb[key] += 1
            board = gnubg.positionfromid(posid)
            ci = gnubg.cubeinfo(cube, owner_of[owner], 0, 0, (0, 0), 0, 0)
            if plies > 0 and screen > 0:
                # Most cube decisions of a duel are far from any doubling window: judged
                # right at 0 plies by more than `screen`, they are not judged again.
                _, nd, dt, dp, _, _ = gnubg.cfevaluate(board, ci, ec0)
                dbl = min(dt, dp)
                if kind == "double":
                    mine, other = (dbl, nd) if reply == "double" else (nd, dbl)
                    clear = mine - other > screen
                else:  # the doubler's equities: the taker wants the lower
                    mine, other = (dt, dp) if reply == "take" else (dp, dt)
                    clear = other - mine > screen
                if clear:
                    cb["screened"] += 1
                    tally(board, "cube", 0.0, False)
                    continue
            opt, nd, dt, dp, _, text = gnubg.cfevaluate(board, ci, ec)
            dbl = min(dt, dp)
            best = max(nd, dbl)
            if kind == "double":
                if reply == "double":
                    err = best - dbl
                    if err > 1e-9:
                        key = "too_good_double" if nd > dp else "wrong_double"
                        cb[key][0] += 1
                        cb[key][1] += err * cube
                else:
                    err = best - nd
                    if err > 1e-9:
                        cb["missed_double"][0] += 1
                        cb["missed_double"][1] += err * cube
            else:  # equities are the doubler's: the engine minimises them
                if reply == "take":
                    err = dt - dbl
                    if err > 1e-9:
                        cb["wrong_take"][0] += 1
                        cb["wrong_take"][1] += err * cube
                else:
                    err = dp - dbl
                    if err > 1e-9:
                        cb["wrong_drop"][0] += 1
                        cb["wrong_drop"][1] += err * cube
            cb["err"] += err
            cb["pts"] += err * cube
            cb["blunders"] += err > BLUNDER
            cls = tally(board, "cube", err * cube, err > BLUNDER)
            rec = {"kind": kind, "class": cls, "position": posid, "cube": cube, "owner": owner,
                   "reply": reply, "gnubg": text, "nd": nd, "dt": dt, "dp": dp, "error": err,
                   "engine": [e.get("nd"), e.get("dt"), e.get("dp")]}
            if err > 1e-9:
                cb["top"] = sorted(cb["top"] + [rec], key=lambda r: -r["error"])[:8]
            if detail:
                detail.write(json.dumps(rec) + "\n")
    with open(out_path, "w") as f:
        json.dump({"moves": mv, "cube": cb, "plies": plies, "every": every, "games": games,
                   "cube_every": cube_every, "by_class": by_class, "screen": screen}, f)


def summary(r, log, elapsed):
    mv, cb, games, every = r["moves"], r["cube"], r["games"], r["every"]
    ce = r.get("cube_every", 1)
    if ce > 1:  # sampled cube decisions: scale every count and cost by CUBE_EVERY
        for k, v in list(cb.items()):
            if isinstance(v, list) and k != "top":
                cb[k] = [v[0] * ce, v[1] * ce]
            elif isinstance(v, (int, float)):
                cb[k] = v * ce
    scale = mv["n"] / max(1, mv["evaluated"] + mv["skipped"])  # sampling factor
    out = []
    p = out.append
    p("gnubg %d-ply cubeful judging of %s (%d games, money, Jacoby off, no beavers); %.0f s"
      % (r["plies"], log, games, elapsed))
    p("equities normalised to a 1-cube; 'points' = error x cube value; blunder = error > %.2f"
      % BLUNDER)
    p("")
    p("chequer plays: %d logged, %d evaluated (every %d%s), %d with no legal play, %d skipped%s"
      % (mv["n"], mv["evaluated"], every, ", totals scaled x%.2f" % scale if every > 1 else "",
         mv["no_play"], mv["skipped"],
         ", %d engine plays pruned to a lower ply" % mv["pruned"] if r["plies"] else ""))
    ev = max(1, mv["evaluated"] - mv["no_play"])
    p("  total error %.2f (points %.2f); per game %.4f (points %.4f); per play %.4f"
      % (mv["err"] * scale, mv["pts"] * scale, mv["err"] * scale / games,
         mv["pts"] * scale / games, mv["err"] / ev))
    p("  plays differing from gnubg's best: %d (%.1f%%); blunders: %d%s"
      % (mv["nonzero"], 100.0 * mv["nonzero"] / ev, mv["blunders"],
         " (x%.2f = %.0f)" % (scale, mv["blunders"] * scale) if every > 1 else ""))
    p("")
    ncube = cb["double"] + cb["take"]
    if ce > 1:
        p("(cube decisions: every %d-th evaluated; counts and costs below are scaled x%d)" % (ce, ce))
    p("cube decisions: %d (%d double/no-double: doubled %d; %d take/drop: took %d, dropped %d)"
      % (ncube, cb["double"], cb["doubles"], cb["take"], cb["takes"], cb["drops"]))
    p("  total error %.2f (points %.2f); per game %.4f (points %.4f); per decision %.4f"
      % (cb["err"], cb["pts"], cb["err"] / games, cb["pts"] / games, cb["err"] / max(1, ncube)))
    if cb.get("screened"):
        p("  (%d of them right by more than %.2f at 0 plies, counted as right without a %d-ply "
          "evaluation)" % (cb["screened"] * ce, r.get("screen", 0.0), r["plies"]))
    p("  blunders: %d" % cb["blunders"])
    for k, label in [("missed_double", "missed doubles"),
                     ("wrong_double", "wrong doubles (should not double)"),
                     ("too_good_double", "doubles when too good (should play on)"),
                     ("wrong_take", "wrong takes"), ("wrong_drop", "wrong drops")]:
        p("  %-40s %5d  cost %7.2f points (%.4f per game)"
          % (label, cb[k][0], cb[k][1], cb[k][1] / games))
    p("")
    tot_pts = mv["pts"] * scale + cb["pts"]
    p("share of points lost: chequer %.0f%%, cube %.0f%% (total %.4f points per game)"
      % (100.0 * mv["pts"] * scale / max(1e-9, tot_pts), 100.0 * cb["pts"] / max(1e-9, tot_pts),
         tot_pts / games))
    if r.get("by_class"):
        p("")
        p("by gnubg's position class (points lost per game; sampled figures scaled as above):")
        p("  %-9s %7s %9s %9s   %6s %9s %9s" % ("class", "plays", "pts/game", "blunders",
                                                "cube", "pts/game", "blunders"))
        for name in CLASS_ORDER:
            c = r["by_class"].get(name)
            if not c:
                continue
            p("  %-9s %7d %9.4f %9d   %6d %9.4f %9d"
              % (name, round(c["play"] * scale), c["play_pts"] * scale / games,
                 round(c["play_blunders"] * scale), c["cube"] * ce,
                 c["cube_pts"] * ce / games, c["cube_blunders"] * ce))
    p("")
    p("largest chequer errors:")
    for t in mv["top"]:
        p("  %.3f  %s dice %s cube %d %s: played %s, gnubg %s"
          % (t["error"], t["position"], t["dice"], t["cube"], t["owner"], t["played"], t["best"]))
    p("largest cube errors:")
    for t in cb["top"]:
        p("  %.3f  %s %s cube %d %s: engine %s, gnubg %s (ND %.3f DT %.3f DP %.3f)"
          % (t["error"], t["kind"], t["position"], t["cube"], t["owner"], t["reply"], t["gnubg"],
             t["nd"], t["dt"], t["dp"]))
    return "\n".join(out)


def main():
    import argparse
    import time

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", nargs="+", help="decision logs (several: judged as one, in order)")
    ap.add_argument("--plies", type=int, default=0)
    ap.add_argument("--every", type=int, default=1, help="evaluate every K-th chequer play")
    ap.add_argument("--cube-every", type=int, default=1,
                    help="evaluate every K-th cube decision (counts scaled by K)")
    ap.add_argument("--screen", type=float, default=0.1,
                    help="with --plies above 0: a cube decision that 0 plies find right by more "
                    "than this (cubeful equity) is not judged again (0: judge every one)")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--detail", help="write one JSON line per evaluated decision here")
    ap.add_argument("--out", help="also write the summary here")
    ap.add_argument("--nice", type=int, default=5)
    args = ap.parse_args()
    for path in args.log:
        if not os.path.isfile(path):
            print("error: %s is not a file" % path, file=sys.stderr)
            sys.exit(2)
    log = os.path.abspath(args.log[0])
    if len(args.log) > 1:  # duel_gnubg.py --keep-logs keeps one log per chunk
        fd, log = tempfile.mkstemp(suffix=".jsonl")
        with os.fdopen(fd, "w") as out:
            for path in args.log:
                with open(path) as f:
                    out.write(f.read())
    res = tempfile.NamedTemporaryFile(delete=False, suffix=".json").name
    env = dict(os.environ, DUEL_ERRORS_LOG=log, DUEL_ERRORS_OUT=res,
               DUEL_ERRORS_PLIES=str(args.plies), DUEL_ERRORS_EVERY=str(max(1, args.every)),
               DUEL_ERRORS_GAMES=str(args.games),
               DUEL_ERRORS_CUBE_EVERY=str(max(1, args.cube_every)),
               DUEL_ERRORS_SCREEN=str(args.screen),
               DUEL_ERRORS_DETAIL=os.path.abspath(args.detail) if args.detail else "",
               DUEL_SCRIPTS_DIR=os.path.dirname(os.path.abspath(__file__)))
    started = time.time()
    g = subprocess.run(["nice", "-n", str(args.nice), GNUBG, "-t", "-q", "-r", "-p",
                        os.path.abspath(__file__)], env=env, capture_output=True, text=True)
    elapsed = time.time() - started
    try:
        r = json.load(open(res))
    except (OSError, ValueError):
        sys.stderr.write(g.stdout[-3000:] + g.stderr[-3000:])
        sys.exit("error: gnubg did not produce a result")
    finally:
        os.unlink(res)
        if len(args.log) > 1:
            os.unlink(log)
    for l in g.stdout.splitlines():
        if l.startswith("skipped "):
            print(l)
    text = summary(r, args.log[0] if len(args.log) == 1 else "%d logs (%s ...)"
                   % (len(args.log), args.log[0]), elapsed)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    if os.environ.get("DUEL_ERRORS_LOG"):
        in_gnubg(os.environ["DUEL_ERRORS_LOG"], os.environ["DUEL_ERRORS_OUT"],
                 int(os.environ.get("DUEL_ERRORS_PLIES", "0")),
                 int(os.environ.get("DUEL_ERRORS_EVERY", "1")),
                 int(os.environ.get("DUEL_ERRORS_GAMES", "1000")),
                 os.environ.get("DUEL_ERRORS_DETAIL") or None,
                 int(os.environ.get("DUEL_ERRORS_CUBE_EVERY", "1")),
                 float(os.environ.get("DUEL_ERRORS_SCREEN", "0")))
    else:
        main()
