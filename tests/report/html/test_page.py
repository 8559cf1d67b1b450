"""The page: packed document, safe scripts, one-line reason when plotly is missing."""

from __future__ import annotations

import base64
import gzip
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.cli import main
from fcbench.report.html import page


def test_packed_document_round_trips() -> None:
    document = {"text": "é </script> __JS__", "n": [1, 2]}
    packed = page.packed(document)
    assert "<" not in packed
    assert json.loads(gzip.decompress(base64.b64decode(packed))) == document


def test_render_puts_data_in_without_touching_placeholders_inside_it() -> None:
    text = page.render({"model": "__PLOTLY__ </script><b>x</b>"}, "t <i>")
    assert "<title>t &lt;i&gt;</title>" in text and "<h1>t &lt;i&gt;</h1>" in text
    assert "__TITLE__" not in text and "__BODY__" not in text
    assert text.count("<script") == 3  # plotly, data, the page's own script
    assert "</script><b>" not in text


def test_script_safe_escapes_closing_tags() -> None:
    assert page._script_safe('a = "</SCRIPT>"') == 'a = "<\\/SCRIPT>"'


def test_missing_plotly_is_one_clear_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = importlib.util.find_spec

    def no_plotly(name: str, *args: Any) -> Any:
        return None if name == "plotly" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", no_plotly)
    with pytest.raises(page.ReportUnavailable, match=r"pip install 'fcbench\[report\]'"):
        page.plotly_js()
    result = CliRunner().invoke(main, ["report", str(tmp_path), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "fcbench: error: the HTML report needs the plotly package for its charts: "
        "pip install 'fcbench[report]'"]
