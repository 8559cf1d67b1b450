"""Load a category's questions, joined with their possible answers, as `TestCase`s.

What a `TestCase` holds (the evaluator's view of an entry, §2 of the spec):

* `id`: today's official id. Files of an older layout (`BFCL_v3_simple.json`, see
  `naming.py`) are read under today's category names, their ids renamed (`simple_7` ->
  `simple_python_7`). Then the load-time rewrites the official tool does: web-search ids
  `web_search_N` become `web_search_base_N` / `web_search_no_snippet_N`, memory ids
  `memory_...` become `memory_kv_...` etc. The legacy `chatable` file has no ids: entry n
  gets `chatable_<n>` (0-based, file order).
* `question`: a list of turns, each a list of messages. `sql`'s flat message list and
  `chatable`'s bare string are wrapped into one turn like every other category.
* `functions`: the entry's `function` docs. Multi-turn and agentic entries get theirs from
  `multi_turn_func_doc/` by `involved_classes` (memory entries use `MemoryAPI_<backend>`);
  a miss_func entry's held-out docs are removed from it and stored, as full docs, under
  `extras["missed_function"][turn]`.
* `possible_answer`: the answer file's `ground_truth` (None for categories without answers).
* `extras`: every other question field (involved_classes, initial_config, scenario, path, ...)
  and every other answer field (the retired exec answers' `execution_result_type`, web
  search `source`/`num_hops`, memory `source`); an answer field whose name is already taken
  by a question field is stored as `answer_<name>`. Web-search entries also get the
  official `initial_config` `{"WebSearchAPI": {"show_snippet": ...}}`; `rest` entries get
  `reference_call`, the request that answers them (see `exec_probes`).

`format_sensitivity` is assembled from other categories (`load_format_sensitivity`, from the
selection and configurations of `format_sensitivity.py`).

Not done here (generation-side steps, §2.5): the agentic answer-format system message, the
language hints in function descriptions (except, as upstream, in format-sensitivity cases),
and the memory entries' `depends_on`/result-dir `initial_config` (see `load_memory_prereqs`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fcbench import corrections
from fcbench.core import categories
from fcbench.core.categories import Category, Checker
from fcbench.core.model import TestCase
from fcbench.dataset.fetch import DEFAULT_RELEASE, DataError
from fcbench.dataset.format_sensitivity import CATEGORY, CONFIGS, case_id, selected_ids
from fcbench.dataset.hints import with_language_hints
from fcbench.dataset.naming import Naming
from fcbench.dataset.source import FUNC_DOC_FILES, Source, has_own_source, source, source_for
from fcbench.layout import VERSION_PREFIX

__all__ = [
    "FUNC_DOC_FILES",
    "VERSION_PREFIX",
    "answer_file",
    "dataset_size",
    "has_category",
    "load_category",
    "load_memory_prereqs",
    "question_file",
    "scoring_sizes",
]



MEMORY_SCENARIOS = ("student", "customer", "finance", "healthcare", "notetaker")
FORMAT_SENSITIVITY_CONFIGS = 26
"""Prompt configurations each format_sensitivity item is run under (4 x 2 x 3 + 2, §7.3)."""

_SIZES: dict[tuple[str, int, int], int] = {}


def _category(category: Category | str) -> Category:
    return category if isinstance(category, Category) else categories.get(category)


def question_file(
    category: Category | str, release: str = DEFAULT_RELEASE, data_root: Path | str | None = None
) -> str:
    """The question file of a category in that data, relative to `data/`."""
    cat = _category(category)
    return source_for(cat, release, data_root).naming.question_file(cat)


def answer_file(
    category: Category | str, release: str = DEFAULT_RELEASE, data_root: Path | str | None = None
) -> str:
    """The possible-answer file of a category in that data, relative to `data/`."""
    cat = _category(category)
    return source_for(cat, release, data_root).naming.answer_file(cat)


def has_category(
    category: Category | str, release: str = DEFAULT_RELEASE, data_root: Path | str | None = None
) -> bool:
    """Whether that data holds the category's question file (older releases lack some)."""
    cat = _category(category)
    src = source_for(cat, release, data_root)
    if cat.name == "format_sensitivity":
        return src.has(src.naming.format_sensitivity_file())
    return src.has(src.naming.question_file(cat))


