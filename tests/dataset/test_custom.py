"""Custom datasets registered by `--data-dir` and read wherever an official category is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fcbench.core import categories
from fcbench.dataset.custom import datasets_in, is_custom, run_identity, use_data_dirs
from fcbench.dataset.fetch import DataError
from fcbench.dataset.load import dataset_size, has_category, load_category

DATA = Path(__file__).resolve().parents[1] / "data"


def copy_of(tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def manifest(folder: Path, categories_: list[dict[str, object]], **fields: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fcbench.json").write_text(json.dumps({"categories": categories_, **fields}))
    return folder


def test_registering_makes_categories_collections_and_sources(tmp_path: Path) -> None:
    shop = copy_of(tmp_path, "custom_shop")
    assert use_data_dirs([shop]) is None
    row = categories.get("shop_assistant")
    assert (row.release, row.group, row.checker) == ("custom", "shop", "ast_multiple")
    resolved = {"shop_search": "ast_simple", "shop_parallel": "ast_parallel",
                "shop_exec": "exec_simple", "shop_exec_parallel": "exec_parallel"}
    assert {n: categories.get(n).checker for n in resolved} == resolved  # `ast` and `exec`
    assert not categories.get("shop_relevance").has_possible_answer
    assert [c.name for c in categories.resolve(["shop"])] == list(categories.COLLECTIONS["shop"])
    assert "shop_multi_turn" in categories.COLLECTIONS["custom"] and is_custom("shop_exec")
    cases = load_category("shop_search", data_root=tmp_path / "elsewhere")  # own files
    assert [c.id for c in cases] == ["shop_search_0", "shop_search_1"]
    assert cases[1].question == [[{"role": "system", "content": "You are the shop's assistant."},
                                  {"role": "user", "content": "Where is my order A-1009?"}]]
    assert cases[1].possible_answer == [{"track_order": {"order_id": ["A-1009"]}}]
    assert dataset_size("shop_parallel") == 2 and has_category("shop_parallel")
    assert not is_custom("simple_python")


def test_multi_turn_docs_come_from_the_release(fetched_home: Path, tmp_path: Path) -> None:
    use_data_dirs(copy_of(tmp_path, "custom_acme"))
    official = {d["name"] for d in load_category("multi_turn_base")[0].functions}
    first = load_category("acme_multi_turn")[0]
    assert {d["name"] for d in first.functions} <= official and "mkdir" in {
        d["name"] for d in first.functions}
    assert first.extras["initial_config"]["GorillaFileSystem"]["root"]


def test_an_official_layout_folder_keeps_its_meaning(tmp_path: Path) -> None:
    plain = tmp_path / "data"
    plain.mkdir()
    shop = copy_of(tmp_path, "custom_shop")
    assert use_data_dirs([plain, shop]) == plain and use_data_dirs(plain) == plain
    assert use_data_dirs(None) is None and use_data_dirs([]) is None
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(DataError, match="at most one --data-dir may be laid out like"):
        use_data_dirs([plain, other])
    with pytest.raises(DataError, match="no such folder"):
        use_data_dirs(tmp_path / "missing")


def test_two_datasets_may_not_define_one_name(tmp_path: Path) -> None:
    one = manifest(tmp_path / "one", [{"name": "dup_cat", "checker": "relevance",
                                       "file": "a.jsonl"}], name="one")
    two = manifest(tmp_path / "two", [{"name": "dup_cat", "checker": "relevance",
                                       "file": "a.jsonl"}], name="two")
    for folder in (one, two):
        (folder / "a.jsonl").write_text('{"question": "hi", "tools": []}\n')
    with pytest.raises(DataError, match="'dup_cat' is defined by both"):
        use_data_dirs([one, two])


def test_a_changed_dataset_is_read_again(tmp_path: Path) -> None:
    folder = manifest(tmp_path / "d", [{"name": "grow_cat", "checker": "relevance",
                                        "file": "a.jsonl"}])
    (folder / "a.jsonl").write_text('{"question": "hi", "tools": []}\n')
    use_data_dirs(folder)
    assert dataset_size("grow_cat") == 1
    (folder / "a.jsonl").write_text('{"question": "hi", "tools": []}\n{"question": "ho"}\n')
    manifest(folder, [{"name": "grow_cat", "checker": "irrelevance", "file": "a.jsonl"}])
    use_data_dirs(folder)
    assert categories.get("grow_cat").checker == "irrelevance"
    assert [c.question[0][0]["content"] for c in load_category("grow_cat")] == ["hi", "ho"]


def test_a_broken_dataset_is_refused_at_its_first_problem(tmp_path: Path) -> None:
    folder = manifest(tmp_path / "b", [{"name": "bad_cat", "checker": "ast", "file": "a.jsonl"},
                                       {"name": "gone_cat", "checker": "ast"}])
    (folder / "a.jsonl").write_text('{"question": "hi", "tools": []}\n\n{"q": 1}\n')
    with pytest.raises(DataError) as caught:
        use_data_dirs(folder)
    message = str(caught.value)
    assert message.startswith(f"{folder / 'a.jsonl'}, line 1: bad_cat_0: `expected` must")
    assert "(and 2 more)" in message and f"fcbench data validate {folder}" in message
    assert "\n" not in message


def test_the_run_identity_names_the_datasets(fetched_home: Path, tmp_path: Path) -> None:
    shop = copy_of(tmp_path, "custom_shop")
    use_data_dirs(shop)
    identity = run_identity("2026.3.23", None, ["simple_python", "shop_search", "shop_exec"])
    assert identity["release"] == "2026.3.23"
    (found,) = identity["custom"]
    assert found["name"] == "shop" and found["data_dir"] == str(shop.resolve())
    before = found["checksum"]
    (shop / "search.jsonl").write_text((shop / "search.jsonl").read_text() + "\n")
    assert datasets_in(shop)[0].identity()["checksum"] != before
    assert "custom" not in run_identity("2026.3.23", None, ["simple_python"])


def test_unregistering_forgets_everything(tmp_path: Path) -> None:
    from fcbench.dataset.custom import registered, unregister_all
    from fcbench.dataset.source import has_own_source

    use_data_dirs(copy_of(tmp_path, "custom_shop"))
    row = categories.get("shop_exec")
    unregister_all()
    assert registered() == [] and not has_own_source(row)
    assert "shop" not in categories.COLLECTIONS and "custom" not in categories.COLLECTIONS
    with pytest.raises(categories.UnknownCategoryError):
        categories.get("shop_exec")
    assert len(categories.all_categories()) == len(categories.CATEGORIES)


def test_a_symlink_leading_outside_the_folder_is_never_read(tmp_path: Path) -> None:
    """The file it points at would have been read and its content sent to the endpoint."""
    secret = tmp_path / "outside" / "secret.jsonl"
    secret.parent.mkdir()
    shutil.copy(DATA / "custom_shop" / "search.jsonl", secret)
    shop = copy_of(tmp_path, "custom_shop")
    (shop / "search.jsonl").unlink()
    (shop / "search.jsonl").symlink_to(secret)
    with pytest.raises(DataError, match=r"search\.jsonl: leads outside the dataset folder"):
        use_data_dirs([shop])
    inner = shop / "kept.jsonl"  # a symlink that stays inside is fine
    shutil.copy(secret, inner)
    (shop / "search.jsonl").unlink()
    (shop / "search.jsonl").symlink_to(inner)
    use_data_dirs([shop])
    assert [c.id for c in load_category("shop_search")] == ["shop_search_0", "shop_search_1"]


def test_a_symlinked_bfcl_file_or_folder_outside_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "q.json").write_text(json.dumps(
        {"id": "mine_q_0", "question": [[{"role": "user", "content": "secret"}]],
         "function": []}) + "\n")
    folder = manifest(tmp_path / "mine", [{"name": "mine_q", "checker": "irrelevance",
                                           "questions": "linked/q.json"}])
    (folder / "linked").symlink_to(elsewhere, target_is_directory=True)
    use_data_dirs([folder])
    with pytest.raises(DataError, match="leads outside the dataset folder"):
        load_category("mine_q")


def test_jsonl_files_are_converted_as_read_not_kept(tmp_path: Path) -> None:
    """A JSONL category keeps its problems and shapes, not its converted texts (a file of a
    million cases would be held twice over): reading converts the file again, line by line,
    to the same texts a whole-file conversion gives (a duplicate id blank, though the
    re-conversion keeps no ids)."""
    from fcbench.dataset.custom import read_dataset
    from fcbench.dataset.simple_format import convert_jsonl

    folder = copy_of(tmp_path, "custom_shop")
    with (folder / "parallel.jsonl").open("a", encoding="utf-8") as out:
        first = (folder / "parallel.jsonl").read_text(encoding="utf-8").splitlines()[0]
        out.write(first + "\n")  # a duplicate id: blank when read again, as when checked
    problems: list[str] = []
    dataset = read_dataset(folder, problems)
    assert dataset is not None and len(problems) == 1 and "used already" in problems[0]
    checked = 0
    for cat in dataset.categories:
        assert cat.converted is not None and cat.spec.file is not None
        assert cat.converted.questions == [] and cat.converted.answers == []
        whole = convert_jsonl((folder / cat.spec.file).read_text(encoding="utf-8"),
                              cat.spec.name, cat.spec.checker)
        src = dataset.source("2026.3.23")
        assert src.read(cat.question_file) == whole.question_text()
        assert list(src.stream(cat.question_file)) == whole.questions
        if cat.answer_file:
            assert src.read(cat.answer_file) == whole.answer_text()
            checked += 1
    assert checked >= 5


def test_a_jsonl_file_is_converted_once_for_its_questions_and_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Validation reads a JSONL category's questions and answers from one conversion; a
    reader left far behind is cut loose and converts again, to the same lines."""
    from fcbench.dataset import custom
    from fcbench.validate.custom import validate_custom

    folder = copy_of(tmp_path, "custom_shop")
    runs: list[str] = []
    convert = custom.converted_lines

    def counted(lines: Any, category: str, checker: str, **given: Any) -> Any:
        runs.append(category)
        return convert(lines, category, checker, **given)

    monkeypatch.setattr(custom, "converted_lines", counted)
    assert validate_custom(folder).findings == []
    assert sorted(runs) == sorted(set(runs)) and "shop_parallel" in runs

    pairs = [(f"q{n}", f"a{n}") for n in range(7)]
    monkeypatch.setattr(custom, "_AHEAD", 2)
    shared = custom._Shared(iter(pairs))
    questions = shared.side(0, lambda: iter([q for q, _ in pairs]))
    answers = shared.side(1, lambda: iter([a for _, a in pairs]))
    assert next(answers) == "a0"
    assert list(questions) == [q for q, _ in pairs]  # the answers' queue overflows: cut
    assert shared.cut == [False, True]
    assert list(answers) == [a for _, a in pairs][1:]
