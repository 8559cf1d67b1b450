"""`fcbench merge`: what it refuses (nothing written), what it lists (missing, duplicated,
errored cases), and that it never loses a written result: merging again, after a resume
into the merged folder, or with a shard that came late. The shards are real `generate
--shard` runs of the built-in ground-truth model (in process: no endpoint)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.cli import main
from fcbench.layout import result_path
from fcbench.results.store import FolderLock

COUNT = 3
IDS = ",".join([*(f"simple_python_{i}" for i in range(12)),
                *(f"multi_turn_base_{i}" for i in range(4)),
                "memory_kv_0-customer-0", "memory_kv_61-finance-6", "memory_kv_135-notetaker-5"])
CATEGORIES = "simple_python,multi_turn_base,memory_kv"


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def generate(root: Path, *more: str) -> Path:
    result = cli("generate", "--model", "ground-truth", "--name", "gt", "--categories",
                 CATEGORIES, "--ids", IDS, "--result-dir", str(root), "--quiet", *more)
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, fetched_home: Path) -> Path:
    """The three shards and one whole run, made once (copied by each test)."""
    root = tmp_path_factory.mktemp("made")
    for k in range(COUNT):
        generate(root / "shards", "--shard", f"{k}/{COUNT}")
    generate(root / "whole")
    return root


@pytest.fixture
def work(made: Path, tmp_path: Path, fetched_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FCBENCH_HOME", str(fetched_home))
    shutil.copytree(made, tmp_path / "w")
    return tmp_path / "w"


def shard(work: Path, k: int) -> Path:
    return work / "shards" / f"gt.shard-{k}-of-{COUNT}"


def results(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.suffix == ".json"
            and p.name != "model.json"}


def test_merged_folder_is_the_whole_runs(work: Path) -> None:
    merged = cli("merge", *(str(shard(work, k)) for k in range(COUNT)),
                 "--into", str(work / "merged" / "gt"))
    assert merged.exit_code == 0, merged.output
    assert results(work / "merged" / "gt") == results(work / "whole" / "gt")  # snapshots too
    manifest = json.loads((work / "merged" / "gt" / "model.json").read_text())
    assert "shard" not in manifest and len(manifest["runs"]) == COUNT
    assert sorted(r["shard"] for r in manifest["runs"]) == [f"{k}/{COUNT}" for k in range(3)]
    again = cli("merge", *(str(shard(work, k)) for k in range(COUNT)),
                "--into", str(work / "merged" / "gt"))
    assert again.exit_code == 0 and results(work / "merged" / "gt") == results(
        work / "whole" / "gt")  # merging again changes no result


def test_absent_shard_listed_then_resumed_then_merged_late(work: Path) -> None:
    into = work / "merged" / "gt"
    partial = cli("merge", str(shard(work, 0)), str(shard(work, 1)), "--into", str(into))
    assert partial.exit_code == 1
    assert f"shard(s) not given: 2/{COUNT}" in partial.stderr
    assert "resume into it" in partial.stderr
    # a resume into the merged folder asks what is missing; the late shard changes nothing
    generate(work / "merged")
    assert results(into) == results(work / "whole" / "gt")
    late = cli("merge", str(shard(work, 2)), "--into", str(into))
    assert late.exit_code == 1  # shards 0 and 1 not given this time: listed, nothing lost
    assert results(into) == results(work / "whole" / "gt")


def test_missing_errored_and_duplicated_cases_are_listed(work: Path) -> None:
    one, two = shard(work, 0), shard(work, 1)
    path_one = result_path(one, "simple_python")
    lines = path_one.read_bytes().splitlines(keepends=True)
    first = json.loads(lines[0])
    path_one.write_bytes(b"".join(lines[1:]))  # the shard lost its first case
    errored = json.loads(lines[1])
    errored.update(result="Error during inference: boom", error="boom", attempts=1)
    path_one.write_bytes(json.dumps(errored).encode() + b"\n" + b"".join(lines[2:]))
    stray = {**first, "result": "a copy that is not the owner's"}
    path_two = result_path(two, "simple_python")
    path_two.write_bytes(path_two.read_bytes() + json.dumps(stray).encode() + b"\n")
    into = work / "merged" / "gt"
    merged = cli("merge", *(str(shard(work, k)) for k in range(COUNT)), "--into", str(into))
    assert merged.exit_code == 1
    assert f"1 case(s) missing (in a shard's list, in no result file): {first['id']}" not in (
        merged.stderr)  # the stray copy in shard 1 holds it: a duplicate of no one, kept
    assert f"1 case(s) recorded as errors (a resume into the folder asks them again): " \
           f"{errored['id']}" in merged.stderr
    entries = {json.loads(line)["id"]: json.loads(line)
               for line in result_path(into, "simple_python").read_text().splitlines()}
    assert entries[first["id"]]["result"] == stray["result"]  # written once, not lost
    # now the owner has it too: the owner's entry wins, the copy is listed as a duplicate
    path_one.write_bytes(lines[0] + path_one.read_bytes())
    again = cli("merge", *(str(shard(work, k)) for k in range(COUNT)), "--into", str(into))
    assert "1 case(s) duplicated (written by two shards; a finished entry kept, the owning " \
           f"shard's first): {first['id']}" in again.stderr
    entries = {json.loads(line)["id"]: json.loads(line)
               for line in result_path(into, "simple_python").read_text().splitlines()}
    assert entries[first["id"]]["result"] == first["result"]
    assert len(entries) == 12


def test_a_case_no_result_file_holds_is_missing(work: Path) -> None:
    path = result_path(shard(work, 0), "simple_python")
    lines = path.read_bytes().splitlines(keepends=True)
    lost = json.loads(lines[-1])["id"]
    path.write_bytes(b"".join(lines[:-1]))
    merged = cli("merge", *(str(shard(work, k)) for k in range(COUNT)),
                 "--into", str(work / "m" / "gt"))
    assert merged.exit_code == 1
    assert f"1 case(s) missing (in a shard's list, in no result file): {lost}" in merged.stderr


@pytest.mark.parametrize("case", ["twice", "same index", "not a shard", "into a shard",
                                  "other count", "other configuration", "busy",
                                  "into another configuration"])
def test_refused_with_one_line_and_nothing_written(work: Path, case: str) -> None:
    folders = [str(shard(work, k)) for k in range(COUNT)]
    into = work / "merged" / "gt"
    said = {"twice": "is given twice", "same index": "shard 0/3 is given twice",
            "not a shard": "is not the folder of a shard", "into a shard": "is one of the shards",
            "other count": "shards of different counts", "busy": "is being written",
            "other configuration": "not a shard of the same run",
            "into another configuration": "holds results of another configuration"}[case]
    lock = None
    if case == "twice":
        folders.append(str(shard(work, 0)) + "/")
    elif case == "same index":
        shutil.copytree(shard(work, 0), work / "copy")
        folders.append(str(work / "copy"))
    elif case == "not a shard":
        folders.append(str(work / "whole" / "gt"))
    elif case == "into a shard":
        into = shard(work, 1)
    elif case == "other count":
        generate(work / "four", "--shard", "1/4")
        folders[1] = str(work / "four" / "gt.shard-1-of-4")
    elif case == "other configuration":
        generate(work / "prompt", "--shard", f"1/{COUNT}", "--mode", "prompt")
        folders[1] = str(work / "prompt" / f"gt.shard-1-of-{COUNT}")
    elif case == "busy":
        lock = FolderLock(shard(work, 2)).__enter__()
    elif case == "into another configuration":
        into = work / "whole" / "gt"
        manifest = json.loads((into / "model.json").read_text())
        manifest["sampling"] = {"temperature": 0.9}
        (into / "model.json").write_text(json.dumps(manifest))
    before = results(into) if into.exists() else None
    try:
        refused = cli("merge", *folders, "--into", str(into))
    finally:
        if lock is not None:
            lock.__exit__()
    assert refused.exit_code == 2, refused.output
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], lines
    assert (results(into) if into.exists() else None) == before


def test_a_shard_folder_takes_only_its_shard(work: Path) -> None:
    """Resuming a shard's folder as a whole run (or another shard) is refused: the
    manifest's shard is part of the configuration."""
    result = cli("generate", "--model", "ground-truth", "--name", f"gt.shard-0-of-{COUNT}",
                 "--categories", CATEGORIES, "--ids", IDS, "--result-dir",
                 str(work / "shards"), "--quiet")
    assert result.exit_code == 2
    assert "shard:" in result.stderr and "another configuration" in result.stderr


