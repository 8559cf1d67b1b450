"""Corrections profiles: named, opt-in sets of the community's pending upstream fixes.

Why: upstream (bfcl-eval 2026.3.23) has merged nothing since its release while pull requests
that change scores wait. fcbench stays byte-faithful to the release by default; a profile
(`--corrections community-2026`) applies a documented list of those fixes, each named with
its upstream pull requests/issues, so a reader knows exactly which numbers differ and why.

A profile is data: `PROFILES` maps a name to fixes; each `Fix` says which upstream numbers
it carries, what it changes (one line), and where its code hook is (`hook`, a module path;
that module asks `enabled(fix_id)` at the point the PR changes). The active profile is
process state set once per command (`use_profile`), before any backend or checker is built;
forked evaluation workers inherit it. Ground-truth fixes are data too (`ANSWER_PATCHES`),
applied to a case's possible answer when its checker is built (`possible_answer`).

Fidelity, decided from each PR's diff (read at `refs/pull/<n>/merge`):
- #1316/#1328/#1348/#1351 keep the text when `tool_calls` is an empty list (1351 also
  treats `None` content as ""; fcbench keeps the content as sent, as 1316 does).
- #1326 fixes two typos in multi-turn function descriptions (what the model reads).
- #1327 widens the memory_kv key pattern to `^[a-z][a-z0-9]*(_[a-z0-9]+)*$`.
- #1347 returns `{"ranked_results": []}` when the key search has no keys.
- #1329 adds the enum values `seconds`/`milliseconds` (live_simple 141/143/156/159) and
  `celsius` (live_parallel 3/6/13) to the acceptable units; #1330 removes the dead
  `"all levels"` trophy value of live_multiple_190-84-0 (the rest of both diffs only
  re-escapes unicode, the same values once parsed).

`lenient-defaults` is not an upstream PR but a scoring rule users ask for (inspect_evals made
it their default): an optional parameter given exactly its documented default counts as
omitted (`check/ast/defaults.py`). Profiles combine: `community-2026,lenient-defaults`
applies both (`use_profile` takes a comma-separated list; the name is recorded in
`PROFILES` order).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ANSWER_PATCHES",
    "DEFAULT_PROFILE",
    "DOC_PATCHES",
    "LENIENT_DEFAULTS",
    "PROFILES",
    "Fix",
    "UnknownProfile",
    "active_fixes",
    "active_profile",
    "canonical",
    "describe",
    "enabled",
    "fix_of_case",
    "function_docs",
    "possible_answer",
    "suspended",
    "use_profile",
]

DEFAULT_PROFILE = "none"
"""The byte-faithful behaviour of bfcl-eval 2026.3.23: no fix applied."""


@dataclass(frozen=True)
class Fix:
    """One upstream fix: `id` is what hooks ask for; `upstream` the PR/issue numbers."""

    id: str
    upstream: tuple[int, ...]
    description: str
    hook: str
    """The module whose code applies the fix (where it calls `enabled(id)`)."""


EMPTY_TOOL_CALLS = Fix(
    "empty-tool-calls", (1316, 1328, 1348, 1351),
    "An empty `tool_calls: []` beside a text reply stores the text, not the empty list "
    "(vLLM/SGLang style), so memory and web-search answers are read.",
    "fcbench.models.openai_compat")
MEMORY_KEY_PATTERN = Fix(
    "memory-key-pattern", (1327, 1272),
    "memory_kv keys may have digits in their first word (`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`).",
    "fcbench.envs.memory.kv")
MEMORY_EMPTY_SEARCH = Fix(
    "memory-empty-search", (1347,),
    "memory_kv key search over an empty memory returns no results instead of "
    "'division by zero'.",
    "fcbench.envs.memory.kv")
DOC_TYPOS = Fix(
    "function-doc-typos", (1326, 1277),
    "Multi-turn function docs: 'currrent' -> 'current' (cat), 'messeage' -> 'message' "
    "(message_login), in the descriptions models read.",
    "fcbench.dataset.load")
ENUM_UNITS = Fix(
    "ground-truth-enum-units", (1329, 1314),
    "live_simple 141/143/156/159 accept the enum units 'seconds'/'milliseconds'; "
    "live_parallel 3/6/13 accept 'celsius'.",
    "fcbench.check.single_turn")
ENUM_TROPHY = Fix(
    "ground-truth-enum-trophy", (1330, 1313),
    "live_multiple_190-84-0 no longer accepts the trophy 'all levels', outside its enum.",
    "fcbench.check.single_turn")

LENIENT_DEFAULTS = Fix(
    "lenient-defaults", (),
    "An optional parameter (the ground truth may omit it) given exactly its documented "
    "`default` is accepted as omitted (fcbench's rule; inspect_evals' default, "
    "inspect_evals #2004/#2057).",
    "fcbench.check.ast.checker")

PROFILES: dict[str, tuple[Fix, ...]] = {
    DEFAULT_PROFILE: (),
    "community-2026": (EMPTY_TOOL_CALLS, MEMORY_KEY_PATTERN, MEMORY_EMPTY_SEARCH,
                       DOC_TYPOS, ENUM_UNITS, ENUM_TROPHY),
    "lenient-defaults": (LENIENT_DEFAULTS,),
}
"""Profiles combine: a comma-separated list applies every fix of each (`use_profile`)."""

_UNITS_TIME = ("seconds", "milliseconds")
_CELSIUS = ("celsius",)

ANSWER_PATCHES: dict[str, tuple[str, str, tuple[str, ...], tuple[str, ...]]] = {
    # case id: (fix id, parameter, values added, values removed), in every expected call
    "live_simple_141-94-0": (ENUM_UNITS.id, "unit", _UNITS_TIME, ()),
    "live_simple_143-95-0": (ENUM_UNITS.id, "unit", _UNITS_TIME, ()),
    "live_simple_156-95-13": (ENUM_UNITS.id, "unit", _UNITS_TIME, ()),
    "live_simple_159-95-16": (ENUM_UNITS.id, "unit", _UNITS_TIME, ()),
    "live_parallel_3-0-3": (ENUM_UNITS.id, "unit", _CELSIUS, ()),
    "live_parallel_6-3-0": (ENUM_UNITS.id, "unit", _CELSIUS, ()),
    "live_parallel_13-9-0": (ENUM_UNITS.id, "unit", _CELSIUS, ()),
    "live_multiple_190-84-0": (ENUM_TROPHY.id, "trophy", (), ("all levels",)),
}
"""The ground-truth edits of #1329/#1330, as the PRs' diffs make them."""


