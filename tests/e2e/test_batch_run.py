"""`--batch` end to end against a loopback stand-in of each batch API (`fake_batch_apis`).

The custom shop dataset (9 categories: 11 single-turn cases, 2 multi-turn ones) is run live
and with `--batch` against one stand-in that gives both the same replies:

* the request bodies in the batch equal the bodies the live run sent (the batch run's live
  requests are the multi-turn steps: together they are exactly the live run's requests);
* the result files are the live run's, line for line, but for the `latency` (a batch has
  none: 0) and the `batch` id of batched lines; the score files are byte-identical;
* a run killed (SIGKILL) while its batch is pending, or stopped by `--batch-timeout`,
  resumes without a second submission (the stand-in counts them);
* requests the batch failed (errored, expired) are asked live; error texts are masked;
* OpenAI, Anthropic and Gemini (inline batches through its SDK) alike;
* the batch replies go into the response cache like live ones.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from scripted_model import ScriptedModel
from test_cache_run import SHOP, shop_cases

from fake_batch_apis import FakeBatchAPI
from fcbench.cli import main

KEY = "sk-batch-test-key-0123456789"
BACKENDS = ["openai", "anthropic", pytest.param("google", marks=pytest.mark.skipif(
    importlib.util.find_spec("google.genai") is None, reason="the google extra"))]


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FCBENCH_BATCH_KEY", KEY)


def flags(server: FakeBatchAPI, backend: str, folder: Path, *extra: str,
          command: str = "run") -> list[str]:
    url = server.base_url if backend == "openai" else server.root
    return [command, "--backend", backend, "--model", "scripted", "--base-url", url,
            "--api-key-env", "FCBENCH_BATCH_KEY", "--data-dir", str(SHOP),
            "--result-dir", str(folder / "result"),
            *(["--score-dir", str(folder / "score"), "--no-report"] if command == "run" else []),
            "--quiet", *extra]


def cli(args: list[str]) -> Result:
    return CliRunner().invoke(main, args, catch_exceptions=False)


def batch_flags(poll: str = "0.02") -> list[str]:
    return ["--batch", "--batch-poll", poll]


def result_lines(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Each result file's entries in order, `latency` and `batch` left out."""
    found = {}
    for path in sorted((folder / "result").rglob("BFCL_v4_*_result.json")):
        entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        found[path.name] = [{k: v for k, v in e.items() if k not in ("latency", "batch")}
                            for e in entries]
    return found


def batch_ids(folder: Path) -> dict[str, str | None]:
    return {e["id"]: e.get("batch") for path in (folder / "result").rglob("*_result.json")
            for e in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def score_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "score").rglob("*_score.json"))}


def canonical(bodies: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(body, sort_keys=True) for body in bodies)


@pytest.mark.parametrize("backend", BACKENDS)
def test_batch_run_equals_the_live_run(fetched_home: Path, tmp_path: Path, backend: str) -> None:
    cases = shop_cases()
    single = [c.id for c in cases if not c.extras.get("involved_classes")]
    with FakeBatchAPI(ScriptedModel(cases)) as server:
        server.finish.set()
        live = cli(flags(server, backend, tmp_path / "live"))
        live_bodies = list(server.live_bodies)
        batched = cli(flags(server, backend, tmp_path / "batch", *batch_flags()))
        batch_run_live = server.live_bodies[len(live_bodies):]
    assert live.exit_code == 0, live.output
    assert batched.exit_code == 0, batched.output
    assert server.submissions == 1 and len(server.batch_bodies) == len(single) == 11
    # every body the live run sent, the batch run sent: batched or (multi-turn steps) live
    assert canonical(server.batch_bodies + batch_run_live) == canonical(live_bodies)
    turns = "contents" if backend == "google" else "messages"
    assert all(turns in b and "tools" in b for b in server.batch_bodies)
    assert "2 multi-turn/agentic case(s) are asked live" in batched.stderr
    assert "submitted" in batched.stderr and "11/11 request(s) done, 0 failed" in batched.stderr
    assert result_lines(tmp_path / "batch") == result_lines(tmp_path / "live")
    scores = score_files(tmp_path / "batch")
    assert scores and scores == score_files(tmp_path / "live")
    ids = batch_ids(tmp_path / "batch")
    assert {i for i, b in ids.items() if b} == set(single)  # multi-turn cases: no batch id
    assert not any(batch_ids(tmp_path / "live").values())
    kept = (tmp_path / "batch" / "result" / "scripted-FC" / "fcbench_batches.json").read_text()
    assert KEY not in kept and json.loads(kept)["batches"][0]["id"] == next(
        b for b in ids.values() if b)
    assert run_log(tmp_path / "batch")["batch"] == {
        "api": backend, "requests": 11, "submitted": 11, "answered": 11, "asked_live": 0}


