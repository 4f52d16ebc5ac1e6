"""Re-decide the chequer plays of a duel log (scripts/duel_gnubg.py's --log) with another net or
search depth, so that scripts/duel_errors.py can judge two engines on the same positions.

    python3 scripts/redecide.py LOG OUT [--weights FILE] [--plies 2] [--every 1]
                                [--tabula target/release/tabula]

For every EVERY-th logged play it asks `tabula backgammon hint --position ID --dice D` for the
best play and writes the log entry with that play as the reply (plays only: cube decisions are
dropped). Then `python3 scripts/duel_errors.py OUT --games N [--plies P]` gives the error of
those plays. Comparing two nets this way removes the dice and positions from the comparison:
only the choices differ. Prints how many plays differ from the logged ones.
"""

import argparse
import json
import subprocess


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log")
    ap.add_argument("out")
    ap.add_argument("--weights", help="weights file (default: the shipped weights)")
    ap.add_argument("--plies", type=int, default=2)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--tabula", default="target/release/tabula")
    a = ap.parse_args()
    if a.every < 1:
        ap.error("--every must be at least 1")
    try:
        lines = open(a.log).readlines()
        out = open(a.out, "w")
    except OSError as ex:
        ap.error(str(ex))
    plays = same = 0
    with out:
        for number, line in enumerate(lines, 1):
            try:
                e = json.loads(line)
            except ValueError:
                ap.error("%s line %d is not a JSON decision" % (a.log, number))
            if e.get("kind") != "move":
                continue
            plays += 1
            if (plays - 1) % a.every:
                continue
            cmd = [a.tabula, "backgammon", "hint", "--position", e["base"]["position"],
                   "--dice", e["dice"], "--plies", str(a.plies), "--threads", "1", "--json"]
            if a.weights:
                cmd += ["--weights", a.weights]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True)
            except OSError as ex:
                ap.error("cannot run %s: %s" % (a.tabula, ex))
            if r.returncode != 0:
                ap.error("tabula failed on %s %s: %s" % (e["base"]["position"], e["dice"],
                                                         r.stderr.strip()))
            moves = json.loads(r.stdout)["moves"]
            reply = moves[0]["play"] if moves else ""
            same += reply.replace(" ", "") == e["reply"].replace(" ", "")
            out.write(json.dumps(dict(e, reply=reply)) + "\n")
    n = (plays + a.every - 1) // a.every
    print("%d of %d plays re-decided, %d the same as logged" % (n, plays, same))


if __name__ == "__main__":
    main()