DOC_PATCHES: dict[tuple[str, str], tuple[str, str]] = {
    # (class, function): (text in its description, replacement), as #1326's diff edits them
    ("GorillaFileSystem", "cat"): ("from currrent directory", "from current directory"),
    ("MessageAPI", "message_login"): ("to messeage application", "to message application"),
}


class UnknownProfile(ValueError):
    """A profile name not in `PROFILES` (the message lists the known ones)."""


_active: tuple[str, tuple[Fix, ...]] = (DEFAULT_PROFILE, ())


def canonical(name: str | None) -> str:
    """The recorded name of a profile or a comma-separated combination: its known profiles
    in `PROFILES` order, once each, `none` dropped beside others (so
    `lenient-defaults,community-2026` and its reverse record alike). Unknown names raise."""
    parts = [part.strip() for part in (name or DEFAULT_PROFILE).split(",") if part.strip()]
    unknown = [part for part in parts if part not in PROFILES]
    if unknown or not parts:
        known = ", ".join(sorted(PROFILES))
        raise UnknownProfile(f"unknown corrections profile {name!r} (known: {known})")
    chosen = [known for known in PROFILES if known in parts and known != DEFAULT_PROFILE]
    return ",".join(chosen) or DEFAULT_PROFILE


def use_profile(name: str | None) -> None:
    """Make `name` (a profile, or several comma-separated) the process's profile (None: the
    default). Unknown names raise."""
    recorded = canonical(name)
    fixes = tuple(fix for part in recorded.split(",") for fix in PROFILES[part])
    global _active
    _active = (recorded, fixes)


def active_profile() -> str:
    """The name recorded in model.json and score headers."""
    return _active[0]


def active_fixes() -> tuple[Fix, ...]:
    """Every fix the active profile (or combination) applies, in profile order."""
    return _active[1]


def enabled(fix_id: str) -> bool:
    """Whether the active profile applies this fix (hooks ask at the point the PR changes)."""
    return any(fix.id == fix_id for fix in _active[1])


def possible_answer(case_id: str, answer: Any) -> Any:
    """The case's possible answer with the active profile's ground-truth edits (a copy);
    the answer itself when no edit applies."""
    patch = ANSWER_PATCHES.get(case_id)
    if patch is None or not enabled(patch[0]) or not isinstance(answer, list):
        return answer
    _, parameter, added, removed = patch
    patched = copy.deepcopy(answer)
    for call in patched:
        for arguments in call.values() if isinstance(call, dict) else ():
            values = arguments.get(parameter) if isinstance(arguments, dict) else None
            if isinstance(values, list):
                kept = [v for v in values if v not in removed]
                arguments[parameter] = kept + [v for v in added if v not in kept]
    return patched


def function_docs(cls: str, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A class's function docs with the active profile's description edits: edited docs are
    copies (callers may hold shared, read-only docs); the list itself when none applies."""
    if not enabled(DOC_TYPOS.id):
        return docs
    edited = []
    for doc in docs:
        patch = DOC_PATCHES.get((cls, str(doc.get("name"))))
        description = doc.get("description")
        if patch is not None and isinstance(description, str) and patch[0] in description:
            doc = {**doc, "description": description.replace(patch[0], patch[1])}
        edited.append(doc)
    return edited


def describe() -> list[str]:
    """Lines naming the active profile and each fix with its upstream numbers (shown under
    the score table); none for the default."""
    name = active_profile()
    if name == DEFAULT_PROFILE:
        return []
    lines = [f"Corrections profile {name} (not bfcl-eval 2026.3.23's verdicts):"]
    for fix in active_fixes():
        numbers = ", ".join(f"#{n}" for n in fix.upstream)
        lines.append(f"  {fix.id}{f' ({numbers})' if numbers else ''}: {fix.description}")
    return lines


@contextmanager
def suspended() -> Iterator[None]:
    """Upstream's behaviour inside the block (to judge a corrected case the other way too)."""
    global _active
    saved = _active
    _active = (DEFAULT_PROFILE, ())
    try:
        yield
    finally:
        _active = saved


def fix_of_case(case_id: str) -> Fix | None:
    """The active profile's ground-truth fix that edits this case, if any."""
    patch = ANSWER_PATCHES.get(case_id)
    if patch is None or not enabled(patch[0]):
        return None
    return next(fix for fix in active_fixes() if fix.id == patch[0])
