"""The agentic glue of the conversation loop, and the ground truth's self-check over the
agentic categories (offline: the ground truth never searches)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from fcbench.dataset.load import load_category
from fcbench.envs.memory.snapshots import snapshot_paths, write_snapshot
from fcbench.runner.agentic import question_dependencies, restore_chain


def test_questions_wait_for_every_prerequisite_of_their_scenario(fetched_home: Path) -> None:
    prereqs = load_category("memory_kv_prereq")
    questions = question_dependencies(load_category("memory_kv"), prereqs)
    for question in questions:
        expected = [p.id for p in prereqs if p.extras["scenario"] == question.extras["scenario"]]
        assert question.extras["depends_on"] == expected and expected
    chains = {p.id: p.extras["depends_on"] for p in prereqs}
    assert chains["memory_kv_prereq_0-customer-0"] == []
    assert chains["memory_kv_prereq_2-customer-2"] == [
        "memory_kv_prereq_0-customer-0", "memory_kv_prereq_1-customer-1"]


def test_a_prerequisite_starts_from_the_previous_checkpoint(
    fetched_home: Path, tmp_path: Path
) -> None:
    """A crash after a conversation wrote its snapshot but before its result line: the
    re-run starts from the previous conversation's checkpoint, not from the half-recorded
    final snapshot."""
    second = next(p for p in load_category("memory_kv_prereq") if p.id.endswith("customer-1"))
    earlier = second.extras["depends_on"][-1]
    previous = snapshot_paths(tmp_path, earlier, "customer")
    write_snapshot(previous.own, {"core_memory": {"a": "before"}})
    write_snapshot(previous.final, {"core_memory": {"a": "half-recorded"}})
    restore_chain(second, tmp_path)
    assert json.loads(previous.final.read_text()) == {"core_memory": {"a": "before"}}


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_ground_truth_scores_every_agentic_case(
    fetched_home: Path, tmp_path: Path, mode: str
) -> None:
    args = ["run", "--model", "ground-truth", "--mode", mode, "--categories", "agentic",
            "--result-dir", str(tmp_path / "r"), "--score-dir", str(tmp_path / "s"), "--quiet"]
    result = CliRunner().invoke(__import__("fcbench.cli", fromlist=["main"]).main, args,
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    name = "ground-truth-FC" if mode == "fc" else "ground-truth"
    headers = {p.name: json.loads(p.read_text().splitlines()[0])
               for p in (tmp_path / "s" / name).rglob("*_score.json")}
    assert {n: (h["correct_count"], h["total_count"]) for n, h in headers.items()} == {
        "BFCL_v4_web_search_base_score.json": (100, 100),
        "BFCL_v4_web_search_no_snippet_score.json": (100, 100),
        "BFCL_v4_memory_kv_score.json": (155, 155),
        "BFCL_v4_memory_vector_score.json": (155, 155),
        "BFCL_v4_memory_rec_sum_score.json": (155, 155),
    }
    snapshots = tmp_path / "r" / name / "agentic" / "memory" / "vector" / "memory_snapshot"
    assert len(list((snapshots / "prereq_checkpoints").glob("*.json"))) == 37
    assert "no result file" not in result.output
