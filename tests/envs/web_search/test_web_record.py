"""Recording and replaying web answers: identical outputs, misses, crash and concurrency safety."""

from __future__ import annotations

import gzip
import json
import multiprocessing
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_web import FakeWeb

from fcbench.envs.web_search import WebSearchError, create, use
from fcbench.envs.web_search.api import WebSearchAPI
from fcbench.envs.web_search.record import INDEX, RecordError, WebRecord, request_key


@pytest.fixture
def web() -> Iterator[FakeWeb]:
    server = FakeWeb()
    yield server
    server.close()


def session(api: WebSearchAPI, web: FakeWeb) -> list[Any]:
    """A model's worth of calls, in both snippet modes; outputs (or raised errors) in order."""
    outputs: list[Any] = []
    calls: list[tuple[str, tuple[Any, ...]]] = [
        ("search_engine_query", ("tea",)),
        ("search_engine_query", ("tea", 3, "de-de")),
        ("search_engine_query", ("no snippet", 5)),
        ("search_engine_query", ("nothing",)),
        ("search_engine_query", ("tea", "5")),  # raises after the search, as upstream
        ("fetch_url_content", (web.url("/page"),)),
        ("fetch_url_content", (web.url("/page"), "markdown")),
        ("fetch_url_content", (web.url("/redirect"), "truncate")),
        ("fetch_url_content", (web.url("/missing"), "truncate")),
        ("fetch_url_content", (web.url("/page"), "pdf")),
        ("fetch_url_content", ("ftp://nowhere",)),
        ("search_engine_query", ("tea",)),  # asked again: answered from the record
    ]
    for snippet in (True, False):
        api._load_scenario({"show_snippet": snippet})
        for name, args in calls:
            try:
                outputs.append(getattr(api, name)(*args))
            except Exception as exc:
                outputs.append((type(exc).__name__, str(exc)))
    return outputs


def test_record_then_replay_gives_identical_outputs(web: FakeWeb, tmp_path: Path) -> None:
    record_dir = tmp_path / "web-record"
    live = create("serpapi", record_dir, api_key="k", endpoint=web.base, allow_private=True)
    with use(live):
        recorded = session(WebSearchAPI(), web)
    assert web.requests["tea"] == 3  # (10, wt-wt), (3, de-de), ("5", wt-wt): once each
    assert live.describe()["mode"] == "record"
    assert live.describe()["counts"]["live"] == 10
    web.close()  # replay needs no network
    replay = create("replay", record_dir)
    with use(replay):
        replayed = session(WebSearchAPI(), web)
    assert replayed == recorded
    description = replay.describe()
    assert description["provider"] == "replay" and description["mode"] == "replay"
    assert description["recorded_providers"] == {"serpapi": 10}
    assert description["comparable"] is True
    assert description["counts"] == {"live": 0, "from_record": 22, "missing": 0,
                                    "unrecorded": 0, "failed": 0}


def test_a_record_made_with_one_provider_answers_another(web: FakeWeb, tmp_path: Path) -> None:
    with use(create("serpapi", tmp_path, api_key="k", endpoint=web.base, allow_private=True)):
        first = WebSearchAPI().search_engine_query("tea", 2)

    class Unreachable:
        def text(self, *args: Any, **kwargs: Any) -> Any:
            raise AssertionError("the record should have answered")

    ddgs = create("ddgs", tmp_path, client=lambda **kwargs: Unreachable())
    with use(ddgs):
        assert WebSearchAPI().search_engine_query("tea", 2) == first
    assert ddgs.describe()["comparable"] is False  # ddgs is asked for anything new


def test_replay_misses_give_the_official_error_shapes(tmp_path: Path) -> None:
    WebRecord(tmp_path).put(request_key("x", {}), 1, "serpapi")
    services = create("replay", tmp_path)
    with use(services):
        api = WebSearchAPI()
        search = api.search_engine_query("never searched")
        page = api.fetch_url_content("https://never.fetched/{x}")
    assert list(search) == ["error"] and "No recorded answer" in search["error"]
    assert str(tmp_path) in search["error"]
    assert page["error"].startswith("An error occurred while fetching https://never.fetched/{x}: ")
    assert "not in the web record" in page["error"]
    assert services.describe()["counts"]["missing"] == 2
    assert services.describe()["comparable"] is False


def test_replay_needs_an_existing_record(tmp_path: Path) -> None:
    with pytest.raises(WebSearchError, match="nothing to replay"):
        create("replay", tmp_path / "absent")
    with pytest.raises(WebSearchError, match="needs a web record folder"):
        create("replay")
    (tmp_path / "file").write_text("x")
    with pytest.raises(WebSearchError, match="not a folder"):
        create("serpapi", tmp_path / "file")


def test_answers_are_content_addressed_and_compressed(tmp_path: Path) -> None:
    record = WebRecord(tmp_path)
    page = {"content": "<p>same page</p>" * 100}
    record.put(request_key("fetch_url_content", {"url": "https://a/", "mode": "raw"}), page, "p")
    record.put(request_key("fetch_url_content", {"url": "https://b/", "mode": "raw"}), page, "p")
    [blob] = tmp_path.glob("*.json.gz")
    assert json.loads(gzip.decompress(blob.read_bytes())) == page
    assert blob.stat().st_size < 200  # 1,600 bytes of page, compressed
    assert len((tmp_path / INDEX).read_text().splitlines()) == 2
    assert len(WebRecord(tmp_path, create=False)) == 2


