"""Judge Tabula's chequer play with GNU Backgammon on decisions from gnubg self-play.

    python3 scripts/chequer_judge.py [--seed 1] [--games 150] [--decisions 600] [--plies 0,2]
                                     [--weights W.tnet ...] [--tabula BIN] [--jobs 2]
                                     [--detail FILE.jsonl] [--out FILE] [--nice 10]
                                     [--reuse DETAIL.jsonl]

One file, two sides, as scripts/cube_judge.py: the driver runs gnubg
(`gnubg -t -q -r -p scripts/chequer_judge.py` with CHEQUER_JUDGE_CFG in the environment) once
to play the games the set is drawn from, then --jobs gnubg processes on slices of the set to
judge it, and asks Tabula (--jobs calls at once) in between for the
legal plays (`tabula backgammon moves --position ID --dice D --json`) and for its choice at
each depth (`tabula backgammon hint --position ID --dice D --plies K --threads 1 --json`, the
first play listed; Tabula's defaults otherwise, so its exact bear-off database where both sides
bear off). Deterministic per seed (and independent of --jobs). The seed-1 run (150 games, 600
decisions, --plies 0,2) takes about 5 minutes on 2 busy cores (load 6-10).

The set:
- Positions: GAMES games of gnubg self-play (both sides gnubg 0-ply chequer play, no noise,
  deterministic, cube off so that games run to the end or to a resignation; gnubg's Mersenne
  Twister dice seeded with SEED). Every move record of those games gives a (position, dice)
  pair, the position from the view of the player on roll (gnubg's Position ID), with the dice
  gnubg rolled there. One decision per position: a position met again (the opening, with
  another roll) keeps its first roll, in the order the games were played.
- Only real decisions: the player on roll has at least 2 legal plays with different results
  (Tabula's move list; a forced or a dance move is no decision).
- Classes (cube_judge.py's classify(), without its gammonish class):
  bear-off: every checker of both sides on its own home-board points (1-6) or borne off;
  race: no contact otherwise (no checker of either side still has an opposing checker ahead of
        it, none on the bar);
  contact: the rest.
- Selection: DECISIONS drawn round-robin over contact, race, bear-off (a third each where
  available; a class that has run out is skipped and the others fill in), each class's list
  shuffled with SEED, drawn in that order, positions with fewer than 2 plays passed over.
  --classes race (say) draws from that class alone, in the same order: the first race
  decisions are the full set's, then more (a sharper measure of one net). --crashed-only draws
  from the positions gnubg classifies as crashed (`classifypos`: contact, and one side with at
  most 6 checkers in play beyond its piles on the ace and deuce points), all in the contact
  column. --holding-trailer P draws from the trailing side's turns of holding games: contact,
  not crashed, the side on roll P or more pips behind in the race and the other side with no
  checker back (none on the bar or on the home board of the side on roll); the contact column.

The plays: Tabula's move list gives every legal play with the Position ID after it. That ID is
gnubg's ordinary Position ID of the position after the move with the turn passed, i.e. from
the view of the opponent, who is now on roll (checked with gnubg: on the opening position, 31
played 8/5 6/5 in gnubg gives sGfwATDgc/ABMA, the ID Tabula lists for that play, and gnubg
evaluates it at -0.159 for the side on roll: the opponent's equity). The judge asserts that
sign on this position, and cross-checks every decision: gnubg's own 0-ply move search
(`findbestmove` on the position before the move) must pick a play worth as much at 0 ply as
the best of Tabula's list by the equities here (it picks a different but equal play in decided
games; any other disagreement is printed on stderr).

The judge (gnubg side): cubeless money equity of each play for the player who moved = minus
gnubg's cubeless equity (`evaluate`, pruning nets, deterministic) of the result, the opponent
on roll. Every legal play's result is evaluated at 0 ply and at 1 ply; at 2 ply the best 8 by
the 0-ply ranking (gnubg's own kind of move filter) plus every play a judged engine chose.
The judge's best is the highest 2-ply equity among those; an engine's error on a decision is
that best minus the 2-ply equity of its play (0 when it chose the best).

Engines: Tabula at each depth of --plies, with the shipped weights ("Tabula K-ply") and with
each --weights file W ("Tabula K-ply (W)", W the file's name), so nets can be compared on the
same decisions, and with the race database of --race-db as well ("Tabula K-ply (race-os)",
"Tabula K-ply (W, race-os)"); gnubg 0-ply and gnubg 1-ply: the play whose result gnubg ranks best when every
legal play's result is evaluated at 0 and at 1 ply respectively (ties: the first in Tabula's
move list). A decision is wrong ("not the best") when its error exceeds 1e-6 (float32
rounding), a blunder when it exceeds 0.08; "millipoints" = equity x 1000, per decision.
Bear-off decisions measure the bear-off databases more than the nets: gnubg's and Tabula's
(by default) both play them from one, and on the seed-1 set no engine lost anything there.
A gnubg judge favours gnubg's own lower plies: read Tabula's figures as upper bounds of its
error.

Judging again (--reuse DETAIL): the decisions, their 0- and 1-ply equities, the 2-ply
equities judged then and every engine's choice come from an earlier run's --detail file; this
run's engines (--plies, --weights) choose afresh (an engine of the same name is replaced), and
gnubg evaluates at 2 ply only the plays they choose that the file has not judged. The best and
every error are then taken over the plays judged, as in a full run. Tabula's move list must
still be the file's (checked on every decision). A new net is so judged in about 25 s a set
of 600 decisions instead of 5 minutes, on exactly the decisions of the earlier figures (gnubg's
self-play for a seed has been seen to differ between machines and sessions, which the file
avoids). Checked: with the Tabula choices and the 2-ply equities only they needed taken out of
a file, a run judged those plays afresh to the same equities, to 1e-9.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

GNUBG = os.environ.get("GNUBG", "/usr/games/gnubg")
BLUNDER = 0.08
# gnubg's equities are float32: plays worth the same to gnubg's bear-off database differ by
# one or two units in the last place (1.2e-7 or 2.4e-7 at |equity| ~1, seen on the seed-1 set);
# the smallest real difference there was 2.0e-6.
WRONG = 1e-6
FILTER = 8  # plays kept for 2 ply by the 0-ply ranking (gnubg's filter at 2 ply keeps 8 extra)
CLASSES = ["contact", "race", "bear-off"]  # also the round-robin order of the selection
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", ".")))  # driver side only


def gnubg_selfplay(gnubg, cfg):
    """The candidate (position, dice, class) triples, in the order the games were played."""
    sys.path.insert(0, cfg["scripts"])
    # the same games and classes as the cube judge's
    from cube_judge import CLASS_CRASHED, classify, gnubg_selfplay_match

    games = cfg["games"]
    started = time.time()
    m = gnubg_selfplay_match(gnubg, cfg["seed"], games)
    out, seen = [], set()
    for g in m["games"][:games]:
        for rec in g["game"]:
            if rec.get("action") != "move" or not rec.get("board") or rec["board"] in seen:
                continue
            seen.add(rec["board"])
            d = rec["dice"]
            board = gnubg.positionfromid(rec["board"])
            # gammons 0: never cube_judge's "gammonish", so bear-off, race or contact.
            # board[1] is the side on roll, board[0] the other, each from its own side (point
            # p at index p - 1, the bar at 24).
            pips = [sum((i + 1) * n for i, n in enumerate(side)) for side in board]
            out.append({"position": rec["board"], "dice": "%d%d" % (d[0], d[1]),
                        "class": classify(board, 0.0),
                        "crashed": gnubg.classifypos(board) == CLASS_CRASHED,
                        "trails": pips[1] - pips[0],
                        "opponent_back": sum(board[0][18:25])})
    print("self-play: %d games, %d positions, %.0f s" % (games, len(out), time.time() - started))
    with open(cfg["out"], "w") as f:
        json.dump(out, f)


def judge_equity(gnubg):
    """The judge's equity(board, k) at k = 0, 1, 2 ply, with the money cube and the evaluation
    contexts it uses (cubeless, pruning, deterministic)."""
    money = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    ecs = [gnubg.evalcontext(0, k, 1, 1, 0.0) for k in range(3)]

    def equity(board, k):  # for the player who moved: the opponent is on roll in `board`
        return -gnubg.evaluate(board, money, ecs[k])[5]

    # The perspective, on an obvious case: the opening 31 played 8/5 6/5 (this ID, as Tabula
    # lists it) is worth about +0.16 to the mover at gnubg 0 ply, about -0.16 to the side on roll.
    assert equity(gnubg.positionfromid("sGfwATDgc/ABMA"), 0) > 0.1
    return equity, money, ecs


def gnubg_judge(gnubg, cfg):
    """Each decision's results evaluated at 0 and 1 ply, and the candidates at 2 ply."""
    decisions = cfg["decisions"]
    equity, money, ecs = judge_equity(gnubg)
    out = []
    started = time.time()
    for i, d in enumerate(decisions):
        boards = [gnubg.positionfromid(p) for p in d["results"]]
        eq0 = [equity(b, 0) for b in boards]
        eq1 = [equity(b, 1) for b in boards]
        g0 = max(range(len(boards)), key=lambda j: (eq0[j], -j))
        g1 = max(range(len(boards)), key=lambda j: (eq1[j], -j))
        order = sorted(range(len(boards)), key=lambda j: (-eq0[j], j))
        cand = sorted(set(order[:FILTER]) | set(d["chosen"]) | {g0, g1})
        eq2 = {j: equity(boards[j], 2) for j in cand}
        # Cross-check of the move list and the perspective: gnubg's own 0-ply move search on
        # the position before the move should choose the play ranked best here.
        board = gnubg.positionfromid(d["position"])
        own = gnubg.movetupletostring(gnubg.findbestmove(
            board, money, ecs[0], (int(d["dice"][0]), int(d["dice"][1]))), board)
        if own not in d["moves"] or eq0[d["moves"].index(own)] != eq0[g0]:
            print("findbestmove: %s %s: gnubg's 0-ply search plays %s, ranked best here: %s"
                  % (d["position"], d["dice"], own, d["moves"][g0]), flush=True)
        out.append({"eq0": eq0, "eq1": eq1, "eq2": {str(j): e for j, e in eq2.items()},
                    "gnubg0": g0, "gnubg1": g1, "findbestmove": own})
        if (i + 1) % 50 == 0:
            print("progress: %s judged %d/%d decisions, %.0f s"
                  % (cfg["name"], i + 1, len(decisions), time.time() - started), flush=True)
    with open(cfg["out"], "w") as f:
        json.dump(out, f)


