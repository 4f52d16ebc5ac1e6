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

Duplicate dice (`--duplicate --out FILE`): every game gets a seed of its own (gnubg's
`set seed` before each game, so a seed always deals the same dice to the same seat as long
as the plays agree), and each seed is played twice with the seats swapped, so both engines
face the same rolls. The games run in chunks (`--chunk` seeds and one seat per gnubg process,
`--jobs` chunks at once); each finished chunk is appended to FILE as one JSON line, with its
points, decision counts and gnubg's legality re-check. FILE is refused if it exists, unless
`--resume` (which checks that FILE was made with the same settings and skips the chunks it
holds, and refuses a damaged line). The report pairs each seed's two games: the confidence
interval comes from the spread of the pair means, which the shared dice make much narrower.

    python3 scripts/duel_gnubg.py --tabula BIN --games 4000 --plies 2 --duplicate \
        --out duel.jsonl [--resume] [--seed S] [--gnubg-plies 0] [--chunk 25] [--jobs 2] [--luck]

`--report` with the same settings prints the report of the games FILE holds (an interrupted
or running duel) and plays none; `--worst N` adds the N games worst for Tabula (by the
luck-adjusted result with --luck, else by points).

Replays (`--replay GAME,SEAT`, repeatable, with the settings of FILE): each game of a duel is
deterministic (gnubg's seeded dice, both engines deterministic), so one game can be played
again alone, saved (DIR/replay-SEED-GAME-SEAT.sgf, `--replay-dir DIR`; an existing file is
refused) and analysed by gnubg at `--analyse-plies` (default 2; `analyse match`, then `export
match text` beside the game). The replayed points are checked against FILE's (a difference
means the engine or its weights changed since), and Tabula's decisions that gnubg's analysis
flags (`Alert:` lines: doubtful or bad plays, wrong doubles, takes and passes) are listed
with their Position and Match IDs: the quickest way found so far from a duel's worst games to
the positions Tabula misjudges.

    python3 scripts/duel_gnubg.py --tabula BIN --games 1000 --plies 0 --duplicate \
        --out duel.jsonl --seed 48 --luck --report --worst 5
    python3 scripts/duel_gnubg.py --tabula BIN --games 1000 --plies 0 --duplicate \
        --out duel.jsonl --seed 48 --luck --replay 143,1 --replay-dir replays

Luck-adjusted results (`--luck`, duplicate dice only): each chunk's session is saved and
analysed by gnubg 0-ply (this file run inside gnubg with DUEL_LUCK_SGF=FILE), and each game's
"luck-adjusted result" for Tabula is kept beside its points: the points less the difference
between the two sides' luck (each roll's luck is gnubg's cubeful equity after the best play
for that roll less the mean over the 21 rolls, times the cube). Every roll's luck has mean
zero whatever the evaluator, so the adjusted mean estimates the same points a game as the
plain one with far less of the dice's noise; the evaluator's quality only sets how much less.
gnubg here judges the dice, not Tabula's decisions.

`--keep-logs DIR` keeps each chunk's decision log (DIR/decisions-FIRST-SEAT.jsonl) and, with
--luck, its saved session (DIR/session-FIRST-SEAT.sgf), so that scripts/duel_errors.py can
split the points Tabula loses into chequer play and cube, and gnubg can analyse the games at
more plies; an existing file is not overwritten (the chunk fails).
"""

import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
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


def luck_in_gnubg(sgf_path, out_path):
    """Inside gnubg: analyses the saved session `sgf_path` at 0 plies (its luck analysis
    included) and writes, per game, Tabula's points and luck-adjusted result."""
    import gnubg  # noqa: only available inside gnubg

    gnubg.command("load match " + sgf_path)
    for what in ("chequerplay", "cubedecision"):
        gnubg.command("set analysis %s evaluation plies 0" % what)
    gnubg.command("set analysis luckanalysis plies 0")
    gnubg.command("analyse match")
    m = gnubg.match(analysis=1, boards=0, statistics=1, verbose=0)
    sides = [s for s in ("X", "O") if m["match-info"][s]["name"] == "tabula"]
    out = {"actual": [], "adjusted": [], "problems": []}
    if len(sides) != 1:
        out["problems"].append("tabula is not one side of the saved session")
    else:
        for g in m["games"]:
            dice = g["stats"][sides[0]]["dice"]
            out["actual"].append(dice["actual-result"])
            out["adjusted"].append(dice["luck-adjusted-result"])
    with open(out_path, "w") as f:
        json.dump(out, f)


