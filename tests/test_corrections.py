"""The corrections profile, fix by fix: each test reproduces upstream's behaviour (bfcl-eval
2026.3.23) without the profile and the pull request's behaviour with it."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench import corrections
from fcbench.check.single_turn import judge
from fcbench.core import categories
from fcbench.dataset.load import load_category
from fcbench.decode.encoding import Encoding
from fcbench.envs.memory.kv import MemoryKV
from fcbench.models.openai_compat import OpenAICompatBackend

PROFILE = "community-2026"
FC = Encoding("fc", "underscore", "json_string")


@pytest.fixture(autouse=True)
def default_profile() -> Iterator[None]:
    corrections.use_profile(None)
    yield
    corrections.use_profile(None)


def test_profiles_are_data_with_upstream_numbers_and_hooks() -> None:
    assert corrections.PROFILES[corrections.DEFAULT_PROFILE] == ()
    fixes = corrections.PROFILES[PROFILE]
    assert {n for fix in fixes for n in fix.upstream} >= {
        1316, 1328, 1348, 1351, 1327, 1347, 1329, 1330}
    for fix in fixes:
        assert fix.description and fix.upstream
        hook = importlib.import_module(fix.hook)
        assert "from fcbench import corrections" in Path(str(hook.__file__)).read_text("utf-8")


def test_unknown_profile_is_refused_in_one_line() -> None:
    known = "known: community-2026, lenient-defaults, none"
    with pytest.raises(corrections.UnknownProfile, match=known):
        corrections.use_profile("communty")
    from fcbench.cli import main

    result = CliRunner().invoke(main, ["evaluate", "--corrections", "communty"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "'communty' is not one of" in result.output


def body(message: dict[str, Any]) -> dict[str, Any]:
    return {"choices": [{"message": {"role": "assistant", **message}, "finish_reason": "stop"}]}


def test_empty_tool_calls_keep_the_text_only_with_the_profile() -> None:
    """#1316/#1328/#1348/#1351: upstream stores `[]`; the PRs store the content."""
    backend = OpenAICompatBackend("m", ["http://127.0.0.1:1/v1"])
    reply = body({"content": "Paris", "tool_calls": []})
    assert backend.parse(reply, "fc", 0.1, "u").result == []
    corrections.use_profile(PROFILE)
    assert backend.parse(reply, "fc", 0.1, "u").result == "Paris"
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    assert backend.parse(body({"content": "x", "tool_calls": [call]}), "fc", 0.1, "u").result == [
        {"f": "{}"}]


def test_memory_key_with_digits_in_its_first_word() -> None:
    """#1327: upstream's `^[a-z]+(_[a-z0-9]+)*$` refuses `item1_note`; the PR accepts it."""
    refused = MemoryKV().core_memory_add("item1_note", "v")
    assert refused == {"error": "Key must be in snake_case format and cannot contain spaces."}
    corrections.use_profile(PROFILE)
    memory = MemoryKV()
    assert memory.core_memory_add("item1_note", "v") == {"status": "Key-value pair added."}
    assert "error" in memory.core_memory_add("1item", "v")  # still starts with a letter


def test_key_search_of_an_empty_memory() -> None:
    """#1347: upstream divides by zero; the PR returns no results."""
    with pytest.raises(ZeroDivisionError):
        MemoryKV().archival_memory_key_search("anything")
    corrections.use_profile(PROFILE)
    assert MemoryKV().archival_memory_key_search("anything") == {"ranked_results": []}
    assert MemoryKV().core_memory_key_search("anything") == {"ranked_results": []}


def verdict(category: str, case_id: str, calls: list[dict[str, Any]]) -> bool:
    case = next(c for c in load_category(category) if c.id == case_id)
    answer = [{name: json.dumps(args)} for call in calls for name, args in call.items()]
    return judge(case, categories.get(category), answer, FC).valid


