"""The response cache's SQLite store: replies in and out, counts, pruning, damage."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from fcbench.models.base import Reply
from fcbench.runner.cache import (
    CacheError,
    ResponseCache,
    default_cache_dir,
    reply_from_json,
    reply_to_json,
)


def reply(text: str = "hi", **kw: object) -> Reply:
    return Reply(result=text, message={"role": "assistant", "content": text}, **kw)  # type: ignore[arg-type]


def test_a_reply_round_trips_exactly() -> None:
    original = Reply(
        result=[{"get_weather": '{"city": "Paris"}'}],
        message={"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}],
                 "_native": [{"type": "tool_use", "id": "c1"}]},
        tool_call_ids=["c1"], input_tokens=12, output_tokens=3, latency=0.25,
        finish_reason="tool_calls", endpoint="http://x/v1", reasoning="think",
        extras={"raw_text": "<tool_call>"},
    )
    text = reply_to_json(original)
    assert text is not None and reply_from_json(text) == original


def test_a_reply_json_cannot_keep_is_not_stored() -> None:
    assert reply_to_json(reply(extras={"t": (1, 2)})) is None  # a tuple would come back a list
    assert reply_to_json(reply(extras={"x": object()})) is None
    assert reply_to_json(reply(latency=float("nan"))) is None


def test_get_put_and_counts(tmp_path: Path) -> None:
    with ResponseCache(tmp_path) as cache:
        assert cache.get("k1") is None
        assert cache.put("k1", "openai-compatible", "m", reply_to_json(reply("a")) or "")
        assert cache.put("k2", "anthropic", "c", reply_to_json(reply("b")) or "")
        assert cache.get("k1") == reply_to_json(reply("a")) and cache.get("k1") is not None
        assert reply_from_json(cache.get("k2") or "") == reply("b")
        found = cache.summary()
    assert (found.entries, found.hits) == (2, 3)
    assert found.by_model == [("anthropic", "c", 1, 1), ("openai-compatible", "m", 1, 2)]
    assert found.path == tmp_path / "responses.sqlite3" and found.size_bytes > 0
    db = sqlite3.connect(tmp_path / "responses.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_prune_by_age_model_backend_or_all(tmp_path: Path) -> None:
    with ResponseCache(tmp_path) as cache:
        for key, backend, model in [("a", "x", "m1"), ("b", "x", "m2"), ("c", "y", "m2")]:
            cache.put(key, backend, model, reply_to_json(reply(key)) or "")
        cache._db.execute("UPDATE responses SET used = ? WHERE key = 'a'", (time.time() - 9e5,))
        assert cache.prune(unused_for=86400 * 7) == 1
        assert cache.get("a") is None and cache.get("b") is not None
        assert cache.prune(model="m2", backend="y") == 1
        assert cache.prune() == 1
        assert cache.summary().entries == 0


def test_the_store_keeps_texts_as_given(tmp_path: Path) -> None:
    """The store holds texts; what they mean (and whether a row is damaged) is decided by
    `runner.cached`, which treats an unreadable row as a miss (test_cached)."""
    with ResponseCache(tmp_path) as cache:
        cache.put("k", "x", "m", "not json")
        cache.put("j", "x", "m", '{"no_result": 1}')
        assert cache.get("k") == "not json" and cache.get("j") == '{"no_result": 1}'


def test_a_file_that_is_not_a_cache_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "responses.sqlite3").write_bytes(b"this is not a database" * 100)
    with pytest.raises(CacheError, match=r"not a usable response cache.*--no-cache"):
        ResponseCache(tmp_path)


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    ResponseCache(tmp_path).close()
    sqlite3.connect(tmp_path / "responses.sqlite3").execute("PRAGMA user_version=99")
    with pytest.raises(CacheError, match="newer fcbench"):
        ResponseCache(tmp_path)


def test_an_unwritable_folder_is_a_one_line_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(CacheError, match="cannot open the response cache"):
        ResponseCache(blocker / "cache")


def test_a_write_that_fails_is_reported_not_raised(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    cache._db.close()
    assert cache.put("k", "x", "m", "{}") is False
    assert cache.get("k") is None


def test_default_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FCBENCH_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("FCBENCH_CACHE_DIR")
    monkeypatch.setenv("FCBENCH_HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / "cache"