def test_custom_datasets_a_shard_had_no_case_of_are_not_a_difference(tmp_path: Path) -> None:
    """A shard records the custom datasets it asked cases of: shards differing only there are
    one run (the merged folder names every one of them); another release is not."""
    from fcbench.results.merge import ShardFolder, identity_differences, merged_manifest

    custom = {"name": "mine", "checksum": "sha256:1"}

    def folder(k: int, dataset: dict[str, Any]) -> ShardFolder:
        manifest = {"model": "m", "mode": "fc", "dataset": dataset, "categories": ["a"],
                    "shard": {"index": k, "count": 2}, "runs": [], "started_at": "t",
                    "finished_at": "u"}
        record = {"index": k, "count": 2, "categories": ["a", "mine_x"], "selection": "",
                  "totals": {}, "ids": {}}
        return ShardFolder(tmp_path / str(k), manifest, record)

    with_custom = folder(0, {"release": "r1", "custom": [custom]})
    without = folder(1, {"release": "r1"})
    assert identity_differences(with_custom, without) == []
    other_release = folder(1, {"release": "r2"})
    assert identity_differences(with_custom, other_release) == [
        'dataset: {"release": "r1"} -> {"release": "r2"}', 'release: "r1" -> "r2"']
    merged = merged_manifest([without, with_custom], tmp_path / "into")
    assert merged["dataset"] == {"release": "r1", "custom": [custom]}
    assert merged["categories"] == ["a", "mine_x"]  # the run's, not only those with results
