"""The response cache end to end: `fcbench run` / `generate` against the local server with
the cache at its default (`auto`).

* a repeated run makes no model request at all, single-turn and multi-turn alike, and
  writes the same results;
* errors are never cached: a case that failed is asked again;
* sampling (temperature > 0.01) bypasses the cache unless `--cache always`;
* `kill -9` in the middle of a cached run leaves a readable cache, and the next run asks
  only what the cache lacks;
* several runs at once share one cache file without losing a reply.

The process tests run the first `CASES` cases of simple_python (`--limit`): enough for three
kills of 40 answers each and for three runs at once to write over each other.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from scripted_model import ScriptedModel

from fake_openai import FakeOpenAI
from fcbench.cli import main

SHOP = Path(__file__).resolve().parents[1] / "data" / "custom_shop"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def shop_cases() -> list[Any]:
    from fcbench.dataset.custom import datasets_in, use_data_dirs
    from fcbench.dataset.load import load_category

    use_data_dirs(SHOP)
    (dataset,) = datasets_in(SHOP)
    return [case for cat in dataset.categories for case in load_category(cat.row)]


def results(result_dir: Path) -> dict[str, Any]:
    found = {}
    for path in sorted(result_dir.rglob("BFCL_v4_*_result.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            found[entry["id"]] = entry["result"]
    return found


def run_shop(server: FakeOpenAI, tmp: Path, name: str, *extra: str) -> Result:
    return cli("run", "--model", "scripted", "--base-url", server.base_url, "--data-dir",
               str(SHOP), "--result-dir", str(tmp / name), "--score-dir", str(tmp / f"{name}-s"),
               "--quiet", *extra)


def test_repeated_run_asks_nothing(fetched_home: Path, tmp_path: Path, cache_on: Path) -> None:
    cases = shop_cases()
    with FakeOpenAI(ScriptedModel(cases)) as server:
        first = run_shop(server, tmp_path, "first")
        asked = server.requests
        second = run_shop(server, tmp_path, "second")
        assert server.requests == asked  # not one request the second time
    assert first.exit_code == 0 and second.exit_code == 0
    multi_turn_steps = sum(len(t) + 1 for c in cases if c.category == "shop_multi_turn"
                           for t in c.possible_answer)
    assert asked == len(cases) - 2 + multi_turn_steps  # every step of the conversations too
    assert results(tmp_path / "second") == results(tmp_path / "first")
    assert f"cache: {asked} hit(s), 0 miss(es) (100.0% hit rate)" in second.stderr
    assert f"cache: 0 hit(s), {asked} miss(es)" in first.stderr
    run_log = json.loads((tmp_path / "second" / "scripted-FC" / "model.json").read_text())
    cache = run_log["runs"][-1]["cache"]
    assert (cache["hits"], cache["misses"], cache["hit_rate"]) == (asked, 0, 1.0)
    assert Path(cache["path"]).parent == cache_on
    assert (tmp_path / "first-s" / "data_custom.csv").read_text() == (
        tmp_path / "second-s" / "data_custom.csv").read_text()


def test_errors_are_not_cached(fetched_home: Path, tmp_path: Path, cache_on: Path) -> None:
    cases = shop_cases()
    unlucky = "Who won the 1998 football world cup?"

    def faults(request: dict[str, Any], attempt: int) -> str | None:
        return "500" if request["messages"][-1]["content"] == unlucky else None

    with FakeOpenAI(ScriptedModel(cases), faults=faults) as server:
        # two servers in turn: declared interchangeable, as a cache belongs to its endpoints
        first = run_shop(server, tmp_path, "first", "--max-attempts", "2",
                         "--cache-scope", "model")
    assert first.exit_code == 1 and "1 error(s)" in first.stderr
    with FakeOpenAI(ScriptedModel(cases)) as server:
        second = run_shop(server, tmp_path, "second", "--cache-scope", "model")
        assert server.requests == 1  # only the case that failed; the rest from the cache
    assert second.exit_code == 0
    assert str(results(tmp_path / "first")["shop_irrelevance_0"]).startswith("Error during")
    assert results(tmp_path / "second")["shop_irrelevance_0"] == (
        "None of the provided functions can answer this request.")


def test_sampling_bypasses_the_cache_unless_asked(fetched_home: Path, tmp_path: Path,
                                                   cache_on: Path) -> None:
    with FakeOpenAI(ScriptedModel(shop_cases())) as server:
        run_shop(server, tmp_path, "a", "--temperature", "0.7")
        once = server.requests
        sampled = run_shop(server, tmp_path, "b", "--temperature", "0.7")
        assert server.requests == 2 * once
        assert "cache not used: temperature 0.7 samples fresh answers" in sampled.stderr
        run_shop(server, tmp_path, "c", "--temperature", "0.7", "--cache", "always")
        assert server.requests == 3 * once
        run_shop(server, tmp_path, "d", "--temperature", "0.7", "--cache", "always")
        assert server.requests == 3 * once
        off = run_shop(server, tmp_path, "e", "--no-cache")
        assert server.requests == 4 * once and "cache" not in off.stderr


# --------------------------------------------------------------------------- processes


CASES = 150
"""The simple_python cases the process tests run."""
KILL_AFTER = 40
"""Answers each killed run gets before the server holds its requests and it is killed."""


def generate_command(url: str, result_dir: Path, concurrency: int = 4) -> list[str]:
    return [sys.executable, "-m", "fcbench.cli", "generate", "--model", "m", "--base-url", url,
            "--categories", "simple_python", "--limit", str(CASES), "--result-dir",
            str(result_dir), "--concurrency", str(concurrency), "--quiet"]


def open_cache(folder: Path) -> sqlite3.Connection:
    db = sqlite3.connect(folder / "responses.sqlite3")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    return db


def stored_replies(folder: Path) -> int:
    """How many replies the cache holds; each must be a whole response body as received
    (a chat completion whose message has its tool calls)."""
    db = open_cache(folder)
    try:
        rows = db.execute("SELECT reply FROM responses").fetchall()
    finally:
        db.close()
    for (text,) in rows:
        record = json.loads(text)
        assert record["form"] == "raw"
        assert isinstance(json.loads(record["body"])["choices"][0]["message"]["tool_calls"],
                          list)
    return len(rows)


def test_kill_9_leaves_a_readable_cache(fetched_home: Path, tmp_path: Path,
                                        cache_on: Path) -> None:
    """Each run is killed when its request after `KILL_AFTER` answers arrives (the server
    holds it and those after it): the other workers are then storing the last answers."""
    env = dict(os.environ)
    with FakeOpenAI() as server:
        for kill in range(3):
            server.holding.clear()
            server.hold_after = server.requests + KILL_AFTER
            child = subprocess.Popen(generate_command(server.base_url, tmp_path / f"k{kill}"),
                                     env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
            try:
                assert server.holding.wait(60), "the run never reached the held request"
            finally:
                os.kill(child.pid, signal.SIGKILL)
                child.wait(10)
            server.hold_after = None  # the killed run's held requests go unread
            assert child.returncode == -signal.SIGKILL  # killed mid-run, not finished
            kept = stored_replies(cache_on)
            assert 0 < kept <= (kill + 1) * KILL_AFTER
        before = server.requests
        done = cli(*generate_command(server.base_url, tmp_path / "final")[3:])
        assert done.exit_code == 0, done.stderr
        assert server.requests - before == CASES - kept  # the cached cases cost nothing
    assert stored_replies(cache_on) == CASES


def test_concurrent_runs_share_one_cache(fetched_home: Path, tmp_path: Path,
                                         cache_on: Path) -> None:
    env = dict(os.environ)
    with FakeOpenAI(delay=0.002) as server:
        children = [subprocess.Popen(generate_command(server.base_url, tmp_path / f"r{i}", 8),
                                     env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True) for i in range(3)]
        for child in children:
            assert child.wait(300) == 0, child.stderr.read() if child.stderr else ""
        assert CASES <= server.requests <= 3 * CASES
        assert stored_replies(cache_on) == CASES
        for i in range(3):
            run = json.loads((tmp_path / f"r{i}" / "m-FC" / "model.json").read_text())["runs"]
            cache = run[-1]["cache"]
            assert cache["unsaved"] == 0 and cache["hits"] + cache["misses"] == CASES
        before = server.requests
        again = cli(*generate_command(server.base_url, tmp_path / "again")[3:])
        assert again.exit_code == 0 and server.requests == before
    answers = [results(tmp_path / f"r{i}") for i in range(3)] + [results(tmp_path / "again")]
    assert all(a == answers[0] for a in answers) and len(answers[0]) == CASES
