"""Hostile inputs: small texts that once made a run hang or exhaust memory (issue 20).

Plain data, so that tests and benchmarks (`benchmarks/bench_hostile.py`) can share them. Each
environment entry is a list of call strings, as a model's multi-turn answer holds them, run in
order on fresh instances of `involved_classes`; `refused` is a piece of text one of the results
must contain once the call has been stopped by its budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class HostileCalls:
    """Call strings that cost far more than their length."""

    name: str
    involved_classes: tuple[str, ...]
    calls: tuple[str, ...]
    refused: str
    initial_config: dict[str, Any] = field(default_factory=dict)


def doubling_tree(levels: int) -> tuple[str, ...]:
    """`levels` nested directories, then on the way back up each level copied beside itself:
    `cp` shares children, so the tree ends with 2**levels paths (22 levels: 4 million)."""
    calls: list[str] = []
    for level in range(levels):
        calls += [f"mkdir(dir_name='l{level}')", f"cd(folder='l{level}')"]
    calls.append("echo(content='x')")
    calls.append("touch(file_name='f')")
    for level in range(levels - 1, 0, -1):
        calls += ["cd(folder='..')", f"cp(source='l{level}', destination='m{level}')"]
    calls += ["cd(folder='/')", "find()", "du()"]
    return tuple(calls)


def self_copy() -> tuple[str, ...]:
    """A directory copied into itself holds itself: a cycle, infinitely many paths."""
    return ("mkdir(dir_name='a')", "cd(folder='a')", "mkdir(dir_name='b')", "cd(folder='..')",
            "cp(source='a', destination='a')", "find()")


def wide_text_tree(levels: int, size: int) -> tuple[str, ...]:
    """A doubling tree whose one file holds `size` characters: few paths, much text."""
    text = "y" * size
    calls: list[str] = []
    for level in range(levels):
        calls += [f"mkdir(dir_name='l{level}')", f"cd(folder='l{level}')"]
    calls += ["touch(file_name='f')", f"echo(content='{text}', file_name='f')"]
    for level in range(levels - 1, 0, -1):
        calls += ["cd(folder='..')", f"cp(source='l{level}', destination='m{level}')"]
    return tuple(calls)


_FS_ROOT = {"GorillaFileSystem": {"root": {"alex": {"type": "directory", "contents": {}}}}}
_BUDGET = "over the limit"
_TREE = "counted along every path"

ENVIRONMENT_BOMBS: tuple[HostileCalls, ...] = (
    HostileCalls("square_root precision 999999999", ("MathAPI",),
                 ("square_root(number=2, precision=999999999)",), _BUDGET),
    HostileCalls("logarithm precision 999999999", ("MathAPI",),
                 ("logarithm(value=10, base=2, precision=999999999)",), _BUDGET),
    HostileCalls("power 2**999999999", ("MathAPI",),
                 ("power(base=2, exponent=999999999)",), "integer string conversion"),
    HostileCalls("power 10**(10**4000)", ("MathAPI",),
                 (f"power(base=10, exponent={10 ** 4000})",), "integer string conversion"),
    HostileCalls("round_number to -10**9 places", ("MathAPI",),
                 (f"round_number(number=-{10 ** 4000}, decimal_places=-1000000000)",
                  "square_root(number=2, precision=999999999)"), _BUDGET),
    HostileCalls("cp doubling tree, 22 levels", ("GorillaFileSystem",), doubling_tree(22), _TREE,
                 _FS_ROOT),
    HostileCalls("cp doubling tree, 60 levels", ("GorillaFileSystem",), doubling_tree(60), _TREE,
                 _FS_ROOT),
    HostileCalls("cp of a directory into itself", ("GorillaFileSystem",), self_copy(), _TREE,
                 _FS_ROOT),
    HostileCalls("1 MB file in a doubling tree", ("GorillaFileSystem",),
                 wide_text_tree(12, 1_000_000), _TREE, _FS_ROOT),
    HostileCalls("memory_replace multiplying the memory", ("MemoryAPI_rec_sum",),
                 (f"memory_append(text='{'a' * 9000}')",
                  f"memory_replace(old_text='a', new_text='{'a' * 9000}')",
                  f"memory_replace(old_text='a', new_text='{'a' * 9000}')"), _BUDGET),
)
"""Environment calls whose cost grows with a value in them (precision, exponent) or with
copies of shared trees; each must be refused quickly with an error result."""
