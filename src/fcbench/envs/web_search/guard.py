"""One bounded page fetch: the host policy, redirects followed by hand, a deadline, a size cap.

Why each piece:

* **Host policy.** A model chooses the URLs, and a page it reads ends up in its context and
  in the shareable web record, so an internal address (`localhost/secret`, a cloud metadata
  service at 169.254.169.254, a router on 192.168.x.x) must not be fetched. A name is
  resolved, every address it resolves to is checked, and the connection goes to a checked
  address (a name that resolves differently a second time cannot slip through). Only global
  unicast addresses pass, unless `allow_private`.
* **Redirects by hand.** `requests` would follow a redirect to an internal host before
  anyone could look; here each hop is checked like the first.
* **Deadline.** The 20 s timeout is per read; a watchdog shuts the fetch's sockets down
  when the whole fetch has taken `deadline` seconds, which ends a read blocked on a drip.
* **Size cap.** The body is read in pieces, decoded by urllib3 in bounded pieces, and
  counted; past the cap the fetch stops.

The page's text is then what `requests` makes of the same bytes (`Response.text`), so a
normal page reads exactly as under the official tool.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
from types import TracebackType
from typing import Any
from urllib.parse import urljoin, urlsplit

__all__ = ["Fetch", "PageRefused", "refusal"]


class PageRefused(Exception):
    """A page that is not fetched or not read to its end: an address the host policy refuses,
    a body over the cap, a fetch over its deadline. The message is the tool's error text."""

CHUNK = 1 << 16
"""Bytes asked of urllib3 per read (it decodes gzip, deflate and br in pieces this size)."""


def refusal(address: str) -> str | None:
    """Why an address is not fetched by default, or None for a global unicast address."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address (cloud metadata services live there)"
    if ip.is_private:
        return "a private address"
    if ip.is_multicast or ip.is_unspecified or ip.is_reserved or not ip.is_global:
        return "not a public address"
    return None


class Fetch:
    """One fetch's session, deadline and sockets; a context manager (closes everything)."""

    def __init__(self, allow_private: bool, deadline: float) -> None:
        import requests

        self.allow_private = allow_private
        self.deadline = deadline
        self.ends = time.monotonic() + deadline
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(deadline, self._expire)
        self._timer.daemon = True
        self.session = requests.Session()
        adapter = requests.adapters.HTTPAdapter()
        adapter.poolmanager.pool_classes_by_scheme = _guarded_pools(self)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)

    def __enter__(self) -> Fetch:
        self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._timer.cancel()
        self.session.close()
        if exc is not None and not isinstance(exc, PageRefused) and self.past_deadline():
            raise self.overdue() from None  # a read broken off by the watchdog: say why

    def past_deadline(self) -> bool:
        """Whether the deadline has come, by the watchdog or by the clock. Both count: a
        read's timeout is the time left (`get_following_redirects`), so it ends at the
        deadline too, and on a loaded machine it can fire before the watchdog's thread gets
        to run; the failure is the deadline's either way."""
        return self.expired or time.monotonic() >= self.ends

    # ------------------------------------------------------------------ the policy

    def checked_address(self, host: str, port: int) -> str:
        """An address to connect to for `host`, after every address it resolves to passed
        the policy (socket.gaierror when it does not resolve, as a connection would)."""
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        addresses = [str(info[4][0]) for info in infos]
        if not self.allow_private:
            for address in addresses:
                why = refusal(address)
                if why is not None:
                    shown = host if host == address else f"{host} resolves to {address},"
                    raise PageRefused(
                        f"refused: {shown} {why}; pages on loopback, private, link-local and "
                        "metadata addresses are not fetched (--web-allow-private allows them)"
                    )
        return addresses[0]

    def check_url(self, url: str) -> None:
        """Refuse a URL whose host the policy refuses, before asking it anything."""
        parts = urlsplit(url)
        if parts.hostname is None or parts.scheme not in ("http", "https"):
            return  # requests says what is wrong with it
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            self.checked_address(parts.hostname, port)
        except (OSError, UnicodeError):
            return  # does not resolve: the request fails with its usual message

    # ------------------------------------------------------------------ the deadline

    def track(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def remaining(self) -> float:
        """Seconds left; PageRefused when none are."""
        left = self.ends - time.monotonic()
        if left <= 0 or self.expired:
            raise self.overdue()
        return left

    def overdue(self) -> PageRefused:
        return PageRefused(f"the page took longer than {self.deadline:g} s in all; stopped")

    # ------------------------------------------------------------------ the fetch

    def get_following_redirects(
        self, url: str, headers: dict[str, str], timeout: float, max_redirects: int
    ) -> Any:
        """The first response that is not a redirect (body not read yet), each hop checked.

        Redirects are followed as `requests` follows them for a GET (relative and
        scheme-relative locations, the fragment kept, cookies kept in the session)."""
        import requests

        fragment = ""
        for _ in range(max_redirects + 1):
            self.check_url(url)
            wait = min(timeout, self.remaining())
            response = self.session.get(url, headers=headers, timeout=wait,
                                        allow_redirects=False, stream=True)
            location = self.session.get_redirect_target(response)
            if location is None:
                return response
            response.close()
            url, fragment = _next_url(response.url, location, fragment)
        raise requests.TooManyRedirects(f"Exceeded {max_redirects} redirects.")

    def text(self, response: Any, max_bytes: int) -> str:
        """The body, read under the cap and the deadline, as `response.text` decodes it."""
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            response.close()
            raise _too_large(max_bytes, f"it announces {int(declared):,} bytes")
        pieces: list[bytes] = []
        size = 0
        try:
            for piece in response.iter_content(CHUNK):
                size += len(piece)
                if size > max_bytes:
                    raise _too_large(max_bytes, f"more than {max_bytes:,} bytes")
                pieces.append(piece)
                self.remaining()
        finally:
            response.close()
        self.remaining()
        response._content = b"".join(pieces)  # what `requests` would have read
        response._content_consumed = True
        text: str = response.text
        return text


def _too_large(max_bytes: int, detail: str) -> PageRefused:
    return PageRefused(f"the page is larger than the {max_bytes:,}-byte cap ({detail}); "
                       "not read")


def _next_url(current: str, location: str, fragment: str) -> tuple[str, str]:
    """(the next hop's URL, the fragment carried on) for a Location header."""
    from requests.utils import requote_uri

    if location.startswith("//"):
        location = f"{urlsplit(current).scheme}:{location}"
    parts = urlsplit(location)
    if parts.fragment:
        fragment = parts.fragment
    elif fragment:
        parts = parts._replace(fragment=fragment)
    target = parts.geturl()
    if not parts.netloc:
        return urljoin(current, requote_uri(target)), fragment
    return requote_uri(target), fragment


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)


