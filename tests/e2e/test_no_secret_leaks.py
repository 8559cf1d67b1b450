"""No key leaves the process: a smoke run of every category with a distinct fake key in every
variable fcbench reads, while everything around it fails in ways that print URLs.

`fcbench run --limit 1 --categories all,v1` (a real process: its own stdout and stderr) asks a
loopback model server that logs every request body; web search goes to a SerpAPI endpoint
where nothing listens (the requests library's error names the URL, `api_key=` included), the
executable categories run live against a loopback stand-in for every web API that answers 500
(Amazon's 403) with the request it got echoed back (keys included, as some APIs do), the base
URL carries a password and the cache is on. Then not one key, nor the password, appears in
stdout, stderr, any file under the result, score (reports included), web record or cache
folders, or in any request body the model server received.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from fake_openai import FakeOpenAI, _tool_call
from fake_web_apis import HOSTS
from fcbench import redact

KEY_ENV = "MY_ENDPOINT_KEY"
"""A variable named by `--api-key-env`."""
KEYS = {variable: f"leak-canary-{index:02d}-{variable.lower().replace('_', '-')}"
        for index, variable in enumerate((*redact.KEY_VARIABLES, KEY_ENV))}
PASSWORD = "leak-canary-base-url-password"
FEEDBACK = "[{'role': 'tool'"
REST_URL = "https://geocode.maps.co/search?q=Paris&api_key=YOUR-GEOCODE-API-KEY"


class LoggingModel:
    """A model that searches when it can, asks a keyed web API when it can, else calls its
    first tool; it ends a turn once it has a tool result. Every request body is kept."""

    def __init__(self) -> None:
        self.bodies: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.bodies.append(json.dumps(request))
        messages = request.get("messages") or []
        last = messages[-1] if messages else {}
        if last.get("role") == "tool" or str(last.get("content", "")).startswith(FEEDBACK):
            return {"content": "done"}
        names = [tool["function"]["name"] for tool in request.get("tools") or []]
        if "search_engine_query" in names:
            return {"tool_calls": [_tool_call("search_engine_query", {"keywords": "news"}, 0)]}
        if "requests_get" in names:
            return {"tool_calls": [_tool_call("requests_get", {"url": REST_URL}, 0)]}
        if names:
            return {"tool_calls": [_tool_call(names[0], {"a": 1}, 0)]}
        return {"content": "[f(a=1)]"}


AMAZON_HOST = "real-time-amazon-data.p.rapidapi.com"
"""The one API the live backend tries five times, 1 to 16 s apart, while its answer lacks the
field (as the original did: 31 s a call, three calls in the web API check alone), but only
once when the key is refused."""


class EchoingApis:
    """Every web API of the executable categories: HTTP 500 with the request echoed (403 from
    Amazon's, as for a refused key: the same echo, without 93 s of the backend's waits)."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = json.dumps({"error": "down", "path": self.path,
                                   "headers": dict(self.headers.items())}).encode()
                self.send_response(403 if self.path.startswith(f"/{AMAZON_HOST}/") else 500)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def routes(self) -> dict[str, str]:
        return {f"{scheme}://{host}": f"{self.url}/{host}"
                for host in HOSTS for scheme in ("http", "https")}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def apis() -> Iterator[EchoingApis]:
    server = EchoingApis()
    yield server
    server.close()


def dead_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed on return: nothing listens there


def leaks(text: str, secrets: Iterable[str] = (*KEYS.values(), PASSWORD)) -> list[str]:
    """The secrets found in `text`, in any form they could be written in."""
    found = []
    for secret in secrets:
        forms = {secret, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret),
                 json.dumps(secret)[1:-1]}
        if any(form in text for form in forms):
            found.append(secret)
    return found


def file_text(path: Path) -> str:
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    return data.decode("utf-8", "replace")


