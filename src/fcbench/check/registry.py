"""Checker kinds: one object per way of judging an answer, found by name.

A category row names its checker (`Category.checker`, e.g. `ast_parallel`, `multi_turn`);
the kind registered under that name owns everything that differs between checkers, so that
evaluation and reporting never branch on it:

* `load`: the category's cases in the form judging reads (slim docs, kept in the derived
  cache where that pays) and each case's prompt as its failure records show it;
* `cost_per_byte`: how expensive a byte of answers is to judge, for balancing jobs;
* `session`: a job's judging of one category over every model's answers, with its set-up
  and tear-down (sandbox workers, garbage-collector policy, process state reset per model),
  memo keys under which identical answers share a verdict, the verdict itself, and the
  failure records of each model's score file.

A kind also says whether a run can ask a model its categories (`generates`) and in which
modes (`modes`); `can_generate` answers from that alone, so a new kind is generated, scored and
offered by the command line with no other module touched.

Built-in kinds are imported on first use (`fcbench --help` imports none); `register` adds
one at run time, e.g. for a user's own checker:

    class Toy(CheckerKind): ...
    registry.register(Toy("toy"))

and an installed package adds one through the `fcbench.checkers` entry-point group (a
`CheckerKind` object; see `fcbench.plugins`), looked up the first time a name is not found.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcbench import plugins
from fcbench._json import RawJSON
from fcbench.core import categories
from fcbench.core.categories import Category
from fcbench.core.model import TestCase, Verdict
from fcbench.dataset.slim import SlimCategory
from fcbench.decode.encoding import Encoding

__all__ = [
    "CheckSession",
    "CheckerKind",
    "JudgeSettings",
    "Record",
    "RecordBuilder",
    "UnknownCheckerError",
    "can_generate",
    "get",
    "is_registered",
    "names",
    "register",
]

Record = str | dict[str, Any]
"""A failure record: its JSON line already, or a dict the score-file writer encodes."""

RecordBuilder = Callable[[TestCase, dict[str, Any], Verdict, RawJSON | None], Record]
"""(case, result entry, verdict, prompt JSON) -> the failure record of one score file."""


@dataclass(frozen=True)
class JudgeSettings:
    """What judging needs besides the answers; small and picklable (sent to workers)."""

    release: str
    data_root: Path | None = None
    details: bool = True
    """Failure details only score files show (e.g. multi-turn state snapshots)."""
    exec_backend: str = "offline"
    """Who answers the executable categories' web-service calls: offline, replay, live."""
    exec_replay_dir: Path | None = None

    def validate(self) -> None:
        """Refuse settings that cannot work (ValueError with the reason)."""
        if self.exec_backend == "offline" and self.exec_replay_dir is None:
            return  # the default: nothing to import or check
        from fcbench.envs.exec_functions.backends import BACKENDS, transport_missing

        if self.exec_backend not in BACKENDS:
            raise ValueError(
                f"unknown exec backend {self.exec_backend!r} (one of {', '.join(BACKENDS)})"
            )
        missing = transport_missing() if self.exec_backend == "live" else None
        if missing is not None:
            raise ValueError(missing)
        replay = self.exec_replay_dir
        if self.exec_backend == "replay" and (replay is None or not Path(replay).is_dir()):
            raise ValueError(
                "--exec-backend replay needs --exec-replay-dir, a folder of recorded responses "
                f"(got {replay})"
            )


class CheckSession(ABC):
    """One job's judging of one category, over every model's result file for it."""

    def begin_model(self, model: str) -> None:
        """Called before each model's answers (e.g. to reset process-wide state)."""
        return None

    def memo_key(
        self, case: TestCase, raw: Any, encoding: Encoding, model: str
    ) -> Hashable | None:
        """A key under which identical answers to a case share one verdict (None: judge)."""
        return None

    @abstractmethod
    def judge(self, case: TestCase, raw: Any, encoding: Encoding, model: str) -> Verdict:
        """The verdict on one answer; never raises (a crash is a recorded failure)."""

    @abstractmethod
    def records(self, model: str, category: Category, cases: SlimCategory) -> RecordBuilder:
        """The failure-record builder of one model's score file."""

    def header_fields(
        self, result_file: Path, judged: Sequence[tuple[TestCase, Verdict]]
    ) -> dict[str, Any]:
        """Extra fields for a score file's header (after the official ones); none by default.
        `result_file` is the scored file (its model folder holds the run's manifest);
        `judged` its judged cases in score-file order, skipped ones left out (format
        sensitivity's per-configuration statistics are made from them)."""
        return {}

    def notes(self, model: str, category: Category, result_file: Path) -> list[str]:
        """Warnings about a model's answers to the category as a whole (none by default)."""
        return []

    def skipped_note(self, model: str, category: Category, count: int) -> str:
        """The warning for cases that could not be judged (`Verdict.extras["skipped"]`)."""
        return f"{model}: {category.name}: {count} case(s) skipped, not scored"

    def close(self) -> None:
        """Tear down what the session set up (also after an error)."""
        return None


