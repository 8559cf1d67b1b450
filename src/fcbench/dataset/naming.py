"""How a release names its files and ids, mapped to today's categories.

Every bfcl-eval release on PyPI ships one of two layouts (checked on 2025.6.8 ... 2026.3.23):

* `BFCL_v4_<category>.json`, today's names (2025.8.25 and later);
* `BFCL_v3_<name>.json` (2025.8.6.2 and earlier), where three categories still have their
  2024 names: `simple`, `java`, `javascript` for `simple_python`, `simple_java`,
  `simple_javascript`, with ids to match (`simple_7`); no agentic files, no
  format_sensitivity.

A layout is recognised from the files themselves (the newest `BFCL_v<N>_` prefix among the
top-level question files), never from the release number, so an unpacked older wheel given
as `--data-dir` reads the same way as the fetched release. Everything else about a category
(its checker, group, language) is today's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from fcbench import layout
from fcbench.core.categories import Category

__all__ = ["CURRENT", "Naming", "detect"]

_V3_STEMS: Mapping[str, str] = {
    "simple_python": "simple",
    "simple_java": "java",
    "simple_javascript": "javascript",
}
"""Today's stem -> the file stem of the `BFCL_v3` layout, where they differ."""

_PREFIX = re.compile(r"^BFCL_v(?P<version>[0-9]+)_.+\.json$")


@dataclass(frozen=True)
class Naming:
    """A release's file-naming scheme: its version prefix and the stems it names otherwise.

    Folders are today's (`fcbench.layout`); only the file name's prefix and stem vary."""

    prefix: str = layout.VERSION_PREFIX
    renamed: Mapping[str, str] = field(default_factory=dict)
    """Today's category stem -> this layout's file stem (and id prefix), where they differ."""

    def stem(self, category: Category) -> str:
        """The stem this layout gives the category's files (`simple` for `simple_python`)."""
        return self.renamed.get(category.stem, category.stem)

    def question_file(self, category: Category) -> str:
        """The category's question file, relative to `data/`."""
        return self._named(layout.question_file(category), category)

    def answer_file(self, category: Category) -> str:
        """The category's possible-answer file, relative to `data/`."""
        return self._named(layout.answer_file(category), category)

    def format_sensitivity_file(self) -> str:
        return self.prefix + layout.format_sensitivity_file().removeprefix(layout.VERSION_PREFIX)

    def _named(self, today: str, category: Category) -> str:
        """Today's path of a category's file, with this layout's prefix and stem."""
        folder, _, _ = today.rpartition("/")
        name = f"{self.prefix}_{self.stem(category)}.json"
        return f"{folder}/{name}" if folder else name

    def today_id(self, category: Category, raw_id: str) -> str:
        """An id as the files write it, renamed to today's (`simple_7` -> `simple_python_7`)."""
        old, new = self.stem(category), category.stem
        if old != new and raw_id.startswith(old + "_") and not raw_id.startswith(new + "_"):
            return new + raw_id[len(old) :]
        return raw_id


CURRENT = Naming()
"""Today's layout (`BFCL_v4_*`, today's names)."""


def detect(paths: Iterable[str]) -> Naming:
    """The layout of a data folder, from its files' paths relative to `data/`.

    The newest top-level `BFCL_v<N>_*.json` prefix decides; a folder with none (an empty or
    hand-made one) is read with today's layout, so errors name today's files.
    """
    versions = set()
    for path in paths:
        match = _PREFIX.match(path)
        if match and "/" not in path:
            versions.add(int(match.group("version")))
    if not versions:
        return CURRENT
    newest = max(versions)
    if newest >= 4:
        return CURRENT if newest == 4 else Naming(f"BFCL_v{newest}")
    return Naming(f"BFCL_v{newest}", _V3_STEMS)
