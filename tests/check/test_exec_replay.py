"""Recorded responses end to end: the replay backend through the real sandbox, and the
evaluation pipeline's accounting of skipped cases (score-file header, no stray workers)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from fcbench.check.exec import ExecRunner, is_skipped, judge_exec
from fcbench.check.exec_sandbox import Limits
from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.envs.exec_functions.backends import HttpRequest, HttpResponse, ReplayServices

FAST = Limits(wall_seconds=4.0, cpu_seconds=2, memory_mb=512)
WEATHER = "https://api.open-meteo.com/v1/forecast"


def _weather_request(lat: float, lon: float) -> HttpRequest:
    params = {
        "latitude": lat,
        "longitude": lon,
        "current": "temperature_2m",
        "temperature_unit": "fahrenheit",
    }
    return HttpRequest.get(WEATHER, params, service="open-meteo")


def _record(folder: Path, request: HttpRequest, body: object, status: int = 200) -> None:
    ReplayServices(folder).record(request, HttpResponse(status, json.dumps(body)))


def test_replay_scores_what_offline_skips(tmp_path: Path) -> None:
    _record(tmp_path, _weather_request(37.8, -122.3), {"current": {"temperature_2m": 60.0}})
    _record(tmp_path, _weather_request(37.8, -122.2), {"current": {"temperature_2m": 66.0}})
    case = TestCase(
        "exec_simple_0",
        "exec_simple",
        [],
        [],
        ["get_weather_data(coordinates=[37.8, -122.3])"],
        {"execution_result_type": ["real_time_match"]},
    )
    raw = "[get_weather_data(coordinates=[37.8, -122.2])]"
    category = categories.get("exec_simple")
    replay = ExecRunner("replay", tmp_path, FAST)
    offline = ExecRunner("offline", None, FAST)
    try:
        assert judge_exec(case, category, raw, Encoding(), replay).valid  # 66 within 20% of 60
        assert is_skipped(judge_exec(case, category, raw, Encoding(), offline))
        unrecorded = "[get_weather_data(coordinates=[1.0, 2.0])]"
        assert is_skipped(judge_exec(case, category, unrecorded, Encoding(), replay))
    finally:
        replay.close()
        offline.close()


def test_rest_replay(tmp_path: Path) -> None:
    url = "https://timezone-by-location.p.rapidapi.com/timezone"
    request = HttpRequest.get(url, {"lat": 48.8584, "lon": 2.2945})
    _record(tmp_path, request, {"Zones": [], "Safezone": 1})
    case = TestCase("rest_0", "rest", [], [], json.dumps({"Safezone": 0.5, "Zones": [{}]}))
    raw = (
        f"[requests.get(url='{url}', headers={{'X-RapidAPI-Key': 'k'}}, "
        "params={'lat': 48.8584, 'lon': 2.2945})]"
    )
    runner = ExecRunner("replay", tmp_path, FAST)
    try:
        assert judge_exec(case, categories.get("rest"), raw, Encoding(), runner).valid
    finally:
        runner.close()


def _worker_pids() -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if b"fcbench.check.exec_worker" in cmdline.read():
                    found.add(int(entry))
        except OSError:
            continue
    return found


def _ancestors(pid: int) -> set[int]:
    """The process's parent, grandparent, ... (as /proc has them now)."""
    found: set[int] = set()
    while pid > 1 and pid not in found:
        found.add(pid)
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
                pid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return found


def _left_behind(before: set[int]) -> set[int]:
    """Exec workers started since `before` that this test left: still under this process,
    or orphaned (no longer under the process that started this one). A worker of a test
    running beside this one under xdist is under its own pytest worker, which shares this
    process's parent: not counted."""
    me, parent = os.getpid(), os.getppid()
    return {pid for pid in _worker_pids() - before
            if me in _ancestors(pid) or parent not in _ancestors(pid)}


def test_evaluate_counts_skipped_apart_and_leaves_no_worker(
    tmp_path: Path, fetched_home: Path
) -> None:
    from fcbench.evaluation import evaluate

    model_dir = tmp_path / "result" / "some-model"
    model_dir.mkdir(parents=True)
    answers = [
        {"id": "exec_simple_0", "result": "[calc_binomial_probability(n=20, k=5, p=0.6)]"},
        {"id": "exec_simple_1", "result": "[calc_binomial_probability(n=30, k=15, p=0.4)]"},
        {
            "id": "exec_simple_22",
            "result": "[convert_currency(amount=1, from_currency='EUR', to_currency='USD')]",
        },
        {"id": "exec_simple_23", "result": "no call"},
    ]
    lines = "\n".join(json.dumps(a) for a in answers)
    (model_dir / "BFCL_v4_exec_simple_result.json").write_text(lines + "\n")
    before = _worker_pids()
    score_dir = tmp_path / "score"
    report = evaluate(tmp_path / "result", score_dir=score_dir, workers=2)
    scored = report.models["some-model"].categories["exec_simple"]
    assert (scored.correct, scored.total, scored.skipped) == (1, 3, 1)
    assert any("1 case(s) skipped" in p for p in report.models["some-model"].problems)
    (score_file,) = score_dir.rglob("BFCL_v4_exec_simple_score.json")
    header = json.loads(score_file.read_text().splitlines()[0])
    assert header["total_count"] == 3 and header["skipped_count"] == 1
    assert header["skipped"][0]["id"] == "exec_simple_22"
    assert not _left_behind(before)


def test_cli_replay_needs_a_folder(tmp_path: Path) -> None:
    from fcbench.cli import main

    (tmp_path / "m").mkdir()
    result = CliRunner().invoke(
        main, ["evaluate", "--result-dir", str(tmp_path), "--exec-backend", "replay"]
    )
    assert result.exit_code != 0
    assert "--exec-replay-dir" in result.output


@pytest.mark.parametrize("backend", ["offline", "replay", "live"])
def test_cli_accepts_the_backends(backend: str) -> None:
    from fcbench.cli import main

    result = CliRunner().invoke(main, ["evaluate", "--help"])
    assert backend in result.output
