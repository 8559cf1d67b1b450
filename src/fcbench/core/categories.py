"""The category registry: every BFCL category is one row of data, not code.

A row says where a category's files live, which release introduced it, the language its
answers are written in, which checker decides its verdicts and which summary group it counts
in. Checkers and scorers read these rows; adding a category means adding a row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from fcbench import plugins


class Language(str, Enum):
    PYTHON = "python"
    JAVA = "java"
    JAVASCRIPT = "javascript"


class Checker:
    """The built-in checker names. A category row names its checker by one of these (or by
    the name of a kind registered at run time); `check.registry` maps names to kinds."""

    AST_SIMPLE = "ast_simple"
    AST_MULTIPLE = "ast_multiple"
    AST_PARALLEL = "ast_parallel"
    IRRELEVANCE = "irrelevance"
    RELEVANCE = "relevance"
    EXEC_SIMPLE = "exec_simple"
    EXEC_MULTIPLE = "exec_multiple"
    EXEC_PARALLEL = "exec_parallel"
    REST = "rest"
    MULTI_TURN = "multi_turn"
    AGENTIC = "agentic"
    FORMAT_SENSITIVITY = "format_sensitivity"
    NONE = "none"


_BUILTIN_CHECKERS = frozenset(
    value for name, value in vars(Checker).items() if name.isupper() and value != Checker.NONE
)
_CHECKERS_AT_RUN_TIME: set[str] = set()


def add_checker_name(name: str) -> None:
    """Record the name of a checker kind registered at run time. `check.registry.register`
    calls it, so that the layers below checking (a custom dataset's manifest names its
    checker) know every checker name without importing the checkers."""
    _CHECKERS_AT_RUN_TIME.add(name)


def is_checker_name(name: str) -> bool:
    """Whether a checker kind has this name: a built-in one (every `Checker` name but
    `none`, which judges nothing), one registered at run time, or one an installed plugin
    declares (`plugins.CHECKERS`; loaded by the checker registry when it is used)."""
    if name in _BUILTIN_CHECKERS or name in _CHECKERS_AT_RUN_TIME:
        return True
    return name in plugins.declared(plugins.CHECKERS)


EXECUTABLE_CHECKERS = (Checker.EXEC_SIMPLE, Checker.EXEC_MULTIPLE, Checker.EXEC_PARALLEL,
                       Checker.REST)
"""The checkers that run calls (exec_* and rest): they may need web services."""


@dataclass(frozen=True)
class Category:
    """One registry row.

    `group` is the folder the official tool files results and scores under (non_live, live,
    multi_turn, agentic, format_sensitivity); `release` the benchmark release that introduced
    the category (v1 = the original 2024 benchmark, v2 = live, v3 = multi-turn, v4 = agentic);
    `data_stem` the question/answer file name stem when it differs from the name; `retired`
    marks categories the official tool no longer scores (their files sit in unused_datasets/);
    `answers` whether a possible-answer file exists (irrelevance and relevance have none);
    `scoring` whether fcbench judges the category at all (the retired sql and chatable and the
    memory prerequisites have no checker); whether it counts in a summary is the formulas'
    business (`score/`); `prerequisite` marks conversations that prepare another category's
    state.
    `checker` is the name of the checker kind that judges it (see `check.registry`).
    """

    name: str
    group: str
    release: str
    language: Language
    checker: str
    data_stem: str = ""
    retired: bool = False
    scoring: bool = True
    legacy_names: tuple[str, ...] = ()
    answers: bool = True
    prerequisite: bool = False
    """Conversations run before a category's questions, never scored (memory prereqs)."""

    @property
    def stem(self) -> str:
        return self.data_stem or self.name

    @property
    def has_possible_answer(self) -> bool:
        return self.answers


_NO_ANSWERS = (Checker.IRRELEVANCE, Checker.RELEVANCE, Checker.NONE)


def _row(name: str, group: str, release: str, checker: str, **kw: object) -> Category:
    language = kw.pop("language", Language.PYTHON)
    kw.setdefault("answers", checker not in _NO_ANSWERS)
    return Category(name, group, release, language, checker, **kw)  # type: ignore[arg-type]


_P, _J, _JS = Language.PYTHON, Language.JAVA, Language.JAVASCRIPT
C = Checker

