"""One bounded HTTP GET: the host policy, redirects followed by hand, a deadline, a size cap.

Shared by the two environments that send requests a model chose: the web-search page
fetcher (`web_search.pages`) and the executable categories' live backend
(`exec_functions.backends`). Why each piece:

* **Host policy.** A model chooses the URLs, and what it reads ends up in its context and
  in shareable records, so an internal address (`localhost/secret`, a cloud metadata
  service at 169.254.169.254, a router on 192.168.x.x) must not be asked. A name is
  resolved, every address it resolves to is checked, and the connection goes to a checked
  address (a name that resolves differently a second time cannot slip through). Only global
  unicast addresses pass, unless `allow_private`, or the host and port are `trusted` (the
  operator named them, e.g. a local mirror in `FCBENCH_EXEC_ROUTES`).
* **Through a proxy** (`HTTP_PROXY`, `HTTPS_PROXY`, ... as `requests` reads them) the proxy
  resolves and connects, so the name is checked here first: a name that does not resolve
  locally (`metadata.google.internal`, `internal.corp`) or resolves to a refused address is
  refused; one that resolves to public addresses is sent to the proxy, which resolves it
  again (a proxy's resolver that disagrees with this host's is the operator's to trust).
  `localhost` and loopback addresses (allowed ones: a local mirror) never go through it.
* **Redirects by hand.** `requests` would follow a redirect to an internal host before
  anyone could look; here each hop is checked like the first, and headers that carry a
  credential are dropped once a hop leaves the first URL's origin (as browsers and httpx
  drop Authorization).
* **Deadline.** The timeout is per read; a watchdog shuts the fetch's sockets down (to the
  proxy too) when the whole fetch has taken `deadline` seconds, which ends a read blocked
  on a drip.
* **Size cap.** The body is read in pieces, decoded by urllib3 in bounded pieces, and
  counted; past the cap the fetch stops.

A page's text is then what `requests` makes of the same bytes (`Response.text`), so a normal
page reads exactly as under the official tool.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass
from types import TracebackType
from typing import Any
from urllib.parse import SplitResult, urljoin, urlsplit

__all__ = ["Fetch", "Overdue", "Policy", "Refused", "TooLarge", "refusal", "resolve"]


class Refused(Exception):
    """A request that is not sent or not read to its end: an address the host policy
    refuses, a body over the cap, a fetch over its deadline. The message is the tool's
    error text."""


class AddressRefused(Refused):
    """The host policy refused the address (or, through a proxy, an unresolvable name)."""


class TooLarge(Refused):
    """The body is over the cap (as announced, as sent or once decoded)."""


class Overdue(Refused):
    """The whole fetch took longer than its deadline."""


CHUNK = 1 << 16
"""Bytes asked of urllib3 per read (it decodes gzip, deflate and br in pieces this size)."""

CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})
"""Headers dropped, with the caller's own secret ones, when a redirect leaves the origin."""


