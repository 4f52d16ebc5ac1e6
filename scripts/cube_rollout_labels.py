"""Value the cube decisions of a cube_judge.py --detail file by Tabula's own cubeful rollouts.

    python3 scripts/cube_rollout_labels.py --detail IN.jsonl --out OUT.jsonl [--trials 1296]
                                           [--seed 1] [--threads 2] [--tabula BIN]

For each decision of IN (cube_judge.py's --detail lines), runs
`tabula backgammon rollout --position ID [--match-id M] --cubeful --trials N --json` (no dice:
the cube actions of the player on roll, No double and Double/take rolled out with the same
dice, Double/pass exact) and writes the line again with `nd`, `dt` and `dp` replaced by the
rollout's (gnubg's 2-ply values kept as `gnubg_nd`, `gnubg_dt`, `gnubg_dp`, and the rollout's
standard errors as `nd_se`, `dt_se`). The rollout's equities are normalised as gnubg's are
(money: per cube unit; match: gnubg's normalised equity), so

    python3 scripts/cube_judge.py --reuse OUT.jsonl

judges Tabula's advisor (and gnubg 0-ply, whose own 0-ply values the line keeps) against
Tabula's rollouts instead of gnubg 2-ply: a judge that does not share gnubg's cube model, for
questions such as the cube efficiency where a gnubg judge favours gnubg's own choice. The same
(position, state) is rolled out once for both of its decisions. Deterministic per seed and
trial count, for any thread count.
"""

import json
import os
import subprocess
import sys

from cube_judge import Parser, match_id_args


def rollout(tabula, d, trials, seed, threads):
    cmd = [tabula, "backgammon", "rollout", "--position", d["position"], "--cubeful",
           "--trials", str(trials), "--seed", str(seed), "--threads", str(threads),
           "--json"] + match_id_args(d["state"], d["match_id"])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("tabula failed on %s %s: %s" % (d["position"], d["match_id"],
                                                           r.stderr.strip()))
    actions = {a["action"]: a for a in json.loads(r.stdout)["cube"]["actions"]}
    nd, dt = actions["no double"], actions.get("double, take")
    if dt is None:
        raise RuntimeError("%s %s: the player on roll may not double" % (d["position"],
                                                                         d["match_id"]))
    return {"nd": nd["equity"], "nd_se": nd["equity_se"], "dt": dt["equity"],
            "dt_se": dt["equity_se"], "dp": actions["double, pass"]["equity"]}


def main():
    ap = Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--detail", required=True, help="cube_judge.py --detail file")
    ap.add_argument("--out", required=True, help="the relabelled file (refused if it exists)")
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    default_bin = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release",
                               "tabula")
    ap.add_argument("--tabula", default=os.environ.get("TABULA", default_bin))
    a = ap.parse_args()
    if a.trials < 36:
        ap.error("--trials must be at least 36")
    if a.threads < 1:
        ap.error("--threads must be at least 1")
    if not os.access(a.tabula, os.X_OK):
        ap.error("no tabula binary at %s (build it or pass --tabula)" % a.tabula)
    if os.path.exists(a.out):
        ap.error("%s exists; not overwritten" % a.out)
    try:
        dec = [json.loads(line) for line in open(a.detail) if line.strip()]
        for d in dec:
            for k in ("position", "match_id", "state", "nd", "dt", "dp"):
                if k not in d:
                    raise ValueError("a line lacks %s" % k)
    except (OSError, ValueError) as ex:
        ap.error("--detail %s: %s" % (a.detail, ex))
    cache = {}
    tmp = a.out + ".part"
    with open(tmp, "w") as f:
        for i, d in enumerate(dec):
            key = (d["position"], d["state"])
            if key not in cache:
                try:
                    cache[key] = rollout(a.tabula, d, a.trials, a.seed, a.threads)
                except (RuntimeError, OSError, ValueError, KeyError) as ex:
                    sys.stderr.write("error: %s\n" % ex)
                    sys.exit(1)
            r = cache[key]
            for k in ("nd", "dt", "dp"):
                d["gnubg_" + k] = d[k]
            d.update(r)
            f.write(json.dumps(d, sort_keys=True) + "\n")
            sys.stderr.write("\r%d/%d decisions" % (i + 1, len(dec)))
    sys.stderr.write("\n")
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
