"""`fcbench export --format inspect` read back by inspect_ai itself: `read_eval_log` (what
`inspect view` opens a log with) gives every sample with its score, and `list_eval_logs`
(the viewer's listing of a log folder) finds every log under its task.

Marked `inspect`: inspect_ai comes with the `inspect` extra, installed in a venv of its own
(it moves a package the test extra's lm_eval pins) where .ci/run runs `pytest -m inspect`;
deselected elsewhere (pyproject's addopts), never skipped. inspect_ai is imported inside the
tests so that collecting this file needs no inspect_ai.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.cli import main
from sample_run import CATEGORIES, FOLDER, verdicts

pytestmark = pytest.mark.inspect


def export(root: Path, out: Path) -> list[Path]:
    result = CliRunner().invoke(main, ["export", "--format", "inspect", str(root / "score"),
                                       "--result-dir", str(root / "result"), "-o", str(out)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return sorted(out.rglob("*.json"))


def test_read_eval_log_gives_every_sample_and_its_score(
    sample_run: Path, tmp_path: Path
) -> None:
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import value_to_float

    as_number = value_to_float()  # how Inspect's own accuracy() reads a score
    files = export(sample_run, tmp_path / "logs")
    assert len(files) == len(CATEGORIES) and {f.parent.name for f in files} == {FOLDER}
    expected = verdicts(sample_run)
    found: dict[str, Any] = {}
    for file in files:
        log = read_eval_log(str(file))
        assert log.status == "success" and log.samples is not None
        assert log.eval.task == f"bfcl_{log.eval.metadata['category']}"  # type: ignore[index]
        category_ids = [str(sample.id) for sample in log.samples]
        assert log.eval.dataset.sample_ids == category_ids
        for sample in log.samples:
            assert sample.scores is not None
            score = sample.scores["bfcl_checker"]
            found[str(sample.id)] = score.value
            assert as_number(score.value) == (1.0 if expected[str(sample.id)] else 0.0)
            assert sample.input and sample.messages and sample.output.completion == score.answer
        passed = sum(expected[i] for i in category_ids)
        assert log.results is not None
        accuracy = log.results.scores[0].metrics["accuracy"].value
        assert accuracy == pytest.approx(passed / len(category_ids))
    assert found == {i: "C" if ok else "I" for i, ok in expected.items()}


def test_the_failed_sample_carries_the_checkers_reason(sample_run: Path, tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log

    (file,) = (f for f in export(sample_run, tmp_path / "logs") if "simple-python" in f.name)
    log = read_eval_log(str(file))
    assert log.samples is not None
    failed = next(s for s in log.samples if s.id == "simple_python_0")
    assert failed.scores is not None
    score = failed.scores["bfcl_checker"]
    assert "no_such_function" in (score.answer or "")
    assert "calculate_triangle_area" in (score.explanation or "")
    assert failed.metadata["error_type"].endswith("wrong_func_name")
    assert json.loads(failed.target if isinstance(failed.target, str) else "null")


def test_the_viewers_listing_finds_every_log_under_its_task(
    sample_run: Path, tmp_path: Path
) -> None:
    from inspect_ai.log import list_eval_logs

    export(sample_run, tmp_path / "logs")
    listed = list_eval_logs(str(tmp_path / "logs"))
    assert sorted(info.task for info in listed) == sorted(
        f"bfcl-{c.replace('_', '-')}" for c in CATEGORIES)


def test_each_repeat_is_an_epoch_inspect_reads(repeated_run: Path, tmp_path: Path) -> None:
    """A `--repeats 2` run: inspect_ai reads one log per category with epochs 1 and 2, and
    fetches a sample by (id, epoch) with that repeat's verdict."""
    from inspect_ai.log import read_eval_log, read_eval_log_sample

    files = export(repeated_run, tmp_path / "logs")
    assert len(files) == len(CATEGORIES)
    (python,) = (f for f in files if "simple-python" in f.name)
    log = read_eval_log(str(python))
    assert log.eval.config.epochs == 2 and log.samples is not None
    assert sorted((str(s.id), s.epoch) for s in log.samples) == [
        (f"simple_python_{i}", e) for i in range(3) for e in (1, 2)]
    for epoch, valid in ((1, True), (2, False)):
        sample = read_eval_log_sample(str(python), "simple_python_1", epoch=epoch)
        assert sample.scores is not None
        assert sample.scores["bfcl_checker"].value == ("C" if valid else "I")


def test_inspect_view_serves_the_logs(sample_run: Path, tmp_path: Path) -> None:
    """`inspect view` itself (its server, on loopback) lists the folder's logs under their
    tasks, and hands the page each log's header and each whole log with its samples: what
    the viewer shows. Started and stopped here by its process id."""
    import socket
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request
    from urllib.parse import quote

    files = export(sample_run, tmp_path / "logs")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}/api"
    output = tmp_path / "view.log"
    with output.open("wb") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "inspect_ai", "view", "--log-dir", str(tmp_path / "logs"),
             "--host", "127.0.0.1", "--port", str(port)],
            stdout=sink, stderr=subprocess.STDOUT)

    def get(path: str) -> Any:
        with urllib.request.urlopen(f"{base}/{path}", timeout=10) as reply:
            return json.loads(reply.read())

    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                listing = get("logs")
                break
            except (urllib.error.URLError, ConnectionError):
                assert server.poll() is None, output.read_text(errors="replace")
                assert time.monotonic() < deadline, "inspect view did not start in 120 s"
                time.sleep(0.5)
        names = {entry["name"]: entry["task"] for entry in listing["files"]}
        assert sorted(names.values()) == sorted(f"bfcl-{c.replace('_', '-')}"
                                                for c in CATEGORIES)
        assert {Path(name).name for name in names} == {f.name for f in files}
        expected = verdicts(sample_run)
        for name in names:
            (header,) = get(f"log-headers?file={quote(name, safe='')}")
            assert header["status"] == "success" and header["results"]["scores"]
            log = get(f"logs/{quote(name, safe='')}")
            for sample in log["samples"]:
                value = sample["scores"]["bfcl_checker"]["value"]
                assert value == ("C" if expected[sample["id"]] else "I")
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