@pytest.mark.parametrize(("category", "case_id", "calls"), [
    ("live_simple", "live_simple_141-94-0",
     [{"cmd_controller_execute": {"command": "docker --version", "unit": "seconds"}}]),
    ("live_simple", "live_simple_159-95-16",
     [{"cmd_controller_execute": {"command": "timeout 10", "unit": "milliseconds"}}]),
    ("live_parallel", "live_parallel_6-3-0",
     [{"get_snow_report": {"location": "Paris, France", "unit": "celsius"}},
      {"get_snow_report": {"location": "Bordeaux, France", "unit": "celsius"}}]),
])
def test_enum_units_accepted_only_with_the_profile(
    fetched_home: Path, category: str, case_id: str, calls: list[dict[str, Any]]
) -> None:
    """#1329: the unit enum's values fail upstream, pass with the PR's ground truth."""
    assert not verdict(category, case_id, calls)
    corrections.use_profile(PROFILE)
    assert verdict(category, case_id, calls)


def test_dead_trophy_value_refused_only_with_the_profile(fetched_home: Path) -> None:
    """#1330: 'all levels' (outside the enum) passes upstream, fails with the PR."""
    call = {"game_rewards_get": {"game": "Fortnite", "platform": "PlayStation",
                                 "trophy": "all levels"}}
    assert verdict("live_multiple", "live_multiple_190-84-0", [call])
    corrections.use_profile(PROFILE)
    assert not verdict("live_multiple", "live_multiple_190-84-0", [call])
    del call["game_rewards_get"]["trophy"]
    assert verdict("live_multiple", "live_multiple_190-84-0", [call])


def test_patches_copy_the_answer_and_match_the_pull_requests() -> None:
    answer = [{"get_current_weather": {"location": ["Tulum, QR"], "unit": ["", "fahrenheit"]}}]
    assert corrections.possible_answer("live_parallel_3-0-3", answer) is answer
    corrections.use_profile(PROFILE)
    patched = corrections.possible_answer("live_parallel_3-0-3", answer)
    assert patched == [{"get_current_weather": {"location": ["Tulum, QR"],
                                                "unit": ["", "fahrenheit", "celsius"]}}]
    assert answer[0]["get_current_weather"]["unit"] == ["", "fahrenheit"]


def descriptions(case_id: str) -> dict[str, str]:
    category = case_id.rsplit("_", 1)[0]
    case = next(c for c in load_category(category) if c.id == case_id)
    return {doc["name"]: doc["description"] for doc in case.functions}


def test_multi_turn_doc_typos_fixed_only_with_the_profile(fetched_home: Path) -> None:
    """#1326: upstream's docs read 'currrent' and 'messeage'; the PR's read them right."""
    case_id = next(c.id for c in load_category("multi_turn_base")
                   if {"GorillaFileSystem", "MessageAPI"} <= set(c.extras["involved_classes"]))
    upstream = descriptions(case_id)
    assert "from currrent directory" in upstream["cat"]
    assert "to messeage application" in upstream["message_login"]
    corrections.use_profile(PROFILE)
    fixed = descriptions(case_id)
    assert "from current directory" in fixed["cat"]
    assert "to message application" in fixed["message_login"]
    assert {k: v for k, v in fixed.items() if k not in ("cat", "message_login")} == {
        k: v for k, v in upstream.items() if k not in ("cat", "message_login")}
    corrections.use_profile(None)
    assert descriptions(case_id) == upstream  # back to the default: upstream again


def test_a_folder_holds_one_profile() -> None:
    """model.json's `corrections` is a configuration field: another profile is refused."""
    from fcbench.results.manifest import configuration_clash

    clash = configuration_clash({"model": "m", "corrections": "none"},
                                {"model": "m", "corrections": PROFILE})
    assert clash == [f'corrections: "none" -> "{PROFILE}"']
    assert configuration_clash({"model": "m"}, {"model": "m", "corrections": PROFILE}) is None
