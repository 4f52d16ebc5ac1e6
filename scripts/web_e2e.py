#!/usr/bin/env python3
"""Browser test of the web page of `tabula serve`: a scripted game of each game in headless
Chromium, driven through chromedriver's W3C WebDriver HTTP API (python3 standard library only).

For Bi-litaire, Pylos and backgammon in turn: load the page, check the board SVG is drawn, make
a move by clicking the highlighted cells (or the list, for what clicks cannot express), wait
for the engine's answer (its move in the move list, its evaluation shown), undo, paste a
position, and analyse it. A PNG screenshot of the page is taken at each step into --shots, and
each is checked by decoding it here (zlib): not blank (enough colours, enough non-background
pixels), the board different after the move and after the paste, and back as it was after the
undo. Exits 1 with a message naming the failed check.

    python3 scripts/web_e2e.py --tabula target/debug/tabula --shots /tmp/web-shots
"""

import argparse
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def wait_until(what, probe, timeout):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = probe()
            if last:
                return last
        except (OSError, urllib.error.URLError) as e:
            last = e
        time.sleep(0.1)
    raise Failure(f"timed out after {timeout} s waiting for {what} (last: {last!r})")


# ---------------------------------------------------------------- PNG

def decode_png(data):
    """(width, height, channels, rows of bytes) of an 8-bit RGB or RGBA PNG."""
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "a screenshot is not a PNG")
    pos, idat, width = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            check(depth == 8 and colour in (2, 6) and interlace == 0,
                  f"unexpected PNG format (depth {depth}, colour type {colour}, interlace {interlace})")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    check(width is not None, "a PNG without IHDR")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for x in range(channels, stride):
                line[x] = (line[x] + line[x - channels]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for x in range(stride):
                left = line[x - channels] if x >= channels else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - channels] if x >= channels else 0
                b = prev[x]
                c = prev[x - channels] if x >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        else:
            check(f == 0, f"bad PNG filter {f}")
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def pixels(png):
    w, h, ch, rows = decode_png(png)
    out = []
    for row in rows:
        out.extend(row[x:x + 3] for x in range(0, w * ch, ch))
    return w, h, out


def image_stats(png):
    """(distinct colours, fraction of pixels unlike the most common colour, size)."""
    w, h, px = pixels(png)
    counts = {}
    for p in px:
        counts[p] = counts.get(p, 0) + 1
    background = max(counts.values())
    return len(counts), 1 - background / len(px), (w, h)


def difference(png_a, png_b):
    """The fraction of pixels that differ (1.0 when the sizes differ)."""
    wa, ha, a = pixels(png_a)
    wb, hb, b = pixels(png_b)
    if (wa, ha) != (wb, hb):
        return 1.0
    return sum(1 for p, q in zip(a, b) if p != q) / len(a)


# ---------------------------------------------------------------- WebDriver

ELEMENT = "element-6066-11e4-a52e-4f735466cecc"


class Browser:
    def __init__(self, driver_url, chromium):
        self.base = driver_url
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1280,1000",
                         "--force-device-scale-factor=1", "--hide-scrollbars",
                         "--no-first-run", "--disable-extensions"],
            },
        }}}
        value = self.call("POST", "/session", caps)
        self.session = value["sessionId"]

    def call(self, method, path, body=None):
        if body is None and method == "POST":
            body = {}
        status, _, data = http(method, self.base + path, body, timeout=120)
        value = json.loads(data or b"{}").get("value")
        if status != 200:
            message = value.get("message", value) if isinstance(value, dict) else value
            raise Failure(f"WebDriver {method} {path}: {status}: {str(message)[:300]}")
        return value

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def get(self, url):
        self.s("POST", "/url", {"url": url})

    def find_all(self, css):
        found = self.s("POST", "/elements", {"using": "css selector", "value": css})
        return [e.get(ELEMENT) or e.get("ELEMENT") or next(iter(e.values())) for e in found]

    def find(self, css):
        found = self.find_all(css)
        check(found, f"no element {css!r} on the page")
        return found[0]

    def click(self, element):
        self.s("POST", f"/element/{element}/click")

    def type(self, element, text):
        self.s("POST", f"/element/{element}/clear")
        self.s("POST", f"/element/{element}/value", {"text": text})

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def screenshot(self):
        return base64.b64decode(self.s("GET", "/screenshot"))

    def element_screenshot(self, element):
        return base64.b64decode(self.s("GET", f"/element/{element}/screenshot"))

    def quit(self):
        try:
            self.s("DELETE", "")
        except Failure:
            pass


