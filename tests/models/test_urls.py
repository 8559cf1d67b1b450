"""Base URLs are checked when given (`models.urls`): a bad port, scheme or host is one line
naming the flag or variable, never a traceback at the first connection, and never shows a
password or a query key."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.cli import main
from fcbench.models.registry import BackendOptions
from fcbench.models.urls import BadBaseURL, check_base_url, endpoint_urls, shown
from fcbench.run_config import EndpointConfig, RunConfig

BAD = {
    "http://127.0.0.1:99999/v1": "the port is not a number from 1 to 65535",
    "http://127.0.0.1:0/v1": "the port is not a number from 1 to 65535",
    "http://127.0.0.1:-1/v1": "the port is not a number from 1 to 65535",
    "http://h:8x/v1": "the port is not a number from 1 to 65535",
    "ftp://h/v1": "the scheme 'ftp': only http and https are served",
    "localhost:8000/v1": "no http:// or https:// before the host",
    "http:///v1": "no host",
    "http://[::1/v1": "not a URL",
    "http://h /v1": "a space or a control character",
    "": "empty",
}
GOOD = ["http://localhost:8000/v1", "https://api.example.com", "HTTP://H:65535/v1",
        "http://[::1]:8000/v1", "http://user:pw@h:1/v1?x=1"]
SECRET = "s3cr3t-pa55word"


@pytest.mark.parametrize(("url", "reason"), BAD.items())
def test_a_bad_base_url_is_one_line_naming_the_flag(url: str, reason: str) -> None:
    with pytest.raises(BadBaseURL) as caught:
        check_base_url(url, "--base-url")
    message = str(caught.value)
    assert message.startswith("--base-url ") and reason in message and "\n" not in message


@pytest.mark.parametrize("url", GOOD)
def test_a_usable_base_url_passes(url: str) -> None:
    assert check_base_url(url, "--base-url") == url


@settings(max_examples=200, deadline=None)
@given(port=st.integers(min_value=-10**6, max_value=10**6))
def test_every_port_is_checked(port: int) -> None:
    url = f"http://127.0.0.1:{port}/v1"
    if 1 <= port <= 65535:
        assert check_base_url(url, "--base-url") == url
    else:
        with pytest.raises(BadBaseURL, match="the port is not a number"):
            check_base_url(url, "--base-url")


@settings(max_examples=200, deadline=None)
@given(password=st.text(min_size=1, max_size=30),
       key=st.text(min_size=1, max_size=30),
       port=st.sampled_from(["99999", "0", "x", ""]),
       scheme=st.sampled_from(["http://", "ftp://", "gopher://", "", "http:", "//"]))
def test_no_password_or_query_is_ever_shown(password: str, key: str, port: str,
                                            scheme: str) -> None:
    """Whatever the URL's breakage, its userinfo and query stay out of the message."""
    password, key = f"PW{password}PW", f"KEY{key}KEY"
    url = f"{scheme}user:{password}@127.0.0.1:{port}/v1?api_key={key}#{key}"
    try:
        check_base_url(url, "--base-url")
    except BadBaseURL as exc:
        message = str(exc)
    else:
        message = shown(url)
    assert password not in message and key not in message and "user" not in message


def test_the_command_line_refuses_a_bad_port_at_once(fetched_home: Path, tmp_path: Path) -> None:
    """Once an OverflowError traceback from the socket layer (issue 30)."""
    result = CliRunner().invoke(main, [
        "run", "--model", "m", "--base-url", f"http://u:{SECRET}@127.0.0.1:99999/v1",
        "--categories", "simple_python", "--limit", "1",
        "--result-dir", str(tmp_path / "r"), "--score-dir", str(tmp_path / "s")])
    assert result.exit_code == 2, result.output
    assert not isinstance(result.exception, OverflowError)
    lines = result.output.strip().splitlines()
    assert lines == ["fcbench: error: --base-url http://***@127.0.0.1:99999/v1: the port is "
                     "not a number from 1 to 65535 (expected http(s)://host[:port]/path, e.g. "
                     "http://localhost:8000/v1)"]
    assert not (tmp_path / "r").exists()


def test_the_library_refuses_it_when_configured() -> None:
    with pytest.raises(ValueError, match=r"^base_url http://h:99999/v1: the port"):
        EndpointConfig(base_url=("http://h:99999/v1",))
    with pytest.raises(ValueError, match=r"^base_url ftp://h: the scheme"):
        RunConfig.of({"base_url": "ftp://h"})


def test_the_variable_is_named_when_it_holds_the_bad_url(monkeypatch: pytest.MonkeyPatch) -> None:
    from fcbench.models.openai_compat import from_options

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:70000/v1")
    expected = r"^OPENAI_BASE_URL http://127\.0\.0\.1:70000/v1: the port"
    with pytest.raises(BadBaseURL, match=expected):
        from_options(BackendOptions("m", "fc", (), "k"))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    assert endpoint_urls(()) == ["http://127.0.0.1:8000/v1"]
