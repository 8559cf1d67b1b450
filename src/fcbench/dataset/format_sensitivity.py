"""The format-sensitivity category (spec §7.3): single-turn items under 26 system prompts.

The data holds no questions of its own: `BFCL_v4_format_sensitivity.json` selects 200 items
of eight single-turn categories (`{category: [ids]}`), and every item is asked under each of
26 prompt configurations (return format x tool-call tag x function-doc format, plus a
markdown and an experimental variant). A configuration is written as the official query
string `ret_fmt=...&tool_call_tag=...&func_doc_fmt=...&prompt_fmt=...&style=...` and travels
inside the case id, `format_sensitivity_<k>:<config>:<original id>`, where `k` counts the
cases 0..5199 (items in category-file order, the configurations in `CONFIGS` order within
each item). Generation reads the system prompt's configuration from the id, and so does the
checker (the return format and tag to decode with, the original id to route by).

[quirk] The official loader assembles these cases from entries loaded for generation, which
already carry the language hint of their own category (`dataset/hints.py`); generation then
adds the hint again. So the docs of a loaded case here carry the hint once (as the official
score files show them) and the prompts a model sees carry it twice, as upstream.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from fcbench.core import categories
from fcbench.dataset.fetch import DataError
from fcbench.dataset.source import Source, source

CATEGORY = "format_sensitivity"
RETURN_FORMATS = ("python", "json", "verbose_xml", "concise_xml")
DOC_FORMATS = ("python", "xml", "json")

_QUERY = re.compile(
    r"ret_fmt=(?P<ret>python|json|verbose_xml|concise_xml)"
    r"&tool_call_tag=(?P<tag>True|False)"
    r"&func_doc_fmt=(?P<doc>python|xml|json)"
    r"&prompt_fmt=(?P<prompt>plaintext|markdown)"
    r"&style=(?P<style>classic|experimental)"
)


class PromptConfigError(ValueError):
    """A configuration string the official prompt builder would refuse."""


@dataclass(frozen=True)
class PromptConfig:
    """One system-prompt configuration (the official `ret_fmt=...&style=...` string)."""

    return_format: str = "python"
    tool_call_tag: bool = False
    doc_format: str = "json"
    prompt_format: str = "plaintext"
    style: str = "classic"

    @classmethod
    def parse(cls, text: str) -> PromptConfig:
        """Parse the query string; all five fields, in the official order, are required."""
        match = _QUERY.fullmatch(text)
        if match is None:
            raise PromptConfigError(f"not a prompt configuration: {text!r}")
        return cls(match["ret"], match["tag"] == "True", match["doc"], match["prompt"],
                   match["style"])

    def __str__(self) -> str:
        return (
            f"ret_fmt={self.return_format}&tool_call_tag={self.tool_call_tag}"
            f"&func_doc_fmt={self.doc_format}&prompt_fmt={self.prompt_format}&style={self.style}"
        )


CONFIGS: tuple[PromptConfig, ...] = (
    *(
        PromptConfig(ret, tag, doc)
        for ret in RETURN_FORMATS
        for tag in (True, False)
        for doc in DOC_FORMATS
    ),
    PromptConfig(prompt_format="markdown"),
    PromptConfig(style="experimental"),
)
"""The 26 configurations, in the official order (also the CSV's column order)."""


def config_names() -> list[str]:
    """The 26 configuration strings, in the official order."""
    return [str(config) for config in CONFIGS]


def split_id(test_id: str) -> tuple[PromptConfig, str] | None:
    """(configuration, original id) of a format-sensitivity id; None for any other id."""
    parts = test_id.split(":")
    if len(parts) != 3:
        return None
    try:
        return PromptConfig.parse(parts[1]), parts[2]
    except PromptConfigError:
        return None


def case_id(index: int, config: PromptConfig, original_id: str) -> str:
    return f"{CATEGORY}_{index}:{config}:{original_id}"


def source_files(release: str) -> list[str]:
    """The fetched release's files the cases are built from (the selection, and the question
    and answer files of the categories it selects from), for caching what is derived."""
    src = source(release, None)
    files = [src.naming.format_sensitivity_file()]
    for name, ids in selected_ids(src).items():
        if ids and name in categories.BY_NAME:
            category = categories.get(name)
            files += [src.naming.question_file(category), src.naming.answer_file(category)]
    return files


def selected_ids(src: Source) -> dict[str, list[str]]:
    """The selection file: category -> ids (a clear DataError when it is anything else)."""
    rel = src.naming.format_sensitivity_file()
    try:
        selected = json.loads(src.read(rel))
    except (ValueError, UnicodeDecodeError):
        selected = None
    if not isinstance(selected, dict) or not all(
        isinstance(ids, list) and all(isinstance(i, str) for i in ids)
        for ids in selected.values()
    ):
        raise DataError(f"{src.label(rel)}: not a JSON object of category -> id lists")
    return selected
