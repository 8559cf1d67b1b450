"""How a model's outputs are encoded, and the decoder that follows from it.

A result folder says this in its `model.json` (`mode`, `fc_names`, `fc_args`, and `family`
for the official open-model handlers' own output formats); the same keys exist as
command-line flags (`--output-format` for the family). Checkers never see the encoding
except `underscore_names`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcbench._json import loads_numbers
from fcbench.core.categories import Language
from fcbench.core.model import Call
from fcbench.decode.budget import check_raw
from fcbench.decode.calls import calls_from_decoded
from fcbench.decode.errors import DecodeError
from fcbench.decode.python_calls import ReturnFormat, decode_prompt
from fcbench.decode.tool_calls import ArgsEncoding, decode_tool_calls

MODES = ("fc", "prompt")
FC_NAMES = ("underscore", "dot")
FC_ARGS = ("json_string", "object")


class EncodingError(ValueError):
    """A model.json or flag value that fcbench does not understand."""


@dataclass(frozen=True)
class Encoding:
    mode: str = "prompt"
    fc_names: str = "dot"
    fc_args: str | None = None
    return_format: ReturnFormat = ReturnFormat.PYTHON
    tool_call_tag: bool = False
    family: str | None = None
    """An official open-model handler's output format (`decode.families`): its own
    `decode_ast` / `decode_execute` replace the mode's decoders."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise EncodingError(f"mode must be one of {MODES}, not {self.mode!r}")
        if self.fc_names not in FC_NAMES:
            raise EncodingError(f"fc_names must be one of {FC_NAMES}, not {self.fc_names!r}")
        if self.fc_args is not None and self.fc_args not in FC_ARGS:
            raise EncodingError(f"fc_args must be one of {FC_ARGS}, not {self.fc_args!r}")
        if self.family is not None:
            from fcbench.decode import families

            if self.family not in families.DECODERS:
                raise EncodingError(
                    f"unknown output format {self.family!r} (one of {', '.join(families.names())})"
                )

    @property
    def is_fc(self) -> bool:
        return self.mode == "fc"

    @property
    def underscore_names(self) -> bool:
        """Dotted names were sent with underscores (FC APIs; a few open-model families)."""
        return (self.is_fc or self.family is not None) and self.fc_names == "underscore"

    @classmethod
    def default_for(cls, model_name: str) -> Encoding:
        """The official convention: registry names ending in `-FC` are FC models."""
        if "-FC" in model_name:
            return cls("fc", "underscore", "json_string")
        return cls()

    @classmethod
    def from_file(cls, path: Path) -> Encoding:
        """The encoding a model.json states. Whatever another tool or a hand wrote there
        (damaged or deeply nested JSON, a key of the wrong type) is an EncodingError whose
        one-line message names the file (and the line, for damaged JSON)."""
        try:
            data: Any = loads_numbers(path.read_text(encoding="utf-8"))  # any integer
        except (OSError, json.JSONDecodeError) as exc:
            raise EncodingError(f"{path}: cannot read model encoding ({exc})") from None
        except (RecursionError, ValueError):  # nested past the parser's depth; bad text
            raise EncodingError(f"{path}: cannot read model encoding (not readable JSON: "
                                "nested too deeply or not text)") from None
        if not isinstance(data, dict):
            raise EncodingError(f"{path}: expected a JSON object")
        for key in ("mode", "fc_names", "fc_args", "family"):
            value = data.get(key)
            if value is not None and not isinstance(value, str):
                raise EncodingError(f"{path}: {key!r} must be a string, not "
                                    f"{type(value).__name__} ({_short(value)})")
        mode = data.get("mode", "prompt")
        try:
            return cls(
                mode=mode,
                fc_names=data.get("fc_names") or ("underscore" if mode == "fc" else "dot"),
                fc_args=data.get("fc_args") or ("json_string" if mode == "fc" else None),
                family=data.get("family") or None,
            )
        except EncodingError as exc:
            raise EncodingError(f"{path}: {exc}") from None


def _short(value: Any) -> str:
    """A value for a one-line message, cut short (it may be anything, of any size)."""
    try:
        text = json.dumps(value)
    except (ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


_ARGS_ENCODINGS: dict[str | None, ArgsEncoding] = {None: ArgsEncoding.JSON_STRING}
_ARGS_ENCODINGS.update((a.value, a) for a in ArgsEncoding)


def decode_ast(raw: Any, encoding: Encoding, language: Language = Language.PYTHON) -> list[Call]:
    """Decode a single-turn answer for the AST checker (raises DecodeError; `OverBudget`,
    one, for an answer past `decode.budget`'s bounds)."""
    check_raw(raw)
    if encoding.family is not None:
        return calls_from_decoded(family_decoded(raw, encoding.family, language))
    if encoding.is_fc:
        return decode_tool_calls(raw, _ARGS_ENCODINGS[encoding.fc_args])
    if language is Language.JAVA:
        from fcbench.decode.java import decode_java

        return decode_java(_prompt_text(raw), tool_call_tag=encoding.tool_call_tag)
    if language is Language.JAVASCRIPT:
        from fcbench.decode.javascript import decode_javascript

        return decode_javascript(_prompt_text(raw), tool_call_tag=encoding.tool_call_tag)
    return decode_prompt(raw, encoding.return_format, encoding.tool_call_tag)


def family_decoded(raw: Any, family: str, language: Language = Language.PYTHON) -> Any:
    """The official decoded form a family's `decode_ast` gives (raises DecodeError with the
    handler's message where it fails)."""
    from fcbench.decode import families

    try:
        return families.decoder(family).ast(raw, language)
    except DecodeError:
        raise
    except (Exception, RecursionError) as exc:  # whatever the handler raised
        raise DecodeError(str(exc)) from None


def _prompt_text(raw: Any) -> str:
    if not isinstance(raw, str):
        raise DecodeError(f"'{type(raw).__name__}' object has no attribute 'strip'")
    return raw


_PLAIN: dict[Encoding, Encoding] = {}
"""Each encoding without its prompt-format options (relevance is judged on Python syntax)."""


def contains_call(raw: Any, encoding: Encoding) -> tuple[bool, str | None, Any]:
    """Relevance rule: decoding (Python format) succeeds and yields at least one call.

    Returns (has_call, decode error message, decoded output): a wrong shape, `[]` or `[{}]`
    count as no call; the decoded output is upstream's (None when decoding failed), the
    error None unless decoding raised.
    """
    from fcbench.decode.calls import calls_as_decoded
    from fcbench.decode.errors import WRONG_OUTPUT_FORMAT

    plain = _PLAIN.get(encoding)
    if plain is None:
        plain = _PLAIN[encoding] = Encoding(encoding.mode, encoding.fc_names, encoding.fc_args,
                                            family=encoding.family)
    try:
        calls = decode_ast(raw, plain, Language.PYTHON)
    except DecodeError as exc:
        if exc.error_type == WRONG_OUTPUT_FORMAT:  # decoded, but not into calls
            return False, None, exc.decoded
        return False, str(exc), None
    return len(calls) > 0, None, calls_as_decoded(calls)
