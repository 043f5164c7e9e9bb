#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# browser.py - open a local HTML file in headless Chromium through the DevTools protocol on a pipe: screenshots
# in the light and dark colour schemes, the DOM as the browser built it, a PDF print, and every console message,
# exception or request for anything but the file itself (which the page must not make).
#
#   browser.py [--chromium PATH] [--width W] [--clip-y Y] [--clip-height H] [--light PNG] [--dark PNG] [--dom FILE]
#              [--pdf FILE] PAGE.html
#
# Exits 0 when the page loaded without console errors, exceptions or foreign requests; 1 otherwise, with one
# line per problem on stderr; 2 when the browser could not be driven. Only the standard library: the
# protocol goes over --remote-debugging-pipe (file descriptors 3 and 4, NUL-separated JSON), so no port is
# opened and no WebSocket module is needed.
import argparse
import base64
import json
import os
import pathlib
import select
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, exe, profile):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        args = [exe, "--headless", "--remote-debugging-pipe", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--mute-audio",
                "--user-data-dir=" + profile, "about:blank"]
        if os.geteuid() == 0:
            # Chromium refuses to start its sandbox as root.
            args.insert(1, "--no-sandbox")

        def fds():
            # Through fresh numbers first: either end may already be 3 or 4.
            r, w = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        # Fds 3 and 4 are set up in the child after the fork; everything else is closed at exec.
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, pass_fds=(3, 4), preexec_fn=fds)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the browser")
            ready, _, _ = select.select([self.from_child], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                raise EOFError("the browser closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=60):
        deadline = time.monotonic() + timeout
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                del self.events[i]
                return m
        while True:
            m = self._read_message(deadline)
            if m.get("method") == method:
                return m
            self.events.append(m)

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def screenshot(b, s, path, width, clip_y, clip_height):
    metrics = b.call("Page.getLayoutMetrics", session=s)
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    y = min(clip_y, max(size["height"] - 1, 0))
    height = size["height"] - y if not clip_height else min(size["height"] - y, clip_height)
    shot = b.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                             "clip": {"x": 0, "y": y, "width": width, "height": height,
                                                      "scale": 1}}, session=s)
    pathlib.Path(path).write_bytes(base64.b64decode(shot["data"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--chromium", default=None)
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--clip-y", type=int, default=0)
    ap.add_argument("--clip-height", type=int, default=0)
    ap.add_argument("--light")
    ap.add_argument("--dark")
    ap.add_argument("--dom")
    ap.add_argument("--pdf")
    a = ap.parse_args()
    exe = a.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        print("browser.py: no chromium found", file=sys.stderr)
        return 2
    url = pathlib.Path(a.page).resolve().as_uri()
    problems = []
    with tempfile.TemporaryDirectory(prefix="ws-chromium-") as profile:
        b = Browser(exe, profile)
        try:
            target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            s = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                b.call(domain + ".enable", session=s)
            b.call("Emulation.setDeviceMetricsOverride", {"width": a.width, "height": 900, "deviceScaleFactor": 1,
                                                          "mobile": False}, session=s)
            b.call("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]},
                   session=s)
            b.call("Page.navigate", {"url": url}, session=s)
            b.wait_event("Page.loadEventFired")
            if a.light:
                screenshot(b, s, a.light, a.width, a.clip_y, a.clip_height)
            if a.dom:
                root = b.call("DOM.getDocument", {"depth": 0}, session=s)["root"]["nodeId"]
                html = b.call("DOM.getOuterHTML", {"nodeId": root}, session=s)["outerHTML"]
                pathlib.Path(a.dom).write_text(html, encoding="utf-8")
            if a.dark:
                b.call("Emulation.setEmulatedMedia",
                       {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}, session=s)
                screenshot(b, s, a.dark, a.width, a.clip_y, a.clip_height)
            if a.pdf:
                b.call("Emulation.setEmulatedMedia", {"media": "print", "features": []}, session=s)
                pdf = b.call("Page.printToPDF", {"printBackground": True}, session=s, timeout=120)
                pathlib.Path(a.pdf).write_bytes(base64.b64decode(pdf["data"]))
            # Whatever else the page did while it loaded and was drawn: drain what is queued.
            b.call("Runtime.evaluate", {"expression": "1"}, session=s)
        except (RuntimeError, TimeoutError, EOFError) as e:
            print("browser.py: %s" % e, file=sys.stderr)
            b.close()
            return 2
        for m in b.events:
            method, p = m.get("method"), m.get("params", {})
            if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                problems.append("console %s: %s" % (p["type"], " ".join(str(x.get("value", x.get("description")))
                                                                        for x in p.get("args", []))))
            elif method == "Runtime.exceptionThrown":
                problems.append("exception: %s" % p["exceptionDetails"].get("text"))
            elif method == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
                problems.append("log %s: %s" % (p["entry"]["level"], p["entry"]["text"]))
            elif method == "Network.requestWillBeSent" and p["request"]["url"] not in (url, "about:blank"):
                problems.append("request: %s" % p["request"]["url"])
        b.close()
    for line in problems:
        print("browser.py: %s" % line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
