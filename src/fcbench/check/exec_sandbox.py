"""Safe execution of decoded calls for the executable categories.

The official evaluator ran `exec("result=" + call_string)` on model output, with the whole
function library (and `os`, `requests`...) in scope. fcbench never evaluates text:

1. `parse_call` reads a call string with `ast` and accepts only `name(args)` where the name
   is on the allow-list and every argument is a literal (numbers, strings, booleans, None,
   and lists/tuples/sets/dicts of literals, a sign on a number) within size and depth limits.
   Arithmetic between literals (`p=1/6`, written by the ground truth) is computed by the
   decoder's guarded evaluator, which refuses huge results such as `10**10**10`. Everything
   else (names, attribute walks, nested calls, comprehensions, lambdas...) is refused before
   anything runs.
2. Accepted calls run in a separate worker process (`fcbench.check.exec_worker`) under
   RLIMIT_AS (memory) and a per-call RLIMIT_CPU budget, and the parent enforces a
   per-call wall-clock timeout: a worker that overruns, crashes or floods its output is
   killed and a fresh one started. Calls are sent in batches (one worker serves a whole
   evaluation job) and answered one line each, so only the guilty call fails and the calls
   after it are sent again to the new worker.
3. Results come back as tagged JSON (`wire`), never pickles, so the parent only ever builds
   plain values.

The worker writes no files (except, with the live backend and a replay folder, the answers it
records there) and starts no processes; it exits when its stdin closes.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.check import exec_wire as wire
from fcbench.core.defaults import EXEC_BACKEND
from fcbench.decode import arithmetic

MAX_CALL_CHARS = 100_000
MAX_DEPTH = 50
MAX_ITEMS = 100_000
MAX_REPLY_BYTES = 64 * 1024 * 1024


class SandboxError(RuntimeError):
    """The worker cannot be started at all: the run stops rather than fail every case."""


class UnsafeCall(ValueError):
    """A call string fcbench refuses to run (reported as an execution error)."""


@dataclass(frozen=True)
class ParsedCall:
    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def parse_call(text: str, allowed: Iterable[str]) -> ParsedCall:
    """Validate a call string and read its literal arguments (never evaluates anything)."""
    if not isinstance(text, str):
        raise UnsafeCall(f"a call must be a string, not {type(text).__name__}")
    if len(text) > MAX_CALL_CHARS:
        raise UnsafeCall(f"call string longer than {MAX_CALL_CHARS} characters")
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise UnsafeCall(f"not a valid call: {type(exc).__name__}: {exc}") from None
    if not isinstance(node, ast.Call):
        raise UnsafeCall(f"not a function call: {type(node).__name__}")
    name = _dotted(node.func)
    if name not in frozenset(allowed):
        raise UnsafeCall(f"name {name!r} is not defined")
    counter = [0]
    args = tuple(_literal(a, 0, counter) for a in node.args)
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise UnsafeCall("** arguments are not allowed")
        if keyword.arg in kwargs:
            raise UnsafeCall(f"keyword argument repeated: {keyword.arg}")
        kwargs[keyword.arg] = _literal(keyword.value, 0, counter)
    return ParsedCall(name, args, kwargs)


def _dotted(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise UnsafeCall("the called object must be a plain (dotted) name")
    parts.append(node.id)
    return ".".join(reversed(parts))


_CONSTANTS = (int, float, complex, str, bytes, bool, type(None))


def _literal(node: ast.expr, depth: int, counter: list[int]) -> Any:
    """The value of a literal node; anything that would need evaluation is refused."""
    counter[0] += 1
    if depth > MAX_DEPTH:
        raise UnsafeCall(f"arguments nested deeper than {MAX_DEPTH}")
    if counter[0] > MAX_ITEMS:
        raise UnsafeCall(f"arguments with more than {MAX_ITEMS} items")
    if isinstance(node, ast.Constant) and isinstance(node.value, _CONSTANTS):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = node.operand
        if isinstance(operand, ast.Constant) and type(operand.value) in (int, float, complex):
            value: Any = operand.value
            return -value if isinstance(node.op, ast.USub) else +value
        raise UnsafeCall("a sign applies to a number only")
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_literal(e, depth + 1, counter) for e in node.elts]
        if isinstance(node, ast.List):
            return items
        return tuple(items) if isinstance(node, ast.Tuple) else _set(items)
    if isinstance(node, ast.Dict):
        return _dict(node, depth, counter)
    if isinstance(node, ast.BinOp):
        return _arithmetic(node)
    raise UnsafeCall(f"argument is not a literal: {type(node).__name__}")


def _arithmetic(node: ast.BinOp) -> Any:
    try:
        return arithmetic.evaluate(node)
    except arithmetic.UnsafeExpression as exc:
        raise UnsafeCall(f"argument is not literal arithmetic: {exc}") from None
    except (ArithmeticError, TypeError, ValueError, RecursionError, MemoryError) as exc:
        raise UnsafeCall(f"argument arithmetic failed: {type(exc).__name__}: {exc}") from None


def _set(items: list[Any]) -> set[Any]:
    try:
        return set(items)
    except TypeError as exc:
        raise UnsafeCall(str(exc)) from None


def _dict(node: ast.Dict, depth: int, counter: list[int]) -> dict[Any, Any]:
    result: dict[Any, Any] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if key is None:
            raise UnsafeCall("** unpacking is not allowed")
        try:
            result[_literal(key, depth + 1, counter)] = _literal(value, depth + 1, counter)
        except TypeError as exc:
            raise UnsafeCall(str(exc)) from None
    return result


# --------------------------------------------------------------------------- outcomes


@dataclass(frozen=True)
class Outcome:
    """What running one call gave: a value, an error message, or "service unavailable"."""

    kind: str  # "ok" | "error" | "unavailable"
    value: Any = None
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.kind == "ok"

    @classmethod
    def error(cls, message: str) -> Outcome:
        return cls("error", None, message)


@dataclass
class Limits:
    """Per-call budget: wall-clock seconds, CPU seconds, address space in MiB."""

    wall_seconds: float = 5.0
    cpu_seconds: int = 3
    memory_mb: int = 1024
    startup_seconds: float = 20.0


@dataclass
class Sandbox:
    """A persistent worker process running allow-listed calls; use as a context manager.

    `backend` / `replay_dir` choose how web-service calls are answered (see
    `fcbench.envs.exec_functions.backends`).
    """

    allowed: frozenset[str]
    backend: str = EXEC_BACKEND
    replay_dir: Path | None = None
    limits: Limits = field(default_factory=Limits)
    _process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _reader: _LineReader = field(init=False, repr=False)
    restarts: int = field(default=0, init=False)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, calls: Sequence[str]) -> list[Outcome]:
        """Run each call string; the outcomes are in the same order. Never raises for bad
        input: refusals, crashes and timeouts become error outcomes."""
        outcomes: list[Outcome | None] = [None] * len(calls)
        pending: list[int] = []
        for index, text in enumerate(calls):
            try:
                parse_call(text, self.allowed)
            except UnsafeCall as exc:
                outcomes[index] = Outcome.error(str(exc))
            else:
                pending.append(index)
        if pending:
            for index, outcome in zip(
                pending, self._run_batch([calls[i] for i in pending]), strict=True
            ):
                outcomes[index] = outcome
        return [o if o is not None else Outcome.error("not run") for o in outcomes]

    def _run_batch(self, texts: list[str]) -> list[Outcome]:
        """Send the calls; the worker answers one line per call, each within the per-call
        wall-clock budget. A call that overruns or kills the worker gets an error outcome,
        the worker is replaced, and the calls after it are sent again."""
        outcomes: list[Outcome] = []
        while len(outcomes) < len(texts):
            done, failure = self._exchange(texts[len(outcomes) :])
            outcomes.extend(done)
            if failure is not None:
                outcomes.append(Outcome.error(failure))
        return outcomes

    def _exchange(self, texts: list[str]) -> tuple[list[Outcome], str | None]:
        """The outcomes read before any failure, and the failure (worker killed) if any."""
        process = self._ensure_worker()
        done: list[Outcome] = []
        try:
            assert process.stdin is not None
            process.stdin.write(json.dumps({"calls": texts}).encode("utf-8") + b"\n")
            process.stdin.flush()
            while len(done) < len(texts):
                line = self._reader.read_line(self.limits.wall_seconds)
                done.append(_outcome(json.loads(line)))
            return done, None
        except _Timeout:
            failure = f"execution timed out after {self.limits.wall_seconds:g}s (worker killed)"
        except (OSError, ValueError, KeyError, TypeError, AttributeError, _WorkerDied) as exc:
            failure = f"the execution worker failed: {type(exc).__name__}: {exc}"
        self._kill()
        return done, failure

    def _ensure_worker(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        self._kill()
        config = {
            "backend": self.backend,
            "replay_dir": str(self.replay_dir) if self.replay_dir is not None else None,
            "cpu_seconds": self.limits.cpu_seconds,
            "memory_mb": self.limits.memory_mb,
            "allowed": sorted(self.allowed),
            "parent": os.getpid(),
        }
        self._process = subprocess.Popen(
            [sys.executable, "-B", "-m", "fcbench.check.exec_worker", json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=_worker_env(),
            cwd="/",
        )
        self.restarts += 1
        assert self._process.stdout is not None
        self._reader = _LineReader(self._process.stdout.fileno())
        try:
            self._reader.read_line(self.limits.startup_seconds)  # the "ready" line
        except (_Timeout, _WorkerDied, OSError) as exc:
            self._kill()
            raise SandboxError(f"the execution worker did not start: {exc!r}") from None
        return self._process

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def close(self) -> None:
        """Stop the worker (it also exits by itself when its stdin closes)."""
        self._kill()


def _worker_env() -> dict[str, str]:
    """The worker gets the package path, the API keys, the live routes, the private-address
    opt-in and the proxy settings (live requests honour a proxy as page fetches do, each
    name checked first: `envs.http_guard`), nothing else of the parent's."""
    from fcbench.envs.exec_functions.backends import (
        ALLOW_PRIVATE_VARIABLE,
        KEY_VARIABLES,
        PROXY_VARIABLES,
        ROUTES_VARIABLE,
    )

    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONHASHSEED": "0"}
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = package_root
    for variable in (*KEY_VARIABLES, ROUTES_VARIABLE, ALLOW_PRIVATE_VARIABLE, *PROXY_VARIABLES):
        if variable in os.environ:
            env[variable] = os.environ[variable]
    return env


class _Timeout(Exception):
    pass


class _WorkerDied(Exception):
    pass


class _LineReader:
    """Lines from the worker's stdout, each within a time budget (lines may be large)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def read_line(self, budget: float) -> bytes:
        deadline = time.monotonic() + budget
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
                raise _Timeout()
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise _WorkerDied("the worker exited (killed by a resource limit?)")
            self.buffer += chunk
            if len(self.buffer) > MAX_REPLY_BYTES:
                raise _WorkerDied("the worker's reply is too large")
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line


def _outcome(item: dict[str, Any]) -> Outcome:
    if "ok" in item:
        return Outcome("ok", wire.decode(item["ok"]))
    if "unavailable" in item:
        return Outcome("unavailable", None, str(item["unavailable"]))
    return Outcome.error(str(item.get("error", "unknown error")))
