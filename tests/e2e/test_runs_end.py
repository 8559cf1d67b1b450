"""Runs that end (issue 33): a server killed mid-run stops the run within `--down-after` with
the command that resumes it, and the resume against a live server finishes with nothing lost
or doubled; a server's context-length answer, in each server's words, is recorded once as a
failed case, scored as failed, and not asked again on resume."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fake_openai import FakeOpenAI
from fcbench.cli import main
from fcbench.core import categories

CATS = ["simple_python", "multiple"]
LIMIT = 15
DOWN_AFTER = 2.0


def command(url: str, result_dir: Path) -> list[str]:
    return [
        sys.executable, "-m", "fcbench.cli", "generate", "--model", "m", "--name", "m-FC",
        "--base-url", url, "--categories", ",".join(CATS), "--limit", str(LIMIT),
        "--result-dir", str(result_dir), "--concurrency", "4", "--no-cache", "--quiet",
        "--down-after", str(DOWN_AFTER),
    ]


def entries(result_dir: Path) -> dict[str, list[dict[str, Any]]]:
    from fcbench.layout import result_path

    found = {}
    for name in CATS:
        path = result_path(result_dir / "m-FC", categories.get(name))
        lines = path.read_text().splitlines() if path.exists() else []
        found[name] = [json.loads(line) for line in lines]
    return found


def test_a_killed_server_stops_the_run_and_the_resume_finishes(
    fetched_home: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "FCBENCH_HOME": str(fetched_home),
           "PYTHONPATH": os.pathsep.join(sys.path)}
    result_dir = tmp_path / "result"
    server = FakeOpenAI(hold_after=9)
    server.__enter__()
    port = server.port
    cmd = command(server.base_url, result_dir)
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert server.holding.wait(60), "the run never reached the server"
        killed = time.monotonic()
        server.__exit__(None, None, None)  # the server dies with requests in flight
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    stopped_in = time.monotonic() - killed
    print(f"stopped {stopped_in:.1f} s after the server died (--down-after {DOWN_AFTER})")
    assert proc.returncode == 1, stderr
    assert stopped_in < DOWN_AFTER + 15, f"took {stopped_in:.1f} s to stop"
    [line] = [x for x in stderr.splitlines() if x.startswith("fcbench: error:")]
    assert "no answer from the endpoint since" in line and "connection" in line
    assert f"9 of {2 * LIMIT} case(s) are done" in line
    assert "resume (finished cases are kept): fcbench generate --model m" in line
    assert f"--down-after {DOWN_AFTER}" in line
    before = entries(result_dir)
    answered = {e["id"]: e for cat in before.values() for e in cat if "error" not in e}
    assert len(answered) == 9

    with FakeOpenAI(port=port) as again:
        rerun = subprocess.run(cmd, env=env, stderr=subprocess.PIPE, text=True, timeout=120)
        assert rerun.returncode == 0, rerun.stderr
        assert again.requests == 2 * LIMIT - 9  # the finished cases were not asked again
    after = entries(result_dir)
    for name in CATS:
        ids = [e["id"] for e in after[name]]
        assert len(ids) == LIMIT == len(set(ids)), name
        assert not any("error" in e for e in after[name])
    kept = {e["id"]: e for cat in after.values() for e in cat}
    assert all(kept[i] == e for i, e in answered.items())  # nothing written was lost


# --------------------------------------------------------------------------- context answers

CONTEXT_ANSWERS = {
    "vllm": ("400", {"object": "error", "message": (
        "This model's maximum context length is 8192 tokens. However, you requested 9000 "
        "tokens (8000 in the messages, 1000 in the completion). Please reduce the length of "
        "the messages or completion."), "type": "BadRequestError", "param": None, "code": 400}),
    "sglang": ("400", {"object": "error", "message": (
        "The input (9000 tokens) is longer than the model's context length (8192 tokens)."),
        "type": "BadRequestError", "param": None, "code": 400}),
    "llama.cpp": ("400", {"error": {"code": 400, "message": (
        "the request exceeds the available context size. try increasing the context size or "
        "enable context shift"), "type": "exceed_context_size_error", "n_prompt_tokens": 9000,
        "n_ctx": 8192}}),
    "openai": ("400", {"error": {"message": (
        "This model's maximum context length is 128000 tokens. However, your messages "
        "resulted in 202868 tokens. Please reduce the length of the messages."),
        "type": "invalid_request_error", "param": "messages",
        "code": "context_length_exceeded"}}),
}


@pytest.mark.parametrize("server_kind", sorted(CONTEXT_ANSWERS))
def test_a_servers_context_answer_is_final(
    fetched_home: Path, tmp_path: Path, server_kind: str
) -> None:
    import fcbench
    from fcbench.dataset.load import load_category

    status, body = CONTEXT_ANSWERS[server_kind]
    too_long = load_category("simple_python")[1]
    marker = str(too_long.question[0][-1]["content"])

    def overflow(request: dict[str, Any], _attempt: int) -> str | None:
        sent = " ".join(str(m.get("content")) for m in request["messages"])
        return f"error {status} {json.dumps(body)}" if marker in sent else None

    options: dict[str, Any] = {
        "categories": "simple_python", "limit": 3, "result_dir": tmp_path / "result",
        "score_dir": tmp_path / "score", "cache": "off", "concurrency": 2}
    with FakeOpenAI(faults=overflow) as server:
        first = CliRunner().invoke(main, [
            "run", "--model", "m", "--base-url", server.base_url, "--categories",
            "simple_python", "--limit", "3", "--result-dir", str(tmp_path / "result"),
            "--score-dir", str(tmp_path / "score"), "--no-cache", "--concurrency", "2",
            "--quiet", "--no-report"])
        asked = server.requests
        assert first.exit_code == 0, first.output  # a case's own verdict: the run is whole
        assert "1 case(s) failed for good (the prompt does not fit the context" in first.stderr
        again = fcbench.run("m", base_url=server.base_url, **options)
        assert server.requests == asked  # nothing asked again
    assert again.generation.asked == 0 and again.generation.skipped == 3
    scored = again.models["m"].categories["simple_python"]
    assert scored.total == 3  # the errored case is scored, as the official tool scores it
    assert too_long.id in {case.id for case in scored.failures()}
    from fcbench.layout import result_path

    path = result_path(tmp_path / "result" / again.folder, categories.get("simple_python"))
    stored = {e["id"]: e for e in map(json.loads, path.read_text().splitlines())}
    assert stored[too_long.id]["final"] is True
    assert stored[too_long.id]["result"].startswith("Error during inference: HTTP 400: ")


def test_a_dead_replica_is_set_aside_and_the_other_finishes(
    fetched_home: Path, tmp_path: Path
) -> None:
    import threading

    import fcbench
    from fcbench.runner.generate import ProgressSink

    notes: list[str] = []

    class Notes(ProgressSink):
        def note(self, text: str) -> None:
            notes.append(text)

    dying = FakeOpenAI(hold_after=3)
    dying.__enter__()
    with FakeOpenAI() as alive:
        urls = [dying.base_url, alive.base_url]

        def kill_when_holding() -> None:
            if dying.holding.wait(60):
                dying.__exit__(None, None, None)

        killer = threading.Thread(target=kill_when_holding, daemon=True)
        killer.start()
        result = fcbench.generate(
            "m", base_url=urls, categories=CATS, limit=LIMIT, result_dir=tmp_path / "r",
            cache="off", concurrency=4, down_after=1.0, preflight=False, progress=Notes())
        killer.join(10)
    print("retries with a dead replica:", result.generation.retries)
    assert result.generation.stopped is None and result.generation.errors == 0
    assert alive.requests >= 2 * LIMIT - 3
    assert any(n.startswith(f"{dying.base_url} set aside for 1 s") for n in notes), notes
    folder = tmp_path / "r" / result.folder
    stored = [json.loads(line) for path in folder.rglob("*_result.json")
              for line in path.read_text().splitlines()]
    assert len(stored) == 2 * LIMIT and not any("error" in e for e in stored)