def test_no_key_in_any_output_file_or_request(
    fetched_home: Path, tmp_path: Path, apis: EchoingApis
) -> None:
    model = LoggingModel()
    env = {**os.environ, **KEYS, "FCBENCH_HOME": str(fetched_home),
           "FCBENCH_EXEC_ROUTES": json.dumps(apis.routes())}
    with FakeOpenAI(model) as server:
        base_url = server.base_url.replace("://", f"://fcbench:{PASSWORD}@")
        proc = subprocess.run(
            [sys.executable, "-m", "fcbench.cli", "run", "--model", "m", "--base-url", base_url,
             "--api-key-env", KEY_ENV, "--categories", "all,v1", "--limit", "1",
             "--web-provider", "serpapi", "--serpapi-endpoint",
             f"http://127.0.0.1:{dead_port()}", "--serpapi-max-wait", "0",
             "--exec-backend", "live", "--cache", "always", "--cache-dir",
             str(tmp_path / "cache"), "--result-dir", str(tmp_path / "result"),
             "--score-dir", str(tmp_path / "score"), "--concurrency", "4"],
            env=env, capture_output=True, text=True, timeout=900,
        )
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    folders = {p.relative_to(tmp_path).parts[0] for p in written}
    assert {"result", "score", "cache"} <= folders
    # what was exercised: a failed search went to the model, a keyed API was asked live
    assert any("search_engine_query" in body for body in model.bodies)
    # a failed search is never recorded (issue 19: a failed tool is a failure, asked again), so
    # this run leaves no web record; whatever a record would hold passes `redact.values` as the
    # other writers do
    assert not any("web_record" in p.parts and p.suffix == ".gz" for p in written)
    assert any(p.name == "model.json" for p in written)
    assert any(p.name == "report.html" for p in written)
    assert "Connection refused" in "".join(model.bodies) or "Max retries" in "".join(
        model.bodies)
    problems = {"stdout": leaks(proc.stdout), "stderr": leaks(proc.stderr),
                "requests": leaks("\n".join(model.bodies))}
    problems.update({str(p.relative_to(tmp_path)): leaks(file_text(p)) for p in written})
    assert {where: found for where, found in problems.items() if found} == {}


class LoggingHost:
    """A loopback host a model might name: it logs every request line and header it gets."""

    def __init__(self) -> None:
        self.received: list[str] = []
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host.received.append(self.requestline + "\n" + str(self.headers))
                body = b'{"ok": true}'
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


def test_a_live_exec_run_sends_no_key_to_a_host_the_model_chose(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`evaluate --exec-backend live` on a crafted `rest` answer that asks a loopback host
    with every placeholder form in its URL, query and headers: the host gets no key."""
    from fcbench.api import evaluate
    from fcbench.envs.exec_functions.backends import KEY_VARIABLES, key_token, placeholders

    for variable, value in KEYS.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.setenv("FCBENCH_EXEC_ALLOW_PRIVATE", "1")  # the loopback host is let through
    host = LoggingHost()
    try:
        forms = [f for v in KEY_VARIABLES for f in (key_token(v), *placeholders(v))]
        query = "&".join(f"q{i}={form}" for i, form in enumerate(forms))
        headers = {f"X-Leak-{i}": form for i, form in enumerate(forms)}
        call = f"[requests.get(url={host.url + '/x?' + query!r}, headers={headers!r})]"
        folder = tmp_path / "result" / "crafted" / "non_live"
        folder.mkdir(parents=True)
        (folder / "BFCL_v4_rest_result.json").write_text(
            json.dumps({"id": "rest_0", "result": call}) + "\n")
        evaluate(tmp_path / "result", categories=["rest"], exec_backend="live",
                 score_dir=tmp_path / "score")
    finally:
        host.server.shutdown()
        host.server.server_close()
    received = urllib.parse.unquote("".join(host.received))
    assert host.received  # the call was made
    assert leaks(received) == []
    assert all(form in received for form in forms)  # as the model wrote them


# --------------------------------------------------------------------------- issue 31

ENGINE = Path(__file__).with_name("echoing_engine.py")
"""A `--serve-cmd` engine that prints its arguments, its key-like variables and every request
(headers included), and answers every other request with HTTP 400 echoing it whole."""
ENGINE_SECRETS = {"VLLM_API_KEY": "leak-canary-vllm-api-key"}
ENGINE_ARGUMENTS = ("leak-canary-engine-api-key-argument", "leak-canary-engine-hf-token-arg")
URL_PASSWORD = "leak-canary-url-pass%2Fword"
"""Percent-encoded in the URL: sent (and echoed) decoded, `leak-canary-url-pass/word`."""
URL_QUERY_KEY = "leak-canary-url-query-key"
ENV_PASSWORD, ENV_QUERY_KEY = "leak-canary-env-url-pass", "leak-canary-env-url-query-key"
OTHER_SDK_URLS = {"ANTHROPIC_BASE_URL": "https://a:leak-canary-anthropic-url-pass@h/v1",
                  "GOOGLE_GEMINI_BASE_URL": "https://h/v1beta?key=leak-canary-gemini-url-key"}
USER_ONLY = "leak-canary-username-only-token"
MALFORMED_PASSWORD = "leak-canary-malformed-url-pass"

CRASH = """
import base64, os, sys, urllib.parse
import fcbench.report.html as html

def report_after_run(*args, **kwargs):
    url = urllib.parse.urlsplit(sys.argv[sys.argv.index("--base-url") + 1])
    basic = base64.b64encode(f"{url.username}:{urllib.parse.unquote(url.password)}".encode())
    names = ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL", "HF_TOKEN",
             "VLLM_API_KEY", "OPENAI_API_KEY")
    raise MemoryError("forced past every handler: " + " ".join(sys.argv) + " "
                      + " ".join(os.environ.get(n, "") for n in names) + " sent "
                      + basic.decode())

