"""How pytest-xdist shares the suite between its workers (issue 22 item 5: the whole suite in
at most 8 minutes on 2 cores).

xdist's own choices lose time on this suite. `--dist load` sends tests one by one, so every
worker repeats every module-scoped set-up (the official modules, oracle processes, the fetched
data). `--dist loadfile` keeps a module on one worker but sends modules in the order of their
test counts, so the longest single tests (the real model, the secret-leak run over every
category) start last and one worker ends minutes after the other; and a module of long
parametrized oracle tests (every open-model family's prompts) runs on one worker alone.

Here (`-n` without `--dist`): a module's tests stay on one worker, except the modules in
`SPREAD`, whose tests are each long and go to whichever worker is free; and the work goes out
longest first (measured costs in `COSTS`, else a mean cost per test), so that what is left at
the end is small and the two workers finish together. The order only changes which worker
runs a test and when: each test runs once, as before, with the same fixtures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

SPREAD = frozenset({
    "tests/models/families/test_official_prompts.py",
})
"""Modules whose tests may run on different workers: each of their tests is long (seconds to
tens of seconds) and their module-scoped set-up is short beside them, so sharing them between
workers pays even though each worker then builds the set-up once."""

COSTS: dict[str, float] = {
    "tests/e2e/test_no_secret_leaks.py": 45.0,
    "tests/models/test_hf_local_real_model.py": 45.0,
    "tests/models/families/test_official_prompts.py": 6.0,
    "tests/e2e/test_agentic_http.py": 46.0,
    "tests/decode/test_fast_calls.py": 41.0,
    "tests/runner/test_multi_turn_generate.py": 40.0,
    "tests/e2e/test_cache_run.py": 34.0,
    "tests/e2e/test_run_v1.py": 33.0,
    "tests/e2e/test_sigkill.py": 30.0,
    "tests/e2e/test_run_corpus.py": 26.0,
    "tests/e2e/test_multi_turn_http.py": 20.0,
    "tests/check/ast/test_java_types.py": 13.0,
    "tests/check/ast/test_js_types.py": 12.0,
    "tests/test_layers.py": 35.0,
    "tests/test_readme.py": 25.0,
}
"""Seconds a scope (a module, or a test of a `SPREAD` module; the longest matching prefix of
its node id) takes on one worker: CPU time of the test process and its children, measured one
directory at a time without xdist (2026-12-02, a shared 2-core machine), plus the waits of the
secret-leak and kill -9 runs. One figure covers all the tests of a `SPREAD` module, so that
they stay together in the queue (a worker that left the module would build its set-up again).
The work worth placing by measure; the rest is counted."""
PER_TEST = 0.5
"""Seconds a test of a scope not in `COSTS` is counted for: the suite's mean (about 1,500 s of
worker time for 2,600 tests)."""


class _Item(Protocol):
    @property
    def nodeid(self) -> str: ...


def scope_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its module, or itself in a `SPREAD` module."""
    module = nodeid.split("::", 1)[0]
    return nodeid if module in SPREAD else module


def cost(scope: str, tests: int) -> float:
    """The seconds `scope` is expected to take: `COSTS` at the longest prefix the scope starts
    with, else `PER_TEST` for each of its tests."""
    matches = [prefix for prefix in COSTS if scope.startswith(prefix)]
    return COSTS[max(matches, key=len)] if matches else PER_TEST * tests


def longest_first(items: Sequence[_Item]) -> list[Any]:
    """`items` with each scope's tests together and the scopes in the order they should start:
    the longest expected first; at equal cost, the collection order."""
    scopes: dict[str, list[_Item]] = {}
    for item in items:
        scopes.setdefault(scope_of(item.nodeid), []).append(item)
    ranked = sorted(scopes.items(), key=lambda pair: -cost(pair[0], len(pair[1])))
    return [item for _, members in ranked for item in members]


def make_scheduler(config: Any, log: Any) -> Any:
    """xdist's scope scheduler with `scope_of` as its scope; the work queue keeps the order in
    which the workers collected the tests (`longest_first`)."""
    from xdist.scheduler import LoadScopeScheduling

    class LongestFirstScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    return LongestFirstScheduling(config, log)
