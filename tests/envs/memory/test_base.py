"""Loading and flushing a backend's snapshots, by the official rules and byte for byte."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from fcbench.envs.memory import MEMORY_CLASSES
from fcbench.envs.memory.base import MemoryConfigError, initial_config
from fcbench.envs.memory.kv import MemoryKV
from fcbench.envs.memory.rec_sum import MemoryRecSum
from fcbench.envs.memory.snapshots import SnapshotError, snapshot_paths, write_snapshot
from fcbench.envs.multi_turn.dispatch import public_method_names

from .conftest import Oracle, mine

PREREQ_0 = "memory_kv_prereq_0-customer-0"
PREREQ_1 = "memory_kv_prereq_1-customer-1"
QUESTION = "memory_kv_7-customer-7"


def config(result: Path, test_id: str, scenario: str = "customer") -> dict[str, Any]:
    return next(iter(initial_config("MemoryAPI_kv", result, test_id, scenario).values()))


def test_initial_config_is_the_official_shape(tmp_path: Path) -> None:
    assert initial_config("MemoryAPI_kv", tmp_path, PREREQ_1, "customer") == {
        "MemoryAPI_kv": {"model_result_dir": tmp_path, "scenario": "customer",
                         "test_id": PREREQ_1, "test_category": "memory_kv_prereq"}}


def test_a_chain_of_prereqs_then_a_question(tmp_path: Path) -> None:
    first = MemoryKV()
    first._load_scenario(config(tmp_path, PREREQ_0))
    first.core_memory_add("name", "Michael")
    first._flush_memory_to_local_file()
    second = MemoryKV()
    second._load_scenario(config(tmp_path, PREREQ_1))
    assert second.core_memory == {"name": "Michael"}
    second.archival_memory_add("city", "Seattle")
    second._flush_memory_to_local_file()
    paths = snapshot_paths(tmp_path, PREREQ_1, "customer")
    assert json.loads(paths.own.read_text()) == json.loads(paths.final.read_text()) == {
        "core_memory": {"name": "Michael"}, "archival_memory": {"city": "Seattle"}}
    question = MemoryKV()
    question._load_scenario(config(tmp_path, QUESTION))
    assert question.archival_memory == {"city": "Seattle"}
    # The first prereq starts empty even though a final snapshot exists.
    again = MemoryKV()
    again._load_scenario(config(tmp_path, PREREQ_0))
    assert again.core_memory == {} and again.archival_memory == {}


def test_missing_snapshot_starts_empty_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    memory = MemoryKV()
    with caplog.at_level(logging.WARNING):
        memory._load_scenario(config(tmp_path, QUESTION))
    assert memory.core_memory == {}
    assert "no memory snapshot" in caplog.text and QUESTION in caplog.text


def test_broken_or_foreign_snapshots_fail_the_case_in_one_line(tmp_path: Path) -> None:
    final = snapshot_paths(tmp_path, QUESTION, "customer").final
    final.parent.mkdir(parents=True)
    final.write_text("{not json")
    with pytest.raises(SnapshotError, match="not valid JSON"):
        MemoryKV()._load_scenario(config(tmp_path, QUESTION))
    write_snapshot(final, {"core_memory": {}, "archival_memory": {}})
    with pytest.raises(SnapshotError, match="does not fit MemoryRecSum"):
        MemoryRecSum()._load_scenario(
            {**config(tmp_path, QUESTION), "test_id": "memory_kv_8-customer-8"})


def test_config_keys(tmp_path: Path) -> None:
    memory = MemoryKV()
    memory._load_scenario({})  # no snapshot keys: a memory of this instance only
    with pytest.raises(SnapshotError, match="no snapshot location"):
        memory._flush_memory_to_local_file()
    with pytest.raises(MemoryConfigError, match="lacks scenario"):
        MemoryKV()._load_scenario({"model_result_dir": tmp_path, "test_id": QUESTION})


@pytest.mark.parametrize("cls", sorted(MEMORY_CLASSES))
def test_public_methods_are_the_function_docs(fetched_home: Path, cls: str) -> None:
    import importlib

    from fcbench.dataset.fetch import read_data_file

    module, _, name = MEMORY_CLASSES[cls].partition(":")
    backend = getattr(importlib.import_module(module), name)
    doc_file = f"multi_turn_func_doc/memory_{cls.removeprefix('MemoryAPI_')}.json"
    docs = [json.loads(line) for line in read_data_file(doc_file).decode().splitlines()]
    assert public_method_names(backend) == {doc["name"] for doc in docs}
    for doc in docs:  # the doc's parameter names, so keyword calls bind
        import inspect

        parameters = list(inspect.signature(getattr(backend, doc["name"])).parameters)[1:]
        assert parameters == list(doc["parameters"]["properties"]), doc["name"]


OPS: dict[str, list[Any]] = {
    "MemoryAPI_kv": [("core_memory_add", ["name", "Zoë \"Z\" {x}"], {}),
                     ("archival_memory_add", ["note_1", "ünïcode\n" * 20], {})],
    "MemoryAPI_rec_sum": [("memory_append", ["Zoë likes {braces} and \"quotes\".\n"], {})],
    "MemoryAPI_vector": [("core_memory_add", ["Zoë likes tea"], {}),
                         ("archival_memory_add", ["note one"], {}),
                         ("archival_memory_add", ["note two"], {}),
                         ("archival_memory_remove", [0], {})],
}


@pytest.mark.parametrize("cls", sorted(OPS))
def test_flushed_snapshots_equal_the_officials_byte_for_byte(
    official_memory: Oracle, tmp_path: Path, cls: str, request: pytest.FixtureRequest
) -> None:
    import importlib

    if cls == "MemoryAPI_vector":
        request.getfixturevalue("use_minilm")
    backend = cls.removeprefix("MemoryAPI_")
    test_id = f"memory_{backend}_prereq_0-finance-0"
    official_cfg = initial_config(cls, tmp_path / "official", test_id, "finance")[cls]
    official_memory.run(cls, OPS[cls], config={**official_cfg, "model_result_dir":
                                                str(official_cfg["model_result_dir"])},
                        flush=True)
    module, _, name = MEMORY_CLASSES[cls].partition(":")
    ours = getattr(importlib.import_module(module), name)()
    ours._load_scenario(initial_config(cls, tmp_path / "ours", test_id, "finance")[cls])
    mine(ours, OPS[cls])
    ours._flush_memory_to_local_file()
    for root in ("official", "ours"):
        paths = snapshot_paths(tmp_path / root, test_id, "finance")
        assert paths.own.is_file() and paths.final.is_file()
    for relative in (Path("prereq_checkpoints") / f"{test_id}.json", Path("finance_final.json")):
        folder = Path("agentic", "memory", backend, "memory_snapshot")
        assert (tmp_path / "ours" / folder / relative).read_bytes() == (
            tmp_path / "official" / folder / relative).read_bytes()
    # Each side continues from the other's files: a question loads the same memory.
    question = f"memory_{backend}_3-finance-3"
    theirs = official_memory.run(cls, [], config={
        **official_cfg, "model_result_dir": str(tmp_path / "ours"), "test_id": question})
    loaded = getattr(importlib.import_module(module), name)()
    loaded._load_scenario(initial_config(cls, tmp_path / "official", question, "finance")[cls])
    assert loaded._dump_core_memory_to_context() == theirs["context"]
