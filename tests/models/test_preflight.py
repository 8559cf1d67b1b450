"""Preflight against loopback servers: each failure is one line naming the URL, the model and
the cause; a working endpoint passes with as few requests as possible."""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from typing import Any

import pytest

from fake_gemini import FakeGemini
from fake_openai import FakeOpenAI
from fcbench.models.anthropic_native import AnthropicBackend
from fcbench.models.base import PreflightError
from fcbench.models.google_native import GoogleBackend
from fcbench.models.openai_compat import OpenAICompatBackend
from fcbench.models.preflight import connection_cause, error_text, listed_names


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def preflight(backend: Any) -> PreflightError | None:
    try:
        asyncio.run(backend.preflight())
    except PreflightError as exc:
        return exc
    return None


def openai(url: str, model: str = "m", key: str | None = None) -> OpenAICompatBackend:
    return OpenAICompatBackend(model, [url], api_key=key)


def test_nothing_listening_is_said_at_once() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    started = time.monotonic()
    error = preflight(openai(url))
    assert error is not None and error.kind == "unreachable"
    assert str(error) == f"cannot reach {url} (model m): connection refused"
    assert time.monotonic() - started < 5


def test_a_working_endpoint_passes_with_one_listing_request() -> None:
    with FakeOpenAI(models=["m", "other"]) as server:
        assert preflight(openai(server.base_url)) is None
        assert (server.gets, server.requests) == (1, 0)


def test_a_refused_key() -> None:
    with FakeOpenAI(api_key="secret") as server:
        error = preflight(openai(server.base_url, key="wrong"))
        assert error is not None and error.kind == "auth"
        assert str(error).startswith(f"{server.base_url} refused the API key (HTTP 401: "
                                     "Incorrect API key provided)")
        assert preflight(openai(server.base_url, key="secret")) is None


def test_a_base_url_without_v1_gets_the_hint() -> None:
    with FakeOpenAI(prefix="/v1") as server:
        root = f"http://127.0.0.1:{server.port}"
        error = preflight(openai(root))
        assert error is not None and error.kind == "path"
        assert f"try {root}/v1" in str(error) and "HTTP 404" in str(error)


def test_an_unknown_model_lists_what_the_server_serves() -> None:
    with FakeOpenAI(models=["Qwen/Qwen3-8B", "Qwen/Qwen3-0.6B"], strict_models=True) as server:
        error = preflight(openai(server.base_url, "nope"))
        assert server.requests == 1  # the listing lacked it; one chat request confirmed
    assert error is not None and error.kind == "model"
    assert str(error) == (f"model 'nope' is not served at {server.base_url} (HTTP 404: The "
                          "model `nope` does not exist.); it serves: Qwen/Qwen3-8B, "
                          "Qwen/Qwen3-0.6B")


def test_a_name_the_listing_lacks_but_the_server_takes_passes() -> None:
    """Hosted APIs answer to aliases they do not list: one chat request settles it."""
    with FakeOpenAI(models=["gpt-x-2025-01-01"]) as server:
        assert preflight(openai(server.base_url, "gpt-x")) is None
        assert server.requests == 1


class _Waits:
    """`asyncio` as the preflight module sees it, with its sleeps recorded, not sat out."""

    def __init__(self) -> None:
        self.slept: list[float] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        await asyncio.sleep(0)


