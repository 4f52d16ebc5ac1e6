#!/usr/bin/env python3
"""N concurrent TCP sessions of `tabula engine --listen`, each playing a game to the end.

Each session speaks UGI: `ugi`, a small `Hash`, `game pylos rules children` (or Bi-litaire
from a late position), then `go nodes N` / `position … moves …` until `query gameover`
answers true. Every loop is bounded (plies per game, a socket timeout). Prints one line per
session and a summary; exits 1 if any session had an error or did not finish its game.

usage: scripts/engine_sessions.py HOST:PORT [--sessions 32] [--nodes 5000] [--game pylos|bilitaire]
"""
import argparse
import socket
import sys
import threading
import time

BILITAIRE_LATE = "--..o.--/--....--/......../..oo..../--..o.oo/--ooo.oo/oooooo--/oooooo-- s"
MAX_PLIES = 200


class Session:
    def __init__(self, addr, timeout):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.file = self.sock.makefile("r", encoding="utf-8", newline="\n")

    def send(self, line):
        self.sock.sendall((line + "\n").encode())

    def until(self, prefix):
        """Lines up to and including the first that starts with `prefix`; error lines raise."""
        lines = []
        for _ in range(100_000):
            line = self.file.readline()
            if not line:
                raise RuntimeError(f"connection closed while waiting for {prefix!r}")
            line = line.rstrip("\n")
            if line.startswith("error"):
                raise RuntimeError(line)
            lines.append(line)
            if line.startswith(prefix):
                return lines
        raise RuntimeError(f"no {prefix!r} in 100000 lines")

    def close(self):
        try:
            self.send("quit")
        finally:
            self.sock.close()


def play(i, args, results):
    started = time.monotonic()
    try:
        s = Session(args.addr, args.socket_timeout)
        s.send("ugi")
        s.until("ugiok")
        s.send("setoption name Hash value 8")
        if args.game == "pylos":
            s.send("game pylos rules children")
            base = "position startpos"
        else:
            s.send("game bilitaire")
            base = "position fen " + BILITAIRE_LATE
        s.send("isready")
        s.until("readyok")
        moves = []
        for _ in range(MAX_PLIES):
            s.send(base + (" moves " + " ".join(moves) if moves else ""))
            s.send("query gameover")
            if s.until("response")[-1] == "response true":
                break
            s.send(f"go nodes {args.nodes}")
            best = s.until("bestmove")[-1].split()[1]
            moves.append(best)
        else:
            raise RuntimeError(f"game not over after {MAX_PLIES} plies")
        s.send("query result")
        result = s.until("response")[-1]
        s.close()
        results[i] = (True, len(moves), result, time.monotonic() - started)
    except Exception as e:  # noqa: BLE001 - every failure is counted and reported
        results[i] = (False, 0, f"{type(e).__name__}: {e}", time.monotonic() - started)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("addr")
    p.add_argument("--sessions", type=int, default=32)
    p.add_argument("--nodes", type=int, default=5000)
    p.add_argument("--game", choices=["pylos", "bilitaire"], default="pylos")
    p.add_argument("--socket-timeout", type=float, default=120.0)
    args = p.parse_args()
    results = [None] * args.sessions
    threads = [threading.Thread(target=play, args=(i, args, results)) for i in range(args.sessions)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(args.socket_timeout * (MAX_PLIES + 2))
    wall = time.monotonic() - t0
    errors = 0
    plies = 0
    for i, r in enumerate(results):
        if r is None:
            r = (False, 0, "thread did not finish", 0.0)
        ok, n, detail, secs = r
        errors += not ok
        plies += n
        print(f"session {i:2}: {'ok' if ok else 'ERROR'} plies {n:3} {detail} ({secs:.1f} s)")
    print(
        f"summary: sessions {args.sessions} finished {args.sessions - errors} errors {errors} "
        f"plies {plies} wall {wall:.1f} s"
    )
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
