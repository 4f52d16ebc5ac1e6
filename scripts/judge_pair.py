#!/usr/bin/env python3
"""Paired comparison of two engines on the same judged decisions.

    python3 scripts/judge_pair.py A B FILE.jsonl [FILE.jsonl ...]

Reads the `--detail` files of `chequer_judge.py` (one JSON line per decision, with each engine's
error in equity against gnubg 2-ply's best) and prints, per file and over all of them, the mean
of B's error minus A's in millipoints per decision with its standard error, and how many
decisions the two chose differently. A negative mean: B loses less than A. Pairing removes the
decisions' own spread, so differences far below either engine's error are measurable.
"""

import json
import math
import sys


def stats(diffs):
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var / n)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    a, b, files = argv[0], argv[1], argv[2:]
    everything = []
    for path in files:
        diffs, changed = [], 0
        with open(path) as f:
            for n, line in enumerate(f, 1):
                d = json.loads(line)
                errors = d["errors"]
                for name in (a, b):
                    if name not in errors:
                        sys.exit("%s:%d: no engine %r (there: %s)"
                                 % (path, n, name, ", ".join(sorted(errors))))
                diffs.append(1000.0 * (errors[b] - errors[a]))
                changed += d["choices"][a] != d["choices"][b]
        mean, se = stats(diffs)
        print("%s: %+.2f ± %.2f millipoints over %d decisions (%d changed)"
              % (path, mean, se, len(diffs), changed))
        everything += diffs
    if len(files) > 1:
        mean, se = stats(everything)
        print("all: %+.2f ± %.2f millipoints over %d decisions" % (mean, se, len(everything)))


if __name__ == "__main__":
    main(sys.argv[1:])
