"""Generation: ask a backend every case of some categories, keep an endpoint busy, lose nothing.

The scheduler is plain asyncio: `concurrency` workers pull cases from one shared iterator (in
the official order: category by category, by index), each case is retried on transient
failures with exponential backoff and full jitter (a server's Retry-After wins when longer), an
optional token bucket caps requests per second, and every finished case is appended to its
category's result file at once (see `store.py` for the crash guarantees). A case that still
fails is written with the official `Error during inference: ...` result plus an `error` field;
the next run asks it again (resume is the default: finished cases are skipped), unless the
error is final (`"final": true`: the prompt does not fit the model's context, and the like,
`PermanentError.final`): that case is scored as failed, as the official tool scores its error
result, and asked again only with `retry_permanent`. Every attempt's outcome feeds the run's
endpoint health (`runner.health`): a dead endpoint is set aside, a dead server stops the run.

A `Solver` answers one case: a single-turn case is one guarded `Backend.step`; a case with
environments is a conversation (`runner.conversation`) that makes one guarded step per model
turn, each retried under the same policy, rate limit and counters (`runner.solvers` picks).
Scheduling, the store, resume and progress are the same for both. Every generation keeps the
model folder's manifest (`model.json`: how the outputs are encoded, endpoint, sampling,
dataset identity, run history) up to date, whoever starts it (`results.manifest`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.core.categories import Category
from fcbench.core.model import TestCase
from fcbench.dataset.prompt_texts import PromptTexts, load_texts
from fcbench.layout import batch_state_path, result_path
from fcbench.models.base import Backend, Mode, Response, unwrapped
from fcbench.models.limits import DEFAULT_CONCURRENCY
from fcbench.results.store import ERROR_PREFIX, CategoryStore, to_ask_again
from fcbench.runner.batch import BatchSettings, Collected
from fcbench.runner.failures import DEFAULT_STOP_AFTER, Outcomes, Wait, merged
from fcbench.runner.health import DEFAULT_DOWN_AFTER, Health, duration
from fcbench.runner.queue import WorkQueue, dependencies
from fcbench.runner.retry import CallFailed, Guard, RateLimiter, RetryPolicy, call_with_retries
from fcbench.runner.solvers import Solver, case_solver, loop_settings

__all__ = [
    "CallFailed",
    "GenerateReport",
    "GenerateSettings",
    "GenerationJob",
    "Guard",
    "ProgressSink",
    "RateLimiter",
    "RetryPolicy",
    "Stats",
    "call_with_retries",
    "generate",
    "plan",
    "run_jobs",
]


@dataclass
class Stats:
    """Counters for progress and the final report."""

    done: int = 0
    errors: int = 0
    final: int = 0
    """Of `errors`, those final (not asked again on resume)."""
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    """Failed cases by reason (`runner.failures`)."""
    wait: Wait | None = None
    """The latest wait before a retry (shown while it lasts)."""


@dataclass
class GenerationJob:
    """The cases of one category still to ask, and where their answers go."""

    category: Category
    store: CategoryStore
    cases: list[TestCase]
    total: int
    already: int
    stats: Stats = field(default_factory=Stats)


class ProgressSink:
    """Receives progress events; the default does nothing (the CLI plugs in a rich display)."""

    def start(self, jobs: Sequence[GenerationJob]) -> None:
        """Called once before the first request."""

    def update(self, job: GenerationJob) -> None:
        """Called after each finished case and each retry."""

    def tick(self) -> None:
        """Called about once a second, whatever happens (for displays printed at an
        interval: a long wait produces no other event)."""

    def activity(self, text: str | None) -> None:
        """Called before each tick with what the backend is doing between answers (a local
        model's batch: rows, tokens so far, seconds), None when it says nothing."""

    def note(self, text: str) -> None:
        """A warning about the run, said once when it is found (default: a line on stderr,
        so that library callers without a display hear it too)."""
        import sys

        print(f"fcbench: warning: {text}", file=sys.stderr, flush=True)

    def stop(self) -> None:
        """Called once at the end (also on errors)."""


def plan(
    model_dir: Path,
    cases_by_category: Sequence[tuple[Category, list[TestCase]]],
    rerun: dict[str, set[str]] | None = None,
    *,
    retry_permanent: bool = False,
) -> list[GenerationJob]:
    """Open each category's store and work out what to ask: missing, errored (final errors
    only with `retry_permanent`), re-asked cases."""
    jobs: list[GenerationJob] = []
    for category, cases in cases_by_category:
        store = CategoryStore(result_path(model_dir, category))
        entries = store.open()
        again = {i for i, e in entries.items() if to_ask_again(e, retry_permanent)} | (
            rerun or {}).get(category.name, set())
        known = {c.id for c in cases}
        store.drop(again & known)
        finished = {i for i, e in entries.items() if i not in again and i in known}
        todo = [c for c in cases if c.id not in finished]
        jobs.append(GenerationJob(category, store, todo, len(cases), len(cases) - len(todo)))
    _drop_unneeded_prerequisites(jobs)
    return jobs


def _drop_unneeded_prerequisites(jobs: list[GenerationJob]) -> None:
    """Prerequisite conversations are asked only for questions still to ask (upstream: when
    every question of a memory category is done, its prerequisites are not run again)."""
    needed = {dep for job in jobs if not job.category.prerequisite
              for case in job.cases for dep in dependencies(case)}
    for job in (j for j in jobs if j.category.prerequisite):
        kept = [case for case in job.cases if case.id in needed]
        job.total -= len(job.cases) - len(kept)
        job.cases = kept


def entry_for(case: TestCase, response: Response, attempts: int) -> dict[str, Any]:
    """The result line: the official fields first, then fcbench's."""
    entry: dict[str, Any] = {
        "id": case.id,
        "result": response.result,
        "input_token_count": response.input_tokens,
        "output_token_count": response.output_tokens,
        "latency": response.latency,
    }
    entry.update(response.extras)
    entry["attempts"] = attempts
    entry["finish_reason"] = response.finish_reason
    return entry


def error_entry(
    case: TestCase, message: str, attempts: int, latency: float, *, final: bool = False
) -> dict[str, Any]:
    """A case that failed for good, as the official tool writes it (plus fcbench's fields;
    `final`: not asked again on resume)."""
    entry: dict[str, Any] = {
        "id": case.id,
        "result": ERROR_PREFIX + message,
        "latency": latency,
        "attempts": attempts,
        "error": message,
    }
    if final:
        entry["final"] = True
    return entry


@dataclass
class GenerateSettings:
    """How a generation runs: the mode, the release's prompt texts (loaded from `release` when
    not given), the model name that labels environment instances, and the scheduling."""

    mode: Mode
    texts: PromptTexts | None = None
    release: str | None = None
    data_dir: Path | None = None
    model_name: str = "fcbench"
    concurrency: int = DEFAULT_CONCURRENCY
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    max_rps: float | None = None
    sync_interval: float = 1.0
    stop_after: int = DEFAULT_STOP_AFTER
    """Stop when the first this-many finished cases all failed the same way (0: never)."""
    down_after: float = DEFAULT_DOWN_AFTER
    """Seconds an endpoint may fail without one answer before it is set aside, the run
    stopping when every endpoint is (`runner.health`; 0: never)."""
    retry_permanent: bool = False
    """Ask again the cases recorded with a final error (`PermanentError.final`)."""
    describe_run: Callable[[], dict[str, Any]] | None = None
    """More fields for the manifest, asked at the end of the run (e.g. who answered web
    searches, with counts)."""
    batch: BatchSettings | None = None
    """Ask the single-request cases through the provider's batch API first (`runner.batch`)."""
    shard: dict[str, int] | None = None
    """The run asks one shard of the cases (`dataset.shards`): recorded in the manifest."""


async def run_jobs(
    jobs: Sequence[GenerationJob],
    solve: Solver,
    settings: GenerateSettings,
    progress: ProgressSink | None = None,
    warnings: list[str] | None = None,
    *,
    backend: Backend | None = None,
) -> str | None:
    """Ask every pending case of every job with `solve`; returns when all are written, or
    early with the reason when the first cases all failed alike (`runner.failures`) or every
    endpoint of `backend` is down (`runner.health`: the cases in flight are abandoned).
    Warnings found on the way (`runner.tool_use`) are said through `progress.note` and
    appended to `warnings`."""
    from fcbench.runner.tool_use import ToolUseWatch

    progress = progress or ProgressSink()
    outcomes = Outcomes(settings.stop_after)
    tasks: list[asyncio.Task[None]] = []

    def abandon() -> None:
        for task in tasks:
            task.cancel()

    health = _health(backend, settings.down_after, abandon, progress.note)
    tool_use = ToolUseWatch() if settings.mode == "fc" else None
    limiter = RateLimiter(settings.max_rps) if settings.max_rps else None
    queue = WorkQueue([(job, case) for job in jobs for case in job.cases])

    async def answer(job: GenerationJob, case: TestCase) -> None:
        def retried() -> None:
            job.stats.retries += 1
            progress.update(job)

        def waiting(wait: Wait) -> None:
            job.stats.wait = wait

        started = time.perf_counter()
        try:
            response, attempts = await solve(
                case, Guard(settings.policy, limiter, retried, waiting, health=health)
            )
        except CallFailed as exc:
            job.stats.errors += 1
            job.stats.final += exc.final
            outcomes.failed(str(exc), job.stats.reasons,
                            in_a_row=getattr(exc, "in_a_row", False), final=exc.final)
            job.store.append(error_entry(case, str(exc), exc.attempts, _since(started),
                                         final=exc.final))
        except Exception as exc:  # like the official tool: a failing case never stops the run
            job.stats.errors += 1
            message = f"{type(exc).__name__}: {exc}"
            outcomes.failed(message, job.stats.reasons)
            job.store.append(error_entry(case, message, 1, _since(started)))
        else:
            outcomes.succeeded()
            job.store.append(entry_for(case, response, attempts))
            found = tool_use.observe(job.category, response.result) if tool_use else None
            if found is not None:
                progress.note(found)
                if warnings is not None:
                    warnings.append(found)
            job.stats.input_tokens += response.input_tokens or 0
            job.stats.output_tokens += response.output_tokens or 0
        job.stats.done += 1
        progress.update(job)

    async def worker() -> None:
        while (outcomes.stop is None and health.stop is None
               and (item := await queue.next()) is not None):
            try:
                await answer(*item)
            finally:
                await queue.finished(item[1])

    async def syncer() -> None:
        while True:
            await asyncio.sleep(settings.sync_interval)
            _sync_all(jobs)  # in the loop: a thread could race the final close
            progress.activity(_activity(backend))
            progress.tick()

    progress.start(jobs)
    sync_task = asyncio.create_task(syncer())
    try:
        tasks.extend(asyncio.create_task(worker()) for _ in range(max(1, settings.concurrency)))
        await asyncio.wait(tasks)
        for task in tasks:  # a cancelled worker (a dead server) ends quietly, not a failure
            failure = None if task.cancelled() else task.exception()
            if failure is not None:
                raise failure
    finally:
        abandon()  # interrupted (Ctrl-C cancels this task): no worker writes after the close
        sync_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sync_task
        progress.stop()
        for job in jobs:
            job.store.finalize()
    return health.stop or outcomes.stop


def _activity(backend: Backend | None) -> str | None:
    """The backend's own word on the work in flight (`activity()`, e.g. `models.hf_local`)."""
    said = getattr(unwrapped(backend), "activity", None) if backend is not None else None
    text = said() if callable(said) else None
    return text if isinstance(text, str) else None


def _health(
    backend: Backend | None, down_after: float, on_stop: Callable[[], None],
    note: Callable[[str], None],
) -> Health:
    """The run's endpoint health: per endpoint when the backend has several (its replica
    choice then sets a dead one aside, said once per time through `note`), as one
    otherwise."""
    target = unwrapped(backend) if backend is not None else None
    endpoints = getattr(target, "endpoints", None)
    aside = getattr(target, "set_aside", None)
    health = Health(down_after, list(endpoints) if isinstance(endpoints, list) else (),
                    on_stop=on_stop)

    def set_aside(endpoint: str, seconds: float) -> None:
        if callable(aside):
            aside(endpoint, seconds)
        outage = health.outages[endpoint]
        note(f"{endpoint} set aside for {seconds:g} s (no answer for "
             f"{duration(time.time() - outage.since)}: {outage.last}); the other endpoints "
             "go on")

    health.set_aside = set_aside
    return health


async def _batched(backend: Backend, report: GenerateReport, settings: BatchSettings,
                   texts: PromptTexts, mode: Mode) -> Collected:
    """The batch phase of a `--batch` run (`runner.batch.collect`)."""
    from fcbench.runner.batch import collect, requests_for

    cases = [case for job in report.jobs for case in job.cases]
    return await collect(backend, cases, settings, report.model_dir,
                         requests_for(backend, mode, texts))


def _sync_all(jobs: Sequence[GenerationJob]) -> None:
    for job in jobs:
        job.store.sync()


def _since(start: float) -> float:
    return time.perf_counter() - start


# --------------------------------------------------------------------------- one model's run


@dataclass
class GenerateReport:
    """What a generation did, for the summary line and the manifest."""

    model_dir: Path
    jobs: list[GenerationJob]
    started_at: str
    finished_at: str = ""
    seconds: float = 0.0
    stopped: str | None = None
    """Why the run stopped before asking every case (None: it did not)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Further summary entries from the backend (`run_summary()`, e.g. the cache's counts)."""
    warnings: list[str] = field(default_factory=list)
    """What the run found suspicious without failing (`runner.tool_use`), said once."""

    @property
    def asked(self) -> int:
        return sum(job.stats.done for job in self.jobs)

    @property
    def planned(self) -> int:
        """Cases this run set out to ask (finished ones of earlier runs not counted)."""
        return sum(len(job.cases) for job in self.jobs)

    @property
    def errors(self) -> int:
        return sum(job.stats.errors for job in self.jobs)

    @property
    def final(self) -> int:
        """Errors that are final (recorded as failed, not asked again on resume)."""
        return sum(job.stats.final for job in self.jobs)

    @property
    def done(self) -> int:
        """Cases with an answer or a final error, of this run and earlier ones."""
        return sum(job.already + job.stats.done - job.stats.errors + job.stats.final
                   for job in self.jobs)

    @property
    def total(self) -> int:
        return sum(job.total for job in self.jobs)

    @property
    def retries(self) -> int:
        return sum(job.stats.retries for job in self.jobs)

    @property
    def skipped(self) -> int:
        return sum(job.already for job in self.jobs)

    @property
    def reasons(self) -> Counter[str]:
        """Failed cases by reason, over every category."""
        return merged(job.stats.reasons for job in self.jobs)

    def summary(self) -> dict[str, Any]:
        return {
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "asked": self.asked,
            "already_done": self.skipped,
            "errors": self.errors,
            "retries": self.retries,
            "seconds": round(self.seconds, 3),
            "errors_by_reason": dict(self.reasons.most_common()),
            "stopped": self.stopped,
            **({"warnings": list(self.warnings)} if self.warnings else {}),
            **self.extra,
        }


INTERRUPTED = "interrupted (Ctrl-C)"
"""The run log's `stopped` of a run ended by Ctrl-C (its finished cases are kept)."""


def now_iso() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def generate(
    backend: Backend,
    model_dir: Path,
    cases_by_category: Sequence[tuple[Category, list[TestCase]]],
    settings: GenerateSettings,
    *,
    rerun: dict[str, set[str]] | None = None,
    overwrite: bool = False,
    progress: ProgressSink | None = None,
    solver: Solver | None = None,
) -> GenerateReport:
    """Plan and run one model's generation into `model_dir` (blocking; owns its event loop).

    The folder is locked against a second writer, its manifest written before the first
    case and completed at the end; `overwrite` discards the chosen categories' results
    first, `rerun` (category -> ids) asks those cases again. `solver` defaults to
    `runner.solvers.case_solver` (one step, or a conversation for cases with environments).
    """
    from fcbench.dataset.custom import run_identity
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.results.manifest import finish_manifest, start_manifest
    from fcbench.results.store import FolderLock

    release = settings.release or DEFAULT_RELEASE
    report = GenerateReport(model_dir, [], now_iso())
    names = [c.name for c, _ in cases_by_category]
    with FolderLock(model_dir):
        manifest = start_manifest(
            model_dir, model=settings.model_name, mode=settings.mode, backend=backend,
            dataset=run_identity(release, settings.data_dir, names),
            categories=names, started_at=report.started_at, overwrite=overwrite,
            shard=settings.shard,
        )
        if overwrite:
            for category, _ in cases_by_category:
                result_path(model_dir, category).unlink(missing_ok=True)
            batch_state_path(model_dir).unlink(missing_ok=True)  # starting over: asked afresh
        interrupted = False
        try:
            _run(backend, report, cases_by_category, settings, rerun, progress,
                 solver or _default_solver(backend, settings, release, model_dir),
                 (settings.texts or load_texts(release)) if settings.batch else None)
        except KeyboardInterrupt:  # Ctrl-C: the run log says so, then the caller hears it
            report.stopped, interrupted = INTERRUPTED, True
        if settings.describe_run is not None:
            manifest.update(settings.describe_run())
        report.extra.update(_backend_summary(backend))
        finish_manifest(model_dir, manifest, report.summary())
    if interrupted:
        raise KeyboardInterrupt
    return report


def _backend_summary(backend: Backend) -> dict[str, Any]:
    """What a backend adds to the run summary (a cached backend: its hit counts)."""
    summary = getattr(backend, "run_summary", None)
    found = summary() if callable(summary) else None
    return dict(found) if isinstance(found, dict) else {}


def _default_solver(
    backend: Backend, settings: GenerateSettings, release: str, model_dir: Path
) -> Solver:
    texts = settings.texts or load_texts(release)
    loop = loop_settings(settings.mode, texts, settings.model_name, release, model_dir)
    return case_solver(backend, loop)


def _run(
    backend: Backend,
    report: GenerateReport,
    cases_by_category: Sequence[tuple[Category, list[TestCase]]],
    settings: GenerateSettings,
    rerun: dict[str, set[str]] | None,
    progress: ProgressSink | None,
    solve: Solver,
    batch_texts: PromptTexts | None = None,
) -> None:
    start = time.perf_counter()
    report.jobs = plan(report.model_dir, cases_by_category, rerun,
                       retry_permanent=settings.retry_permanent)

    async def main() -> None:
        collected = None
        try:
            if settings.batch is not None and batch_texts is not None:
                collected = await _batched(backend, report, settings.batch, batch_texts,
                                           settings.mode)
                report.stopped = collected.stopped
                report.extra["batch"] = collected.summary
            if report.stopped is None:
                report.stopped = await run_jobs(
                    report.jobs, collected.solver(solve) if collected else solve, settings,
                    progress, report.warnings, backend=backend)
        finally:
            if collected is not None:
                collected.restore()
            await backend.aclose()

    try:
        asyncio.run(main())
    finally:
        for job in report.jobs:
            job.store.close()
        report.seconds = time.perf_counter() - start
        report.finished_at = now_iso()
