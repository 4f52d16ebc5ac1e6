#!/usr/bin/env python3
"""Load figures of `tabula serve` with oha (a real HTTP load tool): throughput, p50/p99, errors,
the server's peak RSS (VmHWM). Loopback only; every run is bounded by oha's `-z`.

usage:
  scripts/http_load.py TABULA_BIN load [--seconds 15] [--clients 1,8,64] [-- SERVE_ARGS…]
  scripts/http_load.py TABULA_BIN soak [--seconds 180] [--clients 8] [-- SERVE_ARGS…]

`load` runs, for each client count, (a) cheap `GET /api/pylos/moves?position=…` and (b)
fixed-budget `POST /api/bilitaire/best` (nodes 20000), each against a fresh server, and prints
one Markdown table row per run. `soak` runs the two alternately for `--seconds` against one
server, sampling its RSS every 10 s. Needs `oha` on PATH.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import quote

PYLOS = "wwwb/b.wb/bwww/wbbw|..w/..b/..b|../..|. b"
BILITAIRE = "--..o.--/--....--/......../..oo..../--..o.oo/--ooo.oo/oooooo--/oooooo-- s"
NODES = 20000


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} for {pid}")


class Server:
    def __init__(self, binary, extra):
        self.proc = subprocess.Popen(
            [binary, "serve", "--http", "127.0.0.1:0", *extra],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        line = self.proc.stderr.readline()
        m = re.search(r"http://(\S+)", line)
        if not m:
            self.proc.kill()
            raise RuntimeError(f"no address in {line!r}")
        self.base = "http://" + m.group(1)
        # Drain stderr so the server never blocks on it.
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()

    def rss(self):
        return status_kib(self.proc.pid, "VmRSS")

    def hwm(self):
        return status_kib(self.proc.pid, "VmHWM")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def oha(url, clients, seconds, post_body=None):
    cmd = ["oha", "--no-tui", "--output-format", "json", "-z", f"{seconds}s", "-c", str(clients)]
    if post_body is not None:
        cmd += ["-m", "POST", "-H", "content-type: application/json", "-d", post_body]
    cmd.append(url)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 120, check=True)
    return cmd, json.loads(out.stdout)


def requests(kind, base):
    if kind == "moves":
        return base + "/api/pylos/moves?rules=children&position=" + quote(PYLOS, safe=""), None
    body = json.dumps({"position": BILITAIRE, "budget": {"nodes": NODES}})
    return base + "/api/bilitaire/best", body


def row(kind, clients, result, hwm_kib):
    s = result["summary"]
    lat = result["latencyPercentiles"]
    codes = result.get("statusCodeDistribution", {})
    errors = result.get("errorDistribution", {})
    ok = codes.get("200", 0)
    non200 = {k: v for k, v in codes.items() if k != "200"}
    # Requests cut by oha's deadline are not the server's errors; list them apart.
    deadline = sum(v for k, v in errors.items() if "deadline" in k)
    other = {k: v for k, v in errors.items() if "deadline" not in k}
    return (
        f"| {kind} | {clients} | {ok} | {s['requestsPerSec']:.0f} | "
        f"{lat['p50'] * 1000:.2f} | {lat['p99'] * 1000:.2f} | "
        f"{non200 or 'none'} | {other or 'none'} | {deadline} | {hwm_kib / 1024:.1f} |"
    )


def load(args):
    print("| requests | clients | 200s | req/s | p50 ms | p99 ms | non-200 | errors | cut at deadline | server VmHWM MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind in ["moves", "best"]:
        for clients in args.clients:
            server = Server(args.binary, args.serve_args)
            try:
                url, body = requests(kind, server.base)
                cmd, result = oha(url, clients, args.seconds, body)
                print(row(kind, clients, result, server.hwm()), flush=True)
                print("    " + " ".join(quote(c, safe="/:=,.-_?&%") if " " in c or "{" in c else c for c in cmd),
                      file=sys.stderr, flush=True)
            finally:
                server.stop()


def soak(args):
    server = Server(args.binary, args.serve_args)
    samples = []
    stop = threading.Event()

    def sample():
        t0 = time.monotonic()
        while not stop.wait(10):
            samples.append((round(time.monotonic() - t0), server.rss()))

    sampler = threading.Thread(target=sample, daemon=True)
    try:
        samples.append((0, server.rss()))
        sampler.start()
        end = time.monotonic() + args.seconds
        totals = {"200": 0, "other": 0, "errors": 0}
        while time.monotonic() < end:
            for kind in ["moves", "best"]:
                left = int(end - time.monotonic())
                if left < 1:
                    break
                _, result = oha(*requests(kind, server.base)[:1], args.clients, min(10, left),
                                requests(kind, server.base)[1])
                codes = result.get("statusCodeDistribution", {})
                totals["200"] += codes.get("200", 0)
                totals["other"] += sum(v for k, v in codes.items() if k != "200")
                totals["errors"] += sum(v for k, v in result.get("errorDistribution", {}).items()
                                        if "deadline" not in k)
        stop.set()
        samples.append((args.seconds, server.rss()))
        print("RSS samples (s: KiB):", ", ".join(f"{t}: {k}" for t, k in samples))
        print(f"VmHWM: {server.hwm()} KiB; totals: {totals}")
    finally:
        stop.set()
        server.stop()


def main():
    argv = sys.argv[1:]
    serve_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, serve_args = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("mode", choices=["load", "soak"])
    p.add_argument("--seconds", type=int, default=None)
    p.add_argument("--clients", default=None)
    args = p.parse_args(argv)
    args.serve_args = serve_args
    if shutil.which("oha") is None:
        sys.exit("oha is not on PATH (cargo install oha --locked)")
    if args.mode == "load":
        args.seconds = args.seconds or 15
        args.clients = [int(c) for c in (args.clients or "1,8,64").split(",")]
        load(args)
    else:
        args.seconds = args.seconds or 180
        args.clients = int(args.clients or "8")
        soak(args)


if __name__ == "__main__":
    main()