# --------------------------------------------------------------------------- loading


def load_category(
    category: Category | str,
    release: str = DEFAULT_RELEASE,
    data_root: Path | str | None = None,
    *,
    functions: bool = True,
) -> list[TestCase]:
    """Every entry of a category, in file order, joined with its possible answer.

    `data_root` points at a user's folder laid out like the official `data/` (read as is, no
    checksums); otherwise the fetched release is read and verified. `functions=False` leaves
    multi-turn and agentic entries without their docs (the multi-turn checker replays calls
    and never reads them; building them is most of the loading time); miss_func's held-out
    docs are still moved to extras, as objects shared between entries (do not edit them).
    """
    cat = _category(category)
    if cat.prerequisite:
        return load_memory_prereqs(categories.prerequisite_of(cat), release, data_root)
    if cat.name == "format_sensitivity":
        return load_format_sensitivity(release, data_root)
    src = source_for(cat, release, data_root)
    qfile = src.naming.question_file(cat)
    answers = _answers(src, cat) if cat.has_possible_answer else None
    cases: list[TestCase] = []
    for index, (number, raw) in enumerate(src.lines(qfile)):
        where = f"{src.label(qfile)}, line {number}"
        entry = _normalise(raw, cat, index, where, src.naming)
        if cat.checker in (Checker.MULTI_TURN, Checker.AGENTIC) and "involved_classes" in entry:
            _populate_functions(entry, src, where, functions)
        cases.append(_test_case(entry, cat, answers, src.label(src.naming.answer_file(cat))))
    if cat.checker == Checker.REST:
        _attach_reference_calls(cases, src)
    return cases


def _attach_reference_calls(cases: list[TestCase], src: Source) -> None:
    """`rest` answers are sample responses; the request that gives one is in the release's
    sanity-check data. It goes to `extras["reference_call"]`, for the ground-truth model."""
    from fcbench.dataset.exec_probes import rest_calls

    calls = rest_calls(src)
    for case in cases:
        if case.id in calls:
            case.extras["reference_call"] = calls[case.id]


def _normalise(
    raw: dict[str, Any], cat: Category, index: int, where: str, naming: Naming
) -> dict[str, Any]:
    """Give an entry the common shape: id, question as turns, function list, id rewrites."""
    entry = dict(raw)
    if "id" not in entry:
        if cat.name != "chatable":
            raise DataError(f"{where}: the entry has no id")
        entry["id"] = f"chatable_{index}"
    if not isinstance(entry["id"], str):
        raise DataError(f"{where}: the id is not a string")
    entry["id"] = naming.today_id(cat, entry["id"])
    entry["question"] = _as_turns(entry.get("question"), where)
    function = entry.get("function")
    entry["function"] = function if isinstance(function, list) else []
    if cat.stem == "web_search":
        entry["id"] = entry["id"].replace("web_search", cat.name)
        entry["initial_config"] = {"WebSearchAPI": {"show_snippet": "no_snippet" not in cat.name}}
    elif cat.stem == "memory":
        entry["id"] = entry["id"].replace("memory", cat.name)
        entry["involved_classes"] = [_memory_class(cat.name)]
    return entry


def _memory_class(category_name: str) -> str:
    return "MemoryAPI_" + category_name.removeprefix("memory_")


def _as_turns(question: Any, where: str) -> list[Any]:
    """Questions as a list of turns: wraps a bare string or a flat message list in one turn."""
    if isinstance(question, str):
        return [[{"role": "user", "content": question}]]
    if not isinstance(question, list):
        raise DataError(f"{where}: `question` is neither a list nor a string")
    if question and all(isinstance(m, dict) for m in question):
        return [question]
    return question


