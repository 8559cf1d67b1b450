"""A small driver for headless Chromium over the DevTools protocol on a pipe.

Why not a browser-automation package: Debian's `chromium` speaks the protocol itself with
`--remote-debugging-pipe` (JSON messages separated by NUL on file descriptors 3 and 4), so
the tests need no driver binary and nothing from the network. The browser runs with a
throw-away profile, its network emulated offline, and stops when the `Browser` closes.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")

OFFLINE_FLAGS = (
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-breakpad",
    "--no-pings",
    "--metrics-recording-only",
    "--safebrowsing-disable-auto-update",
    "--disable-features=OptimizationHints,OptimizationGuideModelDownloading,"
    "OptimizationHintsFetching,OptimizationTargetPrediction,Translate,MediaRouter,"
    "AutofillServerCommunication,CertificateTransparencyComponentUpdater",
)
"""Chromium's own background traffic off (sign-in, updates, sync, optimisation guide,
safe browsing, metrics): the browser tests reach nothing off this machine."""


def find_chromium() -> str | None:
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page; `events` keeps every event received."""

    def __init__(self, executable: str, profile: Path, width: int = 1400, height: int = 1800):
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire() -> None:  # in the child: the protocol's fixed descriptors 3 and 4
            # Copies first: in a fresh process the pipes may themselves be 3 and 4, and
            # dup2 onto the same number would leave them close-on-exec.
            reading, writing = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        self._process = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", f"--user-data-dir={profile}", *OFFLINE_FLAGS,
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            # Python's descriptors are close-on-exec (PEP 446); only the two dup2'd in
            # `wire` (inheritable) reach chromium, so nothing else needs closing.
            preexec_fn=wire, close_fds=False,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._next_id = 0
        self._buffer = b""
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        self.resize(width, height)

    def resize(self, width: int, height: int) -> None:
        """The viewport's size in CSS pixels, as a desktop window (not a phone)."""
        self.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def phone(self, width: int = 390, height: int = 844) -> None:
        """A phone's viewport (mobile emulation: the page's viewport meta applies)."""
        self.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})

    # -- protocol ---------------------------------------------------------------------------

    def call(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None, timeout: float = 30) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method,
                                   "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A command to the page's session."""
        return self.call(method, params, self.session)

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or self._process.poll() is not None:
                raise BrowserError("no answer from chromium in time")
            ready, _, _ = select.select([self._from_child], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise BrowserError("chromium closed the pipe")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    # -- page helpers -----------------------------------------------------------------------

    def evaluate(self, expression: str) -> Any:
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                               "awaitPromise": True})
        if "exceptionDetails" in reply:
            raise BrowserError(f"{expression[:60]}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def open(self, url: str, ready: str, timeout: float = 60) -> None:
        """Navigate and wait until `ready` (a JS expression) is true."""
        self.send("Page.navigate", {"url": url})
        self.wait_for(ready, timeout, url)

    def wait_for(self, condition: str, timeout: float = 60, what: str = "page") -> None:
        """Wait until `condition` (a JS expression) is true."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.evaluate(f"Boolean({condition})"):
                return
            time.sleep(0.1)
        raise BrowserError(f"{what}: {condition} not true after {timeout} s")

    def open_case(self, selector: str) -> None:
        """Click a row of the report's case table and wait until its detail is drawn (the
        details are unpacked on their own, after the page is ready)."""
        row = self.evaluate(f"document.querySelector({json.dumps(selector)}).dataset.row")
        self.click(selector)
        self.wait_for(f"document.getElementById('detail').dataset.row === {json.dumps(row)}")

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element (scrolled into view first)."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) return null; e.scrollIntoView({block: 'center'});"
            " const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        if box is None:
            raise BrowserError(f"nothing matches {selector}")
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent",
                      {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def type_text(self, selector: str, text: str) -> None:
        self.click(selector)
        self.send("Input.insertText", {"text": text})

    def choose(self, selector: str, value: str) -> None:
        """Pick a <select> option as a person does (the change reaches the page's listeners
        through the same input event)."""
        self.evaluate(
            f"(() => {{ const s = document.querySelector({json.dumps(selector)});"
            f" s.value = {json.dumps(value)};"
            " s.dispatchEvent(new Event('input', {bubbles: true}));"
            " s.dispatchEvent(new Event('change', {bubbles: true})); })()")

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def console_errors(self) -> list[str]:
        """Errors the page reported: console.error/assert, uncaught exceptions, log errors."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(" ".join(str(a.get("value", a.get("description")))
                                      for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                found.append(str(params.get("exceptionDetails", {}).get("text")))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(str(params["entry"].get("text")))
        return found

    def requested_urls(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.call("Browser.close", timeout=5)
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
