"""The cached backend: which steps it serves, what its key covers, when it stays out."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from fcbench.models.base import (
    ChatRequest,
    PermanentError,
    Reply,
    Sampling,
    StepContext,
    TransientError,
)
from fcbench.runner.cache import CacheError
from fcbench.runner.cached import (
    CachedBackend,
    CacheSettings,
    backend_identity,
    cache_policy,
    describe_counts,
    endpoint_identity,
    request_key,
    with_cache,
)


class Counting:
    """A model that numbers its answers, so a cached answer is told from a fresh one."""

    fc_args = "json_string"

    def __init__(self, kind: str = "openai-compatible", **described: Any) -> None:
        self.name = "m"
        self.kind = kind
        self.described = described
        self.calls = 0
        self.fail_next: Exception | None = None
        self.closed = False

    async def step(self, request: ChatRequest) -> Reply:
        if self.fail_next is not None:
            error, self.fail_next = self.fail_next, None
            raise error
        self.calls += 1
        return Reply(result=f"answer {self.calls}", input_tokens=5, latency=0.5)

    def describe(self) -> dict[str, Any]:
        return {"backend": self.kind, "endpoints": ["http://a"], "timeout": 30,
                "sampling": {"temperature": 0.001}, **self.described}

    async def aclose(self) -> None:
        self.closed = True


def ask(backend: Any, request: ChatRequest) -> Reply:
    result: Reply = asyncio.run(backend.step(request))
    return result


REQUEST = ChatRequest([{"role": "user", "content": "hi"}], [{"type": "function"}], "fc", [])


def cached(tmp_path: Path, inner: Any, **kw: Any) -> Any:
    return with_cache(inner, "model-x", CacheSettings(kw.pop("policy", "auto"), tmp_path),
                      sampling=kw.pop("sampling", Sampling()), from_registry=True)


def test_a_repeated_step_is_served_from_the_cache(tmp_path: Path) -> None:
    inner = Counting()
    backend = cached(tmp_path, inner)
    first, second = ask(backend, REQUEST), ask(backend, REQUEST)
    assert inner.calls == 1 and second == first and second.latency == 0.5
    assert backend.run_summary()["cache"] == {
        "used": True, "path": str(tmp_path / "responses.sqlite3"), "hits": 1, "misses": 1,
        "stored": 1, "unsaved": 0, "hit_rate": 0.5}
    assert backend.describe() == inner.describe() and backend.name == "m"
    asyncio.run(backend.aclose())
    assert inner.closed
    again = cached(tmp_path, Counting())  # another process, the same file
    assert ask(again, REQUEST) == first


def test_errors_are_not_cached(tmp_path: Path) -> None:
    inner = Counting()
    backend = cached(tmp_path, inner)
    inner.fail_next = PermanentError("context too long")
    with pytest.raises(PermanentError):
        ask(backend, REQUEST)
    assert ask(backend, REQUEST).result == "answer 1"  # asked again, then stored
    assert ask(backend, REQUEST).result == "answer 1"
    assert backend.counts.stored == 1


def test_the_key_covers_what_decides_the_reply() -> None:
    identity = backend_identity(Counting(), "model-x")
    key = request_key(identity, REQUEST)
    changed = [
        replace(REQUEST, messages=[{"role": "user", "content": "hi!"}]),
        replace(REQUEST, messages=[{"role": "user", "content": "hi", "_native": [1]}]),
        replace(REQUEST, tools=None),
        replace(REQUEST, mode="prompt"),
        replace(REQUEST, functions=[{"name": "f"}]),
    ]
    assert len({key, *(request_key(identity, r) for r in changed)}) == 6
    others = [backend_identity(Counting(), "model-y"),
              backend_identity(Counting("anthropic"), "model-x"),
              backend_identity(Counting(sampling={"temperature": 0.0}), "model-x"),
              backend_identity(Counting(output_format="hermes"), "model-x")]
    batched = backend_identity(Counting(batch_size=64), "model-x")
    assert request_key(batched, REQUEST) == key
    assert all(request_key(other, REQUEST) != key for other in others)
    # not part of it: the timeout, the case; the endpoints only in the default scope
    slower = Counting(timeout=99)
    assert request_key(backend_identity(slower, "model-x"), REQUEST) == key
    moved = Counting(endpoints=["http://b"])
    assert request_key(backend_identity(moved, "model-x"), REQUEST) != key
    assert request_key(backend_identity(moved, "model-x", "model"), REQUEST) == request_key(
        backend_identity(Counting(), "model-x", "model"), REQUEST)
    assert request_key(identity, replace(REQUEST, context=StepContext(None, 3, 1))) == key


def test_a_request_that_is_not_json_is_asked_not_cached(tmp_path: Path) -> None:
    inner = Counting()
    backend = cached(tmp_path, inner)
    odd = replace(REQUEST, messages=[{"role": "user", "content": object()}])
    ask(backend, odd), ask(backend, odd)
    assert inner.calls == 2 and backend.counts.unsaved == 2


@pytest.mark.parametrize("sampling, used", [
    (Sampling(0.001), True), (Sampling(0.0), True), (Sampling(0.01), True),
    (Sampling(0.7), False), (Sampling(None), False),
    (Sampling(0.001, extra_body={"temperature": 1.0}), False),
    (Sampling(0.9, extra_body={"temperature": 0}), True),
])
def test_auto_caches_greedy_decoding_only(tmp_path: Path, sampling: Sampling, used: bool) -> None:
    backend = cached(tmp_path, Counting(), sampling=sampling)
    ask(backend, REQUEST), ask(backend, REQUEST)
    assert backend.run_summary()["cache"]["used"] is used
    assert backend.inner.calls == (1 if used else 2)
    forced = cached(tmp_path / "always", Counting(), sampling=sampling, policy="always")
    ask(forced, REQUEST), ask(forced, REQUEST)
    assert forced.inner.calls == 1


def test_which_backends_auto_caches(tmp_path: Path) -> None:
    given = with_cache(Counting(), "m", CacheSettings("auto", tmp_path), sampling=None,
                       from_registry=False)
    assert "not cached by default" in given.run_summary()["cache"]["reason"]
    function = cached(tmp_path, Counting("callable"))
    assert not function.run_summary()["cache"]["used"]
    truth = Counting("ground-truth")
    assert cached(tmp_path, truth, policy="always") is truth
    inner = Counting()
    assert with_cache(inner, "m", CacheSettings("off", tmp_path), sampling=None,
                      from_registry=True) is inner


def test_cache_policy_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FCBENCH_CACHE", raising=False)
    assert cache_policy(None) == "auto"
    monkeypatch.setenv("FCBENCH_CACHE", "off")
    assert cache_policy(None) == "off" and cache_policy("always") == "always"
    monkeypatch.setenv("FCBENCH_CACHE", "sometimes")
    with pytest.raises(CacheError, match="one of auto, always, off"):
        cache_policy(None)


def test_the_printed_line() -> None:
    assert describe_counts({"used": False, "reason": "why"}) == "cache not used: why"
    line = describe_counts({"used": True, "hits": 3, "misses": 1, "stored": 1, "unsaved": 2,
                            "path": "/c/responses.sqlite3"})
    assert line == ("cache: 3 hit(s), 1 miss(es) (75.0% hit rate), 1 stored, 2 not saved "
                    "(/c/responses.sqlite3)")


def test_a_cache_that_cannot_open_fails_the_setup(tmp_path: Path) -> None:
    (tmp_path / "responses.sqlite3").write_bytes(b"garbage" * 1000)
    with pytest.raises(CacheError):
        cached(tmp_path, Counting())
    assert isinstance(cached(tmp_path, Counting(), policy="off"), Counting)
    assert isinstance(cached(tmp_path / "fine", Counting()), CachedBackend)


class WithLayout(Counting):
    """A backend with a preflight and its own conversation layout (the completions backend)."""

    output_encoding = "family"
    run_name = "family-run"

    def __init__(self) -> None:
        super().__init__()
        self.checked = False

    async def preflight(self) -> None:
        self.checked = True

    def turns(self, case: Any, prompted: Any) -> list[list[Any]]:
        return [["laid out"]]

    def result_messages(self, results: Any, context: Any) -> list[Any]:
        return ["results"]


def test_the_wrapper_keeps_the_backends_preflight_and_layout(tmp_path: Path) -> None:
    from fcbench.models.base import SupportsPreflight, layout_of

    inner = WithLayout()
    cached = with_cache(inner, "m", CacheSettings("always", tmp_path), sampling=None,
                        from_registry=True)
    assert isinstance(cached, CachedBackend)
    assert isinstance(cached, SupportsPreflight)
    asyncio.run(cached.preflight())
    assert inner.checked
    layout = layout_of(cached)
    assert layout is not None and layout.turns(None, None) == [["laid out"]]
    assert layout.output_encoding == "family" and cached.run_name == "family-run"
    assert layout_of(with_cache(Counting(), "m", CacheSettings("always", tmp_path),
                                sampling=None, from_registry=True)) is None


def test_the_cache_belongs_to_the_endpoints(tmp_path: Path) -> None:
    """Two servers with one model name may serve different weights: each is asked."""
    first = Counting(endpoints=["http://127.0.0.1:8001/v1"])
    ask(cached(tmp_path, first), REQUEST)
    second = Counting(endpoints=["http://127.0.0.1:8002/v1"])
    assert ask(cached(tmp_path, second), REQUEST).result == "answer 1" and second.calls == 1
    replicas = Counting(endpoints=["http://127.0.0.1:8002/v1/",
                                   "HTTP://user:pw@127.0.0.1:8001/v1?api_key=k"])
    both = Counting(endpoints=["http://127.0.0.1:8001/v1", "http://127.0.0.1:8002/v1"])
    ask(cached(tmp_path, both), REQUEST)
    assert ask(cached(tmp_path, replicas), REQUEST).result == "answer 1" and replicas.calls == 0


def test_endpoints_declared_interchangeable_share_entries(tmp_path: Path) -> None:
    def shared(inner: Any) -> Any:
        return with_cache(inner, "model-x", CacheSettings("auto", tmp_path, "model"),
                          sampling=Sampling(), from_registry=True)

    ask(shared(Counting(endpoints=["http://127.0.0.1:8001/v1"])), REQUEST)
    other = Counting(endpoints=["http://127.0.0.1:8002/v1"])
    assert ask(shared(other), REQUEST).result == "answer 1" and other.calls == 0
    scoped = Counting(endpoints=["http://127.0.0.1:8002/v1"])
    ask(cached(tmp_path, scoped), REQUEST)  # an endpoint-scoped run keeps to its own entries
    assert scoped.calls == 1


def test_the_endpoint_identity_holds_no_secret() -> None:
    identity = endpoint_identity(["https://user:pw@Host.example:8443/v1/?api_key=sk-1#frag",
                                  "https://host.example:8443/v1", "/models/local"])
    assert identity == ["/models/local", "https://host.example:8443/v1"]
    key = backend_identity(Counting(endpoints=["http://u:secret@h/v1?token=t"]), "m")
    assert "secret" not in json.dumps(key) and "token" not in json.dumps(key)


def test_a_started_server_is_known_by_its_command_not_its_port() -> None:
    from fcbench.pipeline import served_identity
    from fcbench.runner.serve import ServePlan

    one = ServePlan("server", ("srv", "--port", "41234", "-m", "x"), "http://127.0.0.1:41234/v1")
    two = ServePlan("server", ("srv", "--port", "40001", "-m", "x"), "http://127.0.0.1:40001/v1")
    assert served_identity(one) == served_identity(two) == "serve:srv --port '{port}' -m x"


def test_the_model_seed_is_in_the_key_only_when_set() -> None:
    """Seeded requests are cached apart from unseeded ones and from other seeds; unseeded
    runs keep the keys they had before the seed existed (no `seed` in their identity)."""
    from fcbench.models.base import Sampling
    from fcbench.models.openai_compat import OpenAICompatBackend

    def identity(sampling: Sampling) -> dict[str, Any]:
        return backend_identity(OpenAICompatBackend("m", ["http://127.0.0.1:9/v1"],
                                                    sampling=sampling), "m")

    keys = {request_key(identity(Sampling(seed=seed)), REQUEST) for seed in (None, 1, 2)}
    assert len(keys) == 3
    assert "seed" not in identity(Sampling())["sampling"]


# --------------------------------------------------------------------------- kept as received


class Reading(Counting):
    """A backend that keeps its replies as received (`KeepsRaw`): the body it is sent back is
    read with its own `shout` setting, which changes the reading, not the request."""

    def __init__(self, shout: bool = False, kind: str = "openai-compatible",
                 **described: Any) -> None:
        super().__init__(kind, **described)
        self.shout = shout
        self.store: Any = None
        self.unreadable: set[str] = set()

    def use_raw_store(self, store: Any) -> None:
        self.store = store

    async def step(self, request: ChatRequest) -> Reply:
        from fcbench.models.exchange import RawReply, exchanged

        async def ask() -> RawReply:
            if self.fail_next is not None:
                error, self.fail_next = self.fail_next, None
                raise error
            self.calls += 1
            return RawReply(json.dumps({"text": f"answer {self.calls}"}), 0.5, "http://a")

        sent = {"body": {"messages": request.messages}}
        raw = await exchanged(self.store, sent, ask)
        text = json.loads(raw.body)["text"]
        if text in self.unreadable:
            raise TransientError(f"cannot read {text!r}")
        return Reply(result=text.upper() if self.shout else text, latency=raw.latency)


def test_kept_replies_are_read_by_each_run_its_own_way(tmp_path: Path) -> None:
    plain = cached(tmp_path, Reading())
    assert ask(plain, REQUEST).result == "answer 1"
    loud = Reading(shout=True)
    shouted = cached(tmp_path, loud)
    assert ask(shouted, REQUEST).result == "ANSWER 1" and loud.calls == 0
    assert ask(cached(tmp_path, Reading()), REQUEST).result == "answer 1"
    assert shouted.run_summary()["cache"]["hits"] == 1
    asyncio.run(shouted.aclose())
    assert loud.store is None  # closed: the backend no longer sends through the cache


def test_a_kept_reply_errors_and_damage(tmp_path: Path) -> None:
    inner = Reading()
    backend = cached(tmp_path, inner)
    inner.fail_next = PermanentError("context too long")
    with pytest.raises(PermanentError):
        ask(backend, REQUEST)
    assert backend.counts.stored == 0  # errors are not kept
    assert ask(backend, REQUEST).result == "answer 1"
    backend.cache._db.execute("UPDATE responses SET reply = '{\"form\": \"reply\"}'")
    assert ask(backend, REQUEST).result == "answer 2"  # a damaged row is a miss
    backend.cache._db.execute("UPDATE responses SET reply = 'not json'")
    assert ask(backend, REQUEST).result == "answer 3"
    odd = replace(REQUEST, messages=[{"role": "user", "content": object()}])
    assert ask(backend, odd).result == "answer 4"  # not JSON: asked, not kept
    assert ask(backend, odd).result == "answer 5" and backend.counts.unsaved == 2


def test_the_raw_key_is_the_request_sent_and_the_endpoint() -> None:
    from fcbench.runner.cached import raw_identity, raw_key

    sent = {"path": "/chat/completions", "body": {"model": "m", "messages": []}}
    key = raw_key(raw_identity(Reading()), sent)
    assert raw_key(raw_identity(Reading(shout=True, output_format="hermes",
                                        prompt_format="qwen", timeout=9)), sent) == key
    other_body = {"path": "/chat/completions", "body": {"model": "m2", "messages": []}}
    other_path = {"path": "/completions", "body": sent["body"]}
    assert raw_key(raw_identity(Reading()), other_body) != key
    assert raw_key(raw_identity(Reading()), other_path) != key
    assert raw_key(raw_identity(Reading(kind="anthropic")), sent) != key
    moved = raw_identity(Reading(endpoints=["http://u:pw@b/v1?api_key=k"]))
    assert raw_key(moved, sent) != key and "pw" not in json.dumps(moved)
    assert raw_key(raw_identity(Reading(endpoints=["http://b/v1"]), "model"), sent) == (
        raw_key(raw_identity(Reading(), "model"), sent))
    assert raw_key(raw_identity(Reading()), {"body": float("nan")}) is None
    assert raw_key(raw_identity(Reading()), {"body": object()}) is None
    signed = [raw_key(raw_identity(Reading()), {"parts": [{"thought_signature": sig}]})
              for sig in (b"\x00\xff", b"\x00\xfe")]  # Gemini's, sent back as bytes
    assert None not in signed and signed[0] != signed[1]


def test_the_run_summary_says_when_old_entries_were_dropped(tmp_path: Path) -> None:
    from runner.test_cache import schema_1_file

    schema_1_file(tmp_path, {"k": "{}", "j": "{}"})
    backend = cached(tmp_path, Reading())
    summary = backend.run_summary()["cache"]
    assert summary["dropped"] == 2
    assert describe_counts(summary).endswith(
        "; 2 entries of an older cache format (replies as read, not as received) dropped")
    assert "dropped" not in cached(tmp_path, Reading()).run_summary()["cache"]


def test_a_reply_whose_reading_fails_is_not_kept(tmp_path: Path) -> None:
    """Errors are never cached, the reading's included: a reply the backend cannot read
    (a malformed tool call) is forgotten, so the retry asks the model again, and a kept
    reply another reading cannot read is asked afresh too."""
    inner = Reading()
    inner.unreadable = {"answer 1"}
    backend = cached(tmp_path, inner)
    with pytest.raises(TransientError):
        ask(backend, REQUEST)
    assert backend.cache.summary().entries == 0 and backend.counts.stored == 0
    assert ask(backend, REQUEST).result == "answer 2" and inner.calls == 2
    assert backend.counts.stored == 1
    picky = Reading()
    picky.unreadable = {"answer 2"}
    other = cached(tmp_path, picky)
    with pytest.raises(TransientError):
        ask(other, REQUEST)  # a hit its reading rejects: forgotten, not replayed forever
    assert picky.calls == 0 and other.cache.summary().entries == 0
    assert ask(other, REQUEST).result == "answer 1" and picky.calls == 1


@pytest.mark.parametrize("make", [Counting, Reading], ids=["reply", "kept-raw"])
def test_a_repeat_is_answered_only_from_its_own_replies(tmp_path: Path, make: Any) -> None:
    """`--repeats`: the same request (no seed to tell repeats apart) in repeat 2 is asked
    afresh, not answered with repeat 1's reply; repeat 2 resumed takes its own."""

    def of_repeat(repeat: int | None) -> Any:
        return with_cache(make(), "model-x", CacheSettings("always", tmp_path),
                          sampling=Sampling(), from_registry=True, repeat=repeat)

    first = ask(of_repeat(1), REQUEST)
    second_backend = of_repeat(2)
    second = ask(second_backend, REQUEST)
    assert second_backend.inner.calls == 1  # asked, not served repeat 1's reply
    resumed = of_repeat(2)
    assert ask(resumed, REQUEST) == second and resumed.inner.calls == 0
    plain = of_repeat(None)
    ask(plain, REQUEST)
    assert plain.inner.calls == 1  # a plain run shares no entry with a repeat
    assert first.result == second.result == "answer 1"  # fresh counters: equal text
