"""`--batch`: the single-request cases asked through the provider's batch API, resumably.

Before the run asks anything, each pending case that one request answers (single-turn,
format sensitivity; not a case with environments: multi-turn and agentic steps depend on
each other's replies, so they are asked live, and the run says so) is laid out exactly as
the live path lays it out (`models.prompts.build_request`) and handed to the live backend's
own `step`; the backend builds its body as it would for a live call and hands it to its raw
store (`models.exchange`), where `BatchStore` takes it instead of sending it. So a batch line
is the live request body, byte for byte the same data, built by the same code.

The requests are named by the sha256 of what was captured (`custom_id`), submitted in
batches of what the provider takes, and each batch's id and names are written to the result
folder (`fcbench_batches.json`, atomically, masked) as soon as the provider answers, so a
killed or stopped run, started again, finds them, asks after those batches and submits only
requests no batch holds: nothing is submitted twice. Then it polls every `poll` seconds
(progress: batches, requests, completed, failed, elapsed) until every batch has ended, or
stops after `timeout` seconds with the reason (the same command resumes); replies already
in the response cache are not submitted at all.

The replies are served through the same store to the same `step`, so they are read, cached
(the response cache behind it keeps them as it keeps live replies) and written exactly as
live replies; their result lines carry `"batch": <batch id>`, which the cost columns price
at `models.batch.BATCH_PRICE` of the live price, and latency 0 (not measured: a batch has no
per-request latency). A request the batch did not answer (errored, expired, cancelled, a
batch that failed) is asked live through the normal retries, so it ends as an answer or as
the case's recorded failure.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench import redact
from fcbench._atomic import replace_text
from fcbench.core.model import TestCase
from fcbench.dataset.prompt_texts import PromptTexts
from fcbench.layout import batch_state_path
from fcbench.models.base import (
    Backend,
    BackendError,
    ChatRequest,
    Mode,
    PermanentError,
    Response,
    layout_of,
    unwrapped,
)
from fcbench.models.batch import (
    BATCH_APIS,
    BatchAPI,
    BatchItem,
    BatchLine,
    BatchStatus,
    BatchUnsupported,
    for_backend,
)
from fcbench.models.exchange import Ask, KeepsRaw, RawReply, RawStore, exchanged
from fcbench.models.prompts import build_request
from fcbench.runner.conversation import has_environments
from fcbench.runner.solvers import Solver

__all__ = ["DEFAULT_POLL", "DEFAULT_TIMEOUT", "BatchSettings", "Collected", "collect"]

DEFAULT_POLL = 30.0
"""Seconds between two status requests (`--batch-poll`)."""
DEFAULT_TIMEOUT = 86_400.0
"""Seconds of polling after which the run stops (`--batch-timeout`): the providers' 24 h."""
STATE_FORMAT = 1
RESULT_ATTEMPTS = 5
"""Reads of an ended batch's results before its requests are asked live."""
QUIET_POLLS = 20
"""A progress line at least every this many polls, else only when the counts change."""

_USED: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "fcbench_batch_used", default=None)
"""The batch ids whose replies a case's step was served (set by the solver wrapper)."""

Say = Callable[[str], None]


@dataclass(frozen=True)
class BatchSettings:
    poll: float = DEFAULT_POLL
    timeout: float = DEFAULT_TIMEOUT


def say_on_stderr(text: str) -> None:
    print(f"fcbench: batch: {text}", file=sys.stderr, flush=True)


def custom_id(request: dict[str, Any]) -> str:
    """A request's name in a batch: the sha256 of its canonical JSON (64 characters, as
    Anthropic's custom ids allow), the same in every run that sends the same request."""
    text = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class _Captured(Exception):
    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__("captured")
        self.request = request


