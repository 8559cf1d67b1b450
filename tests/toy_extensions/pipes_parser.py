"""A toy text tool-call convention: one call a line, `name|{json arguments}`."""

from __future__ import annotations

import json


def parse(text: str) -> list[dict[str, str]] | None:
    calls = []
    for line in text.splitlines():
        name, bar, arguments = line.partition("|")
        if bar and name.strip():
            try:
                json.loads(arguments)
            except ValueError:
                continue
            calls.append({name.strip(): arguments.strip()})
    return calls or None