def analyse_in_gnubg(value, out_path):
    """Inside gnubg: analyses the saved game `value` = "PLIES:SGF" at PLIES plies (chequer
    play and cube) and exports the analysis as text beside it (SGF with .txt)."""
    import gnubg  # noqa: only available inside gnubg

    plies, sgf = value.split(":", 1)
    text = sgf[:-len(".sgf")] + ".txt"
    gnubg.command("load match " + sgf)
    for what in ("chequerplay", "cubedecision"):
        gnubg.command("set analysis %s evaluation plies %d" % (what, int(plies)))
    gnubg.command("analyse match")
    gnubg.command("export match text " + text)
    with open(out_path, "w") as f:
        json.dump({"text": text}, f)


def tabula_alerts(text):
    """Tabula's flagged decisions in gnubg's text export of an analysed game: a list of
    (move number, Position ID, Match ID, what Tabula did, gnubg's alert); the luck alerts
    (lucky or unlucky rolls) and the other side's are left out."""
    alerts = []
    for block in re.split(r"\n(?=Move number \d+:)", text):
        head = re.match(r"Move number (\d+):", block)
        action = re.search(r"^\* (\S+) (.*)$", block, re.M)
        if not head or not action or action.group(1) != "tabula":
            continue
        pid = re.search(r"Position ID: (\S+)", block)
        mid = re.search(r"Match ID\s*: (\S+)", block)
        for alert in re.findall(r"^Alert: (.*)$", block, re.M):
            if "lucky" not in alert:
                alerts.append((int(head.group(1)), pid.group(1) if pid else "?",
                               mid.group(1) if mid else "?", action.group(2).strip(), alert))
    return alerts


def replay(args, done):
    """Plays again the games `--replay` names (each alone, as in the duel), saves and
    analyses each, and prints Tabula's flagged decisions; returns the exit status or an error
    line."""
    by_seed, _, _ = by_seed_and_seat(done, "points")
    wanted = []
    for spec in args.replay:
        m = re.fullmatch(r"(\d+),([01])", spec)
        if not m:
            return "error: --replay %r: GAME,SEAT (a game index and seat 0 or 1)" % spec
        game, seat = int(m.group(1)), int(m.group(2))
        if seat not in by_seed.get(game, {}):
            return "error: --replay %s: game %d in seat %d is not in %s" % (
                spec, game, seat, args.out)
        sgf = os.path.join(args.replay_dir, "replay-%d-%d-%d.sgf" % (args.seed, game, seat))
        for path in (sgf, sgf[:-len(".sgf")] + ".txt", sgf[:-len(".sgf")] + ".log"):
            if os.path.exists(path):
                return "error: %s exists (not overwritten)" % path
        wanted.append((game, seat, sgf))
    os.makedirs(args.replay_dir, exist_ok=True)
    status = 0
    for game, seat, sgf in wanted:
        log = sgf[:-len(".sgf")] + ".log"
        try:
            server, addr = start_engine(args, log, args.engine_arg)
        except RuntimeError as e:
            return "error: %s" % e
        commands = setup_commands(seat, addr, args.gnubg_plies) + [
            "set seed %d" % game_seed(args.seed, game), "new session", "save match " + sgf]
        points = tabula_points(run_gnubg(args, commands, server).stdout)
        recorded = by_seed[game][seat]
        same = points == [recorded]
        print("game %d seat %d: tabula %s points (the duel: %+d)%s; %s"
              % (game, seat, "%+d" % points[0] if len(points) == 1 else "?", recorded,
                 "" if same else ", NOT the duel's game (engine or settings changed?)", sgf))
        status = status or (0 if same else 1)
        out = run_in_gnubg(args.nice, "DUEL_ANALYSE", "DUEL_ANALYSE_OUT",
                           "%d:%s" % (args.analyse_plies, sgf), {})
        if "text" not in out or not os.path.exists(out["text"]):
            print("  gnubg's analysis did not run", file=sys.stderr)
            status = 1
            continue
        with open(out["text"]) as f:
            alerts = tabula_alerts(f.read())
        print("  gnubg %d-ply flags %d of tabula's decisions (analysis: %s)"
              % (args.analyse_plies, len(alerts), out["text"]))
        for move, pid, mid, did, alert in alerts:
            print("  move %d  %s:%s  %s  -- %s" % (move, pid, mid, did, alert))
    return status