class BatchStore:
    """The live backend's raw store while `--batch` runs: it captures requests (`capturing`),
    then serves batch replies, handing everything else to the store it stands in front of
    (the response cache, or none: asked live)."""

    def __init__(self, previous: RawStore | None, endpoint: str) -> None:
        self.previous = previous
        self.endpoint = endpoint
        self.capturing = False
        self.replies: dict[str, tuple[str, BatchItem]] = {}

    async def exchange(self, request: dict[str, Any], ask: Ask) -> RawReply:
        if self.capturing:
            raise _Captured(request)
        found = self.replies.get(custom_id(request))
        if found is None or found[1].body is None:
            return await exchanged(self.previous, request, ask)
        batch_id, item = found

        async def from_batch() -> RawReply:
            used = _USED.get()
            if used is not None:
                used.append(batch_id)
            return RawReply(str(item.body), 0.0, self.endpoint, item.decoded)

        return await exchanged(self.previous, request, from_batch)

    def kept(self, request: dict[str, Any]) -> bool:
        """Whether the store behind already keeps a reply (then nothing is submitted)."""
        kept = getattr(self.previous, "kept", None)
        return bool(kept(request)) if callable(kept) else False


@dataclass
class Collected:
    """What the batch phase leaves for the run: the replies (in the installed store), or why
    the run stops before asking anything."""

    target: Any
    store: BatchStore | None
    stopped: str | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    """For the run log (`model.json`): the API, requests wanted, submitted by this run,
    answered by a batch, asked live."""

    def solver(self, solve: Solver) -> Solver:
        """`solve`, its responses marked with the batch that answered them."""

        async def batched(case: TestCase, guard: Any) -> tuple[Response, int]:
            used: list[str] = []
            token = _USED.set(used)
            try:
                response, attempts = await solve(case, guard)
            finally:
                _USED.reset(token)
            if used:
                response.extras["batch"] = used[-1]
            return response, attempts

        return batched

    def restore(self) -> None:
        """The backend's own raw store back."""
        if self.store is not None:
            self.target.use_raw_store(self.store.previous)


@dataclass
class _State:
    """The result folder's record of submitted batches."""

    path: Path
    api: str
    batches: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path, api: str) -> _State:
        if not path.exists():
            return cls(path, api)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            batches = list(data["batches"])
            for batch in batches:  # an entry left out would be submitted again: refuse
                if not isinstance(batch["id"], (str, type(None))) or not isinstance(
                        batch.get("token", ""), str) or not all(
                        isinstance(r, str) for r in batch["requests"]):
                    raise TypeError("a batch without a text id and request names")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise BatchUnsupported(
                f"{path} cannot be read ({type(exc).__name__}); it names the batches "
                "already submitted: restore it, or delete it to submit them again") from None
        return cls(path, str(data.get("api", api)), batches)

    def held(self) -> set[str]:
        return {r for b in self.batches for r in b["requests"]}

    def intend(self, token: str, requests: list[str]) -> None:
        """Record a submission before it is made (id None until the provider answers): a
        run killed meanwhile finds the batch by `token` (`BatchAPI.find`), not submitting
        it again."""
        from datetime import datetime, timezone

        self.batches.append({"id": None, "token": token, "requests": requests,
                             "submitted_at": datetime.now(timezone.utc).isoformat(
                                 timespec="seconds")})
        self._write()

    def confirm(self, token: str, batch_id: str | None) -> None:
        """The submission `token` is batch `batch_id`; None: it never reached the provider
        (the entry goes, its requests are submitted again)."""
        for batch in list(self.batches):
            if batch.get("token") == token and batch["id"] is None:
                if batch_id is None:
                    self.batches.remove(batch)
                else:
                    batch["id"] = batch_id
        self._write()

    def _write(self) -> None:
        text = json.dumps({"format": STATE_FORMAT, "api": self.api, "batches": self.batches},
                          indent=1)
        replace_text(self.path, redact.values(text) + "\n", durable=True)


def requests_for(backend: Backend, mode: Mode, texts: PromptTexts) -> Callable[
        [TestCase], ChatRequest]:
    """How the live solver lays a single-turn case out (`runner.solvers.case_solver`)."""
    layout = layout_of(backend)
    return lambda case: build_request(case, "fc" if mode == "fc" else "prompt", texts, layout)


def check_batchable(backend: Backend) -> None:
    """BatchUnsupported (one line) when `--batch` cannot be used with `backend`."""
    target = unwrapped(backend)
    if not isinstance(target, KeepsRaw):
        offered = ", ".join(sorted(BATCH_APIS))
        raise BatchUnsupported(f"--batch: this backend has no batch API (offered for the "
                               f"{offered} backends)")
    for_backend(target)


