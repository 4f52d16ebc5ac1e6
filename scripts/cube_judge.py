"""Judge Tabula's cube decisions with GNU Backgammon on a set of close cube decisions.

    python3 scripts/cube_judge.py [--seed 1] [--games 40] [--decisions 200] [--margin 0.16]
                                  [--plies 0,1,2] [--tabula BIN] [--detail FILE.jsonl]
                                  [--out FILE] [--nice 10] [--classes race,...]
                                  [--crashed-only] [--reuse FILE.jsonl]

One file, two sides, as scripts/duel_errors.py: the driver runs gnubg
(`gnubg -t -q -r -p scripts/cube_judge.py` with CUBE_JUDGE_* in the environment) to build and
judge the set, then asks `tabula backgammon hint --position ID --match-id M --plies K --json`
(no dice: the cube decision of the player on roll) for each decision at each depth.
Deterministic per seed.

The set (gnubg side):
- Positions: GAMES games of gnubg self-play (both sides gnubg 0-ply chequer play, no noise,
  cube off so that games run to the end; gnubg's Mersenne Twister dice seeded with SEED).
  Every position a player is on roll in (before the roll), each once, except decided ones
  (gnubg 0-ply cubeless winning chance of either side above 0.97: there doubling and playing
  on are worth the same, a cash, and every engine is right).
- Cube states, from the player on roll ("roller"): money with the cube centred, money with a
  2-cube the roller owns (a redouble), and in a 7-point match with the cube centred
  7-away 7-away, 3-away 5-away, 5-away 3-away, 2-away 4-away, 4-away 2-away and post-Crawford
  3-away 1-away (the trailer doubles, the leader takes or passes). Money: no Jacoby rule, no
  beavers (gnubg set so; Tabula's centred money cube is asked without a Match ID, its
  default being the same: see tabula_cube).
- Judge: gnubg 2-ply cubeful evaluation (`cfevaluate`, deterministic, gnubg's default move
  pruning) of No double (ND), Double/take (DT) and Double/pass (DP), the roller's equities
  normalised to the cube value (money) or to a 1-cube money game (match: gnubg's EMG). The
  double is worth D = min(DT, DP) (answered optimally).
- A *doubling decision* (the roller's: double or not) is close when |ND - D| < MARGIN; a
  *take decision* (the opponent's answer to a double: take or pass) is close when
  |DT - DP| < MARGIN. MARGIN defaults to 0.16, the threshold gnubg's own analysis uses for a
  "close" cube decision (eval.c, isCloseCubedecision). Every (position, cube state) pair is
  evaluated at 2 ply: no cheaper 0-ply filter, since gnubg's 0-ply and 2-ply gaps differ by up
  to 0.48 (measured on the seed-1 set, at 2-away 4-away, where 0 ply misses the opponent's
  recube to 4).
- Classes, for the set's make-up: bear-off (every checker of both sides on its home points or
  off), race (no contact otherwise), gammonish (gnubg 0-ply cubeless gammon rate, won plus
  lost, at least 0.35; the opening position's is 0.28), contact (the rest). Each decision
  takes the first class that applies in that order.
- Selection: DECISIONS/2 doubling and the rest take decisions (a shortfall of one kind is
  filled with the other), drawn round-robin over the cube states and, within a state, over
  the classes in the cycle contact, gammonish, bear-off, contact, race, gammonish (entered at
  a different place for each state; a class that has run out is skipped), each class's list
  shuffled with SEED; a position enters at most once per kind (in one cube state), so the
  decisions are not copies of each other. With --classes (a comma-separated subset of
  bear-off, gammonish, race, contact) only positions of those classes are judged and drawn:
  a set for one class (e.g. `--classes race --games 150`), the draw otherwise the same.
  --crashed-only keeps only the positions gnubg classifies as crashed (`classifypos`:
  contact, and one side with at most 6 checkers in play beyond those piled on its ace and
  deuce points), as chequer_judge.py's option of that name: the cube decisions of the
  crashed net. They fall in the classes gammonish and contact.
- With --reuse FILE (an earlier --detail file) gnubg is not run: the file's decisions (those
  of --classes) are judged again with their saved values, to compare another Tabula build on
  the same set in seconds, or to judge against Tabula's own rollouts
  (scripts/cube_rollout_labels.py writes such a file).

The errors (driver side), per decision, in the roller's normalised equity (as gnubg reports
errors; "millipoints" = 1/1000 of it):
- doubling: max(ND, D) minus the equity of the engine's action (D if it doubles, else ND);
- take: the equity of the engine's answer for the roller (DT if it takes, else DP) minus D
  (the taker minimises the roller's equity).
A decision is wrong when its error exceeds 1e-9, a blunder when it exceeds 0.08. Engines:
Tabula's advisor at each depth of --plies (its `cube.action` starts with "double" when it
doubles, `cube.take` for the answer), and gnubg's own 0-ply cube decision (double when
D > ND at 0 ply, take when DT <= DP at 0 ply), for comparison. A gnubg judge favours gnubg:
read Tabula's figures as upper bounds of its error.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

GNUBG = os.environ.get("GNUBG", "/usr/games/gnubg")
BLUNDER = 0.08
WRONG = 1e-9
GAMMONISH = 0.35  # gammon rate (won + lost); the opening's is 0.28 at gnubg 0-ply
DECIDED = 0.03  # a position is decided when either side wins more than 1 - DECIDED

# name, cube value, owner (-1 centred, 0 the roller), match length, score (roller, other)
STATES = [
    ("money centred", 1, -1, 0, (0, 0)),
    ("money owned 2", 2, 0, 0, (0, 0)),
    ("7a7a", 1, -1, 7, (0, 0)),
    ("3a5a", 1, -1, 7, (4, 2)),
    ("5a3a", 1, -1, 7, (2, 4)),
    ("2a4a", 1, -1, 7, (5, 3)),
    ("4a2a", 1, -1, 7, (3, 5)),
    ("3a1a post-Crawford", 1, -1, 7, (4, 6)),
]
CLASSES = ["bear-off", "gammonish", "race", "contact"]
# gnubg's CLASS_CRASHED, what `gnubg.classifypos` answers for a crashed position (shared with
# chequer_judge.py's --crashed-only).
CLASS_CRASHED = 9
# The order classes are drawn in, within each cube state: contact and gammonish a third each,
# race and bear-off a sixth each (when a class runs out the others fill in).
CYCLE = ["contact", "gammonish", "bear-off", "contact", "race", "gammonish"]


def classify(board, gammons):
    """The class of a gnubg board (board[1] on roll): see the module's docstring."""
    if all(sum(side[6:25]) == 0 for side in board):
        return "bear-off"
    if gammons >= GAMMONISH:
        return "gammonish"
    # Contact: some checker of the roller still has an opponent's checker ahead of it.
    me, you = board[1], board[0]
    my_back = max((i for i in range(25) if me[i]), default=-1)
    your_back = max((i for i in range(25) if you[i]), default=-1)
    if my_back >= 0 and your_back >= 0 and my_back + your_back < 23:
        return "race"
    return "contact"