def gnubg_eq2(gnubg, cfg):
    """--reuse: the 2-ply equities of the listed results alone."""
    equity = judge_equity(gnubg)[0]
    out = [[equity(gnubg.positionfromid(p), 2) for p in results] for results in cfg["decisions"]]
    with open(cfg["out"], "w") as f:
        json.dump(out, f)


def in_gnubg(cfg_path):
    import gnubg  # noqa: only available inside gnubg

    cfg = json.load(open(cfg_path))
    if cfg["mode"] == "selfplay":
        gnubg_selfplay(gnubg, cfg)
    elif cfg["mode"] == "eq2":
        gnubg_eq2(gnubg, cfg)
    else:
        gnubg_judge(gnubg, cfg)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write("error: %s\n" % message)
        sys.exit(2)


class Failed(Exception):
    pass


def run_gnubg(cfg, nice):
    """Runs this file inside gnubg with `cfg`; returns the JSON it wrote."""
    tmp = tempfile.mkdtemp(prefix="chequer_judge")
    cfg_path, res = os.path.join(tmp, "cfg.json"), os.path.join(tmp, "out.json")
    with open(cfg_path, "w") as f:
        json.dump(dict(cfg, out=res, scripts=HERE), f)
    tail = []
    try:
        p = subprocess.Popen(["nice", "-n", str(nice), GNUBG, "-t", "-q", "-r", "-p",
                              os.path.join(HERE, "chequer_judge.py")],
                             env=dict(os.environ, CHEQUER_JUDGE_CFG=cfg_path),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            for line in p.stdout:
                tail = (tail + [line])[-40:]
                if line.startswith(("self-play:", "progress:", "findbestmove:")):
                    sys.stderr.write(line)
            p.wait()
        except BaseException:
            p.kill()
            p.wait()
            raise
        try:
            with open(res) as f:
                return json.load(f)
        except (OSError, ValueError):
            sys.stderr.write("".join(tail))
            raise Failed("gnubg did not finish (%s mode)" % cfg["mode"])
    finally:
        for q in (cfg_path, res):
            if os.path.exists(q):
                os.unlink(q)
        os.rmdir(tmp)


def tabula(args, nice, *rest):
    cmd = ["nice", "-n", str(nice), args.tabula, "backgammon"] + list(rest) + ["--json"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise Failed("tabula failed: %s: %s" % (" ".join(cmd[3:]), r.stderr.strip()
                                                 or r.stdout.strip()))
    return json.loads(r.stdout)


def tabula_moves(args, d):
    """The legal plays: [(notation, Position ID after, opponent on roll)]."""
    j = tabula(args, args.nice, "moves", "--position", d["position"], "--dice", d["dice"])
    return [(m["move"], m["position"]) for m in j["moves"]]


def tabula_choice(args, d, plies, weights, extra=()):
    # Here, not at the top: gnubg runs this file too, without the scripts on its path.
    from tabula_options import no_race_db
    rest = ["hint", "--position", d["position"], "--dice", d["dice"], "--plies", str(plies),
            "--threads", "1"]
    if weights:
        rest += ["--weights", weights]
    rest += list(extra) + no_race_db(args.tabula, extra)
    j = tabula(args, args.nice, *rest)
    if not j.get("moves"):
        raise Failed("tabula gave no play on %s %s" % (d["position"], d["dice"]))
    return j["moves"][0]["play"]


def load_detail(path):
    """--reuse: the decisions of an earlier run's --detail file, with their judgements.

    Each record keeps its plays (in Tabula's move list order), their 0- and 1-ply equities,
    the 2-ply equities judged then and every engine's choice; a record that lacks one of them,
    or names a choice outside its plays, is refused."""
    dec = []
    try:
        f = open(path)
    except OSError as ex:
        raise Failed("cannot read %s: %s" % (path, ex.strerror))
    with f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                plays = [(str(p["move"]), str(p["position"])) for p in r["plays"]]
                moves = [m for m, _ in plays]
                eq2 = {i: float(p["eq2"]) for i, p in enumerate(r["plays"])
                       if p["eq2"] is not None}
                d = {"position": str(r["position"]), "dice": str(r["dice"]),
                     "class": r["class"], "plays": plays,
                     "eq0": [float(p["eq0"]) for p in r["plays"]],
                     "eq1": [float(p["eq1"]) for p in r["plays"]], "eq2": eq2,
                     "choice": {str(k): moves.index(m) for k, m in r["choices"].items()},
                     "findbestmove": r["gnubg_findbestmove"]}
                if d["class"] not in CLASSES or len(plays) < 2 or not eq2:
                    raise ValueError("class, plays or 2-ply equities")
                if not {"gnubg 0-ply", "gnubg 1-ply"} <= set(d["choice"]):
                    raise ValueError("no gnubg choices")
                if any(i not in eq2 for i in d["choice"].values()):
                    raise ValueError("a choice without its 2-ply equity")
            except (ValueError, KeyError, TypeError, AttributeError) as ex:
                raise Failed("%s line %d is not a --detail record of this script (%s)"
                             % (path, n, ex))
            dec.append(d)
    if not dec:
        raise Failed("%s holds no decisions" % path)
    return dec


def draw(cands, n, seed, moves_of, classes=CLASSES):
    """Round-robin over `classes` from each class's seeded shuffle (see the module docstring).

    Every class is shuffled whichever are drawn, so a class's order is the same in any run of
    the seed: a run of fewer classes draws the decisions of the full set first."""
    rng = random.Random(seed)
    pools = {c: [x for x in cands if x["class"] == c] for c in CLASSES}
    for c in CLASSES:
        rng.shuffle(pools[c])
        pools[c].reverse()  # pop() from the end takes them in shuffled order
    pools = {c: pools[c] for c in classes}
    out, skipped = [], 0
    while len(out) < n and any(pools.values()):
        for c in classes:
            while len(out) < n and pools[c]:
                d = pools[c].pop()
                plays = moves_of(d)
                if len(set(p for _, p in plays)) >= 2:
                    out.append(dict(d, plays=plays))
                    break
                skipped += 1
    return out, skipped


def main():
    ap = Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=150, help="gnubg self-play games")
    ap.add_argument("--decisions", type=int, default=600, help="decisions in the set")
    ap.add_argument("--plies", default="0,2", help="Tabula's depths, comma-separated")
    ap.add_argument("--classes", default=",".join(CLASSES),
                    help="the classes drawn from, comma-separated (default all: %(default)s)")
    ap.add_argument("--crashed-only", action="store_true",
                    help="draw only gnubg's crashed positions (contact, one side crashed)")
    ap.add_argument("--holding-trailer", type=int, metavar="PIPS",
                    help="draw only the trailing side's turns of holding games, PIPS or more "
                         "behind (contact, not crashed, the other side with no checker back)")
    ap.add_argument("--weights", nargs="+", default=[], metavar="W",
                    help="also judge Tabula with these weights files")
    ap.add_argument("--race-db", metavar="FILE",
                    help="also judge Tabula (shipped weights) with this race database "
                         "(`tabula tablebase build race-os`): \"Tabula K-ply (race-os)\"")
    default_bin = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release",
                               "tabula")
    ap.add_argument("--tabula", default=os.environ.get("TABULA", default_bin))
    ap.add_argument("--jobs", type=int, default=2, help="Tabula processes at once")
    ap.add_argument("--detail", help="write one JSON line per decision here")
    ap.add_argument("--out", help="also write the summary here")
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--reuse", metavar="DETAIL",
                    help="judge on the decisions of an earlier run's --detail file instead of "
                         "drawing a set: its judgements and its engines' choices are kept, "
                         "this run's engines choose afresh, and gnubg judges at 2 ply only the "
                         "plays they choose that the file has not judged (--seed, --games, "
                         "--decisions and --classes do not apply; --crashed-only and "
                         "--holding-trailer are refused)")
    a = ap.parse_args()
    if a.seed < 0:
        ap.error("--seed must be at least 0")
    if a.games < 1:
        ap.error("--games must be at least 1")
    if a.decisions < 1:
        ap.error("--decisions must be at least 1")
    if not 1 <= a.jobs <= 64:
        ap.error("--jobs must be from 1 to 64")
    try:
        plies = [int(p) for p in a.plies.split(",")]
    except ValueError:
        ap.error("--plies must be depths like 0,2")
    if not plies or any(not 0 <= p <= 3 for p in plies) or len(set(plies)) != len(plies):
        ap.error("--plies must be distinct depths from 0 to 3")
    classes = a.classes.split(",")
    if not classes or any(c not in CLASSES for c in classes) or len(set(classes)) != len(classes):
        ap.error("--classes must be distinct names from %s" % ",".join(CLASSES))
    a.classes = [c for c in CLASSES if c in classes]
    if a.crashed_only and a.holding_trailer is not None:
        ap.error("--crashed-only and --holding-trailer draw disjoint sets: choose one")
    if a.holding_trailer is not None and not 0 <= a.holding_trailer <= 200:
        ap.error("--holding-trailer must be from 0 to 200 pips")
    if a.reuse and (a.crashed_only or a.holding_trailer is not None):
        ap.error("--reuse judges the file's decisions: --crashed-only and --holding-trailer "
                 "do not apply")
    if a.crashed_only or a.holding_trailer is not None:
        a.classes = ["contact"]  # both draw contact positions
    for w in a.weights:
        if not os.path.isfile(w):
            ap.error("no weights file %s" % w)
    if a.race_db and not os.path.isfile(a.race_db):
        ap.error("no race database %s" % a.race_db)
    names = [os.path.basename(w) for w in a.weights]
    if len(set(names)) != len(names):
        ap.error("--weights files must have different names")
    if not os.access(a.tabula, os.X_OK):
        ap.error("no tabula binary at %s (build it or pass --tabula)" % a.tabula)
    if not os.access(GNUBG, os.X_OK):
        ap.error("no gnubg at %s (set GNUBG)" % GNUBG)
    for path in (a.detail, a.out):
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            ap.error("no directory for %s" % path)
    if a.reuse:
        try:
            a.reused = load_detail(a.reuse)
        except Failed as ex:
            ap.error(str(ex))
    try:
        run(a, plies)
    except Failed as ex:
        sys.stderr.write("error: %s\n" % ex)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        sys.exit(130)


