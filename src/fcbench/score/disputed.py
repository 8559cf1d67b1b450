"""Known-disputed ground truth: test cases whose expected answer is contested upstream.

Why: a reader comparing two models should know when a flip or a failure sits on a case the
community disputes. The list is data (`disputed.json`, shipped in the package), each entry
with the upstream issue or pull request behind it. The official accuracy stays the headline;
`accuracy_without` gives the second view, the disputed cases left out of both counts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class DisputedCase:
    id: str
    source: str
    """The upstream issue or pull request (URL)."""
    claim: str


@dataclass(frozen=True)
class Disputed:
    cases: tuple[DisputedCase, ...]
    release: str = ""

    def contains(self, case_id: str) -> bool:
        return any(c.id == case_id for c in self.cases)

    def get(self, case_id: str) -> DisputedCase | None:
        return next((c for c in self.cases if c.id == case_id), None)

    def in_category(self, category: str) -> list[DisputedCase]:
        """The disputed cases of a category (ids are `<category>_<n>[-...]`)."""
        return [c for c in self.cases if c.id.rsplit("_", 1)[0] == category]


def load_disputed() -> Disputed:
    """The list shipped with fcbench."""
    text = resources.files("fcbench.score").joinpath("disputed.json").read_text("utf-8")
    data = json.loads(text)
    cases = tuple(DisputedCase(e["id"], e["source"], e["claim"]) for e in data["entries"])
    return Disputed(cases, str(data.get("release", "")))


def accuracy_without(
    valid_by_id: Iterable[tuple[str, bool]], disputed: Disputed
) -> tuple[int, int]:
    """(correct, total) over the cases not disputed."""
    correct = total = 0
    for case_id, valid in valid_by_id:
        if not disputed.contains(case_id):
            total += 1
            correct += valid
    return correct, total