def _populate_functions(
    entry: dict[str, Any], src: Source, where: str, keep: bool = True
) -> None:
    """Docs of the involved classes, in order; miss_func's held-out docs moved aside.

    Without `keep`, the entry gets no docs: the held-out ones are picked from shared copies.
    """
    classes = entry["involved_classes"]
    if not isinstance(classes, list):
        raise DataError(f"{where}: `involved_classes` is not a list")
    functions: list[dict[str, Any]] = []
    for cls in classes:
        docs = src.docs(cls, where) if keep else src.shared_docs(cls, where)
        functions.extend(corrections.function_docs(cls, docs))  # #1326 under the profile
    missed = entry.get("missed_function")
    if isinstance(missed, dict):
        moved: dict[str, list[dict[str, Any]]] = {}
        for turn, names in missed.items():
            moved[turn] = []
            for name in names:
                # The first doc of that name moves; a name with no doc is silently dropped.
                for i, doc in enumerate(functions):
                    if doc.get("name") == name:
                        moved[turn].append(functions.pop(i))
                        break
        entry["missed_function"] = moved
    entry["function"] = functions if keep else []


def _answers(src: Source, cat: Category) -> dict[str, dict[str, Any]]:
    """The category's answers by (rewritten) id."""
    afile = src.naming.answer_file(cat)
    result: dict[str, dict[str, Any]] = {}
    for number, raw in src.lines(afile):
        answer_id = raw.get("id")
        if not isinstance(answer_id, str):
            raise DataError(f"{src.label(afile)}, line {number}: the answer has no id")
        answer_id = src.naming.today_id(cat, answer_id)
        if cat.stem in ("web_search", "memory"):
            answer_id = answer_id.replace(cat.stem, cat.name)
        result[answer_id] = raw
    return result


def _test_case(
    entry: dict[str, Any],
    cat: Category,
    answers: dict[str, dict[str, Any]] | None,
    answer_label: str,
) -> TestCase:
    extras = {k: v for k, v in entry.items() if k not in ("id", "question", "function")}
    possible_answer: Any = None
    if answers is not None:
        answer = answers.get(entry["id"])
        if answer is None:
            raise DataError(f"{answer_label}: no possible answer for {entry['id']}")
        possible_answer = answer.get("ground_truth")
        for key, value in answer.items():
            if key not in ("id", "ground_truth"):
                extras[f"answer_{key}" if key in extras else key] = value
    return TestCase(
        id=entry["id"],
        category=cat.name,
        question=entry["question"],
        functions=entry["function"],
        possible_answer=possible_answer,
        extras=extras,
    )


def load_memory_prereqs(
    category: Category | str,
    release: str = DEFAULT_RELEASE,
    data_root: Path | str | None = None,
) -> list[TestCase]:
    """A memory category's prerequisite conversations (run before its questions, never scored).

    Ids become `<category>_prereq_...`, the TestCase category `<category>_prereq`, and
    `extras["depends_on"]` lists the earlier prereqs of the same scenario (they run in
    order). A memory question depends on every prereq of its scenario (`extras["scenario"]`).
    """
    cat = _category(category)
    if cat.stem != "memory":
        raise DataError(f"{cat.name} is not a memory category")
    src = source(release, data_root)
    cases: list[TestCase] = []
    for scenario in MEMORY_SCENARIOS:
        rel = f"memory_prereq_conversation/memory_{scenario}.json"
        earlier: list[str] = []
        for number, raw in src.lines(rel):
            where = f"{src.label(rel)}, line {number}"
            entry = _normalise(raw, cat, 0, where, src.naming)
            entry["depends_on"] = list(earlier)
            _populate_functions(entry, src, where)
            earlier.append(entry["id"])
            extras = {k: v for k, v in entry.items() if k not in ("id", "question", "function")}
            cases.append(
                TestCase(entry["id"], f"{cat.name}_prereq", entry["question"],
                         entry["function"], None, extras)
            )
    return cases