def run_log(folder: Path) -> dict[str, Any]:
    """The last run's entry in the result folder's model.json."""
    path = next((folder / "result").rglob("model.json"))
    return dict(json.loads(path.read_text(encoding="utf-8"))["runs"][-1])


def _generate_child(server: FakeBatchAPI, backend: str, folder: Path) -> subprocess.Popen[bytes]:
    args = flags(server, backend, folder, *batch_flags(), command="generate")
    return subprocess.Popen([sys.executable, "-m", "fcbench.cli", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.mark.parametrize(("backend", "kill"), [
    ("openai", True), ("anthropic", True), pytest.param("google", False, marks=BACKENDS[2].marks)])
def test_killed_while_pending_resumes_without_resubmitting(
    fetched_home: Path, tmp_path: Path, backend: str, kill: bool
) -> None:
    """A run killed (SIGKILL, a real process: OpenAI, Anthropic; the kept state is the same
    code for every API, so Gemini saves the process) while its batch is pending, then a run
    stopped by `--batch-timeout`, then one that collects: one submission."""
    with FakeBatchAPI(ScriptedModel(shop_cases())) as server:
        if kill:
            child = _generate_child(server, backend, tmp_path)
            try:
                deadline = time.monotonic() + 120
                # polling starts only once the batch id is written: kill -9 while pending
                while server.polls < 2 and child.poll() is None and (
                        time.monotonic() < deadline):
                    time.sleep(0.02)
                assert child.poll() is None, child.stderr.read() if child.stderr else ""
            finally:
                os.kill(child.pid, signal.SIGKILL)
                child.wait(10)
            assert server.submissions == 1
        stopped = cli(flags(server, backend, tmp_path, "--batch-timeout", "0.1",
                            *batch_flags(), command="generate"))
        assert stopped.exit_code == 1
        assert "still running" in stopped.stderr and "--batch-timeout" in stopped.stderr
        assert "resume (finished cases are kept): fcbench" in stopped.stderr
        assert "a longer --batch-timeout waits longer" in stopped.stderr
        assert server.submissions == 1
        server.finish.set()
        resumed = cli(flags(server, backend, tmp_path, *batch_flags(), command="generate"))
        assert resumed.exit_code == 0, resumed.output
        assert server.submissions == 1 and len(server.batch_bodies) == 11
    assert "11 request(s) already submitted: picked up" in resumed.stderr
    assert run_log(tmp_path)["batch"]["submitted"] == 0
    ids = batch_ids(tmp_path)
    assert len(ids) == 13 and len({b for b in ids.values() if b}) == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_failed_batch_requests_are_asked_live(
    fetched_home: Path, tmp_path: Path, backend: str
) -> None:
    failures = iter(["errored", "expired"])

    def fail(custom_id: str, body: dict[str, Any]) -> str | None:
        return next(failures, None)

    with FakeBatchAPI(ScriptedModel(shop_cases()), fail=fail) as server:
        server.finish.set()
        server.error_text = f"bad request with {KEY}"
        live = cli(flags(server, backend, tmp_path / "live", command="generate"))
        before = len(server.live_bodies)
        batched = cli(flags(server, backend, tmp_path / "batch", *batch_flags(),
                            command="generate"))
        asked_live = server.live_bodies[before:]
    assert batched.exit_code == 0 and live.exit_code == 0, batched.output
    assert "2 request(s) without a batch answer" in batched.stderr
    assert "asked live" in batched.stderr and KEY not in batched.stderr
    assert len(asked_live) == 9 + 2  # the multi-turn steps and the two failed requests
    assert result_lines(tmp_path / "batch") == result_lines(tmp_path / "live")
    assert sum(1 for b in batch_ids(tmp_path / "batch").values() if b) == 9
    assert run_log(tmp_path / "batch")["batch"]["asked_live"] == 2


def test_batch_replies_are_kept_in_the_response_cache(
    fetched_home: Path, tmp_path: Path, cache_on: Path
) -> None:
    with FakeBatchAPI(ScriptedModel(shop_cases())) as server:
        server.finish.set()
        batched = cli(flags(server, "openai", tmp_path / "batch", *batch_flags(),
                            command="generate"))
        asked = len(server.live_bodies)
        again = cli(flags(server, "openai", tmp_path / "again", *batch_flags(),
                          command="generate"))
        live = cli(flags(server, "openai", tmp_path / "live", command="generate"))
        assert len(server.live_bodies) == asked and server.submissions == 1
    assert batched.exit_code == again.exit_code == live.exit_code == 0
    assert "submitted" not in again.stderr  # everything kept: nothing to submit
    assert result_lines(tmp_path / "live") == result_lines(tmp_path / "batch")


def test_a_backend_without_a_batch_api_is_refused_in_one_line(
    fetched_home: Path, tmp_path: Path
) -> None:
    result = cli(["generate", "--model", "ground-truth", "--data-dir", str(SHOP),
                  "--result-dir", str(tmp_path), "--quiet", "--batch"])
    assert result.exit_code != 0
    assert result.stderr == ("fcbench: error: --batch: this backend has no batch API (offered "
                             "for the anthropic, google, openai-compatible backends)\n")
    assert "Traceback" not in result.output and not list(tmp_path.rglob("*.json"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_lost_submission_reply_is_looked_up_not_submitted_again(
    fetched_home: Path, tmp_path: Path, backend: str
) -> None:
    """The provider created the batch but its answer never came: the run stops (the id is
    unknown); the next run finds the batch by the token kept in its metadata (OpenAI) or
    display name (Gemini). Anthropic's batches keep no tags: the next run says so and
    submits again."""
    with FakeBatchAPI(ScriptedModel(shop_cases())) as server:
        server.finish.set()
        server.lose_create_replies = 1
        lost = cli(flags(server, backend, tmp_path, *batch_flags(), command="generate"))
        assert lost.exit_code == 1 and "batch submission failed: HTTP 500" in lost.stderr
        assert "a rerun looks the batch up before submitting again" in lost.stderr
        resumed = cli(flags(server, backend, tmp_path, *batch_flags(), command="generate"))
        assert resumed.exit_code == 0, resumed.output
        submissions = server.submissions
    ids = batch_ids(tmp_path)
    assert len(ids) == 13 and len({b for b in ids.values() if b}) == 1
    if backend != "anthropic":
        assert submissions == 1
        assert "an interrupted submission (11 request(s)) was found: " in resumed.stderr
        assert run_log(tmp_path)["batch"]["submitted"] == 0
    else:
        assert submissions == 2
        assert "cannot be looked up at anthropic: submitted again" in resumed.stderr


def test_format_sensitivity_is_batched_as_asked_live(fetched_home: Path, tmp_path: Path) -> None:
    """Prompt mode and the 26 prompt configurations: each batch line is the live body (its
    configuration's system prompt), and the score files are the live run's."""
    from fake_openai import constant_responder

    with FakeBatchAPI(constant_responder) as server:
        server.finish.set()
        common = ["run", "--model", "m", "--base-url", server.base_url, "--mode", "prompt",
                  "--categories", "format_sensitivity,simple_python", "--limit", "10",
                  "--quiet", "--no-report"]
        live = cli([*common, "--result-dir", str(tmp_path / "live" / "result"),
                    "--score-dir", str(tmp_path / "live" / "score")])
        live_bodies = list(server.live_bodies)
        batched = cli([*common, "--result-dir", str(tmp_path / "batch" / "result"),
                       "--score-dir", str(tmp_path / "batch" / "score"), *batch_flags()])
        assert len(server.live_bodies) == len(live_bodies)  # nothing asked live
    assert live.exit_code == batched.exit_code == 0, batched.output
    assert len(server.batch_bodies) == 20 and canonical(server.batch_bodies) == canonical(
        live_bodies)
    assert len({b["messages"][0]["content"] for b in server.batch_bodies}) > 2
    scores = score_files(tmp_path / "batch")
    assert len(scores) == 2 and scores == score_files(tmp_path / "live")
    assert result_lines(tmp_path / "batch") == result_lines(tmp_path / "live")


@pytest.mark.parametrize("backend", BACKENDS[:2])
def test_an_unavailable_batch_api_is_asked_again(
    fetched_home: Path, tmp_path: Path, backend: str
) -> None:
    """503s on polling and on reading the results: asked again, nothing asked live twice,
    nothing submitted twice."""
    with FakeBatchAPI(ScriptedModel(shop_cases())) as server:
        server.finish.set()
        server.unavailable, server.unavailable_results = 2, 2
        result = cli(flags(server, backend, tmp_path, *batch_flags(), command="generate"))
        assert result.exit_code == 0, result.output
        assert server.submissions == 1 and len(server.live_bodies) == 9  # multi-turn only
    assert "failed (HTTP 503" in result.stderr and "asked again" in result.stderr
    assert "unavailable (HTTP 503" in result.stderr and ": asked again" in result.stderr
    assert "asked live" not in result.stderr.replace("are asked live", "")
    assert run_log(tmp_path)["batch"]["answered"] == 11


def test_overwrite_submits_afresh(fetched_home: Path, tmp_path: Path) -> None:
    """`--overwrite` starts over: the earlier batches' replies are not reused (a sampled run
    wants fresh answers), the requests are submitted again."""
    with FakeBatchAPI(ScriptedModel(shop_cases())) as server:
        server.finish.set()
        first = cli(flags(server, "openai", tmp_path, *batch_flags(), command="generate"))
        again = cli(flags(server, "openai", tmp_path, *batch_flags(), "--overwrite",
                          command="generate"))
        assert first.exit_code == again.exit_code == 0, again.output
        assert server.submissions == 2
    assert len({b for b in batch_ids(tmp_path).values() if b}) == 1
    kept = json.loads(next(tmp_path.rglob("fcbench_batches.json")).read_text())
    assert len(kept["batches"]) == 1
