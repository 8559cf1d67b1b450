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
    "tests/models/test_hf_local_real_model.py": 36.0,
    "tests/decode/test_fast_calls.py": 34.0,
    "tests/report/html/test_init.py": 25.0,
    "tests/conformance/test_official_outputs.py": 20.0,
    "tests/e2e/test_sigkill.py": 20.0,
    "tests/e2e/test_repeats_run.py": 20.0,
    "tests/runner/test_serve.py": 19.0,
    "tests/envs/memory/test_replay.py": 18.0,
    "tests/decode/families/test_official_decoders.py": 17.0,
    "tests/e2e/test_run_v1.py": 17.0,
    "tests/e2e/test_run_corpus.py": 16.0,
    "tests/runner/test_multi_turn_generate.py": 16.0,
    "tests/e2e/test_cache_run.py": 15.0,
    "tests/dataset/test_diff.py": 15.0,
    "tests/e2e/test_no_secret_leaks.py": 15.0,
    "tests/e2e/test_agentic_http.py": 14.0,
    "tests/models/test_google_native.py": 12.0,
    # a pytest run of its own under xdist, three tests hung for 3 s each (issue 30 item 7)
    "tests/test_hung_tests.py": 12.0,
    "tests/envs/memory/test_vector.py": 12.0,
    "tests/cli/test_run.py": 11.0,
    "tests/models/test_hf_local.py": 25.0,
    "tests/conformance/test_format_sensitivity_official.py": 10.0,
    "tests/decode/test_hostile.py": 9.0,
    # each test of the spread module: its longest (MiniCPM-FC's) take about 8-10 s
    "tests/models/families/test_official_prompts.py": 8.0,
}
"""Seconds a scope (a module, or a test of a `SPREAD` module; the longest matching prefix of
its node id) takes on one worker: its tests' set-up, call and teardown times summed from
`--durations=0` of a whole `-n auto` run on a quiet 2-core machine (2026-12-02, after the
suite's oracles moved to stripes of the cases). One figure covers all the tests of a `SPREAD`
module, so that they stay together in the queue (a worker that left the module would build its
set-up again). The work worth placing by measure (9 s and more); the rest is counted."""
PER_TEST = 0.25
"""Seconds a test of a scope not in `COSTS` is counted for: the suite's mean (about 650 s of
worker time for 2,666 tests)."""


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