def run_in_gnubg(nice, env_in, env_out, value, failed):
    """Runs this file inside gnubg with `env_in`=`value` and `env_out` naming a temporary
    file, and returns the JSON that the run wrote there (`failed` if it wrote none)."""
    fd, res = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    env = dict(os.environ, **{env_in: value, env_out: res})
    subprocess.run(["nice", "-n", str(nice), GNUBG, "-t", "-q", "-r", "-p",
                    os.path.abspath(__file__)], env=env, capture_output=True, text=True)
    try:
        with open(res) as f:
            out = json.load(f)
    except (OSError, ValueError):
        out = failed
    os.unlink(res)
    return out


def gnubg_luck(sgf, nice):
    """gnubg's luck analysis of the saved session `sgf` (this file run inside gnubg):
    {"actual": [...], "adjusted": [...], "problems": [...]}, Tabula's side, game by game."""
    return run_in_gnubg(nice, "DUEL_LUCK_SGF", "DUEL_LUCK_OUT", sgf, {
        "actual": [], "adjusted": [], "problems": ["gnubg's luck analysis did not run"]})


def start_engine(args, log, extra=(), stderr=subprocess.DEVNULL):
    """Starts `tabula backgammon external` on a free local port, logging its decisions to
    `log`; returns the process and the address it listens on (RuntimeError if it fails)."""
    # Here, not at the top: gnubg runs this file too, without the scripts on its path.
    from tabula_options import no_race_db
    server = subprocess.Popen(
        ["nice", "-n", str(args.nice), args.tabula, "backgammon", "external",
         "--listen", "127.0.0.1:0", "--once", "--plies", str(args.plies), "--log", log]
        + list(extra) + no_race_db(args.tabula, extra),
        stdout=subprocess.PIPE, stderr=stderr, text=True)
    first = server.stdout.readline()
    m = re.search(r"listening on (\S+)", first)
    if not m:
        server.kill()
        raise RuntimeError("the engine did not start: %r" % first)
    return server, m.group(1)


def setup_commands(seat, addr, gnubg_plies, seed=None):
    """gnubg's commands before the first game: money play with the cube (no Jacoby, no
    beavers), Tabula in `seat` through the external player at `addr`, gnubg in the other at
    `gnubg_plies` for chequer play and cube; the dice seeded with `seed` when given."""
    other = 1 - seat
    return ["set rng mersenne"] + ([] if seed is None else ["set seed %d" % seed]) + [
        "set jacoby off",
        "set beavers 0",
        "set automatic game off",
        "set display off",
        "set player %d name tabula" % seat,
        "set player %d name gnubg" % other,
        "set player %d gnubg" % other,
        "set player %d chequerplay evaluation plies %d" % (other, gnubg_plies),
        "set player %d cubedecision evaluation plies %d" % (other, gnubg_plies),
        "set player %d external %s" % (seat, addr),
    ]


def run_gnubg(args, commands, server):
    """Runs gnubg on `commands`, then lets the engine's server end (killed after 30 s)."""
    g = subprocess.run(["nice", "-n", str(args.nice), GNUBG, "-t", "-q", "-r"],
                       input="\n".join(commands) + "\n", capture_output=True, text=True)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
    return g


