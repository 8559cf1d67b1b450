"""The tests' network guard (tests/network_guard.py, installed by tests/conftest.py): loopback
is allowed, anything else is refused and fails the test that tried, here and in child
processes; the hubs are offline.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import network_guard

TESTS = Path(__file__).resolve().parent
UNROUTABLE = "192.0.2.1"
"""TEST-NET-1 (RFC 5737): never a real host, so even an unguarded attempt goes nowhere."""


@pytest.fixture
def refusals(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the guard refuses during this test, heard here instead of failing the test."""
    heard: list[str] = []
    monkeypatch.setitem(network_guard._installed, "record", heard.append)
    return heard


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "::1", "localhost", "0.0.0.0",
                                  "::ffff:127.0.0.1", "", None, "api.localhost"])
def test_loopback_hosts(host: str | None) -> None:
    assert network_guard.is_loopback(host)


@pytest.mark.parametrize("host", ["10.0.0.1", "192.0.2.1", "8.8.8.8", "2001:db8::1",
                                  "huggingface.co", "accounts.google.com", "localhost.evil.com"])
def test_other_hosts(host: str) -> None:
    assert not network_guard.is_loopback(host)


def test_a_connection_off_the_machine_is_refused_and_heard(refusals: list[str]) -> None:
    with pytest.raises(OSError, match="network guard refused"):
        socket.create_connection((UNROUTABLE, 80), timeout=1)
    with socket.socket() as sock:
        sock.settimeout(1)
        assert sock.connect_ex((UNROUTABLE, 443)) != 0
    assert refusals == [f"a connection to {UNROUTABLE}:80", f"a connection to {UNROUTABLE}:443"]


def test_a_name_look_up_is_refused_and_heard(refusals: list[str]) -> None:
    with pytest.raises(socket.gaierror, match=r"refused to look up 'huggingface\.co'"):
        socket.getaddrinfo("huggingface.co", 443)
    assert refusals == ["a look-up of 'huggingface.co'"]


def test_reserved_names_fail_to_resolve_without_asking(refusals: list[str]) -> None:
    with pytest.raises(socket.gaierror):
        socket.getaddrinfo("api.example.invalid", 443)
    assert refusals == []


def test_loopback_connections_work(refusals: list[str]) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(("localhost", server.getsockname()[1]), timeout=5):
            pass
    assert refusals == []


def test_the_hubs_are_offline_for_this_process_and_its_children() -> None:
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        assert os.environ[name] == "1"


def test_a_child_python_process_is_guarded_too(tmp_path: Path) -> None:
    log = tmp_path / "child.log"
    code = (f"import socket\ntry:\n    socket.create_connection(({UNROUTABLE!r}, 80), timeout=1)\n"
            "except OSError as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, **{network_guard.LOG_VAR: str(log)}),
                          timeout=60, check=True)
    assert "network guard refused" in done.stdout
    assert log.read_text().startswith(f"a connection to {UNROUTABLE}:80 (pid ")


def test_a_test_that_reaches_out_fails_even_when_it_swallows_the_error(tmp_path: Path) -> None:
    """The guard's pytest hook, in a pytest of its own: the attempt is caught by the code
    under test (as `except Exception: return None` would), the test still fails."""
    for helper in TESTS.glob("*.py"):  # conftest.py and every module it imports
        if not helper.name.startswith("test_"):
            shutil.copy(helper, tmp_path / helper.name)
    shutil.copytree(TESTS / "netguard", tmp_path / "netguard")
    (tmp_path / "test_reach.py").write_text(textwrap.dedent(f"""
        import socket, subprocess, sys

        def quietly(host):
            try:
                socket.create_connection((host, 80), timeout=1)
            except OSError:
                pass

        def test_reaches_out():
            quietly({UNROUTABLE!r})

        def test_child_reaches_out():
            subprocess.run([sys.executable, "-c",
                            "import socket\\ntry: socket.getaddrinfo('example.org', 80)\\n"
                            "except OSError: pass"], check=True)

        def test_stays_home():
            quietly("127.0.0.1")
    """))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
         "-o", "addopts=", "--tb=short", "-W", "ignore", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)
    out = " ".join(done.stdout.split())
    assert "2 failed, 1 passed" in out, out
    assert f"reached for the network (tests stay on loopback): a connection to {UNROUTABLE}" in out
    assert "reached for the network (tests stay on loopback): a look-up of 'example.org'" in out
