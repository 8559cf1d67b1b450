"""The live preflight: each web API asked once before a live run, against a loopback stand-in
for the web services (no internet): healthy, a key missing, a key refused, a service down,
a service unreachable; and when it runs at all."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from fake_web_apis import KEYS, FakeWebApis, known_answers
from fcbench.check.exec_preflight import (
    FAILING,
    MISSING_KEY,
    OK,
    UNREACHABLE,
    check_web_apis,
    needs_web_apis,
    planned_request,
)
from fcbench.core import categories
from fcbench.dataset.load import load_category
from fcbench.pipeline import web_api_check
from fcbench.run_config import RunConfig


@pytest.fixture
def apis(fetched_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeWebApis]:
    with FakeWebApis(known_answers()) as fake:
        monkeypatch.setenv("FCBENCH_EXEC_ROUTES", json.dumps(fake.routes()))
        for variable, value in KEYS.items():
            monkeypatch.setenv(variable, value)
        yield fake


def test_every_api_once_and_all_healthy(apis: FakeWebApis, tmp_path: Path) -> None:
    report = check_web_apis(replay_dir=tmp_path)
    assert report.healthy and len(report.checks) == 29
    assert apis.requests == 29  # one request per API, none repeated
    assert len({c.api for c in report.checks}) == 29
    assert report.lines() == ["web API check (live exec backend): 29 API(s): 29 ok"]
    # recorded: one file per distinct request (covid, Amazon, OMDb and ip-api functions share
    # theirs: 29 APIs, 24 requests)
    assert len(list(tmp_path.glob("*.json"))) == 24


def test_missing_key_is_listed_and_never_sent(
    apis: FakeWebApis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAPID_API_KEY")
    report = check_web_apis()
    missing = report.with_status(MISSING_KEY)
    assert report.missing_keys == ["RAPID_API_KEY"] and len(missing) == 14
    assert {c.api for c in missing} >= {"get_covid_death_by_country (COVID-19 statistics)",
                                        "REST timezone-by-location.p.rapidapi.com"}
    assert not any("rapidapi" in path for path in apis.seen)
    assert len(report.with_status(OK)) == 15
    assert any(line.startswith("  RAPID_API_KEY is not set:") for line in report.lines())


def test_refused_key_and_a_service_down_are_failing(
    fetched_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeWebApis(known_answers(), failing=["www.omdbapi.com"]) as fake:
        monkeypatch.setenv("FCBENCH_EXEC_ROUTES", json.dumps(fake.routes()))
        for variable, value in KEYS.items():
            monkeypatch.setenv(variable, value)
        monkeypatch.setenv("GEOCODE_API_KEY", "a-wrong-key")
        report = check_web_apis()
    failing = {c.api: c.detail for c in report.with_status(FAILING)}
    assert set(failing) == {
        "get_coordinates_from_city (geocode.maps.co)", "REST geocode.maps.co",
        "get_movie_rating (OMDb)", "get_movie_director (OMDb)", "REST www.omdbapi.com",
    }
    assert failing["REST www.omdbapi.com"].startswith("executable_checker_rest:wrong_status_code")
    assert failing["REST geocode.maps.co"].endswith("got 401")
    assert not report.healthy and len(report.with_status(OK)) == 24


def test_unreachable_service(apis: FakeWebApis, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    routes = {**apis.routes(), "https://date.nager.at": dead}
    monkeypatch.setenv("FCBENCH_EXEC_ROUTES", json.dumps(routes))
    report = check_web_apis()
    unreachable = report.with_status(UNREACHABLE)
    assert [c.api for c in unreachable] == ["retrieve_holiday_by_year (date.nager.at)",
                                            "REST date.nager.at"]
    assert "Connection refused" in unreachable[0].detail


def test_planned_request_sends_nothing() -> None:
    request = planned_request("get_movie_rating(movie_name='Avatar')")
    assert request is not None and request.needs_key == "OMDB_API_KEY"
    assert request.url == "https://www.omdbapi.com/"
    rest = planned_request("requests.get(url='https://x.test/a', headers={'X-RapidAPI-Key': "
                           "'YOUR-RAPID-API-KEY'})")
    assert rest is not None and rest.needs_key == "RAPID_API_KEY" and rest.service == "x.test"
    assert planned_request("calc_binomial_probability(n=1, k=1, p=0.5)") is None  # pure
    assert planned_request("__import__('os').system('true')") is None  # refused, not run


def test_only_live_runs_of_executable_categories_are_checked(
    fetched_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcbench.check.exec_preflight as preflight

    calls: list[str] = []
    monkeypatch.setattr(preflight, "check_web_apis",
                        lambda *a, **k: calls.append("checked") or preflight.PreflightReport())
    executable = categories.resolve(["exec_simple"])
    ast = categories.resolve(["simple_python", "sql"])
    assert needs_web_apis(executable) and not needs_web_apis(ast)
    assert web_api_check(RunConfig.of({"exec_backend": "live"}), ast) is None
    assert web_api_check(RunConfig.of({"exec_backend": "replay"}), executable) is None
    assert web_api_check(RunConfig.of({"exec_backend": "live"}), executable) is not None
    assert calls == ["checked"]


def test_library_run_reports_the_check_first(
    apis: FakeWebApis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcbench

    monkeypatch.delenv("OMDB_API_KEY")
    report = fcbench.run("ground-truth", categories="exec_simple", exec_backend="live",
                         result_dir=tmp_path / "r", score_dir=tmp_path / "s")
    assert report.problems[0].startswith("web API check (live exec backend): 29 API(s)")
    assert any(p.startswith("  OMDB_API_KEY is not set") for p in report.problems)
    scored = report.models["ground-truth"].categories["exec_simple"]
    omdb = [c for c in load_category("exec_simple")
            if any(call.startswith("get_movie_") for call in c.possible_answer)]
    assert scored.correct == scored.total and scored.skipped == len(omdb) > 0
