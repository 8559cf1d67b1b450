"""A custom dataset's manifest (`fcbench.json`): defaults, and every problem said."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fcbench.core.categories import Language
from fcbench.dataset.custom_spec import CategorySpec, read_spec


def spec_of(tmp_path: Path, manifest: Any) -> tuple[Any, list[str]]:
    folder = tmp_path / "my-data"
    folder.mkdir(exist_ok=True)
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    (folder / "fcbench.json").write_text(text, encoding="utf-8")
    problems: list[str] = []
    return read_spec(folder, problems), problems


def test_defaults(tmp_path: Path) -> None:
    spec, problems = spec_of(tmp_path, {"categories": [
        {"name": "acme_simple", "checker": "ast_simple"},
        {"name": "acme_none", "checker": "irrelevance", "group": "other", "language": "java"},
        {"name": "acme_jsonl", "checker": "ast", "file": "sub/cases.jsonl",
         "description": "d"}]})
    assert problems == []
    assert spec.name == "my_data" and spec.folder == tmp_path / "my-data"
    assert spec.categories == (
        CategorySpec("acme_simple", "ast_simple", Language.PYTHON, "my_data", "", None,
                     "BFCL_v4_acme_simple.json", "possible_answer/BFCL_v4_acme_simple.json"),
        CategorySpec("acme_none", "irrelevance", Language.JAVA, "other", "", None,
                     "BFCL_v4_acme_none.json", None),
        CategorySpec("acme_jsonl", "ast", Language.PYTHON, "my_data", "d", "sub/cases.jsonl",
                     None, None))


@pytest.mark.parametrize("entry, problem", [
    ({"name": "simple_python", "checker": "ast"}, "it is an official category"),
    ({"name": "simple", "checker": "ast"}, "it is an official category"),
    ({"name": "live", "checker": "ast"}, "it is a built-in collection"),
    ({"name": "custom", "checker": "ast"}, "it is a built-in collection"),
    ({"name": "9lives", "checker": "ast"}, "use letters, digits and _"),
    ({"name": "a-b", "checker": "ast"}, "use letters, digits and _"),
    ({"checker": "ast"}, "missing or not a string"),
    ({"name": "x", "checker": "fuzzy"}, "unknown checker 'fuzzy'"),
    ({"name": "x", "checker": "none"}, "categories without a checker are not scored"),
    ({"name": "x", "checker": "agentic"}, "agentic categories cannot be custom yet"),
    ({"name": "x", "checker": "ast", "language": "rust"}, "`language` 'rust'"),
    ({"name": "x", "checker": "ast", "group": "a b"}, "`group` 'a b' is not a name"),
    ({"name": "x", "checker": "ast", "file": "x.json"}, "must be a .jsonl file"),
    ({"name": "x", "checker": "ast", "file": "../x.jsonl"}, "inside the dataset folder"),
    ({"name": "x", "checker": "ast", "questions": "/etc/passwd"}, "inside the dataset folder"),
    ({"name": "x", "checker": "ast", "file": "x.jsonl", "questions": "q.json"}, "not both"),
    ({"name": "x", "checker": "ast", "colour": "red"}, "unknown field 'colour'"),
    ("not an object", "is not an object"),
])
def test_category_problems(tmp_path: Path, entry: Any, problem: str) -> None:
    _, problems = spec_of(tmp_path, {"categories": [entry]})
    assert len(problems) == 1 and problem in problems[0], problems
    assert problems[0].startswith(f"{tmp_path / 'my-data' / 'fcbench.json'}: ")


def test_dataset_problems(tmp_path: Path) -> None:
    assert spec_of(tmp_path, "{oops")[0] is None
    _, problems = spec_of(tmp_path, "{oops")
    assert "not a readable JSON file" in problems[0]
    _, problems = spec_of(tmp_path, {"categories": "all"})
    assert "with a `categories` list" in problems[0]
    spec, problems = spec_of(tmp_path, {"name": "multi_turn", "extra": 1, "categories": [
        {"name": "a", "checker": "ast"}, {"name": "a", "checker": "relevance"}]})
    assert len(spec.categories) == 1 and len(problems) == 3
    assert "unknown field 'extra'" in problems[0] and "cannot name a dataset" in problems[1]
    assert "used twice" in problems[2]
    assert "`categories` is empty" in spec_of(tmp_path, {"categories": []})[1][0]
    missing: list[str] = []
    assert read_spec(tmp_path / "nowhere", missing) is None and "does not exist" in missing[0]


def test_a_checker_registered_at_run_time_is_accepted(tmp_path: Path) -> None:
    from fcbench.check import registry
    from fcbench.check.kinds.ast import AstKind

    registry.register(AstKind("toy_kind"))
    _, problems = spec_of(tmp_path, {"categories": [{"name": "x", "checker": "toy_kind"}]})
    assert problems == []