def test_server_errors_are_retried_then_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three tries a second apart (the waits are recorded, not sat out)."""
    import fcbench.models.preflight as preflight_module

    waits = _Waits()
    monkeypatch.setattr(preflight_module, "asyncio", waits)

    def always_500(request: dict[str, Any], attempt: int) -> str:
        return "500"

    class Failing(FakeOpenAI):
        def _get(self, path: str) -> bytes:
            from fake_openai import _http

            return _http(500, b'{"error": {"message": "engine dead"}}')

    with Failing(faults=always_500) as server:
        error = preflight(openai(server.base_url))
        assert error is not None and error.kind == "server" and "HTTP 500" in str(error)
        assert server.gets == 3
    assert waits.slept == [1.0, 1.0]


def test_tls_to_a_plain_http_server_is_named() -> None:
    """The plain server waits for a request line the TLS hello never ends, so the handshake
    fails at the read timeout: the backend's own (`--timeout`) at 1 s, not the 10 s
    listing default the test would sit out."""
    with FakeOpenAI() as server:
        backend = OpenAICompatBackend("m", [f"https://127.0.0.1:{server.port}/v1"], timeout=1.0)
        error = preflight(backend)
    assert error is not None and error.kind == "unreachable" and "TLS error" in str(error)


def test_several_endpoints_are_each_checked() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with FakeOpenAI() as server:
        backend = OpenAICompatBackend("m", [server.base_url, url])
        error = preflight(backend)
    assert error is not None and url in str(error)


def test_connection_causes_in_words() -> None:
    def chained(inner: BaseException) -> Exception:
        try:
            try:
                raise inner
            except BaseException as exc:
                raise RuntimeError("Connection error.") from exc
        except RuntimeError as outer:
            return outer

    assert connection_cause(chained(ConnectionRefusedError(111, "x"))) == "connection refused"
    dns = connection_cause(chained(socket.gaierror(-2, "Name or service not known")))
    assert dns == "DNS lookup failed (Name or service not known)"
    assert connection_cause(chained(ssl.SSLError(1, "bad"))).startswith("TLS error")
    assert connection_cause(chained(TimeoutError())) == "timed out"
    assert connection_cause(RuntimeError("odd")) == "odd"


def test_error_bodies_and_listings_are_read() -> None:
    assert error_text({"error": {"message": "no\n key"}}, "x") == "no key"
    assert error_text({"detail": "Not Found"}, "x") == "Not Found"
    assert error_text(None, "fallback  text") == "fallback text"
    assert listed_names('{"data": [{"id": "a"}, {"id": "b"}]}') == ["a", "b"]
    assert listed_names('{"models": [{"name": "models/g"}]}') == ["g"]
    assert listed_names("not json") == []


def test_anthropic_preflight() -> None:
    with FakeOpenAI(models=["claude-x"], api_key="k") as server:
        url = f"http://127.0.0.1:{server.port}"
        assert preflight(AnthropicBackend("claude-x", [url], api_key="k")) is None
        refused = preflight(AnthropicBackend("claude-x", [url], api_key="bad"))
        assert refused is not None and refused.kind == "auth"
        unknown = preflight(AnthropicBackend("claude-y", [url], api_key="k"))
        assert unknown is not None and unknown.kind == "model"
        assert "claude-y" in str(unknown) and "it offers: claude-x" in str(unknown)
    with FakeOpenAI(prefix="/v1/models") as server:  # a base URL ending in /v1: /v1/v1/...
        url = f"http://127.0.0.1:{server.port}/v1"
        error = preflight(AnthropicBackend("claude-x", [url], api_key="k"))
        assert error is not None and error.kind == "path"
        assert f"try http://127.0.0.1:{server.port}" in str(error)


def test_google_preflight(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeGemini(models=["gemini-x"], api_key="k") as server:
        assert preflight(GoogleBackend("gemini-x", [server.base_url], api_key="k")) is None
        refused = preflight(GoogleBackend("gemini-x", [server.base_url], api_key="bad"))
        assert refused is not None and refused.kind == "auth"
        unknown = preflight(GoogleBackend("gemini-y", [server.base_url], api_key="k"))
        assert unknown is not None and unknown.kind == "model" and "gemini-x" in str(unknown)
    url = f"http://127.0.0.1:{closed_port()}"
    error = preflight(GoogleBackend("gemini-x", [url], api_key="k"))
    assert error is not None and error.kind == "unreachable" and url in str(error)
