"""A fetched release's prompt texts: the official `default_prompts` constants and the FC
type table, read from its constants.json.

Data, not request building (`models.prompts` builds requests from them): the checkers read
them too (the agentic records show the question as the official evaluator prompts it), and
they may not import the backends' layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fcbench.dataset.fetch import load_constants
from fcbench.dataset.format_sensitivity import PromptConfig, PromptConfigError

__all__ = ["PromptError", "PromptTexts", "load_texts"]


class PromptError(ValueError):
    """The release's constants lack a prompt piece, or a configuration is not supported."""


@dataclass(frozen=True)
class PromptTexts:
    """The release's prompt constants and FC type table, as fetched."""

    prompts: dict[str, Any]
    type_map: dict[str, str]

    @classmethod
    def from_constants(cls, constants: dict[str, Any]) -> PromptTexts:
        prompts = constants.get("default_prompts")
        types = (constants.get("type_mappings") or {}).get("GORILLA_TO_OPENAPI")
        if not isinstance(prompts, dict) or "PROMPT_STYLE_TEMPLATES" not in prompts:
            raise PromptError("the fetched constants hold no default prompts; refetch the data")
        if not isinstance(types, dict):
            raise PromptError("the fetched constants hold no GORILLA_TO_OPENAPI type table")
        return cls(prompts, types)

    @property
    def default_config(self) -> PromptConfig:
        text = str(self.prompts.get("DEFAULT_SYSTEM_PROMPT_FORMAT", ""))
        try:
            return PromptConfig.parse(text)
        except PromptConfigError as exc:
            raise PromptError(f"the fetched default prompt format is unusable: {exc}") from None


@lru_cache(maxsize=8)
def load_texts(release: str) -> PromptTexts:
    """The prompt texts of a fetched release (cached per process)."""
    return PromptTexts.from_constants(load_constants(release))
