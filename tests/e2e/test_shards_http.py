"""Shards end to end: a category mix run as N `fcbench generate --shard K/N` processes against
one loopback server, one shard killed with SIGKILL and resumed, merged with `fcbench merge`,
scored: the score files are byte for byte those of one unsharded run. A shard of another
configuration is refused by the merge.

The mix: single-turn (simple_python), multi-turn (multi_turn_base), memory with its
prerequisite conversations (memory_kv, two scenarios: the chains that must stay in one
shard), web search (web_search_base, answered by the loopback SerpAPI stand-in and pages,
`fake_web`). The scripted model (`test_agentic_http`'s players) answers the same request the
same way whichever process asks it, so any difference is the sharding's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fake_openai import FakeOpenAI
from fcbench.cli import main
from fcbench.dataset.load import load_category
from fcbench.dataset.shards import shard_of

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_agentic_http import MemoryPlayer, WebPlayer, position

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "envs" / "web_search"))
from fake_web import FakeWeb

SHARDS = 3
NAME = "m"
SCENARIOS = ("finance", "notetaker")
KILL_AFTER = 25
"""Requests the killed shard gets answered before its next one is held and it is killed:
inside its memory prerequisite chain (the finance chain alone is 70 requests)."""


def chosen_ids() -> list[str]:
    memory = [c.id for c in load_category("memory_kv") if c.extras["scenario"] in SCENARIOS]
    return [*(f"simple_python_{i}" for i in range(8)), *(f"multi_turn_base_{i}" for i in range(3)),
            *memory[::4], *(f"web_search_base_{i}" for i in range(4))]


class MixPlayer:
    """Web-search requests (their tools include the search tool) to the web player,
    everything else to the memory player (which stores a note at a prerequisite's turn,
    answers a question, and for any other case makes one call and then says it is done: a
    deterministic wrong answer). A memory question answers right only when its system prompt
    shows the notes its scenario's prerequisites stored: asked in a shard without them, it
    fails, and the merged scores differ."""

    def __init__(self, page: str) -> None:
        self.web = WebPlayer(page)
        self.memory = MemoryPlayer("memory_kv")

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        names = {t["function"]["name"] for t in request.get("tools") or []}
        if "search_engine_query" in names:
            return self.web(request)
        messages = request["messages"]
        text, step = position(messages)
        if text in self.memory.answers and step > 0 and "note_" not in str(messages[0]):
            return {"content": "I remember nothing."}  # a question asked without its memory
        return self.memory(request)


def flags(url: str, web: str, result_dir: Path, *more: str) -> list[str]:
    return ["generate", "--model", "m", "--name", NAME, "--base-url", url, "--categories",
            "simple_python,multi_turn_base,memory_kv,web_search_base", "--ids",
            ",".join(chosen_ids()), "--concurrency", "2", "--result-dir", str(result_dir),
            "--serpapi-endpoint", web, "--web-allow-private", "--no-preflight", "--quiet",
            *more]


def spawn(args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "fcbench.cli", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def web_record(folder: Path) -> dict[str, bytes]:
    """A folder's web record: each request key -> the answer file's bytes it names."""
    record = folder / "agentic" / "web_record"
    entries = [json.loads(line) for line in (record / "index.jsonl").read_text().splitlines()]
    keys = [e["key"] for e in entries]
    assert len(keys) == len(set(keys)), "a request indexed twice"
    return {e["key"]: (record / f"{e['sha256']}.json.gz").read_bytes() for e in entries}


def score_files(score_dir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(score_dir)): p.read_bytes()
            for p in sorted(score_dir.rglob("BFCL_v4_*_score.json"))}


def test_shards_in_processes_killed_resumed_merged_equal_one_run(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("requests")
    monkeypatch.setenv("SERPAPI_API_KEY", "k")
    killed = shard_of("memory_kv:finance", SHARDS)  # the shard whose chain is cut
    web = FakeWeb()
    try:
        with FakeOpenAI(MixPlayer(web.url("/page"))) as server:
            whole = cli(*flags(server.base_url, web.base, tmp_path / "whole"))
            assert whole.exit_code == 0, whole.output
            server.requests, server.hold_after = 0, KILL_AFTER
            child = spawn(flags(server.base_url, web.base, tmp_path / "shards",
                                "--shard", f"{killed}/{SHARDS}"))
            try:
                assert server.holding.wait(120), "the shard never reached the held request"
            finally:
                os.kill(child.pid, signal.SIGKILL)
                child.wait(10)
            folder = tmp_path / "shards" / f"{NAME}.shard-{killed}-of-{SHARDS}"
            prereqs = folder / "agentic" / "memory" / "kv" / (
                "BFCL_v4_memory_kv_prereq_result.json")
            assert 0 < len(prereqs.read_text().splitlines()) < 12  # cut inside the chains
            server.hold_after = None
            children = [spawn(flags(server.base_url, web.base, tmp_path / "shards",
                                    "--shard", f"{k}/{SHARDS}")) for k in range(SHARDS)]
            for process in children:
                _, err = process.communicate(timeout=240)
                assert process.returncode == 0, err.decode()
            other = cli(*flags(server.base_url, web.base, tmp_path / "other",
                               "--shard", f"{(killed + 1) % SHARDS}/{SHARDS}",
                               "--temperature", "0.7"))
            assert other.exit_code == 0, other.output
    finally:
        web.close()
    shards = sorted((tmp_path / "shards").iterdir())
    assert [p.name for p in shards] == [f"{NAME}.shard-{k}-of-{SHARDS}" for k in range(SHARDS)]

    merged = cli("merge", *map(str, shards), "--into", str(tmp_path / "merged" / NAME))
    assert merged.exit_code == 0, merged.output
    records = {name: web_record(tmp_path / name / NAME) for name in ("whole", "merged")}
    assert records["merged"] == records["whole"] and records["whole"]  # replayable as one
    for result_dir, score_dir in (("whole", "s1"), ("merged", "s2")):
        scored = cli("evaluate", "--result-dir", str(tmp_path / result_dir), "--score-dir",
                     str(tmp_path / score_dir))
        assert scored.exit_code == 0, scored.output
    want, got = score_files(tmp_path / "s1"), score_files(tmp_path / "s2")
    assert len(want) == 4 and got == want  # the four scored categories, byte for byte

    odd = tmp_path / "other" / f"{NAME}.shard-{(killed + 1) % SHARDS}-of-{SHARDS}"
    mixed = [str(p) for p in shards if not p.name.endswith(f"-{(killed + 1) % SHARDS}-of-3")]
    refused = cli("merge", *mixed, str(odd), "--into", str(tmp_path / "refused"))
    assert refused.exit_code == 2
    assert "sampling.temperature" in refused.stderr and "not a shard of the same run" in (
        refused.stderr)
    assert not (tmp_path / "refused").exists()
