"""Snapshot paths, content and atomic writes (kill -9 mid-write leaves old or new, never torn)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fcbench.envs.memory.snapshots import (
    SnapshotError,
    backend_of,
    is_first_prereq,
    read_snapshot,
    snapshot_paths,
    write_snapshot,
)

RESULT = Path("/r/model")


def test_prereq_paths_follow_the_official_layout() -> None:
    paths = snapshot_paths(RESULT, "memory_kv_prereq_3-customer-3", "customer")
    folder = RESULT / "agentic" / "memory" / "kv" / "memory_snapshot"
    assert paths.own == folder / "prereq_checkpoints" / "memory_kv_prereq_3-customer-3.json"
    assert paths.final == folder / "customer_final.json"
    assert not paths.starts_empty


def test_question_paths_and_the_first_prereq() -> None:
    question = snapshot_paths(RESULT, "memory_rec_sum_12-student-2", "student")
    folder = RESULT / "agentic" / "memory" / "rec_sum" / "memory_snapshot"
    assert question.own == folder / "memory_rec_sum_12-student-2.json"
    assert question.final == folder / "student_final.json"
    assert snapshot_paths(RESULT, "memory_vector_prereq_22-student-0", "student").starts_empty
    assert not is_first_prereq("memory_vector_22-student-0")  # a question, not a prereq
    assert not is_first_prereq("memory_vector_prereq_30-student-10")


@pytest.mark.parametrize(("test_id", "backend"), [
    ("memory_kv_0-customer-0", "kv"), ("memory_vector_prereq_5-customer-5", "vector"),
    ("memory_rec_sum_prereq_15-finance-0", "rec_sum"), ("memory_rec_sum_154-notetaker-24",
                                                        "rec_sum"),
])
def test_backend_of(test_id: str, backend: str) -> None:
    assert backend_of(test_id) == backend


@pytest.mark.parametrize("test_id", ["multi_turn_base_0", "memory_0", "web_search_base_3"])
def test_backend_of_refuses_other_ids(test_id: str) -> None:
    with pytest.raises(SnapshotError, match="not a memory test id"):
        backend_of(test_id)


def test_round_trip_with_the_official_text(tmp_path: Path) -> None:
    data = {"core_memory": {"name": "Zoë \"Z\""}, "archival_memory": {}}
    path = tmp_path / "a" / "b" / "s.json"
    write_snapshot(path, data)
    assert path.read_text() == json.dumps(data, indent=4)  # what json.dump(f, indent=4) writes
    assert read_snapshot(path) == data
    assert read_snapshot(tmp_path / "missing.json") is None
    assert [p.name for p in path.parent.iterdir()] == ["s.json"]  # no temporary left behind


def test_broken_snapshots_are_one_line_errors(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"core_memory": {')
    with pytest.raises(SnapshotError, match="is not valid JSON"):
        read_snapshot(path)
    path.write_text("[1, 2]")
    with pytest.raises(SnapshotError, match="does not hold a JSON object"):
        read_snapshot(path)
    with pytest.raises(SnapshotError, match="cannot write"):
        write_snapshot(tmp_path / "s.json" / "below_a_file.json", {})


WRITER = """
import sys
from pathlib import Path
from fcbench.envs.memory.snapshots import write_snapshot
path = Path(sys.argv[1])
big = "x" * 4_000_000
n = 0
while True:
    write_snapshot(path, {"generation": n, "memory": big + str(n)})
    n += 1
    if n == 1:
        Path(sys.argv[2]).touch()  # one complete snapshot exists: start the clock
"""


def test_kill_9_mid_write_leaves_a_whole_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "memory_snapshot" / "customer_final.json"
    ready = tmp_path / "ready"
    for attempt in range(8):
        ready.unlink(missing_ok=True)
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(ready)])
        try:
            deadline = time.monotonic() + 60
            while not ready.exists():
                assert child.poll() is None and time.monotonic() < deadline
                time.sleep(0.01)
            time.sleep(0.05 + 0.045 * attempt)  # land at different points of a write
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        data = read_snapshot(path)  # raises if the file is torn
        assert data is not None
        assert data["memory"] == "x" * 4_000_000 + str(data["generation"])
