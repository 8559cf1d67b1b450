"""fcbench's WebSearchAPI against the official class, both on the loopback web.

The official `web_search.py` from the shared wheel is loaded as a module on its own (it
needs only requests, html2text, bs4 and serpapi, which the test extra installs). Its
SerpAPI client is pointed at the fake SerpAPI by setting the client's backend address, its
429 sleep is made instant, and pages are served from 127.0.0.1, so both classes make the
same HTTP requests to the same server. Every output, or raised exception (type and
message), must be equal; memory addresses in connection errors are masked.
"""

from __future__ import annotations

import importlib.util
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from fake_web import FakeWeb

from fcbench.envs.web_search import create, use
from fcbench.envs.web_search.api import WebSearchAPI
from official_bfcl import official_package

KEY = "loopback-key"
QUERIES = ["tea", "no snippet", "nothing", "bad key", "html", "run out", "busy 2 x"]
MAX_RESULTS: list[Any] = [10, 3, 0, None, -2, True, 20, "5", 2.0]
MODES: list[Any] = ["raw", "markdown", "truncate", "pdf", None]
PATHS = ["/page", "/redirect", "/missing", "/boom", "/latin1", "/nocharset", "/gzip", "/br",
         "/headers", "/nowhere"]


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    server = FakeWeb()
    yield server
    server.close()


@pytest.fixture(scope="module")
def official_module(
    bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ModuleType]:
    pytest.importorskip("serpapi")
    with official_package(bfcl_wheel, tmp_path_factory.mktemp("bfcl_web")) as package:
        path = package / "eval_checker/multi_turn_eval/func_source_code/web_search.py"
        spec = importlib.util.spec_from_file_location("official_web_search", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module


@pytest.fixture
def pair(
    official_module: ModuleType, web: FakeWeb, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Any, WebSearchAPI]]:
    """(official instance, fcbench instance), both talking to the loopback web."""
    from serpapi.serp_api_client import SerpApiClient

    monkeypatch.setattr(SerpApiClient, "BACKEND", web.base)
    monkeypatch.setenv("SERPAPI_API_KEY", KEY)
    monkeypatch.setattr(official_module.time, "sleep", lambda seconds: None)
    services = create("serpapi", api_key=KEY, endpoint=web.base, sleep=lambda seconds: None,
                      allow_private=True)
    with use(services):
        yield official_module.WebSearchAPI(), WebSearchAPI()


def outcome(call: Any, *args: Any) -> Any:
    """What a call gives: its value, or the exception it raises (type and message)."""
    try:
        value = call(*args)
    except Exception as exc:
        return ("raised", type(exc).__name__, str(exc))
    return _mask(value)


def _mask(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _mask(v) for k, v in value.items()}
    if isinstance(value, str):
        return re.sub(r"0x[0-9a-f]+", "0x…", value)
    return value


@pytest.mark.parametrize("show_snippet", [True, False])
def test_search_outputs_equal_the_official(
    pair: tuple[Any, WebSearchAPI], web: FakeWeb, show_snippet: bool
) -> None:
    official, ours = pair
    for instance in pair:
        instance._load_scenario({"show_snippet": show_snippet})
    for query in QUERIES:
        for max_results in MAX_RESULTS:
            web.reset()
            theirs = outcome(official.search_engine_query, query, max_results)
            official_params = list(web.params)
            web.reset()
            mine = outcome(ours.search_engine_query, query, max_results)
            assert mine == theirs, (query, max_results)
            assert web.params == official_params  # the same requests, in the same order
    assert official.show_snippet == ours.show_snippet == show_snippet


def test_search_region_and_key_reach_serpapi(
    pair: tuple[Any, WebSearchAPI], web: FakeWeb
) -> None:
    for instance in pair:
        web.reset()
        instance.search_engine_query("tea", region="de-de")
        [params] = web.params
        assert params == {"engine": "duckduckgo", "q": "tea", "kl": "de-de", "api_key": KEY,
                          "output": "json", "source": "python"}


def test_fetch_outputs_equal_the_official(pair: tuple[Any, WebSearchAPI], web: FakeWeb) -> None:
    official, ours = pair
    closed = _closed_port()
    urls = [web.url(path) for path in PATHS] + [f"http://127.0.0.1:{closed}/page",
                                               "ftp://example.org/file", "example.org", ""]
    for url in urls:
        for mode in MODES:
            theirs = outcome(official.fetch_url_content, url, mode)
            assert outcome(ours.fetch_url_content, url, mode) == theirs, (url, mode)
    assert outcome(ours.fetch_url_content, 5) == outcome(official.fetch_url_content, 5)


def test_the_official_defaults_and_state(official_module: ModuleType) -> None:
    import inspect

    for name in ("search_engine_query", "fetch_url_content", "_load_scenario"):
        theirs = inspect.signature(getattr(official_module.WebSearchAPI, name))
        ours = inspect.signature(getattr(WebSearchAPI, name))
        assert [(p.name, p.default) for p in ours.parameters.values()] == [
            (p.name, p.default) for p in theirs.parameters.values()
        ]
    public = {k for k in vars(official_module.WebSearchAPI()) if not k.startswith("_")}
    with use(create("ddgs")):
        assert {k for k in vars(WebSearchAPI()) if not k.startswith("_")} == public


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
