"""The family registry: names, the official model names, and the pieces families share."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fcbench.decode import families as decoders
from fcbench.models import families
from fcbench.models.doc_formats import indented_json
from fcbench.models.families.base import STEP_MARK, render_count
from fcbench.models.families.hammer import tools_at_step


def test_every_family_loads_under_its_name_with_known_decoders() -> None:
    for name in families.names():
        family = families.get(name)
        assert family.name == name
        assert family.decoder_name in decoders.DECODERS
        assert family.handler.split()[0].endswith(".py")


def test_official_model_names_map_to_families() -> None:
    assert set(families.MODEL_FAMILIES.values()) <= set(families.names())
    assert families.family_for_model("Qwen/Qwen3-8B-FC") == "qwen-fc"
    assert families.family_for_model("Qwen/Qwen3-8B") == "qwen"
    assert families.family_for_model("meta-llama/Llama-3.1-8B-Instruct-FC") == "llama-3.1"
    assert families.family_for_model("meta-llama/Llama-4-Scout-17B-16E-Instruct-FC") == "llama-4"
    assert families.family_for_model("someone/else") is None


def test_served_names_drop_the_registry_fc_marker() -> None:
    assert families.served_name("Qwen/Qwen3-8B-FC") == "Qwen/Qwen3-8B"
    assert families.served_name("X-Humanoid/Pelican1.0-VL-30B-A3B-FC").endswith("-FC")
    assert families.served_name("my/model-FC") == "my/model-FC"  # not a registry name


def test_unknown_names_say_which_exist() -> None:
    with pytest.raises(families.UnknownPromptFormat, match=r"unknown prompt format 'x'.*qwen-fc"):
        families.get("x")


def test_output_encodings_follow_the_handlers_naming() -> None:
    assert families.output_encoding("glm").underscore_names
    assert not families.output_encoding("qwen-fc").underscore_names
    assert families.output_encoding("phi-4-mini").family == "phi"
    assert families.output_encoding("falcon-fc").family == "falcon-fc"


def test_render_count_counts_only_model_steps() -> None:
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "data"},
               {"role": "assistant", "content": "step", STEP_MARK: True}]
    assert render_count(history) == 2


def test_hammer_rewrites_its_docs_once_per_step() -> None:
    docs = [{"name": "f", "description": "d", "parameters": {"type": "dict", "properties": {
        "unit": {"type": "string", "description": "The unit.", "default": "cm"},
        "box": {"type": "dict", "description": "b", "properties": {"w": {"type": "integer"}},
                "required": ["w"]}}, "required": ["box"]}}]
    first = tools_at_step(docs, 1)[0]["parameters"]
    assert first["unit"]["description"] == "The unit.default is 'cm'"
    assert first["box"] == {"w": {"type": "integer", "required": True}, "required": True}
    third = tools_at_step(docs, 3)[0]["parameters"]
    assert third["unit"]["description"] == "The unit." + "default is 'cm'" * 3
    assert docs[0]["parameters"]["properties"]["unit"]["description"] == "The unit."  # a copy


def test_pr_model_names_map_to_their_families_and_served_names() -> None:
    """PR #1357's registry entries: the no-think entry serves the same model, CloudSurf's
    `-FC` is part of its own name."""
    assert families.family_for_model("google/gemma-4-E4B-it") == "gemma-4"
    assert families.family_for_model("google/gemma-4-E4B-it-no-think") == "gemma-4-no-think"
    assert families.served_name("google/gemma-4-E4B-it-no-think") == "google/gemma-4-E4B-it"
    assert families.served_name("cloudsurf-software/CloudSurf-4B-FC").endswith("-FC")
    assert families.get("gemma-4").extra_body == {"skip_special_tokens": False}


@pytest.mark.parametrize("value", [
    {"name": "f", "description": "caf\u00e9 \"q\" \\", "parameters": {"x": [1, 2.5, None]}},
    {1: "a", "1": "b", False: [], None: {}},  # keys json turns into equal strings
    [{"b": 1, "a": 2}, {"a": 2, "b": 1}],  # the order is kept, not sorted
    [], {}, float("nan"), "text",
])
def test_indented_json_is_the_indented_dump_every_time(value: Any) -> None:
    """The remembered text is the one `json.dumps(value, indent=4)` writes, the first time
    and again (families render the same docs at every step)."""
    assert indented_json(value) == json.dumps(value, indent=4)
    assert indented_json(value) == json.dumps(value, indent=4)
    assert indented_json([value]) == json.dumps([value], indent=4)
