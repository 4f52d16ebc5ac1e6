"""Both sides' errors in a duel's saved games, by gnubg's own analysis: where the points of a
duel against gnubg go, Tabula's losses and gnubg's side by side.

    python3 scripts/duel_sessions.py SGF [SGF ...] --out FILE.jsonl [--plies 2] [--jobs 2]
                                     [--resume]

SGF: sessions kept by `scripts/duel_gnubg.py --duplicate --luck --keep-logs DIR`
(DIR/session-FIRST-SEAT.sgf, 25 games each by default). Each is loaded into gnubg (`gnubg -t -q
-r -p scripts/duel_sessions.py`, this file, with DUEL_SESSION_SGF set) and analysed at PLIES
(chequer play and cube; the luck analysis at 0 plies, which only the luck-adjusted figure
uses), and gnubg's statistics are kept per game and side: the chequer play's and the cube's
error cost (gnubg's "error-cost": equity lost times the cube, in points), the decisions, the
luck-adjusted result. One JSON line per session is appended to FILE as it finishes (`--resume`
skips the sessions FILE holds; an existing FILE is refused otherwise, a damaged line refused
always), then the summary is printed:

- points lost per game by each side, chequer play and cube apart;
- gnubg's loss less Tabula's, per game with a 95% confidence interval over the games: what the
  judge says Tabula gains by its decisions, to be read beside the duel's luck-adjusted result.

gnubg judges both sides here, so at PLIES its own lower plies' decisions look better than they
are (a judge favours the engine it is built on; at 0 plies gnubg's side loses nothing by
construction). 25 games take about 2 minutes a core at 2 plies.
"""

import json
import os
import subprocess
import sys
import tempfile

if "__file__" in globals():  # the driver; inside gnubg this file runs without a __file__
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from duel_gnubg import mean_ci, run_jobs

GNUBG = os.environ.get("GNUBG", "/usr/games/gnubg")
SIDES = ("tabula", "gnubg")


def in_gnubg(sgf, plies, out_path):
    """Inside gnubg: analyses `sgf` and writes its per-game statistics for both sides."""
    import gnubg  # noqa: only available inside gnubg

    gnubg.command("load match " + sgf)
    for what in ("chequerplay", "cubedecision"):
        gnubg.command("set analysis %s evaluation plies %d" % (what, plies))
    gnubg.command("set analysis luckanalysis plies 0")
    gnubg.command("analyse match")
    m = gnubg.match(analysis=1, boards=0, statistics=1, verbose=0)
    letter = {m["match-info"][s]["name"]: s for s in ("X", "O")}
    if sorted(letter) != sorted(SIDES):
        raise SystemExit("%s: the sides are %r, not tabula and gnubg" % (sgf, sorted(letter)))
    games = []
    for g in m["games"]:
        rec = {}
        for who in SIDES:
            st = g["stats"][letter[who]]
            rec[who] = {"chequer": st["moves"]["error-cost"], "cube": st["cube"]["error-cost"],
                        "plays": st["moves"]["unforced-moves"],
                        "cube_decisions": st["cube"]["close-cube"],
                        "actual": st["dice"]["actual-result"],
                        "luck_adjusted": st["dice"]["luck-adjusted-result"]}
        games.append(rec)
    with open(out_path, "w") as f:
        json.dump({"sgf": os.path.basename(sgf), "plies": plies, "games": games}, f)


def analyse(sgf, plies, nice):
    """Runs gnubg on one session; the record, or an error line."""
    fd, res = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    env = dict(os.environ, DUEL_SESSION_SGF=os.path.abspath(sgf), DUEL_SESSION_OUT=res,
               DUEL_SESSION_PLIES=str(plies))
    g = subprocess.run(["nice", "-n", str(nice), GNUBG, "-t", "-q", "-r", "-p",
                        os.path.abspath(__file__)], env=env, capture_output=True, text=True)
    try:
        with open(res) as f:
            return json.load(f)
    except (OSError, ValueError):
        return "%s: gnubg's analysis did not finish: %s" % (
            sgf, (g.stderr.strip().splitlines() or ["no message"])[-1])
    finally:
        os.unlink(res)


