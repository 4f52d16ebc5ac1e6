"""Where an engine's judged contact plays lose: the chequer errors of `duel_errors.py --detail`
files (or `chequer_judge.py`-style records with the same fields), split by the kind of contact
position the play was made in.

    python3 scripts/error_kinds.py DETAIL.jsonl [DETAIL.jsonl ...] [--class contact]

Only chequer plays ("kind": "move") of gnubg's class --class are counted (default contact; the
class is gnubg's `classifypos`, written by the judge). Each position (its gnubg Position ID,
the side on roll being the engine) falls in the first of these kinds that fits it, "back"
meaning on the bar or in the other side's home board:

- attacking: the other side has a checker on the bar and we hold 3 or more home points;
- on the bar: we have a checker on the bar against 3 or more of the other side's home points;
- back game: we hold 2 or more points in the other side's home board, with 4 or more back;
- against a back game: the other side does;
- holding, ahead: we have nothing back, the other side has;
- holding, behind: we have checkers back, the other side has not;
- both back, both anchored: both sides have checkers back, each with a point there;
- both back: both sides have checkers back, not both anchored;
- outfield: neither side has checkers back (the contact is in the outer boards).

For each kind: plays, the mean error a play in millipoints (normalised to a 1-point cube, as the
judge writes it), the points lost (error times the cube), their share and the blunders (> 0.08).
"""

import argparse
import base64
import json
import sys

BLUNDER = 0.08
KINDS = ["attacking", "on the bar", "back game", "against a back game", "holding, ahead",
         "holding, behind", "both back, both anchored", "both back", "outfield"]


def decode(pid):
    """(on roll, other side) from a gnubg Position ID: 25 counts each, index 0 the side's
    1-point, 24 its bar."""
    raw = base64.b64decode(pid + "==")
    if len(pid) != 14 or len(raw) < 10:
        raise ValueError("not a Position ID: %r" % pid)
    bits = int.from_bytes(raw[:10], "little")
    sides, cur, point = [[0] * 25, [0] * 25], 0, 0
    for i in range(80):
        if cur == 2:
            break
        if bits >> i & 1:
            sides[cur][point] += 1
        else:
            point += 1
            if point == 25:
                point, cur = 0, cur + 1
    if sum(sides[0]) > 15 or sum(sides[1]) > 15:
        raise ValueError("not a Position ID: %r" % pid)
    return sides[1], sides[0]  # the key holds the side not on roll first


START = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
assert decode("4HPwATDgc/ABMA") == (START, START), "Position ID decoding is wrong"


def kind(me, opp):
    back = lambda s: sum(s[18:25])  # noqa: E731 (bar and the other side's home board)
    home_points = lambda s: sum(1 for i in range(6) if s[i] >= 2)  # noqa: E731
    anchors = lambda s: sum(1 for i in range(18, 24) if s[i] >= 2)  # noqa: E731
    if opp[24] and home_points(me) >= 3:
        return "attacking"
    if me[24] and home_points(opp) >= 3:
        return "on the bar"
    if back(me) >= 4 and anchors(me) >= 2:
        return "back game"
    if back(opp) >= 4 and anchors(opp) >= 2:
        return "against a back game"
    if back(opp) and not back(me):
        return "holding, ahead"
    if back(me) and not back(opp):
        return "holding, behind"
    if back(me) and back(opp):
        return "both back, both anchored" if anchors(me) and anchors(opp) else "both back"
    return "outfield"


def fail(message):
    print("error: " + message, file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("detail", nargs="+")
    ap.add_argument("--class", dest="cls", default="contact")
    args = ap.parse_args()
    rows = {k: [0, 0.0, 0.0, 0] for k in KINDS}  # plays, error, points, blunders
    for path in args.detail:
        try:
            f = open(path)
        except OSError as e:
            fail("%s: %s" % (path, e))
        with f:
            for n, line in enumerate(f, 1):
                try:
                    r = json.loads(line)
                    if r.get("kind") != "move" or r.get("class") != args.cls:
                        continue
                    x = rows[kind(*decode(r["position"]))]
                    x[0] += 1
                    x[1] += r["error"]
                    x[2] += r["error"] * r["cube"]
                    x[3] += r["error"] > BLUNDER
                except (ValueError, KeyError, TypeError, AttributeError) as e:
                    fail("%s line %d: %s" % (path, n, e))
    total = [sum(x[i] for x in rows.values()) for i in range(4)]
    plays, points = total[0], total[2]
    if not plays:
        fail("no %s plays in %s" % (args.cls, " ".join(args.detail)))
    print("%s plays: %d, %.2f points lost (error x cube)" % (args.cls, plays, points))
    print("%-26s %7s %9s %8s %6s %8s" % ("kind", "plays", "mp/play", "points", "share",
                                         "blunders"))
    for k, (n, err, pts, bl) in [(k, rows[k]) for k in KINDS] + [("all", total)]:
        if n:
            print("%-26s %7d %9.2f %8.2f %5.0f%% %8d" % (k, n, 1000 * err / n, pts,
                                                       100 * pts / points if points else 0, bl))


if __name__ == "__main__":
    main()
