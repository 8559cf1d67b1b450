"""Before a live executable run: ask each web API once, and say which keys are missing or
failing, instead of letting every case discover it.

The official evaluator did this before scoring the executable categories (its API sanity
check): it ran the release's known-good calls (`dataset.exec_probes`) and printed the failing
ones, then went on. fcbench asks each web API once: the first probe of every web-service
function, and one REST request per service host. Each API ends up

* `ok`: the answer has the recorded answer's shape (the official comparison, in its sanity
  mode: a dict needs only as many keys);
* `missing key`: the key variable is not set, so nothing was sent; the cases calling this
  API will be skipped;
* `unreachable`: no answer (network error, timeout);
* `failing`: an answer of the wrong shape (a rejected key, an exhausted quota, a changed
  service), with the official error type; the cases calling it will likely fail.

The run goes on either way, as the official one did. The probes go through the run's own live
backend, so a recording run records their answers too. Which request a probe makes (its
service and key) is learnt first without sending anything: its call runs in this process
against a backend that only writes the request down.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from fcbench.check.exec import ExecRunner, Unanswerable, check_result, limits_for, rest_verdict
from fcbench.check.exec_sandbox import UnsafeCall, parse_call
from fcbench.core.categories import EXECUTABLE_CHECKERS, Category
from fcbench.dataset.exec_probes import Probe, executable_probes, rest_probes
from fcbench.dataset.fetch import DEFAULT_RELEASE
from fcbench.envs.exec_functions import ALL_NAMES, REST_NAME, call
from fcbench.envs.exec_functions.backends import HttpRequest, HttpResponse, ServiceUnavailable

OK, MISSING_KEY, UNREACHABLE, FAILING = "ok", "missing key", "unreachable", "failing"


@dataclass(frozen=True)
class ApiCheck:
    """One web API's answer to its probe."""

    api: str
    call: str
    status: str
    detail: str = ""
    key: str | None = None


@dataclass
class PreflightReport:
    """Every API checked, in probe order."""

    checks: list[ApiCheck] = field(default_factory=list)

    def with_status(self, status: str) -> list[ApiCheck]:
        return [c for c in self.checks if c.status == status]

    @property
    def missing_keys(self) -> list[str]:
        return sorted({c.key for c in self.with_status(MISSING_KEY) if c.key})

    @property
    def healthy(self) -> bool:
        return all(c.status == OK for c in self.checks)

    def lines(self) -> list[str]:
        """What a person reads before the run: a count line, then the problems."""
        counts = ", ".join(
            f"{len(self.with_status(s))} {s}" for s in (OK, MISSING_KEY, UNREACHABLE, FAILING)
            if self.with_status(s)
        )
        lines = [f"web API check (live exec backend): {len(self.checks)} API(s): {counts}"]
        for key in self.missing_keys:
            apis = ", ".join(c.api for c in self.with_status(MISSING_KEY) if c.key == key)
            lines.append(f"  {key} is not set: {apis} (their cases will be skipped)")
        for check in self.with_status(UNREACHABLE) + self.with_status(FAILING):
            lines.append(f"  {check.status}: {check.api}: {check.detail}")
        return lines


def needs_web_apis(chosen: Iterable[Category]) -> bool:
    """Whether any of these categories is checked by running calls (exec_*, rest)."""
    return any(c.checker in EXECUTABLE_CHECKERS for c in chosen)


def check_web_apis(
    release: str = DEFAULT_RELEASE,
    data_root: Path | None = None,
    replay_dir: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> PreflightReport:
    """Probe each web API once through a live backend (recording to `replay_dir` if given)."""
    env = os.environ if environ is None else environ
    samples = _rest_samples(release, data_root)
    runner = ExecRunner("live", replay_dir, limits_for("live"))
    report = PreflightReport()
    try:
        for probe, request in _one_per_api(release, data_root):
            report.checks.append(_check(probe, request, env, samples, runner))
    finally:
        runner.close()
    return report


def _one_per_api(release: str, data_root: Path | None) -> list[tuple[Probe, HttpRequest]]:
    """The first probe of each web-service function, and of each REST host, with the request
    it makes (probes that make none, or cannot be read, are left out)."""
    chosen: dict[str, tuple[Probe, HttpRequest]] = {}
    for probe in executable_probes(release, data_root) + rest_probes(release, data_root):
        request = planned_request(probe.call)
        if request is None:
            continue
        api = _api_name(probe, request)
        chosen.setdefault(api, (probe, request))
    return list(chosen.values())


def _api_name(probe: Probe, request: HttpRequest) -> str:
    if probe.function == REST_NAME:
        return f"REST {request.service}"
    return f"{probe.function} ({request.service})"


class _Planner:
    """A service backend that answers nothing and remembers the first request asked."""

    name = "planner"

    def __init__(self) -> None:
        self.request: HttpRequest | None = None

    def get(self, request: HttpRequest) -> HttpResponse:
        self.request = self.request or request
        raise ServiceUnavailable("planning only")


def planned_request(text: str) -> HttpRequest | None:
    """The first web request a call string would make (None: none, or not a valid call)."""
    planner = _Planner()
    try:
        parsed = parse_call(text, ALL_NAMES)
        call(parsed.name, list(parsed.args), dict(parsed.kwargs), planner)
    except UnsafeCall:
        return None
    except Exception:  # the planner's refusal, or the function failing without an answer
        pass
    return planner.request


def _check(
    probe: Probe,
    request: HttpRequest,
    environ: Mapping[str, str],
    samples: Mapping[str, str],
    runner: ExecRunner,
) -> ApiCheck:
    api = _api_name(probe, request)
    if request.needs_key and not environ.get(request.needs_key):
        return ApiCheck(api, probe.call, MISSING_KEY, f"{request.needs_key} is not set",
                        request.needs_key)
    try:
        if probe.function == REST_NAME:
            verdict = rest_verdict(probe.call, samples.get(probe.rest_id, "null"), runner)
        else:
            (outcome,) = runner.run([probe.call])
            if outcome.kind == "unavailable":
                raise Unanswerable(outcome.message)
            verdict = check_result(probe.call, outcome, probe.expected, probe.result_type,
                                   sanity=True)
    except Unanswerable as exc:
        return ApiCheck(api, probe.call, UNREACHABLE, str(exc), request.needs_key)
    if verdict.valid:
        return ApiCheck(api, probe.call, OK, key=request.needs_key)
    detail = f"{verdict.error_type}: {'; '.join(map(str, verdict.errors))}"
    return ApiCheck(api, probe.call, FAILING, _short(detail), request.needs_key)


def _rest_samples(release: str, data_root: Path | None) -> dict[str, str]:
    from fcbench.dataset.load import has_category, load_category

    if not has_category("rest", release, data_root):
        return {}
    return {c.id: str(c.possible_answer) for c in load_category("rest", release, data_root)}


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
