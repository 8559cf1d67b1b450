"""`fcbench run --repeats` end to end against a loopback stand-in that answers at random.

The stand-in (`CoinModel`) knows the shop dataset's cases (tests/data/custom_shop: AST,
irrelevance, relevance, exec and multi-turn categories). For each case and repeat it tosses
a coin seeded with a fixed seed, the case and the repeat (told by the request's `seed`:
base seed + repeat - 1), and answers the whole case right (the ground truth, step by step in
multi-turn) or wrong (the other kind of answer: text for a call, a call for a text, no
call in any turn of a conversation). It records each toss and counts every request it
answers per case, repeat, turn and step.

Shown: every repeat's official verdicts are the tosses; the per-case consistency, the flaky
cases and pass^k / pass@k of `NAME.repeats.json` equal the numbers worked out here from the
tosses alone (not with `score.repeats`); a run killed (SIGKILL) as repeat 3 begins
resumes with nothing asked twice; the 95% interval of the pooled score narrows from 3 to 5
repeats; the repeat folders are ordinary model folders (`evaluate` and `compare` read them).
"""

from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from scripted_model import ScriptedModel, position

from fake_openai import FakeOpenAI, _tool_call
from fcbench.cli import main
from fcbench.core.model import TestCase

SHOP = Path(__file__).resolve().parents[1] / "data" / "custom_shop"
BASE_SEED = 40
COIN = 20261207
"""The stand-in's fixed seed."""
NAME = "coin-FC"


def shop_cases() -> list[TestCase]:
    from fcbench.dataset.custom import datasets_in, use_data_dirs
    from fcbench.dataset.load import load_category

    use_data_dirs(SHOP)
    (dataset,) = datasets_in(SHOP)
    return [case for cat in dataset.categories for case in load_category(cat.row)]


class CoinModel:
    """Right or wrong at random per (case, repeat), with a fixed seed; see the module
    docstring."""

    def __init__(self, cases: list[TestCase]) -> None:
        self.right = ScriptedModel(cases)
        self.tosses: dict[tuple[str, int], bool] = {}
        self.answered: Counter[tuple[str, int, int, int]] = Counter()
        self.stall_from: int | None = None
        self.stalled = threading.Event()
        self.lock = threading.Lock()

    def case_of(self, request: dict[str, Any]) -> TestCase | None:
        first = next((m for m in request.get("messages", []) if m["role"] == "user"), None)
        return self.right.cases.get(str(first["content"])) if first else None

    @staticmethod
    def repeat_of(request: dict[str, Any]) -> int:
        return int(request["seed"]) - BASE_SEED + 1

    def toss(self, case: TestCase, repeat: int) -> bool:
        return random.Random(f"{COIN}:{case.id}:{repeat}").random() < 0.5

    def faults(self, request: dict[str, Any], attempt: int) -> str | None:
        """Stall (never answer) every request of repeat `stall_from` on: the run is then
        held as that repeat begins, and killed there."""
        if self.stall_from is not None and self.case_of(request) is not None and (
                self.repeat_of(request) >= self.stall_from):
            self.stalled.set()
            return "stall"
        return None

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        case = self.case_of(request)
        if case is None:  # a preflight's probe
            return {"content": "ok"}
        repeat = self.repeat_of(request)
        right = self.toss(case, repeat)
        with self.lock:
            self.tosses[(case.id, repeat)] = right
            self.answered[(case.id, repeat, *position(request["messages"]))] += 1
        if right:
            return self.right(request)
        if case.extras.get("involved_classes"):
            return {"content": "I will not do that."}  # ends every turn without a call
        tools = request.get("tools") or []
        truth = self.right(request)
        if truth.get("tool_calls") or not tools:
            return {"content": "I cannot help with that."}
        return {"content": None, "tool_calls": [
            _tool_call(tools[0]["function"]["name"], "{}", 0)]}


