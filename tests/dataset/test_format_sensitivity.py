"""The format-sensitivity category: its 26 configurations and its 5,200 assembled cases.

The cases are held to the official loader's (the wheel as an oracle): the same ids in the same
order, the same docs (with the one language hint the official evaluation-time entries carry),
questions and ground truths. Malformed selection files give one-line DataErrors.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fcbench.core import categories
from fcbench.dataset.fetch import DataError, release_dir
from fcbench.dataset.format_sensitivity import (
    CONFIGS,
    PromptConfig,
    PromptConfigError,
    config_names,
    source_files,
    split_id,
)
from fcbench.dataset.hints import HINTS
from fcbench.dataset.load import dataset_size, load_category
from official_bfcl import official_modules

PYTHON_HINT = HINTS[categories.Language.PYTHON]


def _query(ret: str, tag: str, doc: str, prompt: str = "plaintext", style: str = "classic"
           ) -> str:
    return (f"ret_fmt={ret}&tool_call_tag={tag}&func_doc_fmt={doc}&prompt_fmt={prompt}"
            f"&style={style}")


def test_the_26_configurations() -> None:
    names = config_names()
    assert len(names) == len(set(names)) == 26
    assert names[0] == _query("python", "True", "python")
    assert names[5] == _query("python", "False", "json")
    assert names[23] == _query("concise_xml", "False", "json")
    assert names[24:] == [_query("python", "False", "json", prompt="markdown"),
                          _query("python", "False", "json", style="experimental")]
    assert [PromptConfig.parse(n) for n in names] == list(CONFIGS)


@pytest.mark.parametrize("text", [
    "", "ret_fmt=python", _query("yaml", "False", "json"), _query("python", "false", "json"),
    _query("python", "False", "json").replace("ret_fmt=python&tool_call_tag=False",
                                              "tool_call_tag=False&ret_fmt=python"),
    _query("python", "False", "json") + "&x=1",
])
def test_a_malformed_configuration_is_refused(text: str) -> None:
    with pytest.raises(PromptConfigError):
        PromptConfig.parse(text)


def test_split_id() -> None:
    config = CONFIGS[7]
    assert split_id(f"format_sensitivity_7:{config}:live_simple_3-2-1") == (
        config, "live_simple_3-2-1")
    assert split_id("simple_python_3") is None
    assert split_id("format_sensitivity_7:nonsense:simple_python_3") is None


def test_cases_are_the_selection_times_the_configurations(home: Path) -> None:
    cases = load_category("format_sensitivity")
    assert len(cases) == dataset_size("format_sensitivity") == 5200
    assert all(c.category == "format_sensitivity" for c in cases)
    selected = json.loads((release_dir() / "data/BFCL_v4_format_sensitivity.json").read_text())
    originals = [split_id(c.id)[1] for c in cases[::26]]  # type: ignore[index]
    assert sorted(originals) == sorted(i for ids in selected.values() for i in ids)
    sources = {c.id: c for name in selected for c in load_category(name)}
    for k, case in enumerate(cases):
        named = split_id(case.id)
        assert named is not None and case.id.startswith(f"format_sensitivity_{k}:")
        config, original = named
        assert config == CONFIGS[k % 26] and original == originals[k // 26]
        item = sources[original]
        assert case.question == item.question
        assert case.possible_answer == item.possible_answer
        assert [d["description"] for d in case.functions] == [
            d["description"] + PYTHON_HINT for d in item.functions]


def test_source_files_name_the_selection_and_its_categories(home: Path) -> None:
    files = source_files("2026.3.23")
    assert files[0] == "BFCL_v4_format_sensitivity.json"
    assert "BFCL_v4_live_multiple.json" in files
    assert "possible_answer/BFCL_v4_parallel_multiple.json" in files
    assert len(files) == 1 + 2 * 8


@pytest.fixture(scope="module")
def official(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("bfcl_official")
    with official_modules(bfcl_wheel, folder, "bfcl_eval.utils") as (utils,):
        yield utils


def test_cases_equal_the_official_loaders(home: Path, official: Any) -> None:
    """Ids, questions and docs as the official evaluator loads its prompt entries; the
    ground truths as its ground-truth loader, position by position."""
    ours = load_category("format_sensitivity")
    entries = official.load_dataset_entry(
        "format_sensitivity", include_prereq=False, include_language_specific_hint=False)
    truths = official.load_ground_truth_entry("format_sensitivity")
    assert [c.id for c in ours] == [e["id"] for e in entries]
    for case, entry, truth in zip(ours, entries, truths, strict=True):
        assert case.question == entry["question"], case.id
        assert case.functions == entry["function"], case.id
        assert case.possible_answer == truth["ground_truth"], case.id


def _folder_with(tmp_path: Path, selection: str) -> Path:
    data = tmp_path / "data"
    src = release_dir() / "data"
    data.mkdir()
    (data / "possible_answer").mkdir()
    for name in ("simple_python", "multiple"):
        (data / f"BFCL_v4_{name}.json").write_bytes((src / f"BFCL_v4_{name}.json").read_bytes())
        (data / "possible_answer" / f"BFCL_v4_{name}.json").write_bytes(
            (src / "possible_answer" / f"BFCL_v4_{name}.json").read_bytes())
    (data / "BFCL_v4_format_sensitivity.json").write_text(selection)
    return data


def test_a_users_folder(home: Path, tmp_path: Path) -> None:
    data = _folder_with(tmp_path, json.dumps(
        {"multiple": ["multiple_3", "multiple_1"], "simple_python": ["simple_python_0"],
         "parallel": []}))
    cases = load_category("format_sensitivity", data_root=data)
    assert [split_id(c.id)[1] for c in cases[::26]] == [  # type: ignore[index]
        "multiple_1", "multiple_3", "simple_python_0"]
    assert dataset_size("format_sensitivity", data_root=data) == 78


@pytest.mark.parametrize("selection, message", [
    ("{not json", "not a JSON object of category -> id lists"),
    ('["simple_python_0"]', "not a JSON object of category -> id lists"),
    ('{"simple_python": "simple_python_0"}', "not a JSON object of category -> id lists"),
    ('{"simple_python": [0]}', "not a JSON object of category -> id lists"),
    ('{"cooking": ["cooking_0"]}', "selects from an unknown category 'cooking'"),
])
def test_a_broken_selection_is_one_clear_error(
    home: Path, tmp_path: Path, selection: str, message: str
) -> None:
    data = _folder_with(tmp_path, selection)
    with pytest.raises(DataError, match=message) as info:
        load_category("format_sensitivity", data_root=data)
    assert "\n" not in str(info.value)
