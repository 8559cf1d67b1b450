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


# --------------------------------------------------------------------------- schema 1 rows

SCHEMA_1 = """
CREATE TABLE responses (key TEXT PRIMARY KEY, backend TEXT NOT NULL, model TEXT NOT NULL,
    reply TEXT NOT NULL, created REAL NOT NULL, used REAL NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
CREATE INDEX responses_used ON responses (used);
PRAGMA user_version=1;
"""


def schema_1_file(folder: Path, rows: dict[str, str]) -> None:
    """A cache file as fcbench wrote it before replies were kept as received."""
    folder.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(folder / "responses.sqlite3")
    db.executescript(SCHEMA_1)
    for key, text in rows.items():
        db.execute("INSERT INTO responses VALUES (?, 'openai-compatible', 'm', ?, 0, 0, 0)",
                   (key, text))
    db.commit()
    db.close()


def test_rows_of_schema_1_are_never_served(tmp_path: Path) -> None:
    """Schema-1 rows hold readings (the first run's tool calls, its profile): whatever
    they look like, even a row under exactly the key a request now has, they are dropped
    when the file is opened, once, and the count is kept for the run summary."""
    schema_1_file(tmp_path, {"k": reply_to_json(reply("an old reading")) or "",
                             "raw": '{"form": "raw", "body": "{}", "latency": 0,'
                                    ' "endpoint": null}'})
    with ResponseCache(tmp_path) as cache:
        assert cache.dropped == 2
        assert cache.get("k") is None and cache.get("raw") is None
        assert cache.summary().entries == 0
        assert cache.put("k", "openai-compatible", "m", "new")
    db = sqlite3.connect(tmp_path / "responses.sqlite3")
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    db.close()
    with ResponseCache(tmp_path) as again:  # upgraded once: the new rows stay
        assert again.dropped == 0 and again.get("k") == "new"


def test_masking_keeps_a_json_body_the_same_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """A key value that, as plain text, reaches across a JSON string's quotes would make a
    text-wide replacement rewrite the structure (here: drop field `b`); each string is
    masked on its own, so only strings holding the key change."""
    import json

    from fcbench.runner.cache import masked

    secret = 'p", "b": "q'
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    body = json.dumps({"a": "p", "b": "qrst", "c": [1, 2.5, None, True]})
    assert secret in body  # the plain form matches across the structure
    assert json.loads(masked(body)) == json.loads(body)
    echoed = json.dumps({"content": f"key {secret}!", "args": json.dumps({"k": secret})})
    kept = json.loads(masked(echoed))
    assert kept == {"content": "key ***!", "args": '{"k": "***"}'}
    assert secret not in masked(echoed) and json.dumps(secret)[1:-1] not in masked(echoed)
    assert masked("plain text with p\", \"b\": \"q in it") == "plain text with *** in it"
    untouched = '{"a":  1}'
    assert masked(untouched) is untouched  # nothing secret: stored byte for byte
    deep = "[" * 100_000 + json.dumps(secret) + "]" * 100_000  # past the parser's stack
    assert masked(deep) == "[" * 100_000 + '"***"' + "]" * 100_000


def _shape(value: object, secret: str) -> object:
    """What masking must keep: every container's layout and every non-string leaf; a string
    reduced to whether it held the secret (and is otherwise equal)."""
    if isinstance(value, str):
        return ("str", secret in value or value)
    if isinstance(value, dict):
        return {("key", secret in k or k): _shape(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v, secret) for v in value]
    return value


def test_masking_never_changes_a_bodys_structure() -> None:
    """Any JSON body (deep, unicode, huge numbers) with a key value (quotes, backslashes,
    braces in it) planted in some of its strings: the kept text parses to the same layout,
    the strings without the key are unchanged, and no form of the key is left."""
    import json
    import os
    from unittest import mock

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from fcbench.runner.cache import masked

    secrets = st.text(st.sampled_from('ab"\\{}[]:,é \n'), min_size=8, max_size=16).filter(
        lambda s: s.strip() == s and len(set(s)) > 3)
    plain = st.text(st.characters(blacklist_characters="*"), max_size=12)  # no mask inside
    leaves = st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30),
                       st.floats(allow_nan=False), plain)

    @settings(max_examples=150, deadline=None)
    @given(secret=secrets, data=st.data())
    def check(secret: str, data: st.DataObject) -> None:
        strings = st.one_of(plain, st.builds(lambda a, b: a + secret + b, plain, plain))
        bodies = st.recursive(
            st.one_of(leaves, strings),
            lambda inner: st.lists(inner, max_size=4) | st.dictionaries(strings, inner,
                                                                        max_size=4),
            max_leaves=20)
        body = data.draw(bodies)
        text = json.dumps(body, ensure_ascii=data.draw(st.booleans()))
        with mock.patch.dict(os.environ, {"OPENAI_API_KEY": secret}):
            kept = masked(text)
        back = json.loads(kept)
        assert _shape(back, "***") == _shape(body, secret)
        assert secret not in kept and json.dumps(secret)[1:-1] not in kept

    check()