CATEGORIES: tuple[Category, ...] = (
    # The original 2024 benchmark (v1), under today's names.
    _row("simple_python", "non_live", "v1", C.AST_SIMPLE, legacy_names=("simple",)),
    _row("simple_java", "non_live", "v1", C.AST_SIMPLE, language=_J, legacy_names=("java",)),
    _row(
        "simple_javascript",
        "non_live",
        "v1",
        C.AST_SIMPLE,
        language=_JS,
        legacy_names=("javascript",),
    ),
    _row("multiple", "non_live", "v1", C.AST_MULTIPLE, legacy_names=("multiple_function",)),
    _row("parallel", "non_live", "v1", C.AST_PARALLEL, legacy_names=("parallel_function",)),
    _row(
        "parallel_multiple",
        "non_live",
        "v1",
        C.AST_PARALLEL,
        legacy_names=("parallel_multiple_function",),
    ),
    _row("irrelevance", "non_live", "v1", C.IRRELEVANCE, legacy_names=("relevance",)),
    _row(
        "exec_simple",
        "non_live",
        "v1",
        C.EXEC_SIMPLE,
        retired=True,
        legacy_names=("executable_simple",),
    ),
    _row(
        "exec_multiple",
        "non_live",
        "v1",
        C.EXEC_MULTIPLE,
        retired=True,
        legacy_names=("executable_multiple_function",),
    ),
    _row(
        "exec_parallel",
        "non_live",
        "v1",
        C.EXEC_PARALLEL,
        retired=True,
        legacy_names=("executable_parallel_function",),
    ),
    _row(
        "exec_parallel_multiple",
        "non_live",
        "v1",
        C.EXEC_PARALLEL,
        retired=True,
        legacy_names=("executable_parallel_multiple_function",),
    ),
    _row("rest", "non_live", "v1", C.REST, retired=True),
    _row("sql", "non_live", "v1", C.AST_SIMPLE, retired=True, scoring=False),
    _row("chatable", "non_live", "v1", C.NONE, retired=True, scoring=False),
    # Live (v2): user-contributed functions and questions.
    _row("live_simple", "live", "v2", C.AST_SIMPLE),
    _row("live_multiple", "live", "v2", C.AST_MULTIPLE),
    _row("live_parallel", "live", "v2", C.AST_PARALLEL),
    _row("live_parallel_multiple", "live", "v2", C.AST_PARALLEL),
    _row("live_irrelevance", "live", "v2", C.IRRELEVANCE),
    _row("live_relevance", "live", "v2", C.RELEVANCE),
    # Multi-turn (v3).
    _row("multi_turn_base", "multi_turn", "v3", C.MULTI_TURN),
    _row("multi_turn_miss_func", "multi_turn", "v3", C.MULTI_TURN),
    _row("multi_turn_miss_param", "multi_turn", "v3", C.MULTI_TURN),
    _row("multi_turn_long_context", "multi_turn", "v3", C.MULTI_TURN),
    _row("multi_turn_composite", "multi_turn", "v3", C.MULTI_TURN, retired=True),
    # Agentic (v4).
    _row("web_search_base", "agentic", "v4", C.AGENTIC, data_stem="web_search"),
    _row("web_search_no_snippet", "agentic", "v4", C.AGENTIC, data_stem="web_search"),
    _row("memory_kv", "agentic", "v4", C.AGENTIC, data_stem="memory"),
    _row("memory_vector", "agentic", "v4", C.AGENTIC, data_stem="memory"),
    _row("memory_rec_sum", "agentic", "v4", C.AGENTIC, data_stem="memory"),
    # The memory categories' prerequisite conversations: generated first, never scored.
    *(
        _row(f"memory_{backend}_prereq", "agentic", "v4", C.NONE, data_stem="memory",
             scoring=False, prerequisite=True)
        for backend in ("kv", "vector", "rec_sum")
    ),
    # Judged (prompt mode only), but part of no summary and of no Overall, as upstream.
    _row("format_sensitivity", "format_sensitivity", "v4", C.FORMAT_SENSITIVITY),
)

BY_NAME: dict[str, Category] = {c.name: c for c in CATEGORIES}
LEGACY_NAMES: dict[str, str] = {old: c.name for c in CATEGORIES for old in c.legacy_names}
_REGISTERED: list[Category] = []
"""Rows added at run time (`register`), after the built-in ones."""


def register(category: Category, *, replace: bool = False) -> Category:
    """Add a category row at run time (a user's dataset, a toy category in a test).

    Registering the same row again is harmless; another row under a taken name is refused,
    unless `replace` and the taken row was itself registered at run time (a custom dataset
    read again after its manifest changed).
    """
    known = BY_NAME.get(category.name) or BY_NAME.get(LEGACY_NAMES.get(category.name, ""))
    if known is not None and known == category:
        return known
    if known is not None and replace and known in _REGISTERED:
        _REGISTERED[_REGISTERED.index(known)] = category
        BY_NAME[category.name] = category
        return category
    if known is not None:
        raise ValueError(f"a different category is already registered as {category.name!r}")
    BY_NAME[category.name] = category
    _REGISTERED.append(category)
    return category


def unregister(name: str) -> None:
    """Forget a row registered at run time, and collections of that name (built-in rows and
    collections stay)."""
    row = BY_NAME.get(name)
    if row is not None and row in _REGISTERED:
        _REGISTERED.remove(row)
        del BY_NAME[name]
    if name not in BUILTIN_COLLECTIONS:
        COLLECTIONS.pop(name, None)


def all_categories() -> tuple[Category, ...]:
    """Every row: the built-in ones in registry order, then those registered at run time."""
    return CATEGORIES + tuple(_REGISTERED)


