"""The agentic categories end to end over real HTTP: `fcbench run` against a scripted server.

Memory: the scripted model stores something at every turn of every prerequisite conversation
and answers each question with its ground truth after reading its memory; checked: the
prerequisites run first and in chain order, the snapshots are written where the official
tool writes them, the questions see the memory the prerequisites left (their system prompt
shows it), the questions score, and a `kill -9` in the middle of the prerequisites (two
scenarios' chains: one done, one half-way) then a resume gives the same snapshots and results
as an uninterrupted run.

Web search: the scripted model searches, reads a page and answers; the searches go to a fake
SerpAPI and the pages to a loopback web, all recorded; a second run replays the record with
the web switched off and gets the same tool outputs and the same verdicts. Each mode runs a
stripe of web_search_base (FC the even positions, prompt the odd ones: together every case).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fake_openai import FakeOpenAI, _tool_call
from fcbench.cli import main
from fcbench.dataset.load import load_category
from stripes import stripe

FEEDBACK = "[{'role': 'tool'"
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "envs" / "web_search"))
from fake_web import FakeWeb  # noqa: E402


def position(messages: list[dict[str, Any]]) -> tuple[str, int]:
    """(the current turn's user text, assistant steps already taken in it)."""
    text, step = "", 0
    for message in messages:
        if message["role"] == "user" and not str(message["content"]).startswith(FEEDBACK):
            text, step = str(message["content"]), 0
        elif message["role"] == "assistant":
            step += 1
    return text, step


def answer_texts(category: str) -> dict[str, str]:
    """Question text -> the ground truth's final message."""
    from fcbench.check.agentic import ground_truth_message

    return {str(c.question[0][-1]["content"]): ground_truth_message(c)
            for c in load_category(category)}


def reply(request: dict[str, Any], name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A call in the request's mode: a tool call (FC) or the Python call text (prompt)."""
    if request.get("tools"):
        return {"content": None, "tool_calls": [_tool_call(name, args, 0)]}
    rendered = ", ".join(f"{k}={v!r}" for k, v in args.items())
    return {"content": f"[{name}({rendered})]"}


class MemoryPlayer:
    """Prerequisites: store a note of each turn, then say so. Questions: read the memory,
    then answer with the ground truth."""

    def __init__(self, category: str) -> None:
        self.category = category
        self.answers = answer_texts(category)
        self.order: list[str] = []  # first user text of each conversation, as started
        self.question_systems: list[str] = []

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        messages = request["messages"]
        text, step = position(messages)
        first = next(str(m["content"]) for m in messages if m["role"] == "user")
        if step == 0 and text == first:
            self.order.append(first)
        if text in self.answers:  # a question
            if step == 0:
                self.question_systems.append(str(messages[0]["content"]))
                name = "memory_retrieve" if "rec_sum" in self.category else (
                    "core_memory_retrieve_all")
                return reply(request, name, {})
            return {"content": self.answers[text]}
        if step > 0:
            return {"content": "Noted."}
        note = hashlib.sha256(text.encode()).hexdigest()[:8]
        if "rec_sum" in self.category:
            return reply(request, "memory_append", {"text": f"note {note}. "})
        return reply(request, "core_memory_add", {"key": f"note_{note}", "value": text[:80]})


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize(("category", "mode"), [("memory_kv", "fc"), ("memory_rec_sum", "prompt")])
def test_memory_prerequisites_then_questions(
    fetched_home: Path, tmp_path: Path, category: str, mode: str
) -> None:
    player = MemoryPlayer(category)
    with FakeOpenAI(player) as server:
        result = run_cli("run", "--model", "m", "--name", "m", "--mode", mode, "--base-url",
                         server.base_url, "--categories", category, "--concurrency", "8",
                         "--result-dir", str(tmp_path / "r"), "--score-dir", str(tmp_path / "s"),
                         "--quiet")
    assert result.exit_code == 0, result.output
    backend = category.removeprefix("memory_")
    folder = tmp_path / "r" / "m" / "agentic" / "memory" / backend
    prereqs = load_category(f"{category}_prereq")
    # every prerequisite ran, each chain in its order, before any question of its scenario
    started = {text: i for i, text in enumerate(player.order)}
    firsts = [str(p.question[0][0]["content"]) for p in prereqs]
    for scenario in {p.extras["scenario"] for p in prereqs}:
        chain = [started[f] for p, f in zip(prereqs, firsts, strict=True)
                 if p.extras["scenario"] == scenario]
        assert chain == sorted(chain)
    checkpoints = sorted((folder / "memory_snapshot" / "prereq_checkpoints").glob("*.json"))
    assert [c.stem for c in checkpoints] == sorted(p.id for p in prereqs)
    finals = {p.stem: json.loads(p.read_text())
              for p in (folder / "memory_snapshot").glob("*_final.json")}
    assert sorted(finals) == sorted({f"{p.extras['scenario']}_final" for p in prereqs})
    # the questions saw what the prerequisites stored
    stored = "note_" if backend == "kv" else "note "
    assert player.question_systems and all(stored in s for s in player.question_systems)
    score = tmp_path / "s" / "m" / "agentic" / "memory" / backend / (
        f"BFCL_v4_{category}_score.json")
    header = json.loads(score.read_text().splitlines()[0])
    assert (header["correct_count"], header["total_count"]) == (155, 155)
    assert not (tmp_path / "s" / "m" / "agentic" / "memory" / backend /
                f"BFCL_v4_{category}_prereq_score.json").exists()


KILL_SCENARIOS = ("finance", "notetaker")
"""The memory_kv scenarios the kill -9 test runs (their questions pick them): the two shortest
chains, 7 and 5 prerequisites of 5 turns or fewer, run in this order (dataset order)."""
KILL_AFTER = 90
"""Model requests answered before the kill: the finance chain is done (7 conversations of 5
turns, 2 requests a turn: 70 requests) and the notetaker chain is in its third conversation."""


def kill_questions(category: str) -> list[str]:
    """Two questions of each scenario the kill -9 test runs (they bring all its prerequisites)."""
    chosen: list[str] = []
    for scenario in KILL_SCENARIOS:
        chosen += [c.id for c in load_category(category)
                   if c.extras["scenario"] == scenario][:2]
    return chosen


def test_kill_9_during_prerequisites_then_resume_equals_a_clean_run(
    fetched_home: Path, tmp_path: Path
) -> None:
    """Two scenarios' chains (`KILL_SCENARIOS`), killed once the first chain is done and the
    second is in its middle; the resume must write what an uninterrupted run writes. The kill
    is deterministic: the server answers `KILL_AFTER` requests, then holds the next one, and
    the child is killed while it waits for it. The clean run and the resume run in-process:
    the killed child is the one process this test needs."""
    category = "memory_kv"
    ids = ",".join(kill_questions(category))

    def flags(url: str, result_dir: Path) -> list[str]:
        return ["generate", "--model", "m", "--name", "k", "--base-url", url, "--categories",
                category, "--ids", ids, "--concurrency", "1", "--result-dir", str(result_dir),
                "--quiet"]

    def state(result_dir: Path) -> tuple[dict[str, Any], dict[str, str]]:
        folder = result_dir / "k" / "agentic" / "memory" / "kv"
        results = {}
        for path in folder.glob("*_result.json"):
            for line in path.read_text().splitlines():
                entry = json.loads(line)
                results[entry["id"]] = entry["result"]
        snapshots = {str(p.relative_to(folder)): p.read_text()
                     for p in sorted((folder / "memory_snapshot").rglob("*.json"))}
        return results, snapshots

    prereqs = [p.id for p in load_category(f"{category}_prereq")
               if p.extras["scenario"] in KILL_SCENARIOS]
    with FakeOpenAI(MemoryPlayer(category)) as server:
        clean = run_cli(*flags(server.base_url, tmp_path / "clean"))
        assert clean.exit_code == 0, clean.output
        assert server.requests > KILL_AFTER + 10  # the kill below lands well before the end
        server.requests, server.hold_after = 0, KILL_AFTER
        child = subprocess.Popen([sys.executable, "-m", "fcbench.cli",
                                  *flags(server.base_url, tmp_path / "killed")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert server.holding.wait(120), "the child never reached the held request"
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.wait(10)
        killed_results, _ = state(tmp_path / "killed")
        assert 0 < len(killed_results) < len(prereqs)  # stopped among the prerequisites
        server.hold_after = None
        resumed = run_cli(*flags(server.base_url, tmp_path / "killed"))
        assert resumed.exit_code == 0, resumed.output
    finished, snapshots = state(tmp_path / "clean")
    assert sorted(finished) == sorted([*prereqs, *ids.split(",")])
    assert state(tmp_path / "killed") == (finished, snapshots)


class WebPlayer:
    """Search, read the page the web serves, then answer with the ground truth."""

    def __init__(self, page: str) -> None:
        self.page = page
        self.answers = {**answer_texts("web_search_base")}

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        text, step = position(request["messages"])
        if step == 0:
            return reply(request, "search_engine_query", {"keywords": "tea", "max_results": 3})
        if step == 1:
            return reply(request, "fetch_url_content", {"url": self.page, "mode": "truncate"})
        return {"content": self.answers[text]}


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_web_search_recorded_then_replayed(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    pytest.importorskip("requests")
    monkeypatch.setenv("SERPAPI_API_KEY", "k")
    ids = stripe(["web_search_base"], 0 if mode == "fc" else 1)
    chosen = ("--ids", ",".join(ids))
    web = FakeWeb()
    try:
        player = WebPlayer(web.url("/page"))
        with FakeOpenAI(player) as server:
            first = run_cli("run", "--model", "w", "--mode", mode, "--base-url", server.base_url,
                            "--categories", "web_search_base", *chosen,
                            "--serpapi-endpoint", web.base,
                            "--web-allow-private",
                            "--result-dir", str(tmp_path / "live"),
                            "--score-dir", str(tmp_path / "s1"), "--quiet")
            assert first.exit_code == 0, first.output
            # one live search: the same request is answered from the record afterwards
            assert web.requests["tea"] == 1
    finally:
        web.close()
    folder = "w-FC" if mode == "fc" else "w"
    record = tmp_path / "live" / folder / "agentic" / "web_record"
    with FakeOpenAI(WebPlayer(player.page)) as server:
        again = run_cli("run", "--model", "w", "--mode", mode, "--base-url", server.base_url,
                        "--categories", "web_search_base", *chosen, "--web-provider", "replay",
                        "--web-record", str(record), "--result-dir", str(tmp_path / "replay"),
                        "--score-dir", str(tmp_path / "s2"), "--quiet")
    assert again.exit_code == 0, again.output

    def outputs(root: Path) -> dict[str, Any]:
        path = root / folder / "agentic" / "BFCL_v4_web_search_base_result.json"
        entries = [json.loads(line) for line in path.read_text().splitlines()]
        return {e["id"]: [m for log in e["inference_log"] if isinstance(log, dict)
                          for step in log.values() if isinstance(step, list)
                          for m in step if m.get("role") == "tool"] for e in entries}

    live, replayed = outputs(tmp_path / "live"), outputs(tmp_path / "replay")
    assert live == replayed and sorted(live) == sorted(ids) and len(ids) == 50
    assert "Da Hong Pao" in json.dumps(live[ids[0]])
    for score_dir in ("s1", "s2"):
        path = tmp_path / score_dir / folder / "agentic" / "BFCL_v4_web_search_base_score.json"
        header = json.loads(path.read_text().splitlines()[0])
        assert header["correct_count"] == len(ids) and header["web_search_provider"] in (
            "serpapi", "replay")
    recorded = json.loads((tmp_path / "live" / folder / "model.json").read_text())
    assert recorded["web_search"]["provider"] == "serpapi" and recorded["web_search"]["comparable"]
    manifest = json.loads((tmp_path / "replay" / folder / "model.json").read_text())
    assert manifest["web_search"]["counts"]["live"] == 0


def closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_failed_searches_are_failures_asked_again(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SerpAPI unreachable: the model reads the official error, but each case is errored
    (counted by reason), no failure is recorded to replay, the run is not comparable; the
    next run asks those cases again, live, and is comparable once none fails; N alike
    failures first stop the run."""
    pytest.importorskip("requests")
    monkeypatch.setenv("SERPAPI_API_KEY", "k")
    web = FakeWeb()
    down = f"http://127.0.0.1:{closed_port()}"
    results, scores = tmp_path / "r", tmp_path / "s"
    folder = results / "w-FC"
    flags = ["--model", "w", "--categories", "web_search_base", "--limit", "5",
             "--result-dir", str(results), "--score-dir", str(scores), "--quiet"]

    def manifest() -> dict[str, Any]:
        return dict(json.loads((folder / "model.json").read_text()))

    def header() -> dict[str, Any]:
        path = scores / "w-FC" / "agentic" / "BFCL_v4_web_search_base_score.json"
        return dict(json.loads(path.read_text().splitlines()[0]))

    try:
        with FakeOpenAI(WebPlayer(web.url("/page"))) as server:
            failed = run_cli("run", *flags, "--base-url", server.base_url,
                             "--serpapi-endpoint", down)
            assert failed.exit_code == 1, failed.output
            assert "web tool failed: SerpAPI ConnectionError × 5" in failed.stderr
            assert "5 case(s) errored by a failed web search or page fetch" in failed.stderr
            described = manifest()["web_search"]
            assert described["failures"] == {"SerpAPI ConnectionError": 5}
            assert described["counts"]["failed"] == 5 and described["failed_cases"] == 5
            assert described["comparable"] is False and header()["web_search_comparable"] is False
            assert manifest()["runs"][-1]["errors_by_reason"] == {
                "web tool failed: SerpAPI ConnectionError": 5}
            index = (folder / "agentic" / "web_record" / "index.jsonl").read_text()
            assert "search_engine_query" not in index  # never stored as an answer
            assert "fetch_url_content" in index  # the page the model read still is

            again = run_cli("run", *flags, "--base-url", server.base_url,
                            "--serpapi-endpoint", web.base)
            assert again.exit_code == 0, again.output
            assert "asked 5 case(s)" in again.stderr and web.requests["tea"] == 1
            described = manifest()["web_search"]
            assert described["comparable"] is True and described["failed_cases"] == 0
            assert header()["web_search_comparable"] is True and header()["correct_count"] == 5

            stopped = run_cli("generate", "--model", "w", "--categories", "web_search_base",
                              "--limit", "6", "--stop-after", "1", "--concurrency", "1",
                              "--name", "stop", "--result-dir", str(results), "--quiet",
                              "--base-url", server.base_url, "--serpapi-endpoint", down)
            assert stopped.exit_code == 1
            assert ("stopped early: the first 1 cases all failed with: web tool failed: "
                    "SerpAPI ConnectionError; 1 of 6 case(s) were asked") in stopped.stderr
    finally:
        web.close()
