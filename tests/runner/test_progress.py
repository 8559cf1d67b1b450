"""Progress lines for logs: counts, rate, ETA, errors by reason, and why nothing moves."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from fake_openai import FakeOpenAI
from fcbench.core import categories
from fcbench.results.store import CategoryStore
from fcbench.runner.failures import Wait
from fcbench.runner.generate import GenerationJob
from fcbench.runner.progress import (
    PlainProgress,
    Throughput,
    current_wait,
    eta_text,
    rate_text,
)


def job(tmp_path: Path, pending: int = 10) -> GenerationJob:
    from fcbench.core.model import TestCase

    cases = [TestCase(f"simple_python_{i}", "simple_python", [[]], [], None)
             for i in range(pending)]
    return GenerationJob(categories.get("simple_python"), CategoryStore(tmp_path / "x"), cases,
                         pending + 2, 2)


def test_lines_at_the_interval_with_errors_and_waits(tmp_path: Path) -> None:
    stream = io.StringIO()
    progress = PlainProgress(stream, interval=3600)
    one = job(tmp_path)
    progress.start([one])
    one.stats.done, one.stats.errors, one.stats.retries = 4, 2, 3
    one.stats.reasons.update({"HTTP 401: bad key": 2})
    progress.update(one)  # inside the interval: nothing printed
    assert stream.getvalue().count("\n") == 1
    one.stats.wait = Wait.start("HTTP 429: slow down", 300.0, 3600.0, 300.0)
    progress.tick()  # a long wait that begins is printed at once
    lines = stream.getvalue().splitlines()
    assert lines[0] == "fcbench: 10 case(s) to ask (2 already done)"
    assert lines[1].startswith("fcbench: 4/10 cases (40%), ")
    assert "retries 3, errors 2 (HTTP 401: bad key × 2)" in lines[1]
    assert "HTTP 429: slow down (Retry-After 3600 s, capped at 300 s" in lines[1]
    progress.tick()  # the same wait is not printed twice
    assert len(stream.getvalue().splitlines()) == 2
    progress.stop()
    assert len(stream.getvalue().splitlines()) == 3


def test_current_wait_ignores_waits_that_ended(tmp_path: Path) -> None:
    a, b = job(tmp_path), job(tmp_path)
    a.stats.wait = Wait("x", 1.0, None, 300.0, until=10.0)
    b.stats.wait = Wait("y", 1.0, None, 300.0, until=20.0)
    assert current_wait([a, b], now=5.0) is b.stats.wait
    assert current_wait([a, b], now=15.0) is b.stats.wait
    assert current_wait([a, b], now=25.0) is None
    assert (eta_text(None), eta_text(59), eta_text(61), eta_text(3700)) == (
        "?", "59 s", "1 min 01 s", "1 h 01 min")


def rate_limited_once(request: dict[str, Any], attempt: int) -> str | None:
    return "429" if attempt == 1 else None


def test_a_run_without_a_terminal_prints_progress_lines_with_the_retry_after(
    fetched_home: Path, tmp_path: Path
) -> None:
    from fcbench.cli import main

    with FakeOpenAI(faults=rate_limited_once, retry_after="30") as server:
        started = time.monotonic()
        result = CliRunner().invoke(main, [
            "generate", "--model", "m", "--base-url", server.base_url, "--categories",
            "simple_python", "--limit", "4", "--max-retry-wait", "1", "--progress-interval",
            "0.5", "--result-dir", str(tmp_path / "r")], catch_exceptions=False)
        elapsed = time.monotonic() - started
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("fcbench: ")]
    assert lines[0] == "fcbench: 4 case(s) to ask (0 already done)"
    waiting = [line for line in lines if "waiting" in line]
    assert waiting and "HTTP 429" in waiting[0]
    assert "(Retry-After 30 s, capped at 1 s (--max-retry-wait))" in waiting[0]
    assert lines[-1].startswith("fcbench: 4/4 cases (100%)")
    assert elapsed < 20  # the cap held: a 30 s Retry-After waited 1 s


def test_rates_read_right_at_any_speed() -> None:
    """Issue 25 item 2: 20 cases in 492 s is 2.4 a minute, not `0.0/s`."""
    assert rate_text(120, 10) == "12.0/s"
    assert rate_text(20, 492.1) == "2.4/min"
    assert rate_text(3, 285) == "95 s/case"
    assert (rate_text(0, 30), rate_text(5, 0)) == ("0/s", "0/s")


def test_the_eta_follows_recent_cases_and_does_not_climb_while_waiting() -> None:
    throughput = Throughput(start=0.0, keep=3)
    assert throughput.eta(10.0, 10) is None  # nothing finished yet
    for moment, done in [(100.0, 1), (200.0, 2), (210.0, 3), (220.0, 4), (230.0, 5)]:
        throughput.record(moment, done)
    throughput.record(231.0, 5)  # a retry, no new case: not a mark
    assert throughput.rate() == (3, 30.0)  # the last three cases, not the slow start
    assert throughput.eta(230.0, 6) == 60.0
    assert throughput.eta(250.0, 6) == 40.0  # counts down while nothing finishes
    assert throughput.eta(400.0, 6) == 6 * (30 + 170) / 3  # overdue: the rate up to now
    assert throughput.eta(230.0, 0) == 0.0


def test_an_overdue_batch_never_shows_eta_zero() -> None:
    """Issue 33 item 3: a local model's batch of 8 ended at 656 s (82 s/case), the next 4
    are generating for much longer: the ETA is the live rate's (the wait counted), not
    `ETA 0 s`, and it keeps growing with the wait instead of sticking at a number."""
    throughput = Throughput(start=0.0)
    throughput.record(656.0, 8)
    assert throughput.eta(700.0, 4) == 4 * 82 - 44  # on time: the countdown
    overdue = [throughput.eta(moment, 4) for moment in (984.0, 1000.0, 1600.0)]
    assert overdue == [4 * 984 / 8, 500.0, 800.0]
    assert eta_text(overdue[0]) == "8 min 12 s"


def test_a_line_carries_the_backends_activity_while_cases_remain(tmp_path: Path) -> None:
    stream = io.StringIO()
    progress = PlainProgress(stream, interval=0.0)
    one = job(tmp_path, pending=2)
    progress.start([one])
    progress.activity("generating 2 case(s): 312 token(s) so far, 41 s")
    progress.tick()
    assert stream.getvalue().splitlines()[-1].endswith(
        "errors 0; generating 2 case(s): 312 token(s) so far, 41 s")
    one.stats.done = 2  # every case answered: a stale activity is not shown
    progress.tick()
    assert "token(s)" not in stream.getvalue().splitlines()[-1]


def test_the_summary_line_of_a_slow_run(tmp_path: Path, capsys: Any) -> None:
    from fcbench.cli.run import _print_generation
    from fcbench.runner.generate import GenerateReport

    slow = job(tmp_path, pending=20)
    slow.stats.done = 20
    _print_generation(GenerateReport(tmp_path, [slow], "now", seconds=492.1), "m")
    assert "asked 20 case(s) in 492.1 s (2.4/min)" in capsys.readouterr().err
