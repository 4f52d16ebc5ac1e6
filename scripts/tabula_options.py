"""Options the gnubg scripts pass to a `tabula` binary whatever its version."""

import subprocess

_NO_RACE_DB = {}


def no_race_db(tabula, given=()):
    """`["--no-race-db"]` when the binary `tabula` has the option (since stop 72 an installed
    race database is used by default), else `[]`: the rows named "Tabula K-ply" stay the
    engine without the optional database on any machine, older binaries included. `[]` too
    when the options already `given` choose the race database (`--race-db FILE`,
    `--race-db=FILE` or `--no-race-db`), which the flag would contradict or repeat."""
    if any(a in ("--race-db", "--no-race-db") or a.startswith("--race-db=") for a in given):
        return []
    if tabula not in _NO_RACE_DB:
        r = subprocess.run([tabula, "backgammon", "hint", "--help"], capture_output=True,
                           text=True)
        _NO_RACE_DB[tabula] = ["--no-race-db"] if "--no-race-db" in r.stdout else []
    return _NO_RACE_DB[tabula]
