"""The execution worker: `python -m fcbench.check.exec_worker '<config json>'`.

Started by `exec_sandbox.Sandbox`, never by hand. It limits its own address space, then reads
one JSON request per line (`{"calls": [call strings]}`), re-validates every call with the
same literal-only parser as the parent, runs it from the allow-listed library with a fresh
CPU-time budget, and writes one JSON line per call as soon as it is done (`{"ok": value}`,
`{"error": message}` or `{"unavailable": reason}`), so the parent can time each call. A
call that overruns its CPU budget gets SIGXCPU, turned into an error for that call only;
anything the worker cannot survive ends the process, and the parent starts another.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import signal
import sys
from types import FrameType
from typing import Any


class CpuTimeExceeded(Exception):
    """The call used up its CPU-time budget."""


def _on_sigxcpu(signum: int, frame: FrameType | None) -> None:
    raise CpuTimeExceeded("CPU time limit exceeded")


def _die_with_parent(parent: int | None) -> None:
    """Linux: be killed when the evaluating process dies, even in the middle of a long
    computation (otherwise an orphan would only notice when it next reads its stdin)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if parent is not None and os.getppid() != parent:  # the parent is already gone
        sys.exit(0)


def _limit_memory(memory_mb: int) -> None:
    limit = memory_mb * 1024 * 1024
    with contextlib.suppress(ValueError, OSError):  # a platform without RLIMIT_AS
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _cpu_budget(seconds: int) -> None:
    """Allow `seconds` more CPU time from now (the soft limit only; SIGXCPU when hit)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = int(usage.ru_utime + usage.ru_stime) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = used + seconds
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _run_one(text: str, allowed: frozenset[str], backend: Any, cpu_seconds: int) -> Any:
    from fcbench.check import exec_wire
    from fcbench.check.exec_sandbox import UnsafeCall, parse_call
    from fcbench.envs.exec_functions import ServiceUnavailable, call

    try:
        parsed = parse_call(text, allowed)
    except UnsafeCall as exc:
        return {"error": str(exc)}
    try:
        _cpu_budget(cpu_seconds)
        value = call(parsed.name, list(parsed.args), dict(parsed.kwargs), backend)
        return {"ok": exec_wire.encode(value)}
    except ServiceUnavailable as exc:
        return {"unavailable": str(exc)}
    except CpuTimeExceeded as exc:
        return {"error": str(exc)}
    except MemoryError:
        return {"error": "MemoryError: out of memory"}
    except RecursionError as exc:
        return {"error": f"RecursionError: {exc}"}
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        _cpu_budget(3600)


def _reply(result: dict[str, Any]) -> bytes:
    try:
        return json.dumps(result).encode("utf-8")
    except (ValueError, TypeError, MemoryError, RecursionError) as exc:
        return json.dumps({"error": f"unsendable result: {type(exc).__name__}"}).encode()


def main(argv: list[str]) -> int:
    config = json.loads(argv[1])
    _die_with_parent(config.get("parent"))
    signal.signal(signal.SIGXCPU, _on_sigxcpu)
    from fcbench.envs.exec_functions.backends import make_backend

    backend = make_backend(config["backend"], config.get("replay_dir"))
    allowed = frozenset(config["allowed"])
    cpu_seconds = int(config["cpu_seconds"])
    _limit_memory(int(config["memory_mb"]))
    out = sys.stdout.buffer
    out.write(b'{"ready": true}\n')
    out.flush()
    for line in sys.stdin.buffer:
        request = json.loads(line)
        for text in request["calls"]:
            out.write(_reply(_run_one(text, allowed, backend, cpu_seconds)) + b"\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