_CURRENT = [c for c in CATEGORIES if not c.retired]
NON_LIVE = tuple(c.name for c in _CURRENT if c.group == "non_live")
LIVE = tuple(c.name for c in _CURRENT if c.group == "live")
MULTI_TURN = tuple(c.name for c in _CURRENT if c.group == "multi_turn")
MEMORY = ("memory_kv", "memory_vector", "memory_rec_sum")
WEB_SEARCH = ("web_search_base", "web_search_no_snippet")
AGENTIC = MEMORY + WEB_SEARCH
SINGLE_TURN = NON_LIVE + LIVE
ALL_SCORING = SINGLE_TURN + MULTI_TURN + AGENTIC
V1 = tuple(c.name for c in CATEGORIES if c.release == "v1" and c.scoring)
"""The original benchmark's scored categories (1,700 entries)."""
V1_ALL = tuple(c.name for c in CATEGORIES if c.release == "v1")
"""The whole original benchmark (2,000 entries): the scored ones plus sql and chatable, which
are generated and kept but were never scored."""
EXECUTABLE = ("exec_simple", "exec_multiple", "exec_parallel", "exec_parallel_multiple", "rest")

COLLECTIONS: dict[str, tuple[str, ...]] = {
    "all": (*ALL_SCORING, "format_sensitivity"),
    "all_scoring": ALL_SCORING,
    "single_turn": SINGLE_TURN,
    "non_live": NON_LIVE,
    "live": LIVE,
    "multi_turn": MULTI_TURN,
    "agentic": AGENTIC,
    "memory": MEMORY,
    "web_search": WEB_SEARCH,
    "python": (
        "simple_python",
        "irrelevance",
        "parallel",
        "multiple",
        "parallel_multiple",
        "live_simple",
        "live_multiple",
        "live_parallel",
        "live_parallel_multiple",
        "live_irrelevance",
        "live_relevance",
    ),
    "non_python": ("simple_java", "simple_javascript"),
    # fcbench additions: the original 2,000-case benchmark and the retired executable ones.
    "v1": V1_ALL,
    "executable": EXECUTABLE,
}

BUILTIN_COLLECTIONS = frozenset(COLLECTIONS)
"""The collections above; `register_collection` adds others at run time (custom datasets)."""


def register_collection(name: str, members: Iterable[str]) -> None:
    """Name a group of categories at run time (a custom dataset, `custom`); the built-in
    collections cannot be redefined."""
    if name in BUILTIN_COLLECTIONS:
        raise ValueError(f"{name!r} is a built-in collection")
    COLLECTIONS[name] = tuple(members)


class UnknownCategoryError(ValueError):
    """A name that is neither a category, a 2024 name nor a collection."""


def get(name: str) -> Category:
    """The registry row for a category name (today's or the 2024 one)."""
    name = LEGACY_NAMES.get(name, name)
    try:
        return BY_NAME[name]
    except KeyError:
        raise UnknownCategoryError(f"unknown category {name!r}") from None


EXCLUDE = "-"
"""The mark of an entry that leaves a category or collection out: `all,-web_search`."""


def entries(names: Iterable[str]) -> list[str]:
    """The entries of comma-separated name lists, stripped, empty ones dropped."""
    return [n.strip() for raw in names for n in raw.split(",") if n.strip()]


def excludes(names: Iterable[str]) -> bool:
    """Whether `names` hold a `-name` entry."""
    return any(n.startswith(EXCLUDE) for n in entries(names))


def exclusions(names: Iterable[str] | str | None) -> list[str]:
    """`--exclude a,b` as the `-name` entries `resolve` takes (`["-a", "-b"]`)."""
    if names is None:
        return []
    given = [names] if isinstance(names, str) else list(names)
    return [EXCLUDE + n.removeprefix(EXCLUDE) for n in entries(given)]


def resolve(names: Iterable[str], *, everything: bool = False) -> list[Category]:
    """Expand category and collection names into registry rows, de-duplicated, registry order.

    A `-name` entry leaves that category or collection out, wherever it stands (`all,-memory`
    and `-memory,all` are the same); entries that are all exclusions leave them out of `all`
    (of every registered category with `everything`: a filter of result files that exist).
    """
    given = entries(names)
    included = [n for n in given if not n.startswith(EXCLUDE)]
    excluded = [n[len(EXCLUDE):].strip() for n in given if n.startswith(EXCLUDE)]
    if excluded and not included:
        included = [c.name for c in all_categories()] if everything else ["all"]
    wanted = set().union(*(_members(n) for n in included))
    wanted -= set().union(*(_members(n) for n in excluded))
    return [c for c in all_categories() if c.name in wanted]


def _members(name: str) -> set[str]:
    """The category names a category or collection name stands for."""
    if name in COLLECTIONS:
        return set(COLLECTIONS[name])
    if name in BY_NAME or name in LEGACY_NAMES:
        return {get(name).name}
    known = ", ".join(sorted(COLLECTIONS))
    raise UnknownCategoryError(
        f"unknown category or collection {name!r} (collections: {known}; "
        "`fcbench data list` shows every category; `-name` leaves one out)"
    )


def prerequisites(category: Category) -> Category | None:
    """The row of a category's prerequisite conversations (memory categories), if any."""
    return BY_NAME.get(f"{category.name}_prereq")


def prerequisite_of(category: Category) -> Category:
    """The category whose questions a prerequisite row prepares."""
    return get(category.name.removesuffix("_prereq"))