def test_the_first_answer_for_a_key_stays(tmp_path: Path) -> None:
    record = WebRecord(tmp_path)
    key = request_key("search_engine_query", {"keywords": "k", "max_results": 10})
    record.put(key, ["first"], "a")
    record.put(key, ["second"], "b")
    assert WebRecord(tmp_path).get(key) == (True, ["first"])


def test_keys_tell_argument_types_apart() -> None:
    texts = {request_key("f", {"n": value}).text for value in (1, 1.0, True, "1", None, [1])}
    assert len(texts) == 6
    assert request_key("f", {"a": 1, "b": 2}).text == request_key("f", {"b": 2, "a": 1}).text
    assert request_key("f", {"s": {1, 2}}).text  # not JSON: its repr
    assert request_key("f", {1: "a", "b": 2}).text  # keys that cannot be sorted


def test_a_torn_last_line_waits_and_damage_is_a_miss(tmp_path: Path) -> None:
    record = WebRecord(tmp_path)
    key, other = request_key("f", {"a": 1}), request_key("f", {"a": 2})
    record.put(key, "answer", "p")
    line = (tmp_path / INDEX).read_text().splitlines()[0].replace('{\\"a\\":1}', '{\\"a\\":2}')
    with (tmp_path / INDEX).open("a") as index:
        index.write(line[:40])  # a writer died (or is) mid-line
    reader = WebRecord(tmp_path)
    assert reader.get(key) == (True, "answer")
    assert reader.get(other) == (False, None)
    with (tmp_path / INDEX).open("a") as index:
        index.write(line[40:] + "\n" + "not json\n")
    assert reader.get(other) == (True, "answer")  # the completed line is read
    for blob in tmp_path.glob("*.json.gz"):
        blob.write_bytes(gzip.compress(b'"tampered"'))
    assert WebRecord(tmp_path).get(key) == (False, None)  # checksum mismatch
    (tmp_path / ".tmp-leftover").write_bytes(b"partial")  # a crash before a rename
    assert len(WebRecord(tmp_path)) == 2


def test_concurrent_threads_record_safely(tmp_path: Path) -> None:
    record = WebRecord(tmp_path)
    errors: list[BaseException] = []

    def writer(worker: int) -> None:
        try:
            for i in range(60):
                key = request_key("f", {"i": i % 20})
                record.put(key, {"i": i % 20, "page": "x" * (i * 50)}, f"w{worker}")
                found, answer = record.get(key)
                assert found and answer["i"] == i % 20
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    _assert_intact(tmp_path, keys=20, lines=12 * 60)


def _process_writer(root: str, worker: int) -> None:
    record = WebRecord(root)
    for i in range(40):
        record.put(request_key("f", {"i": i}), {"by": worker, "text": "é" * i}, "proc")


def test_concurrent_processes_record_safely(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_process_writer, args=(str(tmp_path), n)) for n in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    _assert_intact(tmp_path, keys=40, lines=4 * 40)


def _assert_intact(root: Path, keys: int, lines: int) -> None:
    """Every index line whole, every answer readable, no temporary file left."""
    index = (root / INDEX).read_bytes()
    assert index.endswith(b"\n")
    entries = [json.loads(line) for line in index.splitlines()]
    assert len(entries) == lines
    reader = WebRecord(root, create=False)
    assert len(reader) == keys
    for entry in entries:
        found, _ = reader.get(request_key(entry["function"], entry["arguments"]))
        assert found
    assert not list(root.glob(".tmp-*"))


def test_concurrent_identical_requests_ask_the_provider_once(tmp_path: Path) -> None:
    asked: list[str] = []
    gate = threading.Event()

    class Slow:
        name = "slow"

        def search(self, keywords: Any, max_results: Any, region: Any) -> Any:
            asked.append(keywords)
            gate.wait(5)
            return [{"title": "t", "link": "l", "snippet": "s"}]

        def check(self) -> str | None:
            return None

    services = create("serpapi", tmp_path)
    services.provider = Slow()
    answers: list[Any] = []
    threads = [threading.Thread(target=lambda: answers.append(services.search("q", 10, "r")))
               for _ in range(6)]
    for thread in threads:
        thread.start()
    gate.set()
    for thread in threads:
        thread.join()
    assert asked == ["q"] and len(answers) == 6 and all(a == answers[0] for a in answers)


def test_an_answer_that_cannot_be_recorded_still_reaches_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = create("ddgs", tmp_path, client=lambda **kwargs: _Canned())

    def full_disk(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(WebRecord, "put", full_disk)
    with use(services):
        assert WebSearchAPI().search_engine_query("tea", 1) == [
            {"title": "t", "href": "h", "body": "b"}
        ]
    assert services.describe()["counts"]["unrecorded"] == 1


class _Canned:
    def text(self, *args: Any, **kwargs: Any) -> list[dict[str, str]]:
        return [{"title": "t", "href": "h", "body": "b"}]


def test_record_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="nothing to replay"):
        WebRecord(tmp_path / "none", create=False)