def tabula_points(gnubg_stdout):
    """Tabula's points in each game gnubg reported ("X wins a ... and N points."), in order."""
    points = []
    for line in gnubg_stdout.splitlines():
        w = WIN_RE.match(line.strip())
        if w:
            n = int(w.group(3))
            points.append(n if w.group(1) == "tabula" else -n)
    return points


def gnubg_recheck(log, nice):
    """gnubg's independent re-check of every play in the decision log `log` (this file run
    inside gnubg): {"checked", "illegal", "problems"}."""
    return run_in_gnubg(nice, "DUEL_CHECK_LOG", "DUEL_CHECK_OUT", log, {
        "checked": 0, "illegal": None, "problems": ["gnubg re-check did not run"]})


# ---------------------------------------------------------------- duplicate dice

def game_seed(base, i):
    """The seed of game `i` of a duplicate duel with base seed `base` (gnubg's `set seed`
    takes a 32-bit signed number: base < 21,474 and i < 100,000 keep it in range)."""
    return base * 100000 + i


def play_chunk(args, first, count, seat):
    """Plays seeds first..first+count (game indices) with Tabula in gnubg's seat `seat`
    (0 or 1), gnubg in the other; returns the chunk's JSON record."""
    fd, log = tempfile.mkstemp(suffix=".jsonl")
    os.close(fd)
    server, addr = start_engine(args, log, args.engine_arg)
    commands = setup_commands(seat, addr, args.gnubg_plies)
    for k in range(count):
        commands.append("set seed %d" % game_seed(args.seed, first + k))
        commands.append("new session" if k == 0 else "new game")
    if args.luck:
        sgf_dir = tempfile.mkdtemp()
        sgf = os.path.join(sgf_dir, "session.sgf")
        commands.append("save match " + sgf)
    g = run_gnubg(args, commands, server)
    points = tabula_points(g.stdout)
    entries = [json.loads(l) for l in open(log)]
    moves = [e for e in entries if e.get("kind") == "move"]
    cube = [e for e in entries if e.get("kind") in ("double", "take")]
    check = gnubg_recheck(log, args.nice)
    if args.keep_logs:  # the decision log, for scripts/duel_errors.py (never overwritten)
        kept = os.path.join(args.keep_logs, "decisions-%06d-%d.jsonl" % (first, seat))
        if os.path.exists(kept):
            os.unlink(log)
            raise RuntimeError("%s exists: not overwritten" % kept)
        shutil.move(log, kept)
    else:
        os.unlink(log)
    luck = {}
    if args.luck:
        analysis = gnubg_luck(sgf, args.nice)
        if os.path.exists(sgf):
            if args.keep_logs:  # the session too, for an analysis at more plies
                kept_sgf = os.path.join(args.keep_logs, "session-%06d-%d.sgf" % (first, seat))
                if os.path.exists(kept_sgf):
                    os.unlink(sgf)
                    os.rmdir(sgf_dir)
                    raise RuntimeError("%s exists: not overwritten" % kept_sgf)
                shutil.move(sgf, kept_sgf)
            else:
                os.unlink(sgf)
        os.rmdir(sgf_dir)
        # The analysis must see the games gnubg reported, point for point.
        if analysis["actual"] != [float(p) for p in points] and not analysis["problems"]:
            analysis["problems"].append("the saved session's results %r are not the games' %r"
                                        % (analysis["actual"], points))
        if analysis["problems"]:
            raise RuntimeError("luck analysis: " + "; ".join(analysis["problems"]))
        luck = {"luck_adjusted": [round(a, 6) for a in analysis["adjusted"]]}
    return dict({
        "first": first, "count": count, "seat": seat, "points": points,
        "plays": len(moves), "play_ms": round(sum(e["ms"] for e in moves), 1),
        "max_ms": max([e["ms"] for e in moves] or [0]),
        "cube_decisions": len(cube),
        # Cube decisions a rollout made (a back game at 2 plies or more) and the time of all.
        "cube_rollouts": sum(1 for e in cube if e.get("rollout_trials")),
        "cube_ms": round(sum(e.get("ms", 0) for e in cube), 1),
        "doubles": sum(1 for e in cube if e["kind"] == "double" and e["reply"] == "double"),
        "takes": sum(1 for e in cube if e["kind"] == "take" and e["reply"] == "take"),
        "drops": sum(1 for e in cube if e["kind"] == "take" and e["reply"] == "drop"),
        "not_reparsed": sum(1 for e in moves if not e.get("legal", False)),
        "errors": sum(1 for e in entries if e.get("kind") == "error"),
        "checked": check.get("checked", 0), "illegal": check.get("illegal"),
        "problems": check.get("problems", [])[:5],
    }, **luck)