def command(url: str, tmp: Path, repeats: int, report: bool = False) -> list[str]:
    return ["run", "--model", "coin", "--base-url", url, "--data-dir", str(SHOP),
            "--result-dir", str(tmp / "result"), "--score-dir", str(tmp / "score"),
            "--repeats", str(repeats), "--model-seed", str(BASE_SEED), "--cache", "always",
            "--quiet", "--concurrency", "4", *([] if report else ["--no-report"])]


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def verdicts_in_score_files(score: Path, folder: str) -> dict[str, bool]:
    """Each judged case's official verdict in one repeat: the failures are the score files'
    records, the rest of the result file's ids passed."""
    failed = {json.loads(line)["id"] for path in (score / folder).rglob("*_score.json")
              for line in path.read_text().splitlines()[1:]}
    judged = {json.loads(line)["id"] for path in (score.parent / "result" / folder).rglob(
        "*_result.json") for line in path.read_text().splitlines()}
    return {case: case not in failed for case in judged}


def by_hand(tosses: dict[tuple[str, int], bool], cases: list[TestCase],
            repeats: int) -> dict[str, dict[str, Any]]:
    """Per category, from the tosses alone: consistency counts, flaky ids, pass^k, pass@k."""
    found: dict[str, dict[str, Any]] = {}
    for category in sorted({c.category for c in cases}):
        rows = {c.id: [tosses[(c.id, r)] for r in range(1, repeats + 1)]
                for c in cases if c.category == category}
        hat, at = {}, {}
        for k in range(1, repeats + 1):
            # every k-subset of the repeats, counted: all right / at least one right
            subsets = [list(s) for s in _subsets(range(repeats), k)]
            hat[str(k)] = sum(sum(all(row[i] for i in s) for s in subsets) / len(subsets)
                              for row in rows.values()) / len(rows)
            at[str(k)] = sum(sum(any(row[i] for i in s) for s in subsets) / len(subsets)
                             for row in rows.values()) / len(rows)
        found[category] = {
            "consistent_pass": sum(all(row) for row in rows.values()),
            "consistent_fail": sum(not any(row) for row in rows.values()),
            "flaky_ids": sorted(c for c, row in rows.items() if any(row) and not all(row)),
            "pass_hat_k": hat, "pass_at_k": at,
        }
    return found


def _subsets(items: range, k: int) -> list[tuple[int, ...]]:
    import itertools

    return list(itertools.combinations(items, k))


def pooled_width(score: Path) -> float:
    document = json.loads((score / f"{NAME}.repeats.json").read_text())
    low, high = document["summaries"]["All cases"]["ci95"]
    return float(high - low)


