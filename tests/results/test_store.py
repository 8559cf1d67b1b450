"""The result store: torn lines, duplicates, drops, final order, one writer at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fcbench.results.store import CategoryStore, FolderLock, StoreBusyError, id_order, is_error


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_append_then_finalize_sorts_like_the_official(tmp_path: Path) -> None:
    store = CategoryStore(tmp_path / "g" / "BFCL_v4_live_simple_result.json")
    assert store.open() == {}
    for test_id in ("live_simple_10-1-0", "live_simple_2-0-2", "live_simple_1-0-1"):
        store.append({"id": test_id, "result": "x", "attempts": 1})
    store.finalize()
    assert [e["id"] for e in lines(store.path)] == [
        "live_simple_1-0-1", "live_simple_2-0-2", "live_simple_10-1-0"
    ]


def test_torn_last_line_is_cut_on_open(tmp_path: Path) -> None:
    path = tmp_path / "BFCL_v4_simple_python_result.json"
    path.write_text('{"id": "simple_python_0", "result": "a"}\n{"id": "simple_python_1", "res')
    store = CategoryStore(path)
    entries = store.open()
    assert list(entries) == ["simple_python_0"]
    assert path.read_text() == '{"id": "simple_python_0", "result": "a"}\n'
    store.append({"id": "simple_python_1", "result": "b"})
    store.close()
    assert [e["id"] for e in lines(path)] == ["simple_python_0", "simple_python_1"]


def test_duplicates_keep_the_finished_entry(tmp_path: Path) -> None:
    path = tmp_path / "BFCL_v4_simple_python_result.json"
    rows = [
        {"id": "simple_python_0", "result": "ok", "attempts": 1},
        {"id": "simple_python_0", "result": "Error during inference: x", "error": "x"},
        {"id": "simple_python_1", "result": "Error during inference: y", "error": "y"},
        {"id": "simple_python_1", "result": "fine", "attempts": 2},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    entries = CategoryStore(path).open()
    assert entries["simple_python_0"]["result"] == "ok"
    assert entries["simple_python_1"]["result"] == "fine"
    assert len(lines(path)) == 2


def test_drop_rewrites_without_the_ids(tmp_path: Path) -> None:
    store = CategoryStore(tmp_path / "BFCL_v4_simple_python_result.json")
    store.open()
    for i in range(3):
        store.append({"id": f"simple_python_{i}", "result": i})
    store.drop({"simple_python_1"})
    store.append({"id": "simple_python_1", "result": "again"})
    assert {e["id"]: e["result"] for e in lines(store.path)} == {
        "simple_python_0": 0, "simple_python_2": 2, "simple_python_1": "again"
    }
    store.close()


def test_is_error() -> None:
    assert is_error({"id": "a", "result": "Error during inference: boom"})
    assert is_error({"id": "a", "result": "x", "error": "boom"})
    # fcbench's own lines carry `attempts`: such a text is the model's answer
    assert not is_error({"id": "a", "result": "Error during inference: z", "attempts": 1})
    assert not is_error({"id": "a", "result": [{"f": "{}"}]})


def test_id_order() -> None:
    ids = ["multiple_10", "multiple_9", "multiple_100"]
    assert sorted(ids, key=id_order) == ["multiple_9", "multiple_10", "multiple_100"]


def test_folder_lock_refuses_a_second_writer(tmp_path: Path) -> None:
    with FolderLock(tmp_path / "m"), pytest.raises(StoreBusyError), FolderLock(tmp_path / "m"):
        pass
    with FolderLock(tmp_path / "m"):
        pass


def test_a_lone_surrogate_is_stored_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "BFCL_v4_simple_python_result.json"
    store = CategoryStore(path)
    store.open()
    store.append({"id": "simple_python_0", "result": "a\ud800b"})
    store.finalize()
    assert lines(path) == [{"id": "simple_python_0", "result": "a\ud800b"}]


def test_a_known_key_never_reaches_a_result_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the key's value is masked: a model's credential-shaped text stays as it was."""
    monkeypatch.setenv("SERPAPI_API_KEY", "serp-key-123456")
    store = CategoryStore(tmp_path / "r.json")
    store.open()
    answer = "requests.get(url='https://h/x?api_key=YOUR-RAPID-API-KEY')"
    store.append({"id": "a_0", "result": answer, "log": "GET /s?api_key=serp-key-123456"})
    (entry,) = store.finalize().values()
    assert entry == {"id": "a_0", "result": answer, "log": "GET /s?api_key=***"}


def test_base_url_credentials_are_stored_masked(tmp_path: Path) -> None:
    from fcbench.results.store import write_json_atomic

    path = tmp_path / "model.json"
    write_json_atomic(path, {"endpoints": ["http://me:pw-9876@h:1/v1?api_key=k-5432&x=1"]})
    assert json.loads(path.read_text()) == {"endpoints": ["http://me:***@h:1/v1?api_key=***&x=1"]}


def test_an_integer_past_pythons_limit_is_kept_when_resuming(tmp_path: Path) -> None:
    """A result file holding a 5,000-digit number (another tool's, or a hand's) is resumed
    with that entry kept and written back whole; Python's default limit made the entry look
    damaged, so it was dropped from the file and asked again."""
    from fcbench import _json as fast_json

    path = tmp_path / "BFCL_v4_simple_python_result.json"
    big = {"id": "simple_python_1", "result": "[f()]", "latency": 10**5000, "attempts": 1}
    path.write_text(fast_json.dumps({"id": "simple_python_0", "result": "a", "attempts": 1})
                    + "\n" + fast_json.dumps(big) + "\n")
    store = CategoryStore(path)
    entries = store.open()
    assert entries["simple_python_1"] == big
    store.append({"id": "simple_python_2", "result": [10**4400], "attempts": 1})
    store.finalize()
    back = [fast_json.loads_numbers(line) for line in path.read_text().splitlines()]
    assert back[1] == big and back[2]["result"] == [10**4400]