CHUNK_COUNTS = ("first", "count", "seat", "plays", "cube_decisions", "doubles", "takes",
                "drops", "not_reparsed", "errors", "checked")


def chunk_record_ok(r, luck=False):
    """Whether `r` (a line of the results file) has every field `play_chunk` writes, of the
    right kind, and as many points (and, with `luck`, luck-adjusted results) as games."""
    def number(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if luck and not (isinstance(r, dict) and isinstance(r.get("luck_adjusted"), list)
                     and len(r["luck_adjusted"]) == r.get("count")
                     and all(number(a) for a in r["luck_adjusted"])):
        return False
    return (isinstance(r, dict)
            and all(isinstance(r.get(k), int) and r[k] >= 0 for k in CHUNK_COUNTS)
            and r["seat"] in (0, 1)
            and number(r.get("play_ms")) and number(r.get("max_ms"))
            and (r.get("illegal") is None or isinstance(r.get("illegal"), int))
            and isinstance(r.get("problems"), list)
            and isinstance(r.get("points"), list) and len(r["points"]) == r["count"]
            and all(isinstance(p, int) for p in r["points"]))


def duplicate_main(args):
    if not args.out:
        return "error: --duplicate needs --out FILE (the results, kept for --resume)"
    if args.games % 2:
        return "error: --duplicate needs an even GAMES (each seed is played twice)"
    if not 0 <= args.seed < 21474 or args.games // 2 >= 100000:
        return "error: --duplicate needs 0 <= SEED < 21474 and fewer than 200,000 games"
    if args.chunk < 1 or args.jobs < 1:
        return "error: --chunk and --jobs must be at least 1"
    for what, path in (("--tabula", args.tabula), ("gnubg (GNUBG)", GNUBG)):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            return "error: %s: %s is not an executable file" % (what, path)
    header = {"duel": "tabula vs gnubg, duplicate dice", "games": args.games,
              "plies": args.plies, "gnubg_plies": args.gnubg_plies, "seed": args.seed,
              "chunk": args.chunk, "engine_args": args.engine_arg}
    if args.luck:
        header["luck"] = "gnubg 0-ply"  # a file without it was made without --luck
    done = {}
    if os.path.exists(args.out):
        if not (args.resume or args.report or args.replay):
            return "error: %s exists (use --resume to continue it)" % args.out
        with open(args.out) as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        try:
            records = [json.loads(l) for l in lines]
        except ValueError:
            return "error: %s is damaged (a line is not JSON); not resuming" % args.out
        if not records or not isinstance(records[0], dict) or "duel" not in records[0]:
            return "error: %s is not a duplicate duel's results file" % args.out
        if records[0] != header:
            keys = list(header) + [k for k in records[0] if k not in header]
            diff = ", ".join("%s %r (now %r)" % (k, records[0].get(k), header.get(k))
                             for k in keys if records[0].get(k) != header.get(k))
            return "error: %s was made with other settings: %s" % (args.out, diff)
        for n, r in enumerate(records[1:], 2):
            if not chunk_record_ok(r, args.luck):
                return "error: %s is damaged (line %d is not a whole chunk record)" % (
                    args.out, n)
            done[(r["first"], r["seat"])] = r
    elif args.resume or args.report or args.replay:
        return "error: %s does not exist, nothing to %s" % (
            args.out, "resume" if args.resume else "report" if args.report else "replay")

    if args.replay:
        return replay(args, done)
    if args.report:  # the games played so far, none played now
        report_duplicate(args, done)
        return 0
    seeds = args.games // 2
    todo = [(first, min(args.chunk, seeds - first), seat)
            for first in range(0, seeds, args.chunk) for seat in (0, 1)
            if (first, seat) not in done]
    if args.keep_logs:  # refused before the games, not after them
        for first, _, seat in todo:
            for name in ("decisions-%06d-%d.jsonl", "session-%06d-%d.sgf"):
                path = os.path.join(args.keep_logs, name % (first, seat))
                if os.path.exists(path):
                    return "error: %s exists (not overwritten)" % path
    if not os.path.exists(args.out):
        with open(args.out, "w") as f:
            f.write(json.dumps(header) + "\n")
    started = time.time()

    def check(item, rec):
        first, count, seat = item
        if isinstance(rec, Exception):  # a chunk that fails stops the run; done ones are kept
            return "seeds %d..%d seat %d: %s" % (first, first + count, seat, rec)
        if len(rec["points"]) != count:
            return "seeds %d..%d seat %d: %d of %d games reported" % (
                first, first + count, seat, len(rec["points"]), count)
        return None

    def kept(item, rec):
        done[(item[0], item[2])] = rec
        games_done = sum(len(r["points"]) for r in done.values())
        print("progress: %d/%d games, %.0f s" % (games_done, args.games, time.time() - started),
              file=sys.stderr, flush=True)

    failures = run_jobs(todo, args.jobs, lambda item: play_chunk(args, *item), args.out,
                        check, kept, "finished chunks are kept in %s (--resume)" % args.out)
    report_duplicate(args, done)
    for f in failures:
        print("error: " + f, file=sys.stderr)
    bad = any(r["illegal"] != 0 or r["checked"] != r["plays"] or r["errors"]
              or r["not_reparsed"] for r in done.values())
    complete = sum(len(r["points"]) for r in done.values()) == args.games
    return 0 if complete and not bad and not failures else 1


def run_jobs(todo, jobs, work, out_path, check, kept, interrupted):
    """Runs `work(item)` for the items of `todo` (taken in order) on `jobs` threads. Each
    result (or the exception `work` raised) goes to `check(item, result)`: an error line stops
    the run (no new items are started), None keeps the result, appended to `out_path` as one
    JSON line and synced before `kept(item, result)` is called. Ctrl-C prints
    `interrupted` and exits with 130; what was appended stays. Returns the error lines."""
    lock = threading.Lock()
    failures = []

    def worker():
        while True:
            with lock:
                if not todo or failures:
                    return
                item = todo.pop(0)
            try:
                result = work(item)
            except Exception as e:  # reported by check
                result = e
            with lock:
                problem = check(item, result)
                if problem:
                    failures.append(problem)
                    return
                with open(out_path, "a") as f:
                    f.write(json.dumps(result) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
                kept(item, result)

    threads = [threading.Thread(target=worker) for _ in range(jobs)]
    for t in threads:
        t.start()
    try:
        for t in threads:
            t.join()
    except KeyboardInterrupt:
        print("interrupted: " + interrupted, file=sys.stderr)
        os._exit(130)
    return failures


def by_seed_and_seat(done, field):
    """{seed: {seat: value}} of a per-game list `field` of the chunk records `done`; and the
    values alone and the means of the seeds played in both seats."""
    by_seed = {}
    for r in done.values():
        for k, v in enumerate(r[field]):
            by_seed.setdefault(r["first"] + k, {})[r["seat"]] = v
    values = [v for d in by_seed.values() for v in d.values()]
    pairs = [(d[0] + d[1]) / 2.0 for d in by_seed.values() if len(d) == 2]
    return by_seed, values, pairs


def report_duplicate(args, done):
    by_seed, points, pairs = by_seed_and_seat(done, "points")
    ppg, ci = mean_ci(points)
    pm, pci = mean_ci(pairs)
    recs = list(done.values())
    plays = sum(r["plays"] for r in recs)
    print("tabula (%d-ply) vs gnubg %d-ply, money with cube, duplicate dice, seed %d: "
          "%d of %d games played" % (args.plies, args.gnubg_plies, args.seed, len(points),
                                     args.games))
    print("points per game for tabula: %+.3f +/- %.3f (95%% CI of the %d seed pairs: "
          "%+.3f +/- %.3f; games alone would give +/- %.3f), %d wins (%.1f%%)"
          % (pm if pairs else ppg, pci if pairs else ci, len(pairs), pm, pci, ci,
             sum(1 for p in points if p > 0), 100.0 * sum(1 for p in points if p > 0)
             / max(1, len(points))))
    if args.luck:
        _, adjusted, adj_pairs = by_seed_and_seat(done, "luck_adjusted")
        am, aci = mean_ci(adj_pairs)
        alone, alone_ci = mean_ci(adjusted)
        print("luck-adjusted points per game for tabula (gnubg 0-ply's luck analysis): "
              "%+.3f +/- %.3f (95%% CI of the %d seed pairs; games alone: %+.3f +/- %.3f)"
              % (am, aci, len(adj_pairs), alone, alone_ci))
    for seat in (0, 1):
        sp = [p for d in by_seed.values() for s, p in d.items() if s == seat]
        m, c = mean_ci(sp)
        print("  tabula in seat %d: %+.3f +/- %.3f over %d games" % (seat, m, c, len(sp)))
    print("decisions: %d plays, mean %.2f ms (max %.1f ms); %d cube decisions"
          % (plays, sum(r["play_ms"] for r in recs) / max(1, plays),
             max([r["max_ms"] for r in recs] or [0]), sum(r["cube_decisions"] for r in recs)))
    print("cube: tabula doubled %d times; took %d, dropped %d of gnubg's doubles"
          % (sum(r["doubles"] for r in recs), sum(r["takes"] for r in recs),
             sum(r["drops"] for r in recs)))
    # Older results files have no cube_rollouts or cube_ms.
    print("cube decisions: %d by rollout (back games), %.0f s in all"
          % (sum(r.get("cube_rollouts", 0) for r in recs),
             sum(r.get("cube_ms", 0) for r in recs) / 1e3))
    print("legality: %d plays not re-parsed by the engine, %d of %d rejected by gnubg's "
          "re-check, %d error replies"
          % (sum(r["not_reparsed"] for r in recs), sum(r["illegal"] or 0 for r in recs),
             sum(r["checked"] for r in recs), sum(r["errors"] for r in recs)))
    for r in recs:
        for p in r["problems"]:
            print("  " + p)
    if args.worst:
        field = "luck_adjusted" if args.luck else "points"
        by, _, _ = by_seed_and_seat(done, field)
        games = sorted((v, g, seat) for g, d in by.items() for seat, v in d.items())
        print("worst for tabula (%s):" % field.replace("_", "-"))
        for v, g, seat in games[:args.worst]:
            print("  game %d seat %d: %+.3f (points %+d)  (--replay %d,%d)"
                  % (g, seat, v, by_seed[g][seat], g, seat))


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
    ap.add_argument("--duplicate", action="store_true",
                    help="each game seed played twice, seats swapped (needs --out)")
    ap.add_argument("--out", help="--duplicate: results file, one JSON line per chunk")
    ap.add_argument("--resume", action="store_true", help="--duplicate: continue --out")
    ap.add_argument("--report", action="store_true",
                    help="--duplicate: report the games --out holds (checked as --resume "
                    "checks it) and play none; the other settings must be the file's")
    ap.add_argument("--chunk", type=int, default=25, help="--duplicate: seeds per gnubg run")
    ap.add_argument("--jobs", type=int, default=2, help="--duplicate: chunks run at once")
    ap.add_argument("--gnubg-plies", type=int, default=0,
                    help="--duplicate: gnubg's plies for chequer play and cube (0-ply default)")
    ap.add_argument("--luck", action="store_true",
                    help="--duplicate: also each game's luck-adjusted result, by gnubg 0-ply's "
                    "luck analysis of the saved games")
    ap.add_argument("--engine-arg", action="append", default=[],
                    help="--duplicate: one more argument for `tabula backgammon external`")
    ap.add_argument("--keep-logs", metavar="DIR",
                    help="--duplicate: keep each chunk's decision log in DIR (an existing "
                    "directory), as decisions-FIRST-SEAT.jsonl, for scripts/duel_errors.py; "
                    "with --luck also the session, as session-FIRST-SEAT.sgf")
    ap.add_argument("--worst", type=int, default=0,
                    help="--duplicate: the report lists the N games worst for tabula")
    ap.add_argument("--replay", action="append", default=[], metavar="GAME,SEAT",
                    help="--duplicate: play this game of --out again alone, save it and have "
                    "gnubg analyse it (repeatable; needs --replay-dir)")
    ap.add_argument("--replay-dir", help="--replay: where the games and analyses are written")
    ap.add_argument("--analyse-plies", type=int, default=2,
                    help="--replay: gnubg's plies for the analysis (default 2)")
    args = ap.parse_args()
    if args.replay and not args.replay_dir:
        print("error: --replay needs --replay-dir DIR", file=sys.stderr)
        sys.exit(2)
    if args.worst < 0 or not 0 <= args.analyse_plies <= 4:
        print("error: --worst is at least 0 and --analyse-plies 0 to 4", file=sys.stderr)
        sys.exit(2)
    if args.games < 1:
        sys.exit("error: GAMES must be at least 1")
    if args.keep_logs and not os.path.isdir(args.keep_logs):
        print("error: --keep-logs %s is not a directory" % args.keep_logs, file=sys.stderr)
        sys.exit(2)
    for flag, given in (("--luck", args.luck), ("--report", args.report),
                        ("--keep-logs", args.keep_logs),
                        ("--replay", args.replay), ("--worst", args.worst)):
        if given and not args.duplicate:
            print("error: %s goes with --duplicate" % flag, file=sys.stderr)
            sys.exit(2)
    if args.duplicate:
        status = duplicate_main(args)
        if isinstance(status, str):  # bad input or a refused file: one line, exit code 2
            print(status, file=sys.stderr)
            sys.exit(2)
        sys.exit(status)

    log = args.log or tempfile.NamedTemporaryFile(delete=False, suffix=".jsonl").name
    open(log, "w").close()
    try:
        server, addr = start_engine(args, log, stderr=open(log + ".err", "w"))
    except RuntimeError as e:
        sys.exit("error: %s" % e)

    commands = setup_commands(0, addr, 0, seed=args.seed) + [
        "new session",
    ] + ["new game"] * (args.games - 1) + ["show score"]
    started = time.time()
    g = run_gnubg(args, commands, server)
    elapsed = time.time() - started

    points = tabula_points(g.stdout)
    warnings = [l for l in g.stdout.splitlines() + g.stderr.splitlines()
                if re.search(r"(?i)warning|illegal|badly formed|error|connection closed", l)]

    entries = [json.loads(l) for l in open(log)]
    moves = [e for e in entries if e.get("kind") == "move"]
    cube = [e for e in entries if e.get("kind") in ("double", "take")]
    errors = [e for e in entries if e.get("kind") == "error"]
    self_illegal = [e for e in moves if not e.get("legal", False)]

    check = gnubg_recheck(log, args.nice)  # gnubg's independent re-check of every play

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
    elif os.environ.get("DUEL_LUCK_SGF"):
        luck_in_gnubg(os.environ["DUEL_LUCK_SGF"], os.environ["DUEL_LUCK_OUT"])
    elif os.environ.get("DUEL_ANALYSE"):
        analyse_in_gnubg(os.environ["DUEL_ANALYSE"], os.environ["DUEL_ANALYSE_OUT"])
    else:
        main()
