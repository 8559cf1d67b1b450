"""A missing key is one line at once, naming the variable, unless the endpoint is local."""

from __future__ import annotations

import pytest

from fcbench.models.keys import is_loopback, missing_key
from fcbench.models.registry import BackendOptions, BackendSetupError, create


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:8000/v1", True), ("http://localhost:8000/v1", True),
    ("http://[::1]:8000/v1", True), ("http://127.3.2.1/v1", True),
    ("https://api.openai.com/v1", False), ("http://10.0.0.5:8000/v1", False),
    ("", False), ("localhost:8000", True),
])
def test_loopback(url: str, local: bool) -> None:
    assert is_loopback(url) is local


def test_missing_key_rules() -> None:
    assert missing_key(None, "OPENAI_API_KEY", ["http://127.0.0.1:1/v1"]) is None
    assert missing_key("k", "OPENAI_API_KEY", ["https://api.x.com/v1"]) is None
    assert missing_key(None, None, ["https://api.x.com/v1"]) is None
    message = missing_key(None, "OPENAI_API_KEY", ["http://127.0.0.1/v1", "https://api.x.com/v1"])
    assert message == ("no API key for https://api.x.com/v1: set OPENAI_API_KEY (or name "
                       "another variable with --api-key-env)")
    default = missing_key(None, "ANTHROPIC_API_KEY", [], "https://api.anthropic.com")
    assert default is not None and "https://api.anthropic.com" in default


@pytest.mark.parametrize("backend, variable", [
    ("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY"),
    ("google", "GOOGLE_API_KEY"),
])
def test_factories_refuse_a_remote_endpoint_without_a_key(backend: str, variable: str) -> None:
    urls = ("https://api.example.com/v1",) if backend == "openai" else ()
    options = BackendOptions("m", base_urls=urls, key_variable=variable)
    with pytest.raises(BackendSetupError, match=f"set {variable}"):
        create(backend, options)
    local = BackendOptions("m", base_urls=("http://127.0.0.1:9",), key_variable=variable)
    assert create(backend, local).name == "m"
