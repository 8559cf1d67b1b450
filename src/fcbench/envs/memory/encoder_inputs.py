"""What the official vector backend's encoder makes of an argument, errors included.

Upstream passes a method's `text`/`query` argument straight to
`SentenceTransformer.encode(text if isinstance(text, list) else [text])`: a list is a batch of
inputs, anything else one input. The model never checks types itself, so a model that sends a
number, a list or a dict gets sentence-transformers' own error message back (as
"Error during execution: ..."), or, for a dict with a `text` key or a one-element list, an
embedding. `batch_inputs` reproduces that reading (sentence-transformers 6.x messages) and
returns what to embed: a string, or a pair of strings for `{"text": [first, second]}`, which
the tokenizer encodes as a sentence pair (`[CLS] first [SEP] second [SEP]`).
"""

from __future__ import annotations

import contextlib
from typing import Any

__all__ = ["EncoderInput", "batch_inputs"]

EncoderInput = str | tuple[str, str]
"""A text, or a sentence pair."""

_MODALITIES = ("audio", "image", "text", "video")
_TEXT_TYPES = (
    "text input must be of type `str` (single example), `list[str]` (batch or single "
    "pretokenized example) or `list[list[str]]` (batch of pretokenized examples) or "
    "`list[tuple[list[str], list[str]]]` (batch of pretokenized sequence pairs)."
)


def batch_inputs(value: Any) -> list[EncoderInput]:
    """The encoder inputs of one official `_embed(value)` call, in order."""
    items = value if isinstance(value, list) else [value]
    return [_one_input(item) for item in items]


def _one_input(item: Any) -> EncoderInput:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        return _dict_input(item)
    raise ValueError(
        f"Unsupported input type: {type(item).__name__}. Expected one of: str, dict, "
        "PIL.Image.Image, np.ndarray, torch.Tensor"
    )


def _dict_input(item: dict[Any, Any]) -> EncoderInput:
    unknown = [key for key in item if key not in _MODALITIES]
    if unknown:
        with contextlib.suppress(TypeError):  # mixed key types: left in dict order
            unknown.sort()
        raise ValueError(
            f"Multimodal dict input contains unrecognized modality keys: {unknown}. "
            f"Expected keys from: {list(_MODALITIES)}."
        )
    if not item:
        raise ValueError("Empty dict input is not a valid input sample.")
    if set(item) != {"text"}:
        modality = "+".join(sorted(item))
        raise ValueError(
            f"Modality '{modality}' is not supported by this SentenceTransformer model. "
            "Supported modalities: text."
        )
    text = item["text"]
    if isinstance(text, str):
        return text
    if isinstance(text, list) and all(isinstance(part, str) for part in text):
        if len(text) != 2:
            raise TypeError(
                "TextEncodeInput must be Union[TextInputSequence, Tuple[InputSequence, "
                "InputSequence]]"
            )
        return (text[0], text[1])
    raise ValueError(_TEXT_TYPES)