def gnubg_selfplay_match(gnubg, seed, games):
    """Plays `games` games of deterministic, cubeless gnubg 0-ply self-play from `seed` (the
    Mersenne twister, Jacoby and beavers off) and returns the match record
    (`gnubg.match(0, 1, 0, 0)`). Shared with chequer_judge.py, so both judges draw their sets
    from the same kind of games."""
    for c in ["set jacoby off", "set beavers 0", "set rng mersenne", "set seed %d" % seed,
              "set player 0 gnubg", "set player 1 gnubg",
              "set player 0 chequerplay evaluation plies 0",
              "set player 1 chequerplay evaluation plies 0",
              "set player 0 chequerplay evaluation noise 0",
              "set player 1 chequerplay evaluation noise 0",
              "set player 0 chequerplay evaluation deterministic on",
              "set player 1 chequerplay evaluation deterministic on",
              "set cube use off", "set automatic game off"]:
        gnubg.command(c)
    gnubg.command("new session")  # plays the first game
    while len(gnubg.match(0, 0, 0, 0)["games"]) < games:
        gnubg.command("new game")
    return gnubg.match(0, 1, 0, 0)


def in_gnubg(cfg_path):
    import gnubg  # noqa: only available inside gnubg

    cfg = json.load(open(cfg_path))
    seed, games, margin, target = cfg["seed"], cfg["games"], cfg["margin"], cfg["decisions"]
    classes = set(cfg.get("classes") or CLASSES)
    crashed_only = cfg.get("crashed_only", False)
    started = time.time()
    m = gnubg_selfplay_match(gnubg, seed, games)
    positions = []
    seen = set()
    for g in m["games"][:games]:
        for rec in g["game"]:
            if rec.get("action") == "move" and rec.get("board") and rec["board"] not in seen:
                seen.add(rec["board"])
                positions.append(rec["board"])
    print("self-play: %d games, %d positions, %.0f s" % (games, len(positions),
                                                         time.time() - started))

    ec0 = gnubg.evalcontext(1, 0, 1, 1, 0.0)
    ec2 = gnubg.evalcontext(1, 2, 1, 1, 0.0)
    money = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    cis = [gnubg.cubeinfo(cube, owner, 0, length, score, 0, 0)
           for _, cube, owner, length, score in STATES]
    playing = gnubg.posinfo(0, 0, 0, 1, (0, 0))
    mids = [gnubg.matchid(ci, playing) for ci in cis]
    decisions = []
    live = 0
    started = time.time()
    for posid in positions:
        board = gnubg.positionfromid(posid)
        if crashed_only and gnubg.classifypos(board) != CLASS_CRASHED:
            continue  # before the evaluation, which the other positions would waste
        p = gnubg.evaluate(board, money, ec0)
        if not DECIDED <= p[0] <= 1.0 - DECIDED:
            continue
        cls = classify(board, p[1] + p[3])
        if cls not in classes:
            continue
        live += 1
        for si, ci in enumerate(cis):
            r0 = gnubg.cfevaluate(board, ci, ec0)
            nd0, dt0, dp0 = r0[1], r0[2], r0[3]
            r2 = gnubg.cfevaluate(board, ci, ec2)
            nd, dt, dp = r2[1], r2[2], r2[3]
            base = {"position": posid, "match_id": mids[si], "state": STATES[si][0],
                    "class": cls, "win": p[0], "gammons": p[1] + p[3], "nd": nd, "dt": dt, "dp": dp,
                    "gnubg": r2[5], "nd0": nd0, "dt0": dt0, "dp0": dp0}
            if abs(nd - min(dt, dp)) < margin:
                decisions.append(dict(base, kind="double"))
            if abs(dt - dp) < margin:
                decisions.append(dict(base, kind="take"))
    print("candidates: %d positions not decided (of the classes judged), %d (position, state) "
          "pairs, %d close "
          "decisions; %.0f s" % (live, live * len(cis), len(decisions), time.time() - started))

    counts = {}
    for d in decisions:
        counts[(d["state"], d["kind"])] = counts.get((d["state"], d["kind"]), 0) + 1
    print("close by state (doubling/take): " + ", ".join(
        "%s %d/%d" % (st[0], counts.get((st[0], "double"), 0), counts.get((st[0], "take"), 0))
        for st in STATES))
    print("close by class (doubling/take): " + ", ".join(
        "%s %d/%d" % (c, sum(d["class"] == c and d["kind"] == "double" for d in decisions),
                      sum(d["class"] == c and d["kind"] == "take" for d in decisions))
        for c in CLASSES))
    rng = random.Random(seed)
    pools = {}
    for d in decisions:
        pools.setdefault((d["kind"], d["state"]), {}).setdefault(d["class"], []).append(d)
    for by_class in pools.values():
        for lst in by_class.values():
            rng.shuffle(lst)

    used = set()

    def draw(kind, n):
        out = []
        cursors = {s[0]: i for i, s in enumerate(STATES)}  # where each state is in CYCLE
        while len(out) < n:
            progress = False
            for s in STATES:
                by_class = pools.get((kind, s[0]), {})
                if len(out) >= n or not any(by_class.values()):
                    continue
                while True:
                    c = CYCLE[cursors[s[0]] % len(CYCLE)]
                    cursors[s[0]] += 1
                    if by_class.get(c):
                        break
                d = by_class[c].pop()
                progress = True
                if (d["position"], kind) in used:  # one cube state per position and kind
                    continue
                used.add((d["position"], kind))
                out.append(d)
            if not progress:
                break
        return out

    doubles = draw("double", target // 2)
    takes = draw("take", target - len(doubles))
    if len(doubles) < target // 2:
        doubles += draw("double", target - len(doubles) - len(takes))
    chosen = doubles + takes
    with open(cfg["out"], "w") as f:
        json.dump({"positions": len(positions), "live": live, "close": len(decisions),
                   "decisions": chosen}, f)


def engine_error(d, doubles=None, takes=None):
    """The error of an action by gnubg's 2-ply equities (see the module's docstring)."""
    dbl = min(d["dt"], d["dp"])
    if d["kind"] == "double":
        return max(d["nd"], dbl) - (dbl if doubles else d["nd"])
    return (d["dt"] if takes else d["dp"]) - dbl


class Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write("error: %s\n" % message)
        sys.exit(2)


def match_id_args(state, mid):
    """The Match ID arguments of a tabula command for a decision in cube state `state`.
    gnubg 1.07 writes bit 66 of a Match ID as "no Jacoby rule"; Tabula's MatchId reads it as
    "Jacoby rule" (the opposite). The centred money cube is therefore given without a Match ID
    (Tabula's money default: no Jacoby, as gnubg is set here); with an owned cube the rule
    changes nothing."""
    return [] if state == "money centred" else ["--match-id", mid]


def tabula_cube(tabula, nice, posid, mid, state, plies):
    # Here, not at the top: gnubg runs this file too, without the scripts on its path.
    from tabula_options import no_race_db
    cmd = ["nice", "-n", str(nice), tabula, "backgammon", "hint", "--position", posid,
           "--plies", str(plies), "--threads", "1", "--json"] + match_id_args(state, mid) \
        + no_race_db(tabula)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("tabula failed on %s %s: %s" % (posid, mid, r.stderr.strip()))
    return json.loads(r.stdout)["cube"]


def gnubg_set(a, classes):
    """Runs gnubg on this file to build and judge the set; returns it and the seconds taken."""
    tmp = tempfile.mkdtemp(prefix="cube_judge")
    cfg_path, res = os.path.join(tmp, "cfg.json"), os.path.join(tmp, "set.json")
    json.dump({"seed": a.seed, "games": a.games, "decisions": a.decisions, "margin": a.margin,
               "classes": classes, "crashed_only": a.crashed_only, "out": res},
              open(cfg_path, "w"))
    started = time.time()
    g = subprocess.run(["nice", "-n", str(a.nice), GNUBG, "-t", "-q", "-r", "-p",
                        os.path.abspath(__file__)], env=dict(os.environ, CUBE_JUDGE_CFG=cfg_path),
                       capture_output=True, text=True)
    try:
        s = json.load(open(res))
    except (OSError, ValueError):
        sys.stderr.write(g.stdout[-3000:] + g.stderr[-3000:])
        sys.stderr.write("error: gnubg did not produce the set\n")
        sys.exit(1)
    finally:
        for p in (cfg_path, res):
            if os.path.exists(p):
                os.unlink(p)
        os.rmdir(tmp)
    for line in g.stdout.splitlines():
        if line.startswith(("self-play:", "candidates:", "close by ")):
            print(line)
    return s, time.time() - started


GNUBG_FIELDS = ("position", "match_id", "state", "class", "kind", "win", "gammons", "nd", "dt",
                "dp", "gnubg", "nd0", "dt0", "dp0")


def reused_set(path, classes):
    """The decisions of an earlier --detail file of the given classes, gnubg's side only
    (Tabula's answers and the errors are asked and computed again); a file that is not such a
    detail file is refused."""
    dec = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                d = json.loads(line)
                missing = [k for k in GNUBG_FIELDS if k not in d]
                if missing:
                    raise ValueError("line %d lacks %s" % (n, ", ".join(missing)))
                if d["class"] in classes:
                    dec.append({k: d[k] for k in GNUBG_FIELDS})
    except (OSError, ValueError) as ex:
        sys.stderr.write("error: --reuse %s: %s\n" % (path, ex))
        sys.exit(2)
    if not dec:
        sys.stderr.write("error: --reuse %s: no decisions of the classes asked\n" % path)
        sys.exit(2)
    return {"positions": None, "close": None, "decisions": dec}


def main():
    ap = Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=40, help="gnubg self-play games")
    ap.add_argument("--decisions", type=int, default=200, help="decisions in the set")
    ap.add_argument("--margin", type=float, default=0.16, help="closeness margin (equity)")
    ap.add_argument("--plies", default="0,1,2", help="Tabula's depths, comma-separated")
    default_bin = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release",
                               "tabula")
    ap.add_argument("--tabula", default=os.environ.get("TABULA", default_bin))
    ap.add_argument("--detail", help="write one JSON line per decision here")
    ap.add_argument("--out", help="also write the summary here")
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--reuse", help="judge the decisions of this --detail file again (its gnubg "
                    "side as it is; no gnubg run): another Tabula build on the same set")
    ap.add_argument("--classes", default=",".join(CLASSES),
                    help="judge only these position classes (comma-separated; with --reuse, "
                    "the saved set's decisions of these classes)")
    ap.add_argument("--crashed-only", action="store_true",
                    help="draw only gnubg's crashed positions (contact, one side crashed); "
                    "not with --reuse")
    a = ap.parse_args()
    classes = [c for c in a.classes.split(",") if c]
    if not classes or any(c not in CLASSES for c in classes):
        ap.error("--classes must be a comma-separated subset of " + ",".join(CLASSES))
    if a.crashed_only and a.reuse:
        ap.error("--crashed-only draws a set; with --reuse the saved set is judged as it is")
    if a.seed < 0:
        ap.error("--seed must be at least 0")
    if a.games < 1:
        ap.error("--games must be at least 1")
    if a.decisions < 2:
        ap.error("--decisions must be at least 2")
    if not 0.0 < a.margin <= 1.0:
        ap.error("--margin must be in (0, 1]")
    try:
        plies = [int(p) for p in a.plies.split(",")]
    except ValueError:
        ap.error("--plies must be depths like 0,1,2")
    if not plies or any(not 0 <= p <= 3 for p in plies):
        ap.error("--plies must be depths from 0 to 3")
    if not os.access(a.tabula, os.X_OK):
        ap.error("no tabula binary at %s (build it or pass --tabula)" % a.tabula)
    if not a.reuse and not os.access(GNUBG, os.X_OK):
        ap.error("no gnubg at %s (set GNUBG)" % GNUBG)
    for path in (a.detail, a.out):
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            ap.error("no directory for %s" % path)

    if a.reuse:
        s = reused_set(a.reuse, classes)
        gnubg_s = 0.0
    else:
        s, gnubg_s = gnubg_set(a, classes)
    dec = s["decisions"]

    started = time.time()
    cache = {}
    for i, d in enumerate(dec):
        for k in plies:
            key = (d["position"], d["state"], k)
            if key not in cache:
                try:
                    cache[key] = tabula_cube(a.tabula, a.nice, d["position"], d["match_id"],
                                             d["state"], k)
                except (RuntimeError, OSError, ValueError, KeyError) as ex:
                    sys.stderr.write("error: %s\n" % ex)
                    sys.exit(1)
            c = cache[key]
            d["tabula%d" % k] = {"action": c["action"], "take": c["take"]}
        if (i + 1) % 50 == 0:
            sys.stderr.write("tabula: %d/%d decisions\n" % (i + 1, len(dec)))
    tabula_s = time.time() - started

    engines = [("Tabula %d-ply" % k, lambda d, k=k: (d["tabula%d" % k]["action"]
                                                     .startswith("double"),
                                                     d["tabula%d" % k]["take"]))
               for k in plies]
    engines.append(("gnubg 0-ply", lambda d: (min(d["dt0"], d["dp0"]) > d["nd0"],
                                             d["dt0"] <= d["dp0"])))
    rows = []
    for name, act in engines:
        st = {"double": [0, 0.0, 0, 0], "take": [0, 0.0, 0, 0]}  # n, error, wrong, blunders
        for d in dec:
            doubles, takes = act(d)
            e = engine_error(d, doubles, takes)
            d.setdefault("errors", {})[name] = e
            r = st[d["kind"]]
            r[0] += 1
            r[1] += e
            r[2] += e > WRONG
            r[3] += e > BLUNDER
        rows.append((name, st))

    kinds = {k: sum(d["kind"] == k for d in dec) for k in ("double", "take")}
    out = []
    p = out.append
    if a.reuse:
        p("gnubg 2-ply cubeful judging of %d close cube decisions (%d doubling, %d take/pass); "
          "the set of %s" % (len(dec), kinds["double"], kinds["take"], a.reuse))
    else:
        p("gnubg 2-ply cubeful judging of %d close cube decisions (%d doubling, %d take/pass); "
          "seed %d, %d self-play games, %d positions, %d close decisions found, margin %.2f"
          % (len(dec), kinds["double"], kinds["take"], a.seed, a.games, s["positions"],
             s["close"], a.margin))
    p("gnubg %.0f s, tabula %.0f s" % (gnubg_s, tabula_s))
    make = {}
    for d in dec:
        make.setdefault(d["state"], {}).setdefault(d["kind"], 0)
        make[d["state"]][d["kind"]] += 1
    p("by cube state (doubling/take): " + ", ".join(
        "%s %d/%d" % (st[0], make.get(st[0], {}).get("double", 0),
                      make.get(st[0], {}).get("take", 0)) for st in STATES))
    p("by class (doubling/take): " + ", ".join(
        "%s %d/%d" % (c, sum(d["class"] == c and d["kind"] == "double" for d in dec),
                      sum(d["class"] == c and d["kind"] == "take" for d in dec))
        for c in CLASSES))
    p("")
    p("| engine | doubling error | take/pass error | wrong doubling | wrong take/pass "
      "| doubling blunders | take/pass blunders |")
    p("|---|---|---|---|---|---|---|")
    for name, st in rows:
        dd, tt = st["double"], st["take"]
        p("| %s | %.1f | %.1f | %d | %d | %d | %d |"
          % (name, 1000 * dd[1] / max(1, dd[0]), 1000 * tt[1] / max(1, tt[0]), dd[2], tt[2],
             dd[3], tt[3]))
    p("")
    p("errors: millipoints (normalised equity x 1000) per decision; blunder > %.2f" % BLUNDER)
    p("money vs match (doubling / take/pass error):")
    for name, _ in rows:
        cells = []
        for label, is_money in (("money", True), ("match", False)):
            for k in ("double", "take"):
                sel = [d["errors"][name] for d in dec
                       if d["kind"] == k and d["state"].startswith("money") == is_money]
                cells.append("%s %s %.1f (%d)" % (label, k, 1000 * sum(sel) / max(1, len(sel)),
                                                 len(sel)))
        p("  %-12s %s" % (name, ", ".join(cells)))
    p("by class (doubling / take/pass error, decisions):")
    for name, _ in rows:
        cells = []
        for c in CLASSES:
            sel = {k: [d["errors"][name] for d in dec if d["kind"] == k and d["class"] == c]
                   for k in ("double", "take")}
            cells.append("%s %.1f / %.1f (%d/%d)"
                         % (c, 1000 * sum(sel["double"]) / max(1, len(sel["double"])),
                            1000 * sum(sel["take"]) / max(1, len(sel["take"])),
                            len(sel["double"]), len(sel["take"])))
        p("  %-12s %s" % (name, ", ".join(cells)))
    text = "\n".join(out)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    if a.detail:
        with open(a.detail, "w") as f:
            for d in dec:
                f.write(json.dumps(d, sort_keys=True) + "\n")


if __name__ == "__main__":
    if os.environ.get("CUBE_JUDGE_CFG"):
        in_gnubg(os.environ["CUBE_JUDGE_CFG"])
    else:
        main()