html.report_after_run = report_after_run
from fcbench.cli import main
sys.argv = ["fcbench", *sys.argv[1:]]
main()
"""
"""`fcbench` with an exception forced where nothing catches it (after the score files, in
place of the HTML report): its message holds the command line, the URL variables, the keys
and the Basic credential the base URL makes."""


def basic(user: str, password: str) -> str:
    """What HTTP clients send as `Authorization: Basic` for a URL's userinfo."""
    return base64.b64encode(f"{user}:{password}".encode()).decode()


def issue31_secrets() -> list[str]:
    plain_password = urllib.parse.unquote(URL_PASSWORD)
    return [*KEYS.values(), *ENGINE_SECRETS.values(), *ENGINE_ARGUMENTS, URL_PASSWORD,
            plain_password, URL_QUERY_KEY, ENV_PASSWORD, ENV_QUERY_KEY,
            "leak-canary-anthropic-url-pass", "leak-canary-gemini-url-key", USER_ONLY,
            MALFORMED_PASSWORD, basic("fcbench", plain_password),
            basic("envuser", ENV_PASSWORD), basic(USER_ONLY, ""),
            basic("u", MALFORMED_PASSWORD)]


def fcbench(args: list[str], env: dict[str, str], *, crash: bool = False) -> Any:
    prefix = [sys.executable, "-c", CRASH] if crash else [sys.executable, "-m", "fcbench.cli"]
    return subprocess.run([*prefix, *args], env=env, capture_output=True, text=True,
                          timeout=600)