STATE_JS = """
const q = (s) => document.querySelectorAll(s);
return {
  status: document.getElementById('status').textContent,
  statusClass: document.getElementById('status').className,
  position: document.getElementById('position').value,
  log: Array.from(q('#movelist li')).map((li) => li.textContent),
  engineMoves: q('#movelist li.engine').length,
  yourMoves: Array.from(q('#movelist li')).filter((li) => li.textContent.startsWith('you')).length,
  next: q('#board .tok.next').length,
  choices: q('#choices button').length,
  eval: document.getElementById('eval').textContent,
  analysisRows: q('#analysis tr').length,
  boardElements: q('#board circle, #board rect, #board polygon').length,
  circles: q('#board circle').length,
  polygons: q('#board polygon').length,
  boardGame: document.getElementById('board').dataset.game || '',
  rollEnabled: !document.getElementById('roll').disabled,
  errors: window.tabulaErrors === undefined ? null : window.tabulaErrors,
};
"""


class Run:
    def __init__(self, browser, base, shots):
        self.b = browser
        self.base = base
        self.shots = shots
        self.taken = []

    def state(self):
        st = self.b.js(STATE_JS)
        check(not st["errors"], f"script errors on the page: {st['errors']}")
        return st if st["errors"] is not None else None

    def settled(self):
        """The page when it waits for the user: no search running, no request pending."""
        st = self.state()
        if st is None:
            return None  # the page's script has not started yet
        check(st["statusClass"] != "error", f"the page shows an error: {st['status']}")
        if "thinking" in st["status"] or "busy" in st["statusClass"] or "Loading" in st["status"]:
            return None
        return st

    def wait_settled(self, what, timeout=90):
        return wait_until(what, self.settled, timeout)

    def shot(self, name, expect_board=True):
        """A full-page screenshot, checked not blank; returns the board's own screenshot."""
        png = self.b.screenshot()
        path = os.path.join(self.shots, name + ".png")
        with open(path, "wb") as f:
            f.write(png)
        colours, ink, size = image_stats(png)
        check(colours >= 16 and ink >= 0.10,
              f"{path}: looks blank ({colours} colours, {ink:.1%} non-background pixels)")
        board = self.b.element_screenshot(self.b.find("#board")) if expect_board else None
        if board is not None:
            bc, bink, bsize = image_stats(board)
            check(bc >= 16 and bink >= 0.20 and bsize[0] >= 300 and bsize[1] >= 300,
                  f"{name}: the board looks blank ({bc} colours, {bink:.1%} drawn, {bsize})")
        self.taken.append((name, colours, ink, size))
        print(f"  {name}.png: {size[0]}x{size[1]}, {colours} colours, {ink:.0%} non-background")
        return board

    def click_move(self, game):
        """Clicks highlighted cells (then the list when the clicks leave a choice) until one
        move of ours is in the move list."""
        before = self.state()["yourMoves"]
        for _ in range(10):
            st = self.state()
            if st["yourMoves"] > before:
                return
            targets = self.b.find_all("#board .tok.next")
            if targets:
                self.b.click(targets[0])
            else:
                choices = self.b.find_all("#choices button")
                check(choices, f"{game}: nothing to click and no move in the list ({st['status']})")
                self.b.click(choices[0])
            time.sleep(0.05)
        check(self.state()["yourMoves"] > before, f"{game}: ten clicks made no move")

    def game(self, game, paste):
        print(f"{game}:")
        b = self.b
        b.get(f"{self.base}/?seed=11")
        self.wait_settled(f"{game}: the page to load")
        b.click(b.find(f'#games button[data-game="{game}"]'))
        st = wait_until(f"{game}: its board",
                        lambda: (lambda s: s if s and s["boardGame"] == game else None)(self.settled()),
                        90)
        if game == "backgammon" and st["engineMoves"] == 0 and not st["rollEnabled"] and st["next"] == 0:
            st = self.wait_settled(f"{game}: the engine's opening move")
        minimum = {"bilitaire": 48 + 12, "pylos": 16, "backgammon": 24 + 30}[game]
        check(st["boardElements"] >= minimum,
              f"{game}: the board has {st['boardElements']} shapes, expected at least {minimum}")
        if game == "backgammon":
            check(st["polygons"] == 24, f"backgammon: {st['polygons']} points drawn, not 24")
            self.shot(f"{game}-1-start")
            if st["rollEnabled"]:
                b.click(b.find("#roll"))
            st = self.wait_settled(f"{game}: the roll")
            check(st["next"] > 0 or st["choices"] > 0, f"{game}: no move highlighted after the roll")
            before = self.shot(f"{game}-2-rolled")
        else:
            check(st["next"] > 0, f"{game}: no legal move highlighted at the start")
            before = self.shot(f"{game}-1-start")
        engine_before = st["engineMoves"]
        yours_before = st["yourMoves"]
        log_before = len(st["log"])

        self.click_move(game)
        st = wait_until(f"{game}: the engine's answer",
                        lambda: (lambda s: s if s and s["engineMoves"] > engine_before else None)(self.settled()),
                        120)
        check(st["eval"].strip() not in ("", "—") and "Engine" in st["eval"],
              f"{game}: no engine evaluation shown ({st['eval']!r})")
        moved = self.shot(f"{game}-3-moved")
        diff = difference(before, moved)
        check(diff > 0.005, f"{game}: the board did not change after the move ({diff:.2%} of pixels)")
        print(f"    moves: {st['log']}")
        print(f"    evaluation: {st['eval'].splitlines()[0]}")

        b.click(b.find("#undo"))
        st = wait_until(f"{game}: the undo",
                        lambda: (lambda s: s if s and s["yourMoves"] == yours_before else None)(self.settled()),
                        60)
        check(len(st["log"]) == log_before, f"{game}: after undo the move list is {st['log']}")
        undone = self.shot(f"{game}-4-undone")
        diff = difference(before, undone)
        check(diff < 0.002, f"{game}: after undo the board is not as before the move ({diff:.2%} differ)")

        if game == "pylos":
            # children's rules (a select of the page), where a late position is solved at once
            b.click(b.find('#rules option[value="children"]'))
            self.wait_settled(f"{game}: the new game")
        b.type(b.find("#position"), paste)
        b.click(b.find("#load"))
        st = wait_until(f"{game}: the pasted position",
                        lambda: (lambda s: s if s and s["log"] and "position" in s["log"][0] else None)(self.settled()),
                        60)
        pasted = self.shot(f"{game}-5-pasted")
        diff = difference(before, pasted)
        check(diff > 0.005, f"{game}: the board did not change for the pasted position ({diff:.2%})")
        check(st["position"].split(":")[0].split(" ")[0] in paste or game == "backgammon",
              f"{game}: the position box shows {st['position']!r}, not the pasted one")

        if game == "backgammon":
            # analyse a roll: the dice box, then the ranked plays
            b.type(b.find("#dice"), "31")
            b.click(b.find("#setdice"))
            wait_until(f"{game}: the dice",
                       lambda: (lambda s: s if s and (s["next"] or s["choices"]) else None)(self.settled()),
                       60)
        if game == "bilitaire":
            b.click(b.find('#strength option[value="2000"]'))  # a longer search for the analysis
        b.click(b.find("#analyse"))
        st = wait_until(f"{game}: the analysis",
                        lambda: (lambda s: s if s and s["analysisRows"] > 1 else None)(self.settled()),
                        90)
        check("Analysis" in st["eval"], f"{game}: the analysis is not shown ({st['eval']!r})")
        self.shot(f"{game}-6-analysis")
        print(f"    analysis: {st['eval'].splitlines()[0]} ({st['analysisRows'] - 1} moves)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tabula", default="target/debug/tabula", help="the tabula binary")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    ap.add_argument("--shots", default=None, help="directory for the screenshots (default: a temporary one)")
    args = ap.parse_args()
    for what, path in (("tabula", args.tabula), ("chromium", args.chromium), ("chromedriver", args.chromedriver)):
        if not os.path.exists(path):
            print(f"web_e2e: {what} not found at {path}", file=sys.stderr)
            return 2
    shots = args.shots or tempfile.mkdtemp(prefix="tabula-web-")
    os.makedirs(shots, exist_ok=True)

    started = time.monotonic()
    port, dport = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    procs = []
    browser = None
    try:
        server = subprocess.Popen([args.tabula, "serve", "--http", f"127.0.0.1:{port}",
                                   "--max-searches", "2", "--max-time", "5000"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        procs.append(server)
        wait_until("the server", lambda: http("GET", base + "/health", timeout=2)[0] == 200, 30)
        status, headers, page = http("GET", base + "/")
        check(status == 200 and headers.get("Content-Type", "").startswith("text/html"),
              f"GET / answered {status} {headers.get('Content-Type')}")
        driver = subprocess.Popen([args.chromedriver, f"--port={dport}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(driver)
        durl = f"http://127.0.0.1:{dport}"
        wait_until("chromedriver",
                   lambda: json.loads(http("GET", durl + "/status", timeout=2)[2])["value"]["ready"], 30)
        browser = Browser(durl, args.chromium)
        run = Run(browser, base, shots)

        # positions to paste, taken from the API: one move from a known position
        bili = "--.o----/--..----/--..oo../--....o./--..----/--.o----/--..--.o/--.o--.. s"
        q = urllib.parse.urlencode({"position": bili})
        bili_next = json.loads(http("GET", f"{base}/api/bilitaire/moves?{q}")[2])["moves"][0]["position"]
        q = urllib.parse.urlencode({"dice": "31"})
        gammon_next = json.loads(http("GET", f"{base}/api/backgammon/plays?{q}")[2])["plays"][0]["position"]
        run.game("bilitaire", bili_next)
        run.game("pylos", "bwbw/bwbw/bwbw/bwbw|.../wbw/bwb|../..|. b")
        run.game("backgammon", gammon_next)
        print(f"web_e2e: ok, {len(run.taken)} screenshots in {shots} "
              f"({time.monotonic() - started:.0f} s)")
        return 0
    except Failure as e:
        print(f"web_e2e: FAILED: {e} (screenshots in {shots})", file=sys.stderr)
        return 1
    finally:
        if browser is not None:
            browser.quit()
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


if __name__ == "__main__":
    sys.exit(main())
