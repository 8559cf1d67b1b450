"""Copies of a release's data laid out as an older release was (for the release tests)."""

from __future__ import annotations

import json
from pathlib import Path

V3_NAMES = {"simple_python": "simple", "simple_java": "java", "simple_javascript": "javascript"}
"""Today's stem -> the 2024 name the `BFCL_v3` releases used (files and ids)."""

_V4_ONLY = ("web_search", "memory", "format_sensitivity")


def _is_v4_only(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return rel.startswith("memory_prereq_conversation/") or any(
        name in (f"BFCL_v4_{stem}.json", f"{stem}.json") or name.startswith(f"{stem}_")
        for stem in _V4_ONLY
    )


def write_v3_copy(data: Path, target: Path) -> Path:
    """The data of a release re-laid out as a release before 2025.8.25 was: `BFCL_v3_` files,
    `simple`/`java`/`javascript` (files and ids), no agentic or format-sensitivity files."""
    for path in sorted(data.rglob("*")):
        rel = path.relative_to(data).as_posix()
        if not path.is_file() or _is_v4_only(rel):
            continue
        out = target / rel
        text = path.read_text(encoding="utf-8")
        if path.name.startswith("BFCL_v4_"):
            stem = path.name[len("BFCL_v4_") : -len(".json")]
            old = V3_NAMES.get(stem, stem)
            out = out.with_name(f"BFCL_v3_{old}.json")
            if old != stem:
                text = _rename_ids(text, stem, old)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    return target


def _rename_ids(text: str, stem: str, old: str) -> str:
    lines = []
    for line in text.splitlines():
        entry = json.loads(line)
        entry["id"] = old + entry["id"][len(stem) :]
        lines.append(json.dumps(entry, ensure_ascii=False))
    return "\n".join(lines) + "\n"
