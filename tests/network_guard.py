"""No network in tests: connections and name look-ups are allowed on loopback only.

`install(record)` wraps `socket.socket.connect` / `connect_ex` and `socket.getaddrinfo` in
this process: a connection to an address that is not loopback, or a look-up of a name that is
not a loopback name, is refused (an `OSError`, as a real network failure would be, so the code
under test handles it its usual way) and `record` hears what was tried, so that the test
fails naming it (tests/conftest.py). Names under the reserved `.invalid`, `.test`,
`.example` and `.localhost` domains (RFC 2606, RFC 6761) never resolve: they are answered
"no such name" at once, without asking a resolver and without a failure, so tests of DNS
errors stay offline and pass.

Child Python processes inherit the guard through `netguard/sitecustomize.py` (on PYTHONPATH
while tests run), which appends each refused attempt to the file `$FCBENCH_TESTS_NETWORK_LOG`
names. Stdlib only: a fresh interpreter imports this file before anything else.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Callable
from typing import Any

ENABLE_VAR = "FCBENCH_TESTS_NO_NETWORK"
"""Set to 1 while tests run; child processes guard themselves when they see it."""
LOG_VAR = "FCBENCH_TESTS_NETWORK_LOG"
"""The file child processes append refused attempts to (one line each)."""

RESERVED_SUFFIXES = (".invalid", ".test", ".example")
LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")

_installed: dict[str, Any] = {}


def is_loopback(host: Any) -> bool:
    """Whether `host` (a name or an address) stays on this machine."""
    if host is None or host == "" or host == b"":
        return True  # bind-style look-ups of the local host
    name = host.decode() if isinstance(host, bytes) else str(host)
    name = name.strip("[]").rstrip(".").lower().split("%", 1)[0]
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def is_address(host: Any) -> bool:
    """Whether `host` is a numeric address (looking it up asks no resolver)."""
    name = (host.decode() if isinstance(host, bytes) else str(host)).strip("[]").split("%", 1)[0]
    try:
        ipaddress.ip_address(name)
    except ValueError:
        try:  # the C library's other numeric spellings: 127.1, 2130706433, 0x7f.1
            socket.inet_aton(name)
        except (OSError, ValueError):
            return False
    return True


def is_reserved(host: Any) -> bool:
    """Names that can never resolve anywhere (answered locally, never asked)."""
    name = (host.decode() if isinstance(host, bytes) else str(host)).rstrip(".").lower()
    return name.endswith(RESERVED_SUFFIXES) or name in {s[1:] for s in RESERVED_SUFFIXES}


def _target(address: Any) -> tuple[Any, Any] | None:
    """(host, port) of an internet socket address; None for other families (Unix sockets)."""
    if isinstance(address, tuple) and len(address) >= 2:
        return address[0], address[1]
    return None


def install(record: Callable[[str], None]) -> None:
    """Guard this process (once; later calls only change who hears refusals)."""
    _installed["record"] = record
    if "connect" in _installed:
        return
    original_connect = _installed["connect"] = socket.socket.connect
    original_connect_ex = _installed["connect_ex"] = socket.socket.connect_ex
    original_getaddrinfo = _installed["getaddrinfo"] = socket.getaddrinfo

    def refused(what: str) -> OSError:
        _installed["record"](what)
        return OSError(errno.ENETUNREACH,
                       f"the test network guard refused {what} (tests stay on loopback)")

    def leaves(sock: socket.socket, address: Any) -> str | None:
        """What a connection would reach off this machine (None: it stays here)."""
        target = _target(address)
        if target is not None and sock.family in (socket.AF_INET, socket.AF_INET6) and not (
                is_loopback(target[0])):
            return f"a connection to {target[0]}:{target[1]}"
        return None

    def connect(self: socket.socket, address: Any) -> None:
        what = leaves(self, address)
        if what is not None:
            raise refused(what)
        original_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        what = leaves(self, address)
        if what is not None:
            return refused(what).errno or errno.ENETUNREACH
        result: int = original_connect_ex(self, address)
        return result

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if not is_loopback(host) and not is_address(host):
            if is_reserved(host):
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            _installed["record"](f"a look-up of {host!r}")
            raise socket.gaierror(socket.EAI_NONAME,
                                  f"the test network guard refused to look up {host!r}")
        return original_getaddrinfo(host, port, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo


def log_to_file(path: str) -> Callable[[str], None]:
    """A `record` for child processes: one line per refusal, appended to `path`."""
    import os
    import sys

    def record(what: str) -> None:
        try:
            with open(path, "a", encoding="utf-8") as log:
                log.write(f"{what} (pid {os.getpid()}: {' '.join(sys.argv)[:200]})\n")
        except OSError:
            pass

    return record