class CheckerKind(ABC):
    """A way of judging answers; registered under `name`, the categories' checker name."""

    cost_per_byte: float = 1.0
    """Judging cost of a byte of answers relative to Python-syntax AST answers."""

    generates: bool = True
    """Whether a run asks models this kind's (current, scored) categories: the runner's
    generic request layouts serve any kind; `rest` says no (its only category is the original
    benchmark's, asked by the release rule of `can_generate`)."""

    modes: frozenset[str] = frozenset({"fc", "prompt"})
    """The modes its categories are asked in (format sensitivity: prompt only; an FC model
    skips it, N/A, as upstream)."""

    def __init__(
        self, name: str, *, generates: bool | None = None, modes: Iterable[str] | None = None
    ) -> None:
        self.name = name
        if generates is not None:
            self.generates = generates
        if modes is not None:
            self.modes = frozenset(modes)

    def cost(self, category: Category) -> float:
        """What judging a byte of this category's answers costs (job balancing)."""
        return self.cost_per_byte

    def prepare(self) -> None:
        """Called once in the parent process before jobs are forked (e.g. to import what every
        worker would otherwise import again)."""
        return None

    @abstractmethod
    def load(self, category: Category, settings: JudgeSettings) -> SlimCategory:
        """The category's cases as the session judges them."""

    @abstractmethod
    def session(self, category: Category, settings: JudgeSettings) -> CheckSession:
        """Set up the judging of one category (torn down by `CheckSession.close`)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class UnknownCheckerError(KeyError):
    """No checker kind is registered under that name."""


_BUILTIN: dict[str, str] = {
    "ast_simple": "fcbench.check.kinds.ast:SIMPLE",
    "ast_multiple": "fcbench.check.kinds.ast:MULTIPLE",
    "ast_parallel": "fcbench.check.kinds.ast:PARALLEL",
    "irrelevance": "fcbench.check.kinds.relevance:IRRELEVANCE",
    "relevance": "fcbench.check.kinds.relevance:RELEVANCE",
    "exec_simple": "fcbench.check.kinds.executable:EXEC_SIMPLE",
    "exec_multiple": "fcbench.check.kinds.executable:EXEC_MULTIPLE",
    "exec_parallel": "fcbench.check.kinds.executable:EXEC_PARALLEL",
    "rest": "fcbench.check.kinds.executable:REST",
    "multi_turn": "fcbench.check.kinds.multi_turn:MULTI_TURN",
    "agentic": "fcbench.check.kinds.agentic:AGENTIC",
    "format_sensitivity": "fcbench.check.kinds.format_sensitivity:FORMAT_SENSITIVITY",
}
"""Built-in kinds: checker name -> `module:attribute` of the kind object."""

GENERATED_RELEASES = frozenset({"v1"})
"""Releases whose every category is asked, the retired and unscored ones included: the
original benchmark's handlers asked them all like the AST categories (no special case)."""

_LOADED: dict[str, CheckerKind] = {}


def register(kind: CheckerKind) -> CheckerKind:
    """Make `kind` the checker of every category whose row names `kind.name`."""
    _LOADED[kind.name] = kind
    categories.add_checker_name(kind.name)  # the data layer checks names without importing us
    return kind


def get(name: str) -> CheckerKind:
    """The kind registered under a checker name (imported on first use)."""
    kind = _find(str(name))
    if kind is None:
        raise UnknownCheckerError(f"no checker kind is registered as {name!r}")
    return kind


def is_registered(name: str) -> bool:
    return _find(str(name)) is not None


def names() -> list[str]:
    """Every registered checker name (installed plugins' included)."""
    _load_plugins()
    return sorted(set(_BUILTIN) | set(_LOADED))


def can_generate(category: Category, mode: str) -> bool:
    """Whether a run asks models `category` in `mode`: never in a mode its kind refuses;
    every category of a `GENERATED_RELEASES` release; else a current, scored category whose
    kind `generates` (a category without a kind is never asked)."""
    kind = _find(category.checker)
    if kind is not None and mode not in kind.modes:
        return False
    if category.release in GENERATED_RELEASES:
        return True
    current = category.scoring and not category.retired
    return kind is not None and kind.generates and current


def _find(name: str) -> CheckerKind | None:
    """The kind of a name: registered, built in (imported now), or an installed plugin's."""
    kind = _LOADED.get(name)
    if kind is not None:
        return kind
    target = _BUILTIN.get(name)
    if target is not None:
        module, _, attribute = target.partition(":")
        loaded: CheckerKind = getattr(importlib.import_module(module), attribute)
        return register(loaded)
    _load_plugins()
    return _LOADED.get(name)


def _load_plugins() -> None:
    """Register the kinds of the `fcbench.checkers` entry points (once per process)."""
    plugins.register_all(plugins.CHECKERS, _register_plugin)


def _register_plugin(name: str, value: object) -> str | None:
    if not isinstance(value, CheckerKind):
        return f"not a CheckerKind but {type(value).__name__}"
    if value.name != name:
        return f"its CheckerKind is named {value.name!r}, not {name!r}"
    if value.name in _BUILTIN:
        return f"the built-in checker {value.name!r} cannot be replaced by a plugin"
    _LOADED.setdefault(value.name, value)  # a kind registered in code keeps its name
    return None