def run(a, plies):
    t0 = time.time()
    if a.reuse:
        dec = a.reused
        cands, avail, skipped, selfplay_s = [], None, 0, 0.0
    else:
        cands = run_gnubg({"mode": "selfplay", "seed": a.seed, "games": a.games}, a.nice)
        selfplay_s = time.time() - t0
        if a.crashed_only:
            cands = [x for x in cands if x["crashed"]]
        if a.holding_trailer is not None:
            cands = [x for x in cands
                     if x["class"] == "contact" and not x["crashed"]
                     and x["trails"] >= a.holding_trailer and x["opponent_back"] == 0]
        avail = {c: sum(x["class"] == c for x in cands) for c in CLASSES}

    t0 = time.time()
    if a.reuse:
        # The file's plays must be this build's move list, in its order: the choices are
        # indices into it.
        with ThreadPoolExecutor(max_workers=a.jobs) as pool:
            lists = list(pool.map(lambda d: tabula_moves(a, d), dec))
        for d, plays in zip(dec, lists):
            if plays != d["plays"]:
                raise Failed("%s %s: the file's plays are not this build's move list"
                             % (d["position"], d["dice"]))
    else:
        dec, skipped = draw(cands, a.decisions, a.seed, lambda d: tabula_moves(a, d),
                            a.classes)
    # The engines Tabula plays as, in table order: (name, plies, weights file or None).
    tab = [("Tabula %d-ply" % k, k, None, ()) for k in plies]
    tab += [("Tabula %d-ply (%s)" % (k, os.path.basename(w)), k, w, ())
            for w in a.weights for k in plies]
    if a.race_db:
        tab += [("Tabula %d-ply (race-os)" % k, k, None, ("--race-db", a.race_db))
                for k in plies]
        tab += [("Tabula %d-ply (%s, race-os)" % (k, os.path.basename(w)), k, w,
                 ("--race-db", a.race_db)) for w in a.weights for k in plies]
    jobs = [(i, e) for i in range(len(dec)) for e in tab]
    # Deepest first, so that the long calls are not left to the end.
    jobs.sort(key=lambda x: -x[1][1])
    done = [0]

    def one(job):
        i, (name, k, w, extra) = job
        play = tabula_choice(a, dec[i], k, w, extra)
        done[0] += 1
        if done[0] % 200 == 0:
            sys.stderr.write("progress: tabula %d/%d hints, %.0f s\n"
                             % (done[0], len(jobs), time.time() - t0))
        return i, name, play

    stats = {}
    pool = ThreadPoolExecutor(max_workers=a.jobs)
    try:
        for i, name, play in pool.map(one, jobs):
            d = dec[i]
            idx = [j for j, (m, _) in enumerate(d["plays"]) if m == play]
            if not idx:
                raise Failed("%s chose %s on %s %s, not in the move list"
                             % (name, play, d["position"], d["dice"]))
            d.setdefault("choice", {})[name] = idx[0]
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    tabula_s = time.time() - t0

    t0 = time.time()
    engines = [name for name, _, _, _ in tab]
    if a.reuse:
        # Only the plays chosen now that the file did not judge at 2 ply go to gnubg.
        missing = [(d, sorted(set(d["choice"].values()) - set(d["eq2"]))) for d in dec]
        missing = [(d, m) for d, m in missing if m]
        todo = [[d["plays"][i][1] for i in m] for d, m in missing]
        for (d, m), eqs in zip(missing, judge_slices(a, "eq2", todo)):
            d["eq2"].update(zip(m, eqs))
        stats["rejudged"] = sum(len(m) for _, m in missing)
        engines += sorted(set(n for d in dec for n in d["choice"])
                          - set(engines) - {"gnubg 0-ply", "gnubg 1-ply"})
    else:
        todo = [{"position": d["position"], "dice": d["dice"],
                 "results": [p for _, p in d["plays"]], "moves": [m for m, _ in d["plays"]],
                 "chosen": sorted(set(d["choice"].values()))} for d in dec]
        for d, j in zip(dec, judge_slices(a, "judge", todo)):
            d["choice"]["gnubg 0-ply"] = j["gnubg0"]
            d["choice"]["gnubg 1-ply"] = j["gnubg1"]
            d["eq0"], d["eq1"] = j["eq0"], j["eq1"]
            d["eq2"] = {int(k): e for k, e in j["eq2"].items()}
            d["findbestmove"] = j["findbestmove"]
    judge_s = time.time() - t0
    stats.update(selfplay=selfplay_s, tabula=tabula_s, judge=judge_s)

    engines += ["gnubg 0-ply", "gnubg 1-ply"]
    # Engines absent from some records of a reused file (it was written with them all).
    engines = [e for e in engines if all(e in d["choice"] for d in dec)]
    for d in dec:
        best = max(d["eq2"].values())
        d["judge"] = {"best": [i for i, e in sorted(d["eq2"].items()) if e == best][0],
                      "equity": best}
        d["errors"] = {n: best - d["eq2"][d["choice"][n]] for n in engines}
    stats["findbestmove"] = sum(d["findbestmove"] != d["plays"][d["choice"]["gnubg 0-ply"]][0]
                                for d in dec)
    text = report(a, plies, dec, engines, avail, len(cands), skipped, stats)
    print(text)
    if a.out:
        write_atomic(a.out, text + "\n")
    if a.detail:
        lines = []
        for d in dec:
            lines.append(json.dumps({
                "position": d["position"], "dice": d["dice"], "class": d["class"],
                "plays": [{"move": m, "position": p, "eq0": d["eq0"][i], "eq1": d["eq1"][i],
                           "eq2": d["eq2"].get(i)} for i, (m, p) in enumerate(d["plays"])],
                "best": d["plays"][d["judge"]["best"]][0], "best_equity": d["judge"]["equity"],
                "choices": {n: d["plays"][i][0] for n, i in d["choice"].items()},
                "gnubg_findbestmove": d["findbestmove"],
                "errors": d["errors"]}, sort_keys=True))
        write_atomic(a.detail, "\n".join(lines) + "\n")


