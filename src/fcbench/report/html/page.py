"""The self-contained HTML file: template, style, scripts and the document.

Why this layout: the file must open from disk with no network, so everything is inside it.
The document is gzip-compressed and base64-encoded (the page inflates it with the browser's
own DecompressionStream). The charts are SVG drawn by the page's own `charts.js` (a few kB;
the full plotly bundle this replaced was 4.8 MB of every report and most of its load time).
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
import zlib
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from fcbench import _json as fast_json
from fcbench import redact
from fcbench._atomic import replace_text
from fcbench._json import dumps_total
from fcbench.report.html import wire


def _script_safe(code: str) -> str:
    """Code that cannot end its <script> element early."""
    return re.sub(r"</(script)", r"<\\/\1", code, flags=re.IGNORECASE)


def asset(name: str) -> str:
    return resources.files("fcbench.report.html").joinpath(f"assets/{name}").read_text("utf-8")


def packed(document: Any) -> str:
    """gzip + base64 of the compact JSON text (base64 holds no `<`, safe inside a script).

    Streamed: a dict's long lists go to the compressor a slice at a time, so the whole JSON
    text (20 MB at 57 models) is never held, nor its bytes, nor a copy redacted at once
    (issue 32: the report's peak memory was that text several times over)."""
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, 31)  # gzip framing, mtime 0
    out = [compressor.compress(piece.encode("utf-8", errors="backslashreplace"))
           for piece in _json_pieces(document)]
    out.append(compressor.flush())
    return base64.b64encode(b"".join(out)).decode("ascii")


LEVEL = 5
"""zlib's level: 5 compresses a 57-model page 2% less than 6 in two thirds of the time
(0.2 s instead of 0.3 s, most of what the report adds to `evaluate`)."""

SLICE = 2000
"""Items of a long list serialised (and redacted) together while packing."""


def _json_pieces(document: Any) -> Iterator[str]:
    """The compact JSON text of `document` in pieces, each redacted (a secret is inside one
    string, and a string is never split across pieces)."""
    if not isinstance(document, dict) or not all(isinstance(k, str) for k in document):
        yield redact.values(strict_json(document))
        return
    yield "{"
    for index, (key, value) in enumerate(document.items()):
        yield ("," if index else "") + strict_json(key) + ":"
        if isinstance(value, list) and len(value) > SLICE:
            yield "["
            for start in range(0, len(value), SLICE):
                text = strict_json(value[start:start + SLICE])[1:-1]  # any value: issue 30
                yield ("," if start else "") + redact.values(text)
            yield "]"
        else:
            yield redact.values(strict_json(value))
    yield "}"


def strict_json(document: Any) -> str:
    """Compact JSON the page's `JSON.parse` accepts: a NaN or an infinity (a result file's
    `"latency": NaN`, a decoded `1e999`) would make Python write `NaN` / `Infinity`, which
    it refuses, leaving the page blank; they are written as those words in a string."""
    options: dict[str, Any] = {"ensure_ascii": False, "separators": (",", ":")}
    try:
        return fast_json.dumps(document, allow_nan=False, **options)
    except (ValueError, TypeError, RecursionError):
        pass
    try:
        return fast_json.dumps(_non_finite_as_text(document), **options)
    except (ValueError, TypeError, RecursionError):  # mixed keys, nested past the walk, ...
        return dumps_total(document, separators=(",", ":"))  # any value: issue 30


def _non_finite_as_text(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(value)  # "NaN", "Infinity", "-Infinity"
    if isinstance(value, dict):
        return {key: _non_finite_as_text(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_non_finite_as_text(item) for item in value]
    return value


LATER = ("details", "functions", wire.ERRORS)
"""The parts of a report document only a case's detail reads: packed apart (`_split`)."""


def _split(document: Any) -> tuple[Any, Any]:
    """The document without the parts only a case's detail reads, and those parts: packed
    apart, so that the page draws everything else before it reads them (they are most of
    the bytes)."""
    if isinstance(document, dict) and any(key in document for key in LATER):
        return ({k: v for k, v in document.items() if k not in LATER},
                {k: document[k] for k in LATER if k in document})
    return document, {}


def render(document: Any, title: str, kind: str = "report") -> str:
    """The whole page of a `kind` (report, compare: its body and script are `<kind>-body.html`
    and `<kind>.js`). The placeholders are replaced in one pass, so nothing the data or the
    scripts contain can be mistaken for a placeholder."""
    if kind == "report" and isinstance(document, dict):
        document = wire.encode(document)
    main, details = _split(document)
    parts = {
        "__TITLE__": html.escape(title),
        "__CSS__": asset("report.css"),
        "__CHARTS__": _script_safe(asset("charts.js")),
        "__DATA__": packed(main),
        "__DETAILS__": packed(details),
        "__JS__": _script_safe(asset(f"{kind}.js")),
    }
    template = asset("page.html").replace("__BODY__", asset(f"{kind}-body.html"))
    return re.sub("|".join(parts), lambda m: parts[m.group(0)], template)


def write_page(path: Path, text: str) -> Path:
    """Write the page (a symlink at its name is replaced, never followed)."""
    return replace_text(Path(path), redact.values(text), errors="backslashreplace")
