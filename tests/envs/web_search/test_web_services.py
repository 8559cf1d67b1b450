"""Choosing a run's web services: names, the injection point, checks, descriptions."""

from __future__ import annotations

import asyncio
import copy
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from fcbench.envs import multi_turn
from fcbench.envs.multi_turn.dispatch import Dispatcher
from fcbench.envs.web_search import (
    DEFAULT_PROVIDER,
    WEB_CLASSES,
    WebSearchError,
    configure,
    create,
    current,
    use,
)
from fcbench.envs.web_search.api import WebSearchAPI
from fcbench.envs.web_search.record import request_key


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    configure(None)
    yield
    configure(None)


def test_unknown_names_are_one_line_errors() -> None:
    with pytest.raises(WebSearchError, match="unknown web search provider 'bing'; choose one"):
        create("bing")


def test_the_default_is_the_official_provider_and_no_call_is_made() -> None:
    services = current()
    assert services.provider_name == DEFAULT_PROVIDER == "serpapi"
    assert current() is services  # created once
    assert services.describe() == {
        "provider": "serpapi", "mode": "live", "record_dir": None, "recorded_providers": {},
        "comparable": True, "counts": {"live": 0, "from_record": 0, "missing": 0,
                                              "unrecorded": 0, "failed": 0},
        "failures": {},
    }


def test_use_overrides_configure_in_its_context_only() -> None:
    configured, scoped = create("ddgs"), create("ddgs")
    configure(configured)
    assert WebSearchAPI()._services is configured
    with use(scoped):
        assert WebSearchAPI()._services is scoped
        seen: list[object] = []

        async def in_a_thread() -> None:
            seen.append(await asyncio.to_thread(lambda: WebSearchAPI()._services))

        asyncio.run(in_a_thread())
        other = threading.Thread(target=lambda: seen.append(WebSearchAPI()._services))
        other.start()
        other.join()
        assert seen == [scoped, configured]  # to_thread copies the context, a thread not
    assert WebSearchAPI()._services is configured


def test_check_fails_at_once_without_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SERPAPI_API_KEY", raising=False)
    with pytest.raises(WebSearchError, match="SERPAPI_API_KEY"):
        create("serpapi").check()
    create("serpapi", api_key="k").check()
    create("ddgs").check()


def test_comparable_only_for_serpapi_answers(tmp_path: Path) -> None:
    assert create("ddgs").describe()["comparable"] is False
    record = create("serpapi", tmp_path, api_key="k")
    assert record.record is not None
    record.record.put(request_key("f", {}), 1, "ddgs")
    assert record.describe()["comparable"] is False  # the record holds ddgs answers
    assert record.describe()["record_dir"] == str(tmp_path)
    assert create("replay", tmp_path).describe()["comparable"] is False


def test_the_class_follows_the_environment_contract() -> None:
    module, _, name = WEB_CLASSES["WebSearchAPI"].partition(":")
    cls = getattr(__import__(module, fromlist=[name]), name)
    assert cls is WebSearchAPI
    api = WebSearchAPI()
    api._load_scenario({"show_snippet": False}, long_context=True)
    assert not set(WEB_CLASSES) & set(multi_turn.CLASSES)  # the lead merges the two
    assert {k: v for k, v in vars(api).items() if not k.startswith("_")} == {
        "show_snippet": False
    }
    with pytest.raises(KeyError):
        api._load_scenario({})
    clone = copy.deepcopy(api)
    assert clone._services is api._services and clone.show_snippet is False


def test_calls_through_the_dispatcher_give_the_official_strings(tmp_path: Path) -> None:
    """What a model reads: a result list as its Python repr, an error dict as JSON, an
    exception as "Error during execution"."""
    services = create("serpapi", tmp_path, api_key="k")
    services.provider.search = lambda k, m, r: [  # type: ignore[union-attr, method-assign]
        {"title": "T", "link": "L", "snippet": "S"}, {"title": "U", "link": "M"}]
    with use(services):
        api = WebSearchAPI()
    dispatcher = Dispatcher({"WebSearchAPI": api}, {"WebSearchAPI": "m_eval_web_search_0"})
    assert dispatcher.execute(["search_engine_query(keywords='x', max_results=1)"]) == [
        "[{'title': 'T', 'href': 'L', 'body': 'S'}]"
    ]
    assert dispatcher.execute(["search_engine_query(keywords='x')"]) == [
        "Error during execution: 'snippet'"  # the second result has none, as upstream
    ]
    assert dispatcher.execute(["fetch_url_content(url='file:///etc/passwd')"]) == [
        "Error during execution: Invalid URL: file:///etc/passwd"
    ]
