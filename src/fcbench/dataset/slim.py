"""A category's cases in the slim form judging reads, with their prompts as JSON text.

Judging a single-turn answer needs only a case's id, function names, parameter types and
required lists, and its possible answer; the descriptions (most of a data file's bytes) are
read only by failure records, which show each case's prompt as the official score files do.
So a category is loaded once per evaluation into `SlimCategory`: slim cases for the checkers
and each case's prompt serialised once (`RawJSON`) for every model that fails the case.

For the single-turn categories of a fetched release the slim rows are kept in the release's
derived cache (`dataset/derived.py`), keyed by the data files they come from.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench._json import RawJSON
from fcbench.core.categories import Category
from fcbench.core.model import TestCase, id_order
from fcbench.dataset.derived import cached
from fcbench.dataset.load import answer_file, load_category, question_file
from fcbench.dataset.source import has_own_source

PromptOf = Callable[[TestCase], dict[str, Any]]
"""A case's prompt as its failure records show it."""


@dataclass
class SlimCategory:
    """A job's cases (slim), their prompts as JSON text, and their official order."""

    cases: dict[str, TestCase]
    prompts: dict[str, RawJSON]
    rank: dict[str, int] = field(init=False)
    _answers: dict[str, RawJSON] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        ordered = sorted(self.cases, key=id_order)  # once per job, not once per result file
        self.rank = {case_id: index for index, case_id in enumerate(ordered)}

    def answer_text(self, case: TestCase) -> RawJSON | None:
        """The case's possible answer as JSON text, serialised once for every model that fails
        it; None if plain `json.dumps` rejects it (records then keep the value itself)."""
        if isinstance(case.possible_answer, RawJSON):
            return case.possible_answer
        text = self._answers.get(case.id)
        if text is None:
            try:
                text = RawJSON(json.dumps(case.possible_answer, ensure_ascii=False))
            except (TypeError, ValueError):
                return None
            self._answers[case.id] = text
        return text


def load_slim(
    category: Category,
    release: str,
    data_root: Path | None,
    prompt_of: PromptOf,
    *,
    slim_functions: bool = True,
    keep_extras: bool = False,
    functions: bool = True,
) -> SlimCategory:
    """Load a category for judging. `slim_functions` cuts docs to what checkers read,
    `keep_extras` keeps the cases' other fields (executable and multi-turn checks read them),
    `functions=False` skips building multi-turn docs (replays never read them)."""
    cases: dict[str, TestCase] = {}
    prompts: dict[str, RawJSON] = {}
    for case in load_category(category, release, data_root, functions=functions):
        prompts[case.id] = RawJSON(json.dumps(prompt_of(case), ensure_ascii=False))
        if slim_functions:
            docs = [slim_doc(d) for d in case.functions]
            extras = case.extras if keep_extras else {}
            case = TestCase(case.id, case.category, [], docs, case.possible_answer, extras)
        cases[case.id] = case
    return SlimCategory(cases, prompts)


def load_slim_cached(
    category: Category,
    release: str,
    data_root: Path | None,
    prompt_of: PromptOf,
    *,
    sources: list[str] | None = None,
) -> SlimCategory:
    """`load_slim` for a category whose cases come from data files alone (by default its
    question and answer files; else `sources`), kept in the release's derived cache (a
    user's data folder is read afresh)."""
    if data_root is not None or has_own_source(category):  # a user's files: read afresh
        return load_slim(category, release, data_root, prompt_of)
    if sources is None:
        sources = [question_file(category, release)]  # the release's own file names
        if category.has_possible_answer:
            sources.append(answer_file(category, release))

    def rows() -> list[tuple[Any, ...]]:
        slim = load_slim(category, release, None, prompt_of)
        return [
            (c.id, c.category, c.functions, c.possible_answer, str(slim.prompts[c.id]))
            for c in slim.cases.values()
        ]

    cases: dict[str, TestCase] = {}
    prompts: dict[str, RawJSON] = {}
    for case_id, case_category, docs, possible_answer, prompt in cached(
        f"slim-{category.name}", release, sources, rows
    ):
        cases[case_id] = TestCase(case_id, case_category, [], docs, possible_answer)
        prompts[case_id] = RawJSON(prompt)
    return SlimCategory(cases, prompts)


def slim_doc(doc: Any) -> Any:
    """The parts of a function doc the AST checker reads: name, parameter types (and element
    types) and defaults (`--corrections lenient-defaults`), required list. Keys the doc lacks
    stay absent, so defects fail as before."""
    if not isinstance(doc, dict) or not isinstance(doc.get("parameters"), dict):
        return doc
    params = doc["parameters"]
    slim_params: dict[str, Any] = {}
    if "properties" in params:
        properties = params["properties"]
        slim_params["properties"] = (
            {name: _slim_property(p) for name, p in properties.items()}
            if isinstance(properties, dict)
            else properties
        )
    if "required" in params:
        slim_params["required"] = params["required"]
    return {"name": doc.get("name"), "parameters": slim_params}


def _slim_property(prop: Any) -> Any:
    if not isinstance(prop, dict):
        return prop
    slim = {k: prop[k] for k in ("type", "default") if k in prop}  # default: lenient-defaults
    items = prop.get("items")
    if isinstance(items, dict) and "type" in items:
        slim["items"] = {"type": items["type"]}
    elif "items" in prop:
        slim["items"] = items
    return slim
