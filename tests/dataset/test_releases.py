"""Older releases: their layout read as today's categories, side by side in the cache, their
identity, re-scoring old-layout result files against them; and one real older release
fetched from the package index (skipped when the index cannot be reached)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from fcbench.cli.data import data
from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.dataset.fetch import (
    DEFAULT_RELEASE,
    DataError,
    dataset_identity,
    fetched_releases,
    is_fetched,
    release_dir,
    release_sort_key,
)
from fcbench.dataset.install import fetch
from fcbench.dataset.load import dataset_size, has_category, load_category
from release_copies import V3_NAMES
from shared_corpus import V1, needs_corpus

OLD = "2025.1.1"
"""The name the v3-layout copy is installed under (any name the cache accepts)."""

CORPUS_MODEL = V1 / "gpt-4o-2024-08-06-FC"


def _same_cases(a: list[TestCase], b: list[TestCase]) -> None:
    assert len(a) == len(b) and a == b


@pytest.mark.parametrize(
    "name",
    ["simple_python", "simple_java", "simple_javascript", "live_simple",
     "multi_turn_miss_func", "exec_simple", "sql", "chatable"],
)
def test_a_v3_folder_loads_as_todays_categories(home: Path, v3_data: Path, name: str) -> None:
    retired = "unused_datasets/question/" if categories.get(name).retired else ""
    assert (v3_data / f"{retired}BFCL_v3_{V3_NAMES.get(name, name)}.json").is_file()
    _same_cases(load_category(name, data_root=v3_data), load_category(name))


@pytest.fixture
def old_release(copied_home: Path, v3_data: Path) -> str:
    fetch(OLD, source=v3_data)
    return OLD


def test_releases_sit_side_by_side(old_release: str) -> None:
    assert fetched_releases() == [OLD, DEFAULT_RELEASE]
    assert is_fetched(OLD) and is_fetched(DEFAULT_RELEASE)
    assert release_dir(OLD) != release_dir(DEFAULT_RELEASE)
    assert (release_dir(OLD) / "data" / "BFCL_v3_java.json").is_file()
    _same_cases(load_category("simple_java", OLD), load_category("simple_java"))


def test_an_older_release_lacks_the_agentic_categories(old_release: str) -> None:
    for name in (*categories.AGENTIC, "format_sensitivity"):
        assert not has_category(name, OLD)
        assert dataset_size(name, OLD) == 0
        assert has_category(name, DEFAULT_RELEASE)
    assert dataset_size("simple_python", OLD) == 400
    result = CliRunner().invoke(data, ["list", "--release", OLD])
    assert result.exit_code == 0
    assert "│ memory_kv " in result.output and "│ simple_java " in result.output
    memory_row = next(line for line in result.output.splitlines() if "│ memory_kv " in line)
    assert "│     - │" in memory_row


def test_a_folder_lacking_a_category_is_still_an_error(v3_data: Path, home: Path) -> None:
    with pytest.raises(DataError, match="does not exist"):
        dataset_size("memory_kv", data_root=v3_data)


def test_the_releases_command_lists_both(old_release: str) -> None:
    result = CliRunner().invoke(data, ["releases"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.split()[:2] == [OLD, "BFCL_v3"] for line in lines)
    assert any(line.split()[:2] == [DEFAULT_RELEASE, "BFCL_v4"] for line in lines)


# --------------------------------------------------------------------------- identity


def test_dataset_identity_of_a_release(home: Path) -> None:
    manifest = json.loads((release_dir() / "manifest.json").read_text())
    files = json.dumps(manifest["files"], sort_keys=True).encode()
    expected = "sha256:" + hashlib.sha256(files).hexdigest()
    assert dataset_identity(DEFAULT_RELEASE) == {"release": DEFAULT_RELEASE, "checksum": expected}
    assert dataset_identity() == dataset_identity(DEFAULT_RELEASE)


def test_dataset_identity_of_a_folder(home: Path, tmp_path: Path) -> None:
    copy = tmp_path / "data"
    shutil.copytree(release_dir() / "data", copy)
    (copy / ".DS_Store").write_text("ignored")
    identity = dataset_identity(data_dir=copy)
    assert identity == {
        "release": None,
        "data_dir": str(copy.resolve()),
        "checksum": dataset_identity(DEFAULT_RELEASE)["checksum"],
    }
    path = copy / "BFCL_v4_simple_python.json"
    path.write_bytes(path.read_bytes().replace(b"triangle", b"Triangle", 1))
    assert dataset_identity(data_dir=copy)["checksum"] != identity["checksum"]
    with pytest.raises(DataError, match="is not a folder"):
        dataset_identity(data_dir=tmp_path / "nowhere")


def test_release_order() -> None:
    names = ["2026.1.16.1", "2025.10.27", "2025.6.8", "2026.1.16", "2025.7.2"]
    assert sorted(names, key=release_sort_key) == [
        "2025.6.8", "2025.7.2", "2025.10.27", "2026.1.16", "2026.1.16.1"]


# --------------------------------------------------------------------------- re-scoring


def _as_v3_results(source: Path, target: Path) -> Path:
    """A model's result files renamed as a v3-era run wrote them (names and ids)."""
    target.mkdir(parents=True)
    shutil.copy(source / "model.json", target / "model.json")
    for path in source.glob("BFCL_v4_*_result.json"):
        name = path.name[len("BFCL_v4_") : -len("_result.json")]
        if categories.get(name).retired:
            continue
        old = V3_NAMES.get(name, name)
        lines = []
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            entry["id"] = old + entry["id"][len(name) :]
            lines.append(json.dumps(entry, ensure_ascii=False))
        (target / f"BFCL_v3_{old}_result.json").write_text("\n".join(lines) + "\n")
    return target


def _score_files(score_dir: Path) -> dict[str, str]:
    return {p.relative_to(score_dir).as_posix(): p.read_text()
            for p in sorted(score_dir.rglob("BFCL_v4_*_score.json"))}


@needs_corpus
def test_rescoring_old_layout_results_against_an_older_release(
    old_release: str, tmp_path: Path
) -> None:
    """The v3 copy holds today's cases under old names: re-scoring a run's v3-named result
    files against it with `--release` must give today's score files exactly."""
    from fcbench.cli import main

    old_results = _as_v3_results(CORPUS_MODEL, tmp_path / "old" / CORPUS_MODEL.name)
    runner = CliRunner()
    old = runner.invoke(main, ["evaluate", "--result-dir", str(old_results.parent),
                               "--score-dir", str(tmp_path / "s-old"), "--release", OLD])
    assert old.exit_code == 0, old.output
    new = runner.invoke(main, ["evaluate", "--result-dir", str(CORPUS_MODEL.parent),
                               "--model", CORPUS_MODEL.name, "--categories", "v1",
                               "--score-dir", str(tmp_path / "s-new")])
    assert new.exit_code == 0, new.output
    old_scores = _score_files(tmp_path / "s-old")
    assert len(old_scores) == 7
    new_scores = _score_files(tmp_path / "s-new")
    assert old_scores == {k: v for k, v in new_scores.items() if k in old_scores}