def test_no_credential_leaves_from_an_engine_an_echoing_endpoint_or_a_crash(
    fetched_home: Path, tmp_path: Path
) -> None:
    """Issue 31, "Must show": a distinct fake value in every key variable, in
    `OPENAI_BASE_URL` (and the other SDKs' URL variables) and in `--base-url` (a
    percent-encoded password with a query key; username-only; malformed with
    `--no-preflight`); a `--serve-cmd` engine that prints them all; an endpoint whose error
    replies echo each request, `Authorization: Basic base64(user:password)` included; an
    exception forced past every handler. Four runs into one result, score and cache folder:
    no value, nor its base64, percent or JSON form, on stdout, stderr or in any file."""
    out = tmp_path / "out"
    common = ["--categories", "simple_python", "--limit", "2", "--cache", "always",
              "--cache-dir", str(out / "cache"), "--result-dir", str(out / "result"),
              "--score-dir", str(out / "score")]
    port, other = dead_port(), dead_port()
    env = {**os.environ, **KEYS, **ENGINE_SECRETS, **OTHER_SDK_URLS,
           "FCBENCH_HOME": str(fetched_home),
           "OPENAI_BASE_URL": f"http://envuser:{ENV_PASSWORD}@127.0.0.1:{other}/v1"
                              f"?api_key={ENV_QUERY_KEY}",
           "FCBENCH_SERVE_ENV": "OPENAI_API_KEY,OPENAI_BASE_URL"}  # the engine prints them
    engine = (f"{sys.executable} {ENGINE} --port {port} --api-key {ENGINE_ARGUMENTS[0]} "
              f"--hf-token={ENGINE_ARGUMENTS[1]}")
    served = fcbench(["run", "--model", "m1", "--serve-cmd", engine, "--base-url",
                      f"http://fcbench:{URL_PASSWORD}@127.0.0.1:{port}/v1"
                      f"?api_key={URL_QUERY_KEY}", *common], env, crash=True)
    log_of_other = (tmp_path / "other-engine.log").open("w")
    other_engine = subprocess.Popen([sys.executable, str(ENGINE), "--port", str(other)],
                                    stdout=log_of_other, stderr=subprocess.STDOUT, env=env)
    try:
        _wait_for(f"http://127.0.0.1:{other}/v1/models")
        from_env = fcbench(["run", "--model", "m2", *common], env)
        user_only = fcbench(["run", "--model", "m3", "--base-url",
                             f"http://{USER_ONLY}@127.0.0.1:{other}/v1", *common], env)
        malformed = fcbench(["run", "--model", "m4", "--no-preflight", "--max-attempts", "1",
                             "--base-url", f"ht!tp://u:{MALFORMED_PASSWORD}@127.0.0.1:{other}/v1",
                             *common], env)
    finally:
        other_engine.terminate()
        other_engine.wait(10)
        log_of_other.close()
    runs = {"served": served, "from_env": from_env, "user_only": user_only,
            "malformed": malformed}
    # what was exercised: the engine printed, the endpoints echoed, the crash was reached
    crash = served.stderr.strip().splitlines()[-1]
    assert crash.startswith("fcbench: error: internal error (MemoryError: forced past every "
                            "handler"), served.stderr[-3000:]
    log = Path(crash.rsplit("traceback in ", 1)[1])
    traceback = log.read_text()
    log.unlink()
    assert "Traceback" in traceback
    assert served.returncode == 1
    for name, proc in runs.items():
        if name != "malformed":
            assert proc.returncode in (0, 1), (name, proc.stderr[-3000:])
    # refused when parsed (issue 30), in one line, the password learnt before the refusal
    assert malformed.returncode == 2, malformed.stderr[-3000:]
    assert malformed.stderr.startswith("fcbench: error: --base-url ht!tp://***@")
    serve_log = (out / "result" / "m1-FC" / "serve.log").read_text()
    assert "engine env VLLM_API_KEY=***" in serve_log and "engine got POST" in serve_log
    assert "authorization=Basic ***" in serve_log
    echoed = (out / "result" / "m2-FC" / "non_live" / "BFCL_v4_simple_python_result.json")
    assert "bad request" in echoed.read_text() and "'Authorization': 'Basic ***'" in (
        echoed.read_text())
    received = (tmp_path / "other-engine.log").read_text()
    for secret in (ENV_PASSWORD, basic("envuser", ENV_PASSWORD), basic(USER_ONLY, "")):
        assert secret in received  # each URL's credentials were really sent, and echoed
    written = [p for p in out.rglob("*") if p.is_file()]
    assert {"result", "score", "cache"} <= {p.relative_to(out).parts[0] for p in written}
    secrets = issue31_secrets()
    problems = {f"{name} {stream}": leaks(getattr(proc, stream), secrets)
                for name, proc in runs.items() for stream in ("stdout", "stderr")}
    problems.update({str(p.relative_to(out)): leaks(file_text(p), secrets) for p in written})
    problems["the crash's traceback log"] = leaks(traceback, secrets)
    assert {where: found for where, found in problems.items() if found} == {}


def _wait_for(url: str, patience: float = 30.0) -> None:
    import time
    import urllib.request

    deadline = time.monotonic() + patience
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
