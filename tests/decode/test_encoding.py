"""`Encoding`: model.json and flags -> decoders; the open-model `family` field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fcbench.core.categories import Language
from fcbench.decode.encoding import Encoding, EncodingError, contains_call, decode_ast
from fcbench.decode.errors import DecodeError
from fcbench.decode.execute import decode_execute
from hostile.files import MODEL_JSONS


def manifest(tmp_path: Path, **fields: object) -> Path:
    path = tmp_path / "model.json"
    path.write_text(json.dumps(fields), encoding="utf-8")
    return path


def test_model_json_names_the_family(tmp_path: Path) -> None:
    encoding = Encoding.from_file(manifest(tmp_path, mode="prompt", family="qwen-fc"))
    assert encoding.family == "qwen-fc" and not encoding.underscore_names
    glm = Encoding.from_file(manifest(tmp_path, mode="prompt", fc_names="underscore",
                                      family="glm"))
    assert glm.underscore_names
    assert Encoding.from_file(manifest(tmp_path, mode="prompt")).family is None


def test_an_unknown_family_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(EncodingError, match="unknown output format 'nope'") as error:
        Encoding.from_file(manifest(tmp_path, mode="prompt", family="nope"))
    assert "\n" not in str(error.value)


def test_the_family_decoders_replace_the_modes() -> None:
    text = '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'
    qwen_fc = Encoding("prompt", "dot", None, family="qwen-fc")
    [call] = decode_ast(text, qwen_fc, Language.PYTHON)
    assert (call.name, call.args) == ("f", {"a": 1})
    assert decode_execute(text, qwen_fc) == ["f(a=1)"]
    assert contains_call(text, qwen_fc) == (True, None, [{"f": {"a": 1}}])
    with pytest.raises(DecodeError):
        decode_ast(text, Encoding(), Language.PYTHON)  # not Python calls


def test_handler_failures_carry_the_handlers_message() -> None:
    bitagent = Encoding("prompt", "dot", None, family="bitagent")
    with pytest.raises(DecodeError, match="Expecting value: line 1 column 1"):
        decode_ast("no json here", bitagent, Language.PYTHON)
    wrong = Encoding("prompt", "dot", None, family="glm")
    with pytest.raises(DecodeError) as error:
        decode_ast("just one line", wrong, Language.PYTHON)
    assert error.value.error_type == "ast_decoder:decoder_wrong_output_format"
    assert error.value.decoded == ["just one line"]
    assert contains_call("just one line", wrong)[0] is False


@pytest.mark.parametrize("name", sorted(MODEL_JSONS))
def test_a_hostile_model_json_is_one_line_naming_the_file(tmp_path: Path, name: str) -> None:
    path = tmp_path / "model.json"
    text = MODEL_JSONS[name]
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(EncodingError) as error:
        Encoding.from_file(path)
    message = str(error.value)
    assert message.startswith(f"{path}: ") and "\n" not in message and len(message) < 300
