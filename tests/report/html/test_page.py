"""The page: packed document, safe scripts, its own small chart code."""

from __future__ import annotations

import base64
import gzip
import json

from fcbench.report.html import page


def test_packed_document_round_trips() -> None:
    document = {"text": "é </script> __JS__", "n": [1, 2]}
    packed = page.packed(document)
    assert "<" not in packed
    assert json.loads(gzip.decompress(base64.b64decode(packed))) == document


def test_render_puts_data_in_without_touching_placeholders_inside_it() -> None:
    text = page.render({"model": "__CHARTS__ </script><b>x</b>"}, "t <i>")
    assert "<title>t &lt;i&gt;</title>" in text and "<h1>t &lt;i&gt;</h1>" in text
    assert "__TITLE__" not in text and "__BODY__" not in text
    assert text.count("<script") == 4  # charts, data, case details, the page's own script
    assert "</script><b>" not in text


def test_script_safe_escapes_closing_tags() -> None:
    assert page._script_safe('a = "</SCRIPT>"') == 'a = "<\\/SCRIPT>"'


def test_case_details_are_packed_apart() -> None:
    main, later = page._split({"models": [1], "details": [{"raw": "x"}], "functions": ["f"]})
    assert main == {"models": [1]} and later == {"details": [{"raw": "x"}], "functions": ["f"]}
    assert page._split({"a": 1}) == ({"a": 1}, {})


def test_the_page_carries_its_own_small_chart_code() -> None:
    """No charting bundle: a report of nothing but its code stays a few tens of kB."""
    text = page.render({"models": []}, "t")
    assert "function barChart" in text and "function heatmap" in text
    assert len(text.encode()) < 64_000, len(text.encode())


def test_rows_travel_as_columns_and_odd_rows_as_they_are() -> None:
    """The page's copy of the rows (wire.py): runs of models, id steps, 0/1 verdicts, kinds by
    index; detail indices written out only when they are not the failures' order; rows of
    another shape are left as rows (the page reads either)."""
    from fcbench.report.html import wire

    rows = [[0, "a_1", 1, None, None], [0, "a_0", 0, "k", 0], [1, "a_1", 0, "j", 1],
            [1, "a_0", 0, "k", 2]]
    encoded = wire.encode_rows(rows)
    assert encoded == {"models": [[0, 2], [1, 2]], "ids": ["a_1", "a_0"],
                       "steps": [1, 1, -1, 1], "valid": "1000", "kinds": ["k", "j"],
                       "kind": [-1, 0, 1, 0], "detail": None}
    rows[3][4], rows[2][4] = 1, 2  # failures' details in another order: written out
    assert wire.encode_rows(rows)["detail"] == [None, 0, 2, 1]  # type: ignore[index]
    odd = {"rows": [[0, "a", 1, None]], "details": [{"error": "e"}]}
    assert wire.encode(odd) == odd
    document = {"rows": rows, "details": [{"error": "e"}, {"error": "e"}, {"error": "f"}]}
    assert wire.encode(document)["details"] == [{"error": 0}, {"error": 0}, {"error": 1}]
    assert wire.encode(document)[wire.ERRORS] == ["e", "f"]
