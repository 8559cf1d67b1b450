"""The official registry's facts about the models it knows: display name, link, organisation,
licence and token prices, taken from the release at fetch time.

The official tool fills its leaderboard's Model, Model Link, Organization and License columns
and prices API models' tokens from `bfcl_eval/constants/model_config.py`, a module of
`ModelConfig(...)` calls keyed by the `--model` name (which is also its result folder's name,
`/` written `_`). fcbench ships none of that data: `fcbench data fetch` parses the module's
source with `ast` (never importing or running it; only literal keyword values are read, so a
handler class or any expression is skipped) into `model_facts.json` beside the release's
`constants.json`, its sha256 in the release manifest (`model_facts_sha256`), so a damaged
file is reported like any other cached file.

    model_facts.json  {"_format": 1, "_release": ..., "_source": path in the wheel,
                       "_missing": true when the module was absent or not parseable,
                       "models": {"<model name>": {"display_name", "url", "organization",
                                  "license", "input_price", "output_price"}}}

The fields of a model are the keys `--model-info` files use, each present only when its
value is a literal of the right type (a price: a number or null, USD per million tokens). A
cache fetched before fcbench kept these facts has no such file: `load_model_facts` answers
None and the caller says once how to get them.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from fcbench.dataset.fetch import (
    FORMAT,
    _manifest,
    _read_verified,
    release_dir,
)

__all__ = ["MODEL_CONFIG", "MODEL_FACTS", "extract_model_facts", "load_model_facts",
           "write_model_facts"]

MODEL_CONFIG = "bfcl_eval/constants/model_config.py"
"""Where the official registry lives inside the wheel."""

MODEL_FACTS = "model_facts.json"
FACTS_CHECKSUM = "model_facts_sha256"
"""The release manifest's key for the facts file's sha256 (absent in older caches)."""

_TEXTS = {"display_name": "display_name", "url": "url", "org": "organization",
          "license": "license"}
"""ModelConfig keyword -> the fact's name (the `--model-info` keys)."""
_PRICES = ("input_price", "output_price")
_CALLEE = "ModelConfig"


def extract_model_facts(source: str) -> dict[str, dict[str, Any]]:
    """The facts of every `"<name>": ModelConfig(...)` entry of a module-level dict literal in
    `source` (SyntaxError when it does not parse). Later dicts win for a name found twice, as
    the official `{**api, **local, **third_party}` merge does."""
    found: dict[str, dict[str, Any]] = {}
    for node in ast.parse(source).body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if not isinstance(value, ast.Dict):
            continue
        for key, entry in zip(value.keys, value.values, strict=True):
            call = _model_config(entry)
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and call:
                found[key.value] = _facts(call)
    return found


def _model_config(node: ast.expr) -> ast.Call | None:
    """The node when it is a `ModelConfig(...)` (or `x.ModelConfig(...)`) call."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    return node if name == _CALLEE else None


def _facts(call: ast.Call) -> dict[str, Any]:
    """The literal keyword values of one `ModelConfig(...)` call that are facts."""
    facts: dict[str, Any] = {}
    for keyword in call.keywords:
        name = keyword.arg
        if name not in _TEXTS and name not in _PRICES:
            continue
        try:
            value = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue  # not a literal: no fact
        if name in _TEXTS and isinstance(value, str):
            facts[_TEXTS[name]] = value
        elif name in _PRICES and _is_price(value):
            facts[name] = float(value) if value is not None else None
    return facts


def _is_price(value: object) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)
                             and value == value and abs(value) != float("inf"))


def write_model_facts(staging: Path, release: str, text: str | None) -> None:
    """Write `model_facts.json` into a release being staged, from the registry's source text
    (None: the wheel has no such module). A module that does not parse is recorded as
    missing: the data files are still installed."""
    models: dict[str, dict[str, Any]] = {}
    missing = text is None
    if text is not None:
        try:
            models = extract_model_facts(text)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            missing = True
    payload = {"_format": FORMAT, "_release": release, "_source": MODEL_CONFIG,
               "_missing": missing, "models": models}
    (staging / MODEL_FACTS).write_text(
        json.dumps(payload, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def load_model_facts(release: str) -> dict[str, dict[str, Any]] | None:
    """Model name -> facts of a fetched release, checked against the fetch-time checksum;
    None when the cache was fetched before fcbench kept them (DataError when the release is
    not fetched, CorruptDataError when the file no longer matches)."""
    root = release_dir(release)
    expected = _manifest(root).get(FACTS_CHECKSUM)
    if not isinstance(expected, str):
        return None
    data = json.loads(_read_verified(root / MODEL_FACTS, expected, MODEL_FACTS, release))
    models = data.get("models") if isinstance(data, dict) else None
    return models if isinstance(models, dict) else {}


def has_model_facts(target: Path) -> bool:
    """Whether an installed release directory's manifest records its model facts (a cache
    fetched before has none: fetching again, without --force, adds them)."""
    try:
        manifest = json.loads((target / "manifest.json").read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and isinstance(manifest.get(FACTS_CHECKSUM), str)