# --------------------------------------------------------------------------- sizes


def dataset_size(
    category: Category | str,
    release: str = DEFAULT_RELEASE,
    data_root: Path | str | None = None,
) -> int:
    """How many test cases a category has, by counting lines (cached per file version).

    format_sensitivity counts its 200 selected items times its 26 prompt configurations. A
    category a fetched release does not have (the agentic ones before 2025.8.25) has 0 cases
    there; a user's folder that lacks the file is an error, as when loading it.
    """
    cat = _category(category)
    if cat.prerequisite:
        return len(load_memory_prereqs(categories.prerequisite_of(cat), release, data_root))
    src = source_for(cat, release, data_root)
    if cat.name == "format_sensitivity":
        rel = src.naming.format_sensitivity_file()
    else:
        rel = src.naming.question_file(cat)
    if src.root is None and not src.has(rel):
        return 0
    key = src.stamp(rel)
    if key not in _SIZES:
        _SIZES[key] = _count(src, rel, cat)
    return _SIZES[key]


def _count_lines(src: Source, rel: str) -> int:
    """Non-blank lines, streamed from disk: sizes are asked for every category at once and the
    largest files are several MB. (Loading a category verifies its checksum; counting needn't.)"""
    path = Path(src.stamp(rel)[0])
    try:
        with path.open("rb") as fh:
            return sum(1 for line in fh if line.strip())
    except FileNotFoundError:
        src.read(rel)  # the same clear error a load would give
        raise
    except OSError as exc:
        raise DataError(f"cannot read {src.label(rel)}: {exc}") from None


def _count(src: Source, rel: str, cat: Category) -> int:
    if cat.name != "format_sensitivity":
        return _count_lines(src, rel)
    data = src.read(rel)
    try:
        selected = json.loads(data)
        return FORMAT_SENSITIVITY_CONFIGS * sum(len(ids) for ids in selected.values())
    except (ValueError, AttributeError, TypeError):
        raise DataError(f"{src.label(rel)}: not a JSON object of id lists") from None


def scoring_sizes(release: str = DEFAULT_RELEASE, data_root: Path | str | None = None
                  ) -> dict[str, int]:
    """The size of every category the official formulas name (V4 and v1), and of every
    category of a registered custom dataset: a category without results counts 0 over it.
    A user's folder may lack some: they have no cases."""
    wanted = set(categories.ALL_SCORING) | set(categories.V1)
    sizes: dict[str, int] = {}
    for category in categories.all_categories():
        if category.name in wanted or has_own_source(category):
            try:
                sizes[category.name] = dataset_size(category, release, data_root)
            except DataError:
                if data_root is None:
                    raise
                sizes[category.name] = 0
    return sizes


def load_format_sensitivity(
    release: str, data_root: Path | str | None = None
) -> list[TestCase]:
    """The 200 selected items x 26 configurations, ground truth repeated per configuration.

    Items come in the order of the selection's categories, and within a category in its
    file's order (not the selection's), as upstream; a selected id the category lacks is
    left out, as upstream. The 26 cases of an item share its question, docs and answer
    objects (read them, do not edit them).
    """
    src = source(release, data_root)
    cases: list[TestCase] = []
    for name, ids in selected_ids(src).items():
        if not ids:
            continue
        try:
            category = categories.get(name)
        except categories.UnknownCategoryError:
            label = src.label(src.naming.format_sensitivity_file())
            raise DataError(f"{label}: selects from an unknown category {name!r}") from None
        wanted = set(ids)
        for item in load_category(category, release, data_root):
            if item.id not in wanted:
                continue
            docs = with_language_hints(item.functions, category.language)
            for config in CONFIGS:
                cases.append(TestCase(
                    case_id(len(cases), config, item.id), CATEGORY, item.question, docs,
                    item.possible_answer, dict(item.extras),
                ))
    return cases