def record_ok(r, plies):
    return (isinstance(r, dict) and r.get("plies") == plies and isinstance(r.get("sgf"), str)
            and isinstance(r.get("games"), list)
            and all(isinstance(g, dict) and all(
                isinstance(g.get(w), dict) and all(
                    isinstance(g[w].get(k), (int, float)) for k in
                    ("chequer", "cube", "plays", "cube_decisions", "actual", "luck_adjusted"))
                for w in SIDES) for g in r["games"]))


def summary(records):
    games = [g for r in records for g in r["games"]]
    n = len(games)
    out = ["gnubg %d-ply analysis of %d sessions, %d games (points lost per game, by gnubg's "
           "error cost)" % (records[0]["plies"], len(records), n)]
    out.append("  %-7s %9s %9s %9s %8s %8s" % ("side", "chequer", "cube", "total", "plays",
                                              "cube"))
    for who in SIDES:
        ch = sum(g[who]["chequer"] for g in games) / n
        cu = sum(g[who]["cube"] for g in games) / n
        out.append("  %-7s %9.4f %9.4f %9.4f %8d %8d"
                   % (who, ch, cu, ch + cu, sum(g[who]["plays"] for g in games),
                      sum(g[who]["cube_decisions"] for g in games)))
    for label, key in (("chequer play", ("chequer",)), ("cube", ("cube",)),
                       ("both", ("chequer", "cube"))):
        m, ci = mean_ci([sum(g["gnubg"][k] - g["tabula"][k] for k in key) for g in games])
        out.append("gnubg's loss less tabula's, %s: %+.4f +/- %.4f a game (95%% CI)"
                   % (label, m, ci))
    m, ci = mean_ci([g["tabula"]["luck_adjusted"] for g in games])
    out.append("tabula's luck-adjusted result in these games (0-ply luck): %+.4f +/- %.4f"
               % (m, ci))
    m, ci = mean_ci([g["tabula"]["actual"] for g in games])
    out.append("tabula's points in these games: %+.4f +/- %.4f" % (m, ci))
    return "\n".join(out)


def main():
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sgf", nargs="+")
    ap.add_argument("--out", required=True, help="results, one JSON line per session")
    ap.add_argument("--plies", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--nice", type=int, default=5)
    args = ap.parse_args()
    if not 0 <= args.plies <= 4 or args.jobs < 1:
        print("error: --plies is 0 to 4 and --jobs at least 1", file=sys.stderr)
        sys.exit(2)
    for path in args.sgf:
        if not os.path.isfile(path):
            print("error: %s is not a file" % path, file=sys.stderr)
            sys.exit(2)
    done = {}
    if os.path.exists(args.out):
        if not args.resume:
            print("error: %s exists (--resume to continue it; not overwritten)" % args.out,
                  file=sys.stderr)
            sys.exit(2)
        with open(args.out) as f:
            for n, line in enumerate(f, 1):
                try:
                    r = json.loads(line)
                except ValueError:
                    r = None
                if not record_ok(r, args.plies):
                    print("error: %s is damaged or made at other plies (line %d)"
                          % (args.out, n), file=sys.stderr)
                    sys.exit(2)
                done[r["sgf"]] = r
    todo = [p for p in args.sgf if os.path.basename(p) not in done]

    def check(path, r):
        if isinstance(r, Exception):
            return "%s: %s" % (path, r)
        return r if isinstance(r, str) else None

    def kept(path, r):
        done[r["sgf"]] = r
        print("progress: %d/%d sessions" % (
            sum(1 for p in args.sgf if os.path.basename(p) in done), len(args.sgf)),
            file=sys.stderr, flush=True)

    failures = run_jobs(todo, args.jobs, lambda path: analyse(path, args.plies, args.nice),
                        args.out, check, kept,
                        "finished sessions are kept in %s (--resume)" % args.out)
    records = [done[os.path.basename(p)] for p in args.sgf if os.path.basename(p) in done]
    if records:
        print(summary(records))
    for f in failures:
        print("error: " + f, file=sys.stderr)
    sys.exit(1 if failures or len(records) != len(args.sgf) else 0)


if __name__ == "__main__":
    if os.environ.get("DUEL_SESSION_SGF"):
        in_gnubg(os.environ["DUEL_SESSION_SGF"], int(os.environ["DUEL_SESSION_PLIES"]),
                 os.environ["DUEL_SESSION_OUT"])
    else:
        main()