@dataclass(frozen=True)
class Policy:
    """Who may be asked, and how a refusal reads (each environment names its own opt-in)."""

    allow_private: bool = False
    trusted: frozenset[tuple[str, int]] = frozenset()
    """(host, port) pairs asked whatever they resolve to: addresses the operator named."""
    refused: str = ("pages on loopback, private, link-local and metadata addresses are not "
                    "fetched")
    opt_in: str = "--web-allow-private allows them"
    noun: str = "page"

    def allows_any(self, host: str, port: int) -> bool:
        """True when `host:port` is asked without looking at its addresses."""
        return self.allow_private or (host.lower().rstrip("."), port) in self.trusted


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to here (socket.gaierror when it does not); one place,
    so that tests can resolve names without a network."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


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

    def __init__(self, policy: Policy, deadline: float) -> None:
        import requests

        self.policy = policy
        self.deadline = deadline
        self.ends = time.monotonic() + deadline
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(deadline, self._expire)
        self._timer.daemon = True
        self.session = requests.Session()
        adapter = _adapter(self)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)

    def __enter__(self) -> Fetch:
        self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._timer.cancel()
        self.session.close()
        if exc is not None and not isinstance(exc, Refused) and self.past_deadline():
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
        addresses = resolve(host, port)
        if not self.policy.allows_any(host, port):
            for address in addresses:
                why = refusal(address)
                if why is not None:
                    shown = host if host == address else f"{host} resolves to {address},"
                    raise self._refused(f"{shown} {why}")
        return addresses[0]

    def _refused(self, what: str) -> AddressRefused:
        return AddressRefused(f"refused: {what}; {self.policy.refused} ({self.policy.opt_in})")

    def check_url(self, url: str) -> None:
        """Refuse a URL whose host the policy refuses, before asking it anything. Without a
        proxy a name that does not resolve fails as the request would; through one it is
        refused, since the proxy would resolve it where this host cannot look."""
        parts = urlsplit(url)
        if parts.hostname is None or parts.scheme not in ("http", "https"):
            return  # requests says what is wrong with it
        try:
            port = _port(parts)
        except ValueError:
            return
        try:
            self.checked_address(parts.hostname, port)
        except (OSError, UnicodeError):
            if self.proxy_for(url) is not None and not self.policy.allows_any(parts.hostname,
                                                                              port):
                raise self._refused(f"{parts.hostname} does not resolve here, and through the "
                                    "proxy it could reach an internal host") from None
            # does not resolve, no proxy: the request fails with its usual message

    def proxy_for(self, url: str) -> str | None:
        """The proxy `requests` would send `url` through (from the environment), or None."""
        from requests.utils import select_proxy

        if on_this_host(url):
            return None
        settings = self.session.merge_environment_settings(url, {}, None, None, None)
        proxy: str | None = select_proxy(url, settings["proxies"])
        return proxy

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
        """Seconds left; Overdue when none are."""
        left = self.ends - time.monotonic()
        if left <= 0 or self.expired:
            raise self.overdue()
        return left

    def overdue(self) -> Overdue:
        return Overdue(f"the {self.policy.noun} took longer than {self.deadline:g} s in all; "
                       "stopped")

    # ------------------------------------------------------------------ the fetch

    def get_following_redirects(
        self, url: str, headers: dict[str, str], timeout: float, max_redirects: int,
        secret_headers: Collection[str] = (),
    ) -> Any:
        """The first response that is not a redirect (body not read yet), each hop checked.

        Redirects are followed as `requests` follows them for a GET (relative and
        scheme-relative locations, the fragment kept, cookies kept in the session). When a
        hop goes to another origin than the one before, `secret_headers` and the credential
        headers are dropped for the rest of the way (a key sent to its API's host must not
        follow that host's redirect elsewhere)."""
        import requests

        fragment = ""
        dropped = {name.lower() for name in secret_headers} | CREDENTIAL_HEADERS
        previous = url
        for _ in range(max_redirects + 1):
            self.check_url(url)
            if not same_origin(previous, url):
                headers = {k: v for k, v in headers.items() if k.lower() not in dropped}
            wait = min(timeout, self.remaining())
            direct = _NO_PROXY if on_this_host(url) else None
            response = self.session.get(url, headers=headers, timeout=wait, proxies=direct,
                                        allow_redirects=False, stream=True)
            location = self.session.get_redirect_target(response)
            if location is None:
                return response
            response.close()
            previous = response.url
            url, fragment = _next_url(response.url, location, fragment)
        raise requests.TooManyRedirects(f"Exceeded {max_redirects} redirects.")

    def body(self, response: Any, max_bytes: int) -> bytes:
        """The body's bytes (decoded from gzip, deflate, br), read under the cap and the
        deadline."""
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            response.close()
            raise self._too_large(max_bytes, f"it announces {int(declared):,} bytes")
        pieces: list[bytes] = []
        size = 0
        try:
            for piece in response.iter_content(CHUNK):
                size += len(piece)
                if size > max_bytes:
                    raise self._too_large(max_bytes, f"more than {max_bytes:,} bytes")
                pieces.append(piece)
                self.remaining()
        finally:
            response.close()
        self.remaining()
        return b"".join(pieces)

    def text(self, response: Any, max_bytes: int) -> str:
        """The body, read under the cap and the deadline, as `response.text` decodes it."""
        response._content = self.body(response, max_bytes)  # what `requests` would have read
        response._content_consumed = True
        text: str = response.text
        return text

    def _too_large(self, max_bytes: int, detail: str) -> TooLarge:
        return TooLarge(f"the {self.policy.noun} is larger than the {max_bytes:,}-byte cap "
                        f"({detail}); not read")


