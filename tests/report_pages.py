"""Reading an HTML report's documents back (gzip + base64 inside the page), as the page's
own `JSON.parse` does: strict JSON, so a NaN or an Infinity fails the reader as it fails
the browser."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any

from fcbench import _json as fast_json


def strict_json(text: str) -> Any:
    """JSON as a browser or a schema validator reads it: no NaN, no Infinity (integers of
    any length are read)."""
    def refuse(token: str) -> Any:
        raise AssertionError(f"not strict JSON: {token}")

    with fast_json.int_digits():
        return json.loads(text, parse_constant=refuse)


def documents(report: Path) -> list[Any]:
    """The page's packed documents (the main one first, then the case details)."""
    text = Path(report).read_text(encoding="utf-8")
    found = []
    for blob in re.findall(r"[A-Za-z0-9+/=]{40,}", text):
        try:
            raw = gzip.decompress(base64.b64decode(blob)).decode("utf-8")
        except (ValueError, OSError):
            continue
        found.append(strict_json(raw))
    return found