async def collect(
    backend: Backend, cases: Sequence[TestCase], settings: BatchSettings, model_dir: Path,
    request_of: Callable[[TestCase], ChatRequest], say: Say = say_on_stderr,
) -> Collected:
    """Submit what no batch holds yet, wait for every batch the pending cases need, and
    install their replies in front of the live backend's raw store (see the module
    docstring). BatchUnsupported when the backend has no batch API."""
    check_batchable(backend)
    target: Any = unwrapped(backend)  # KeepsRaw (checked)
    api = for_backend(target)
    store = BatchStore(getattr(target, "raw_store", None), getattr(api, "url", "") or "")
    target.use_raw_store(store)
    collected = Collected(target, store)
    try:
        wanted = await _captured(target, store, cases, request_of, say)
        collected.summary = {"api": api.name, "requests": len(wanted), "submitted": 0}
        collected.stopped = await _submitted_and_ended(api, wanted, settings, model_dir, store,
                                                       say, collected.summary)
        answered = sum(1 for name in wanted
                       if name in store.replies and store.replies[name][1].body is not None)
        collected.summary.update(answered=answered, asked_live=len(wanted) - answered)
    except BaseException:
        collected.restore()
        raise
    finally:
        await api.aclose()
    return collected


async def _captured(target: Any, store: BatchStore, cases: Sequence[TestCase],
                    request_of: Callable[[TestCase], ChatRequest], say: Say,
                    ) -> dict[str, dict[str, Any]]:
    """The request each batchable case's step would send, by custom id (kept ones left out)."""
    live = sum(1 for case in cases if has_environments(case))
    if live:
        say(f"{live} multi-turn/agentic case(s) are asked live (a batch request cannot depend "
            "on an earlier reply)")
    wanted: dict[str, dict[str, Any]] = {}
    for case in cases:
        if has_environments(case):
            continue
        store.capturing = True
        try:
            await target.step(request_of(case))
        except _Captured as captured:
            if not store.kept(captured.request):
                wanted[custom_id(captured.request)] = captured.request
        except Exception:  # a request that cannot be built is asked live, where its
            continue       # error is recorded on the case
        finally:
            store.capturing = False
    return wanted


async def _submitted_and_ended(
    api: BatchAPI, wanted: dict[str, dict[str, Any]], settings: BatchSettings,
    model_dir: Path, store: BatchStore, say: Say, summary: dict[str, Any],
) -> str | None:
    """Submit, poll, collect (`summary["submitted"]` counts the requests submitted); None,
    or why the run stops."""
    state = _State.load(batch_state_path(model_dir), api.name)
    try:
        await _settle_interrupted(api, state, say)
        held = state.held()
        new = [name for name in wanted if name not in held]
        if wanted and len(new) < len(wanted):
            say(f"{len(wanted) - len(new)} request(s) already submitted: picked up from "
                f"{state.path.name}")
        for chunk in _chunks(api, [BatchLine(name, wanted[name]) for name in new]):
            token = uuid.uuid4().hex
            state.intend(token, [line.custom_id for line in chunk])
            batch_id = await api.submit(chunk, token)
            state.confirm(token, batch_id)
            summary["submitted"] += len(chunk)
            say(f"submitted {batch_id} ({len(chunk)} request(s)); ids kept in "
                f"{state.path.name}")
    except BackendError as exc:
        return redact.text(f"batch submission failed: {exc} (a rerun looks the batch up "
                           "before submitting again)")
    needed = [b for b in state.batches if set(b["requests"]) & wanted.keys()]
    if not needed:
        return None
    stopped = await _poll(api, needed, settings, say)
    if stopped is not None:
        return stopped
    for batch in needed:
        items = await _results(api, batch["id"], settings, say)
        for name, item in items.items():
            if name in wanted:
                store.replies[name] = (batch["id"], item)
    failed = [store.replies.get(name) for name in wanted]
    missing = [found for found in failed if found is None or found[1].body is None]
    if missing:
        errors = [f[1].error for f in missing if f is not None and f[1].error]
        first = f" (first: {errors[0]})" if errors else ""
        say(redact.text(f"{len(missing)} request(s) without a batch answer{first}: asked live"))
    return None