_NO_PROXY: Any = {"http": None, "https": None, "all": None}
"""`proxies` for a request that must go direct: `requests` drops the environment's proxy
for a scheme set to None (its stubs type the values as str only)."""


def on_this_host(url: str) -> bool:
    """True for `localhost` and loopback addresses: asked directly, never through a proxy
    (the proxy's loopback is not this host's: a local mirror would be missed, and the
    proxy's own local services reached instead)."""
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    return host == "localhost" or host.endswith(".localhost") or \
        refusal(host) == "a loopback address"


def _port(parts: SplitResult) -> int:
    """The URL's port, the scheme's default when none is written (ValueError when bad)."""
    return parts.port or (443 if parts.scheme == "https" else 80)


def same_origin(first: str, then: str) -> bool:
    """True when `then` is on `first`'s host and port (an upgrade from http to https on the
    default ports counts as the same, as httpx has it)."""
    a, b = urlsplit(first), urlsplit(then)
    try:
        ports = (_port(a), _port(b))
    except ValueError:
        return False
    if (a.hostname or "").lower() != (b.hostname or "").lower():
        return False
    if a.scheme == b.scheme:
        return ports[0] == ports[1]
    return (a.scheme, b.scheme) == ("http", "https") and ports == (80, 443)


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


def _adapter(fetch: Fetch) -> Any:
    """A `requests` adapter whose direct connections go through the fetch's policy and whose
    connections to an HTTP proxy are tracked for the deadline (the proxy is the operator's
    own; the name it is asked for was checked by `check_url`)."""
    import requests

    class Adapter(requests.adapters.HTTPAdapter):
        def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
            manager = super().proxy_manager_for(proxy, **proxy_kwargs)
            if not proxy.lower().startswith("socks"):  # SOCKS pools connect their own way
                manager.pool_classes_by_scheme = _guarded_pools(fetch, checked=False)
            return manager

    adapter = Adapter()
    adapter.poolmanager.pool_classes_by_scheme = _guarded_pools(fetch, checked=True)
    return adapter


def _guarded_pools(fetch: Fetch, checked: bool) -> dict[str, Any]:
    """urllib3 pool classes whose connections register their socket for the deadline's
    watchdog and, when `checked`, resolve through the fetch's policy and connect to the
    checked address."""
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    def subclass(base: type, **members: Any) -> type:
        # the base's own name: error texts a model reads name these classes, as upstream
        return type(base.__name__, (base,), members)

    members = {"fetch": fetch, "checked": checked, "_new_conn": _new_conn}
    http = subclass(HTTPConnection, **members)
    https = subclass(HTTPSConnection, **members)
    return {"http": subclass(HTTPConnectionPool, ConnectionCls=http),
            "https": subclass(HTTPSConnectionPool, ConnectionCls=https)}


def _new_conn(self: Any) -> socket.socket:
    """urllib3's `_new_conn` for a guarded connection: the same errors for the same
    failures, but the socket goes to an address the policy checked (or to the proxy)."""
    from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError
    from urllib3.util import connection

    fetch: Fetch = self.fetch
    try:
        address = fetch.checked_address(self._dns_host, self.port) if self.checked \
            else self._dns_host
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