def test_repeats_kill_resume_and_statistics(fetched_home: Path, tmp_path: Path,
                                            cache_on: Path) -> None:
    cases = shop_cases()
    model = CoinModel(cases)
    env = {**os.environ, "FCBENCH_HOME": str(fetched_home)}
    with FakeOpenAI(model, faults=model.faults, stall_seconds=120) as server:
        # 1. a run of 5 repeats, killed (SIGKILL) as its third repeat begins
        model.stall_from = 3
        child = subprocess.Popen([sys.executable, "-m", "fcbench.cli",
                                  *command(server.base_url, tmp_path, 5)],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            while not model.stalled.wait(0.1):
                assert child.poll() is None, "the run ended without reaching repeat 3"
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.wait(30)
        assert child.returncode == -signal.SIGKILL
        assert {r for _, r in model.tosses} == {1, 2}
        model.stall_from = None
        # 2. resumed with 3 repeats: repeats 1 and 2 are not asked again, 3 is asked
        third = cli(*command(server.base_url, tmp_path, 3))
        assert third.exit_code == 0, third.output
        width_3 = pooled_width(tmp_path / "score")
        for done in (1, 2):  # resumed from the result files: not even the cache is asked
            assert f"{NAME}.repeat-{done}: asked 0 case(s)" in third.stderr, third.stderr
        assert f"{NAME}.repeat-3: asked {len(cases)} case(s)" in third.stderr
        # 3. grown to 5 repeats: only 4 and 5 are asked
        fifth = cli(*command(server.base_url, tmp_path, 5, report=True))
        assert fifth.exit_code == 0, fifth.output
        assert f"{NAME}.repeat-3: asked 0 case(s)" in fifth.stderr
    assert max(model.answered.values()) == 1, "a step was asked twice"
    assert {r for _, r in model.tosses} == {1, 2, 3, 4, 5}
    assert len(model.tosses) == 5 * len(cases)

    score = tmp_path / "score"
    for repeat in range(1, 6):  # the official verdicts of each repeat are the tosses
        seen = verdicts_in_score_files(score, f"{NAME}.repeat-{repeat}")
        assert seen == {c.id: model.tosses[(c.id, repeat)] for c in cases}, repeat
        manifest = json.loads((tmp_path / "result" / f"{NAME}.repeat-{repeat}" /
                               "model.json").read_text())
        assert manifest["sampling"]["seed"] == BASE_SEED + repeat - 1

    document = json.loads((score / f"{NAME}.repeats.json").read_text())
    assert [r["seed"] for r in document["repeats"]] == [BASE_SEED + i for i in range(5)]
    expected = by_hand(model.tosses, cases, 5)
    assert set(document["categories"]) == set(expected)
    for category, want in expected.items():
        got = document["categories"][category]
        assert got["consistent_pass"] == want["consistent_pass"], category
        assert got["consistent_fail"] == want["consistent_fail"], category
        assert sorted(got["flaky_ids"]) == want["flaky_ids"], category
        for k in want["pass_hat_k"]:
            assert math.isclose(got["pass_hat_k"][k], want["pass_hat_k"][k]), (category, k)
            assert math.isclose(got["pass_at_k"][k], want["pass_at_k"][k]), (category, k)
    assert document["categories"]["shop_multi_turn"]["multi_step"] is True
    pooled = document["multi_step"]  # the only multi-turn category: the pool is its cases
    assert pooled["cases"] == 2
    for k, value in expected["shop_multi_turn"]["pass_hat_k"].items():
        assert math.isclose(pooled["pass_hat_k"][k], value)
        assert math.isclose(pooled["pass_at_k"][k], expected["shop_multi_turn"]["pass_at_k"][k])
    # the pooled score's mean is the share of right tosses; its interval narrows 3 -> 5
    pooled = document["summaries"]["All cases"]
    assert math.isclose(pooled["mean"], sum(model.tosses.values()) / len(model.tosses))
    assert pooled_width(score) < width_3
    assert f"{NAME}: 5 repeat(s)" in fifth.output
    assert "shop_multi_turn" in (score / f"{NAME}.repeats.csv").read_text()
    page = (score / "report.html").read_text()
    assert '<section id="repeats">' in page
    for category, want in expected.items():
        if want["flaky_ids"]:
            assert f"<li>{category}: {', '.join(want['flaky_ids'])}</li>" in page

    # each repeat is an ordinary model folder: compare reads two of them
    compared = cli("compare", f"{score}:{NAME}.repeat-1", f"{score}:{NAME}.repeat-2",
                   "--data-dir", str(SHOP))
    assert compared.exit_code == 0, compared.output
    assert "fcbench: error" in cli("compare", f"{score}:{NAME}", f"{score}:{NAME}.repeat-1",
                                   "--data-dir", str(SHOP)).stderr

    # two repeated runs compared case by case across the repeats both have (B: 3 repeats,
    # the coin's repeats 6..8, paired with A's first 3)
    with FakeOpenAI(model) as server:
        other = cli(*command(server.base_url, tmp_path, 3), "--name", "coin-b",
                    "--model-seed", str(BASE_SEED + 5))
        assert other.exit_code == 0, other.output
    both = cli("compare", f"{score}:{NAME}", f"{score}:coin-b", "--json")
    assert both.exit_code == 0, both.output
    shown = json.loads(both.stdout)
    for category, found in shown["categories"].items():
        ids = [c.id for c in cases if c.category == category]
        a = {i: [model.tosses[(i, r)] for r in range(1, 4)] for i in ids}
        b = {i: [model.tosses[(i, r)] for r in range(6, 9)] for i in ids}
        assert found["paired_repeats"] == 3
        assert found["gained"] == sorted(i for i in ids if not any(a[i]) and all(b[i]))
        assert found["lost"] == sorted(i for i in ids if all(a[i]) and not any(b[i]))
        assert found["flaky"] == sorted(
            i for i in ids if len(set(a[i])) == 2 or len(set(b[i])) == 2)
        assert math.isclose(found["a_accuracy"], sum(map(sum, a.values())) / (3 * len(ids)))


def test_generate_repeats_then_evaluate_and_byte_faithful_files(fetched_home: Path,
                                                               tmp_path: Path) -> None:
    """`generate --repeats` writes the repeat folders only; `evaluate` of the result folder
    scores each repeat as a model and writes the statistics; a repeat's score files are
    byte for byte those of a plain run into a folder of the same name."""
    picked = ["--model", "ground-truth", "--categories", "simple_python,multi_turn_base",
              "--limit", "2", "--quiet"]
    made = cli("generate", *picked, "--repeats", "2", "--result-dir", str(tmp_path / "r"))
    assert made.exit_code == 0, made.output
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [
        "ground-truth-FC.repeat-1", "ground-truth-FC.repeat-2"]
    scored = cli("evaluate", "--result-dir", str(tmp_path / "r"), "--score-dir",
                 str(tmp_path / "s"), "--no-report")
    assert scored.exit_code == 0, scored.output
    assert "ground-truth-FC: 2 repeat(s)" in scored.stdout
    document = json.loads((tmp_path / "s" / "ground-truth-FC.repeats.json").read_text())
    assert [r["folder"] for r in document["repeats"]] == [
        "ground-truth-FC.repeat-1", "ground-truth-FC.repeat-2"]
    assert document["summaries"]["Overall"]["incomplete"] is True  # 2 of its categories
    assert document["summaries"]["All cases"]["incomplete"] is False
    for cat in document["categories"].values():  # the ground truth: right every time
        assert (cat["consistent_pass"], cat["flaky"], cat["accuracy"]["std"]) == (2, 0, 0.0)
    plain = cli("run", *picked, "--name", "ground-truth-FC.repeat-1", "--result-dir",
                str(tmp_path / "plain-r"), "--score-dir", str(tmp_path / "plain-s"),
                "--no-report")
    assert plain.exit_code == 0, plain.output
    files = sorted((tmp_path / "plain-s" / "ground-truth-FC.repeat-1").rglob("*_score.json"))
    assert len(files) == 2
    for path in files:
        twin = tmp_path / "s" / path.relative_to(tmp_path / "plain-s")
        assert twin.read_bytes() == path.read_bytes()


def test_the_library_runs_repeats_of_a_function(fetched_home: Path, tmp_path: Path) -> None:
    """`fcbench.run(fn, repeats=3)` with the cache on for a function (which takes no seed):
    every repeat asks every case (no repeat answered from another's cached reply), and the
    run started again asks nothing (each repeat resumes from its own files)."""
    import fcbench
    from fcbench.pipeline import RepeatedRun

    asked: Counter[str] = Counter()

    def model(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
        asked[str(messages[-1]["content"])] += 1
        return "I cannot help with that."

    options: dict[str, Any] = {
        "categories": "simple_python", "limit": 2, "repeats": 3, "cache": "always",
        "name": "fn", "result_dir": tmp_path / "r", "score_dir": tmp_path / "s"}
    result = fcbench.run(model, **options)
    assert isinstance(result, RepeatedRun) and len(result.repeats) == 3
    assert sorted(asked.values()) == [3, 3]  # 2 cases x 3 repeats, none from the cache
    assert result.statistics is not None
    assert result.statistics["categories"]["simple_python"]["consistent_fail"] == 2
    again = fcbench.run(model, **options)
    assert sorted(asked.values()) == [3, 3] and again.statistics == result.statistics


def test_a_served_model_is_started_once_for_all_repeats(fetched_home: Path,
                                                         tmp_path: Path) -> None:
    """`--serve-cmd` with `--repeats 3`: one server for the three repeats (an engine takes
    minutes to start), none when every repeat is done."""
    import re

    stand_in = (f"{sys.executable} {Path(__file__).resolve().parents[1] / 'fake_openai.py'}"
                " --port {port} --model {model}")
    args = ["generate", "--model", "m", "--serve-cmd", stand_in, "--categories",
            "simple_python", "--limit", "2", "--repeats", "3", "--quiet",
            "--result-dir", str(tmp_path / "r")]
    first = cli(*args)
    assert first.exit_code == 0, first.output
    for index in (1, 2, 3):
        assert f"m-FC.repeat-{index}: asked 2 case(s)" in first.stderr
    log = tmp_path / "r" / "m-FC.repeat-1" / "serve.log"
    assert len(re.findall(r"# fcbench: pid (\d+)", log.read_text())) == 1
    again = cli(*args)
    assert again.exit_code == 0 and "m-FC.repeat-3: asked 0 case(s)" in again.stderr
    assert len(re.findall(r"# fcbench: pid (\d+)", log.read_text())) == 1
    assert not (tmp_path / "r" / "m-FC.repeat-2" / "serve.log").exists()