def _guarded_pools(fetch: Fetch) -> dict[str, Any]:
    """urllib3 pool classes whose connections resolve through the fetch's policy, connect to
    the checked address, and register their socket for the deadline's watchdog."""
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    def subclass(base: type, **members: Any) -> type:
        # the base's own name: error texts a model reads name these classes, as upstream
        return type(base.__name__, (base,), members)

    http = subclass(HTTPConnection, fetch=fetch, _new_conn=_new_conn)
    https = subclass(HTTPSConnection, fetch=fetch, _new_conn=_new_conn)
    return {"http": subclass(HTTPConnectionPool, ConnectionCls=http),
            "https": subclass(HTTPSConnectionPool, ConnectionCls=https)}


def _new_conn(self: Any) -> socket.socket:
    """urllib3's `_new_conn` for a guarded connection: the same errors for the same
    failures, but the socket goes to an address the policy checked."""
    from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError
    from urllib3.util import connection

    fetch: Fetch = self.fetch
    try:
        address = fetch.checked_address(self._dns_host, self.port)
        sock = connection.create_connection((address, self.port), self.timeout,
                                            source_address=self.source_address,
                                            socket_options=self.socket_options)
    except socket.gaierror as exc:
        raise NameResolutionError(self.host, self, exc) from exc
    except TimeoutError as exc:
        raise ConnectTimeoutError(self, f"Connection to {self.host} timed out. (connect "
                                        f"timeout={self.timeout})") from exc
    except OSError as exc:
        raise NewConnectionError(self, f"Failed to establish a new connection: {exc}") from exc
    fetch.track(sock)
    return sock
