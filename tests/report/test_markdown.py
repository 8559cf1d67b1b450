"""The Markdown summary: a table people can paste into a pull request."""

from __future__ import annotations

from fcbench.report.markdown import summary_markdown


def test_summary_table_categories_and_top_errors() -> None:
    document = {
        "meta": {"interval": "Wilson score interval, 95%"},
        "categories": ["simple_python", "multiple"],
        "models": [{
            "name": "m",
            "summaries": [["Overall", 0.5, "50.00"], ["Live", None, "N/A"]],
            "scores": {"simple_python": {"accuracy": 0.75, "ci": [0.7, 0.8]}},
            "errors": {"simple_python": {"value_error:string": 2, "type_error:simple": 5}},
        }],
    }
    text = summary_markdown(document)
    assert "| model | V4 Overall | Live |" in text
    assert "| m | 50.00 | N/A |" in text
    assert "| simple_python | 75.00 [70.00–80.00] |" in text
    assert "| multiple | N/A |" in text
    assert "- simple_python: `type_error:simple` 5, `value_error:string` 2" in text


def test_texts_from_inputs_cannot_become_markup_or_cells() -> None:
    from fcbench.report.markdown import code, text

    assert text("<b>x</b> | y\nz") == "&lt;b&gt;x&lt;/b&gt; \\| y z"
    assert text("simple_python") == "simple_python"  # GFM: no emphasis inside a word
    assert text("_a_ *b* [c](d) `e`") == "\\_a\\_ \\*b\\* \\[c\\](d) \\`e\\`"
    assert code("value_error:string") == "`value_error:string`"
    assert code("a``b|c") == "```a``b\u2758c```" and code("`x") == "`` `x ``"