def judge_slices(a, mode, todo):
    """gnubg in `mode` over `todo`, --jobs processes each on a contiguous slice (the results
    do not depend on it); the results in the order of `todo`."""
    if not todo:
        return []
    size = -(-len(todo) // a.jobs)
    slices = [todo[i:i + size] for i in range(0, len(todo), size)]
    with ThreadPoolExecutor(max_workers=len(slices)) as pool:
        parts = list(pool.map(lambda x: run_gnubg({"mode": mode, "name": "gnubg %d" % x[0],
                                                   "decisions": x[1]}, a.nice),
                              enumerate(slices, 1)))
    return [j for part in parts for j in part]


def write_atomic(path, text):
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def report(a, plies, dec, engines, avail, positions, skipped, stats):
    n = {c: sum(d["class"] == c for d in dec) for c in CLASSES}
    out = []
    p = out.append
    if a.reuse:
        p("gnubg 2-ply cubeless judging of %d chequer decisions (contact %d, race %d, "
          "bear-off %d), those of %s; %d plays chosen now judged at 2 ply afresh"
          % (len(dec), n["contact"], n["race"], n["bear-off"], a.reuse, stats["rejudged"]))
    else:
        p("gnubg 2-ply cubeless judging of %d chequer decisions (contact %d, race %d, "
          "bear-off %d); seed %d, %d self-play games, %d positions (contact %d, race %d, "
          "bear-off %d), %d passed over with fewer than 2 plays"
          % (len(dec), n["contact"], n["race"], n["bear-off"], a.seed, a.games, positions,
             avail["contact"], avail["race"], avail["bear-off"], skipped))
    plays = [len(d["plays"]) for d in dec]
    p("legal plays per decision: mean %.1f, max %d; plays judged at 2 ply: mean %.1f"
      % (sum(plays) / len(plays), max(plays), sum(len(d["eq2"]) for d in dec) / len(dec)))
    p("time: gnubg self-play %.0f s, tabula %.0f s (--jobs %d), gnubg judge %.0f s"
      % (stats["selfplay"], stats["tabula"], a.jobs, stats["judge"]))
    p("cross-check: gnubg's own 0-ply move search (findbestmove) plays another play on %d of "
      "%d decisions, each worth the same at 0 ply (else a line on stderr)"
      % (stats["findbestmove"], len(dec)))
    flat = {c: sum(max(d["eq2"].values()) - min(d["eq2"].values()) <= WRONG
                   for d in dec if d["class"] == c) for c in CLASSES}
    p("decisions where every play judged at 2 ply is worth the same (mostly decided games): "
      + ", ".join("%s %d" % (c, flat[c]) for c in CLASSES))
    p("")
    p("| engine | chequer, all | contact | race | bear-off | not the best | blunders (> %.2f) |"
      % BLUNDER)
    p("|---|---|---|---|---|---|---|")
    for e in engines:
        cells = []
        for c in [None] + CLASSES:
            sel = [d["errors"][e] for d in dec if c is None or d["class"] == c]
            cells.append("%.2f" % (1000 * sum(sel) / len(sel)) if sel else "-")
        wrong = sum(d["errors"][e] > WRONG for d in dec)
        blunders = sum(d["errors"][e] > BLUNDER for d in dec)
        p("| %s | %s | %.1f%% (%d) | %d |" % (e, " | ".join(cells), 100.0 * wrong / len(dec),
                                            wrong, blunders))
    p("")
    p("errors: millipoints (cubeless money equity x 1000) lost per decision against gnubg "
      "2-ply's best")
    return "\n".join(out)


if __name__ == "__main__":
    if os.environ.get("CHEQUER_JUDGE_CFG"):
        in_gnubg(os.environ["CHEQUER_JUDGE_CFG"])
    else:
        main()
