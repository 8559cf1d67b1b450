"""Every writer of files masks a known secret itself (issue 31 item 7).

The end-to-end leak test (tests/e2e/test_no_secret_leaks.py) shows that no key reaches a
file in a real run, but most texts are masked long before they reach a writer, so a writer
that lost its own `redact.values` would go unnoticed there. Here each writer is handed a
registered secret directly (in the text it writes: a result, a model name, an answer, a
page) and its file is read back whole (gzip, base64 and SQLite pages included): no form of
the secret may be in it. Each test was seen failing with its writer's masking removed.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from fcbench import redact

KEY = "sk-writer-Abc123XYZ/+="
"""Registered with `redact.add_secret`; with characters that percent- and JSON-encode."""
FORMS = (KEY, urllib.parse.quote(KEY, safe=""), json.dumps(KEY)[1:-1])


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in (*redact.KEY_VARIABLES, *redact.URL_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(redact, "_extra_values", set())
    monkeypatch.setattr(redact, "_extra_variables", set())
    redact.add_secret(KEY)
    yield


def clean(text: str, *, written: str = "") -> None:
    """No form of the key in `text`, and the mask where the key was (`written` a part of the
    text that surrounded it: the writer wrote, and masked, rather than dropped the text)."""
    assert [form for form in FORMS if form in text] == []
    assert redact.MASK in text
    assert written in text


def folder_text(folder: Path) -> str:
    """Every file under `folder`, gzip members opened, as one text."""
    parts = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        parts.append(data.decode("utf-8", "replace"))
    return "\n".join(parts)


def test_result_store(tmp_path: Path) -> None:
    from fcbench.results.store import CategoryStore

    store = CategoryStore(tmp_path / "BFCL_v4_simple_python_result.json")
    store.open()
    store.append({"id": "simple_python_0", "result": f"answer {KEY} end"})
    store.sync()
    clean(store.path.read_text(), written="answer *** end")
    store.append({"id": "simple_python_1", "result": f"again {KEY}"})
    store.finalize()  # the sorted rewrite masks too
    clean(store.path.read_text(), written="again ***")


def test_model_json(tmp_path: Path) -> None:
    from fcbench.results.store import write_json_atomic

    path = tmp_path / "model.json"
    write_json_atomic(path, {"base_url": f"http://h/v1#{KEY}", "note": f"n {KEY}"})
    clean(path.read_text(), written="n ***")


def test_score_files(tmp_path: Path) -> None:
    from fcbench.results.score_files import write_score_file

    path = tmp_path / "BFCL_v4_simple_python_score.json"
    write_score_file(path, {"accuracy": 0.0, "model": KEY},
                     [{"id": "x", "error": [f"echo {KEY}"]}, json.dumps({"raw": KEY})])
    clean(path.read_text(), written="echo ***")


def entry(model: str) -> object:
    from fcbench.core.categories import ALL_SCORING
    from fcbench.report.csv_files import ModelEntry, unknown_model
    from fcbench.score.aggregate import CategoryScore, with_missing

    given = {n: CategoryScore(n, 1, 2, 2) for n in ("simple_python", "zz_custom")}
    complete = with_missing(given, ALL_SCORING, dict.fromkeys(ALL_SCORING, 10))
    return ModelEntry(model, unknown_model(model), complete)


def test_csvs_official_and_custom(tmp_path: Path) -> None:
    from fcbench.report.csv_files import write_csvs

    paths = write_csvs([entry(f"m-{KEY}")], tmp_path)  # type: ignore[list-item]
    assert {p.name for p in paths} >= {"data_overall.csv", "data_custom.csv"}
    for path in paths:
        clean(path.read_text(), written="m-***")


def test_leaderboard_json(tmp_path: Path) -> None:
    from fcbench.report.leaderboard import write_leaderboard_json

    path = write_leaderboard_json([entry(f"m-{KEY}")], tmp_path / "leaderboard.json")  # type: ignore[list-item]
    clean(path.read_text(), written="m-***")


def unpacked(page: str) -> str:
    """The page with each packed document (base64 of gzip) opened."""
    def open_one(match: re.Match[str]) -> str:
        try:
            return gzip.decompress(base64.b64decode(match.group(0))).decode()
        except (ValueError, OSError):
            return match.group(0)

    return re.sub(r"[A-Za-z0-9+/]{40,}={0,2}", open_one, page)


def test_report_page_data_and_markdown(tmp_path: Path) -> None:
    from fcbench.report.html import write_markdown
    from fcbench.report.html.page import render, write_page

    document = {"models": [{"name": f"m-{KEY}", "summaries": [["Overall", 0.5, "50.00"]]}],
                "categories": [], "meta": {"interval": "Wilson"},
                "details": {"x": f"detail {KEY}"}}
    page = write_page(tmp_path / "report.html", render(document, f"title {KEY}"))
    clean(unpacked(page.read_text()), written="detail ***")
    assert "title ***" in page.read_text()  # the page outside the packed data
    markdown = write_markdown(tmp_path / "summary.md", document)
    clean(markdown.read_text(), written="m-***")


def test_web_record_answer_and_index_line(tmp_path: Path) -> None:
    from fcbench.envs.web_search.record import INDEX, WebRecord, request_key

    record = WebRecord(tmp_path / "web")
    record.put(request_key("search_engine_query", {"keywords": f"q {KEY}"}),
               [{"title": f"t {KEY}"}], "serpapi")
    clean((tmp_path / "web" / INDEX).read_text(), written="q ***")
    answers = [p for p in (tmp_path / "web").iterdir() if p.suffix == ".gz"]
    assert len(answers) == 1
    clean(gzip.decompress(answers[0].read_bytes()).decode(), written="t ***")


def test_response_cache(tmp_path: Path) -> None:
    from fcbench.runner.cache import ResponseCache

    cache = ResponseCache(tmp_path / "cache")
    assert cache.put("0" * 64, "openai", f"m-{KEY}", json.dumps({"content": f"said {KEY}"}))
    clean(folder_text(tmp_path / "cache"), written="said ***")


def test_exports(tmp_path: Path) -> None:
    from fcbench.cli.export import _write

    _write({"model": f"m-{KEY}"}, tmp_path / "export.json")
    clean((tmp_path / "export.json").read_text(), written="m-***")


def test_exec_replay_recordings(tmp_path: Path) -> None:
    from fcbench.envs.exec_functions.backends import HttpRequest, HttpResponse, ReplayServices

    replay = ReplayServices(tmp_path / "replay")
    (tmp_path / "replay").mkdir()
    request = HttpRequest.get("https://h/x", {"q": f"q {KEY}"})
    replay.record(request, HttpResponse(500, f"echo {KEY}"))
    clean(folder_text(tmp_path / "replay"), written="echo ***")


def test_memory_snapshots(tmp_path: Path) -> None:
    from fcbench.envs.memory.snapshots import write_snapshot

    path = tmp_path / "snapshot.json"
    write_snapshot(path, {"core_memory": {"k": f"remember {KEY}"}})
    clean(path.read_text(), written="remember ***")


def test_batch_ids_file(tmp_path: Path) -> None:
    from fcbench.runner.batch import _State

    state = _State(tmp_path / "fcbench_batches.json", "openai")
    state.intend("t", ["a"])
    state.confirm("t", f"batch_{KEY}_1")  # a provider's id is no secret, but the file masks
    clean(state.path.read_text(), written="batch_***_1")