async def _settle_interrupted(api: BatchAPI, state: _State, say: Say) -> None:
    """Submissions an earlier run recorded but never saw answered: found at the provider by
    their token (then kept), or known never to have arrived (then submitted again)."""
    for batch in [b for b in state.batches if b["id"] is None]:
        token, count = str(batch.get("token", "")), len(batch["requests"])
        found = await api.find(token)
        if found is not None:
            say(f"an interrupted submission ({count} request(s)) was found: {found}")
        elif api.can_find:
            say(f"an interrupted submission ({count} request(s)) never reached {api.name}: "
                "submitted now")
        else:
            say(f"an interrupted submission ({count} request(s)) cannot be looked up at "
                f"{api.name}: submitted again (if the first did arrive, cancel it there)")
        state.confirm(token, found)


async def _results(api: BatchAPI, batch_id: str, settings: BatchSettings, say: Say,
                   ) -> dict[str, BatchItem]:
    """An ended batch's results, a transient failure asked again up to `RESULT_ATTEMPTS`
    times (what is not read is asked live, at the full price); {} when they cannot be read."""
    for attempt in range(1, RESULT_ATTEMPTS + 1):
        try:
            return await api.results(batch_id)
        except BackendError as exc:
            final = isinstance(exc, PermanentError) or attempt == RESULT_ATTEMPTS
            said = "asked live" if final else "asked again"
            say(redact.text(f"results of {batch_id} unavailable ({exc}): {said}"))
            if final:
                break
            await asyncio.sleep(settings.poll)
    return {}


def _chunks(api: BatchAPI, lines: list[BatchLine]) -> list[list[BatchLine]]:
    """Lines in batches of at most `api.max_requests` lines and `api.max_bytes` bytes."""
    chunks: list[list[BatchLine]] = []
    size = 0
    for line in lines:
        length = len(json.dumps(line.request).encode()) + 200
        if not chunks or len(chunks[-1]) >= api.max_requests or size + length > api.max_bytes:
            chunks.append([])
            size = 0
        chunks[-1].append(line)
        size += length
    return chunks


async def _poll(api: BatchAPI, batches: list[dict[str, Any]], settings: BatchSettings,
                say: Say) -> str | None:
    """Wait until every batch has ended; None, or why the run stops (the timeout, a
    permanent failure to ask)."""
    start = time.monotonic()
    statuses: dict[str, BatchStatus] = {}
    last: tuple[int, int, int] | None = None
    polls = 0
    total = sum(len(b["requests"]) for b in batches)
    while True:
        for batch in batches:
            if batch["id"] in statuses and statuses[batch["id"]].ended:
                continue
            try:
                statuses[batch["id"]] = await api.status(batch["id"])
            except PermanentError as exc:
                return redact.text(
                    f"batch {batch['id']} cannot be asked after: {exc} (another key or "
                    f"endpoint? a rerun asks again; delete {batch_state_path(Path()).name} "
                    "in the result folder to submit afresh)")
            except BackendError as exc:
                say(redact.text(f"asking after {batch['id']} failed ({exc}); asked again"))
        ended = {name for name, status in statuses.items() if status.ended}
        sizes = {b["id"]: len(b["requests"]) for b in batches}
        counts = (sum(_done(s, sizes[name]) for name, s in statuses.items()),
                  sum(s.failed for s in statuses.values()))
        now = (len(ended), counts[0], counts[1])
        if now != last or polls % QUIET_POLLS == 0:
            say(f"{len(ended)}/{len(batches)} batch(es) ended, {counts[0]}/{total} request(s) "
                f"done, {counts[1]} failed, {_elapsed(time.monotonic() - start)} elapsed")
            last = now
        polls += 1
        if len(ended) == len(batches):
            return None
        if time.monotonic() - start >= settings.timeout:
            return (f"{len(batches) - len(ended)} batch(es) still running after "
                    f"{_elapsed(settings.timeout)} (--batch-timeout); run the same command "
                    "again to collect them (nothing is submitted twice)")
        await asyncio.sleep(min(settings.poll, max(0.0, settings.timeout - (
            time.monotonic() - start))))


def _done(status: BatchStatus, size: int) -> int:
    """Requests the provider is done with; a provider that gives no counts (Gemini): all of
    them once the batch has ended."""
    return status.completed if status.total else (size if status.ended else 0)


def _elapsed(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
