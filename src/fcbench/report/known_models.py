"""The official facts of a model folder named like a model the official registry knows.

A score or result folder named as the official tool names it (the `--model` name, `/`
written `_`: `gpt-4o-2024-11-20-FC`, `Qwen_Qwen3-8B-FC`) gets that model's display name,
link, organisation, licence and token prices from the release's `model_facts.json`
(`dataset.model_facts`): the leaderboard's Model/Link/Organization/License columns and its
cost, token prices x recorded token usage as the official formula has it (a model without
prices is costed at the local-GPU rate, `report.csv_files`). Any other folder keeps the
"N/A" strings. A `--model-info` file overrides both, model by model.

A cache fetched before fcbench kept these facts has none: that is said once, with the
command that adds them, and every model is then unknown, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fcbench.layout import model_dir_name
from fcbench.report.csv_files import ModelInfo, unknown_model

__all__ = ["model_infos", "official_model_info"]


def model_infos(facts: Mapping[str, Mapping[str, Any]]) -> dict[str, ModelInfo]:
    """Folder name -> ModelInfo for every model of a facts table (`load_model_facts`)."""
    return {model_dir_name(name): _info(name, fields) for name, fields in facts.items()}


def _info(name: str, fields: Mapping[str, Any]) -> ModelInfo:
    def text(key: str) -> str:
        value = fields.get(key)
        return value if isinstance(value, str) else "N/A"

    def price(key: str) -> float | None:
        value = fields.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return float(value)

    display = fields.get("display_name")
    return ModelInfo(display if isinstance(display, str) else name, text("url"),
                     text("organization"), text("license"), price("input_price"),
                     price("output_price"))


_SAID: set[str] = set()
"""Releases whose missing facts were already noted in this process (said once)."""


def _note_once(note: Callable[[str], None], release: str, text: str) -> None:
    if release not in _SAID:
        _SAID.add(release)
        note(text)


def official_model_info(
    release: str, note: Callable[[str], None]
) -> Callable[[str], ModelInfo]:
    """A folder name's official facts from the fetched release, `unknown_model` for a folder
    the registry does not know. `note` hears why there are none: a cache from before the
    facts (once per process), a damaged facts file. A release not fetched has none,
    silently (the board's own data check says what to fetch)."""
    from fcbench.dataset.fetch import CorruptDataError, DataError, fetch_command
    from fcbench.dataset.model_facts import load_model_facts

    try:
        facts = load_model_facts(release)
    except CorruptDataError as exc:
        note(f"model facts unavailable: {exc}")
        facts = {}
    except (DataError, OSError, ValueError):
        facts = {}
    if facts is None:
        _note_once(note, release, (
            f"the cached bfcl-eval {release} release has no model facts (fetched by an older "
            "fcbench): display names, links, organisations, licences and token prices are "
            f"N/A; `{fetch_command(release)}` adds them"))
        facts = {}
    infos = model_infos(facts)
    return lambda model: infos.get(model) or unknown_model(model)
