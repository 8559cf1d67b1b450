"""Where the web-service functions get their answers: live HTTP, a replay store, or nowhere.

The executable categories call public web services (weather, geocoding, exchange rates,
stock quotes, COVID figures, holidays, IP lookup, movies, products) and the `rest` category
sends arbitrary GET requests. Their answers change over time and need keys, so fcbench
separates *what* a function asks (an `HttpRequest`) from *how* it is answered:

* `live`: real HTTP. Keys come from the environment: `RAPID_API_KEY` (RapidAPI services:
  Urban Dictionary, COVID-19, Amazon product data, Yahoo Finance, timezone-by-location),
  `GEOCODE_API_KEY` (geocode.maps.co), `EXCHANGERATE_API_KEY` (exchangerate-api.com),
  `OMDB_API_KEY` (OMDb). open-meteo, ip-api.com, ziptastic and date.nager.at need no key.
  The `rest` questions carry placeholders (`YOUR-RAPID-API-KEY`; the 2024 data wrote
  `RAPID-API-KEY`) that the official tool replaced with the real keys in the data before
  asking the model; fcbench never shows a key to a model: a placeholder the model copies
  into its request is replaced at the moment the request is sent, and only then. A missing
  key makes the call unavailable (the case is skipped), never a failure. With a replay
  folder, every live answer is also recorded there. `FCBENCH_EXEC_ROUTES` (a JSON object
  `{"https://api.open-meteo.com": "http://127.0.0.1:8000/open-meteo", ...}`) sends requests
  whose URL starts with a key to another place (a mirror, a gateway, a local stand-in);
  recordings and replay keys keep the original URL.
* `replay`: answers come from a folder of recorded responses, one JSON file per request,
  named by a hash of the request (method, URL, sorted query parameters; never the headers,
  which carry keys). A request with no recording is unavailable.
* `offline`: every request is unavailable.

"Unavailable" is the `ServiceUnavailable` exception; the checker turns it into a skipped case
with its reason.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from fcbench import redact
from fcbench._atomic import replace_file

BACKENDS = ("offline", "replay", "live")
KEY_VARIABLES = ("RAPID_API_KEY", "GEOCODE_API_KEY", "EXCHANGERATE_API_KEY", "OMDB_API_KEY")
KEY_HOSTS: dict[str, frozenset[str]] = {
    "RAPID_API_KEY": frozenset({
        "mashape-community-urban-dictionary.p.rapidapi.com", "covid-193.p.rapidapi.com",
        "real-time-amazon-data.p.rapidapi.com", "yahoo-finance15.p.rapidapi.com",
        "timezone-by-location.p.rapidapi.com",
    }),
    "GEOCODE_API_KEY": frozenset({"geocode.maps.co"}),
    "EXCHANGERATE_API_KEY": frozenset({"v6.exchangerate-api.com"}),
    "OMDB_API_KEY": frozenset({"www.omdbapi.com"}),
}
"""The hosts each key belongs to: those the release's web-service functions and `rest`
questions send it to (a test derives them from the data and checks this table). A key is
substituted into a request only when the URL the request names (before `FCBENCH_EXEC_ROUTES`)
is on one of its hosts, at the default port: a host a model chose gets the placeholder."""
LIVE_TIMEOUT = 20.0
LIVE_MAX_BYTES = 10_000_000
"""A live answer's body is read up to this (a `rest` call's URL is the model's choice: an
endless or gigabyte reply must not fill the memory), within LIVE_TIMEOUT in all."""
ROUTES_VARIABLE = "FCBENCH_EXEC_ROUTES"


class ServiceUnavailable(Exception):
    """The request cannot be answered by this backend (offline, no key, not recorded)."""


@dataclass(frozen=True)
class HttpRequest:
    """A GET request as the functions describe it; `headers` never enter the replay key."""

    url: str
    params: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    service: str = "web"
    needs_key: str | None = None

    @classmethod
    def get(
        cls,
        url: str,
        params: dict[str, Any] | None = None,
        headers: dict[str, Any] | None = None,
        service: str = "web",
        needs_key: str | None = None,
    ) -> HttpRequest:
        return cls(url, _pairs(params), _pairs(headers), service, needs_key)

    def key(self) -> str:
        """The replay-store key: a hash of method, URL and sorted query parameters."""
        text = json.dumps(["GET", self.url, sorted(self.params)], ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    def describe(self) -> str:
        query = urllib.parse.urlencode(self.params)
        return f"GET {self.url}" + (f"?{query}" if query else "")


def _pairs(mapping: dict[str, Any] | None) -> tuple[tuple[str, str], ...]:
    if not mapping:
        return ()
    return tuple((str(k), _text(v)) for k, v in mapping.items() if v is not None)


def _text(value: Any) -> str:
    """How `requests` puts a value in a query string (True -> "True", 1.5 -> "1.5")."""
    return value if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class HttpResponse:
    """What the functions read from a response: its status and its body text."""

    status_code: int
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


class ServiceBackend(Protocol):
    name: str

    def get(self, request: HttpRequest) -> HttpResponse: ...


@dataclass
class OfflineServices:
    """Answers nothing: every web-service call makes its case skipped."""

    name: str = "offline"

    def get(self, request: HttpRequest) -> HttpResponse:
        raise ServiceUnavailable(
            f"needs the {request.service} web service ({request.describe()}); "
            "exec backend is offline"
        )


@dataclass
class ReplayServices:
    """Answers from recorded responses in `folder` (`<key>.json` per request)."""

    folder: Path
    name: str = "replay"

    def get(self, request: HttpRequest) -> HttpResponse:
        path = self.folder / f"{request.key()}.json"
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ServiceUnavailable(
                f"no recorded response for {request.describe()} in {self.folder}"
            ) from None
        except (OSError, ValueError) as exc:
            raise ServiceUnavailable(f"unreadable recording {path}: {exc}") from None
        return HttpResponse(int(record["status_code"]), str(record["text"]))

    def record(self, request: HttpRequest, response: HttpResponse) -> None:
        record = {
            "request": {"url": request.url, "params": [list(p) for p in request.params]},
            "status_code": response.status_code,
            "text": response.text,
        }
        payload = json.dumps(record, ensure_ascii=False, indent=1).encode("utf-8")
        try:  # several evaluation workers may record the same request at once
            replace_file(self.folder / f"{request.key()}.json", payload)
        except OSError as exc:
            raise ServiceUnavailable(f"cannot record the answer in {self.folder}: {exc}") from None


@dataclass
class LiveServices:
    """Real HTTP GETs; records every answer when a replay folder is given."""

    record_to: Path | None = None
    environ: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    name: str = "live"

    def get(self, request: HttpRequest) -> HttpResponse:
        if request.needs_key and not self.environ.get(request.needs_key):
            raise MissingKey(request.needs_key, request.service)
        if "geocode.maps.co" in request.url and routed(request.url, self.environ) == request.url:
            time.sleep(2)  # the service's free-tier rate limit, as the original (not routed)
        response = self._fetch(request)
        if self.record_to is not None:
            ReplayServices(self.record_to).record(request, response)
        return response

    def _fetch(self, request: HttpRequest) -> HttpResponse:
        keys = keys_for(request.url)
        params = [(k, self._with_keys(v, keys)) for k, v in request.params]
        query = urllib.parse.urlencode(params)
        url = self._with_keys(routed(request.url, self.environ), keys)
        url += ("&" if "?" in url else "?") + query if query else ""
        headers = {k: self._with_keys(v, keys) for k, v in request.headers}
        http = urllib.request.Request(url, headers=headers, method="GET")
        try:
            with urllib.request.urlopen(http, timeout=LIVE_TIMEOUT) as reply:
                return _answer(reply.status, _bounded_body(reply, request))
        except urllib.error.HTTPError as exc:
            return _answer(exc.code, _bounded_body(exc, request))
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise ServiceUnavailable(f"{request.describe()}: {redact.text(str(exc))}") from None

    def _with_keys(self, value: str, variables: Iterable[str]) -> str:
        """Key tokens (`${RAPID_API_KEY}`...) and the dataset's placeholders of `variables`
        become the real keys, only here, so keys never reach a recording (or a model)."""
        for variable in variables:
            key = self.environ.get(variable)
            if key:
                for stand_in in (key_token(variable), *placeholders(variable)):
                    value = value.replace(stand_in, key)
        return value


def _bounded_body(reply: Any, request: HttpRequest) -> bytes:
    """The body a chunk at a time (`read1`: what has come, so a drip cannot hold a read);
    ServiceUnavailable past LIVE_MAX_BYTES or LIVE_TIMEOUT in all."""
    ends = time.monotonic() + LIVE_TIMEOUT
    read = getattr(reply, "read1", reply.read)
    pieces: list[bytes] = []
    size = 0
    while piece := read(1 << 16):
        size += len(piece)
        if size > LIVE_MAX_BYTES:
            raise ServiceUnavailable(f"{request.describe()}: the answer is larger than the "
                                     f"{LIVE_MAX_BYTES:,}-byte cap; not read")
        if time.monotonic() > ends:
            raise ServiceUnavailable(f"{request.describe()}: no complete answer within "
                                     f"{LIVE_TIMEOUT:g} s")
        pieces.append(piece)
    return b"".join(pieces)


def keys_for(url: str) -> tuple[str, ...]:
    """The key variables that may be sent with a request to `url`: those whose API lives on
    its host (`KEY_HOSTS`; exact host name, default port, no userinfo), else none."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        return ()
    if parts.username is not None or parts.password is not None or port is not None:
        return ()
    host = (parts.hostname or "").lower()
    return tuple(v for v in KEY_VARIABLES if host in KEY_HOSTS[v])


def _answer(status: int, body: bytes) -> HttpResponse:
    """A response as the functions read it; a service that echoes the key back (some put
    the request URL in an error) does not pass it on to results or recordings."""
    return HttpResponse(status, redact.values(body.decode("utf-8", "replace")))


class MissingKey(ServiceUnavailable):
    """The live backend has no key for the service (`variable` is not set)."""

    def __init__(self, variable: str, service: str) -> None:
        super().__init__(f"needs the {service} web service, but {variable} is not set")
        self.variable = variable


def key_token(variable: str) -> str:
    """The stand-in for an API key inside a request (replaced by the live backend)."""
    return "${" + variable + "}"


def placeholders(variable: str) -> tuple[str, str]:
    """The dataset's stand-ins for a key: today's `YOUR-RAPID-API-KEY` and 2024's
    `RAPID-API-KEY` (longest first, so that replacing one never leaves half of the other)."""
    dashed = variable.replace("_", "-")
    return f"YOUR-{dashed}", dashed


def key_named_in(texts: Iterable[str]) -> str | None:
    """The key variable whose placeholder (or token) appears in one of the texts, if any."""
    for text in texts:
        for variable in KEY_VARIABLES:
            if key_token(variable) in text or placeholders(variable)[1] in text:
                return variable
    return None


def routed(url: str, environ: Mapping[str, str]) -> str:
    """Where a live request really goes: the longest `FCBENCH_EXEC_ROUTES` prefix that the
    URL starts with, replaced (the URL itself when no route matches or none is set)."""
    routes = _routes(environ.get(ROUTES_VARIABLE, ""))
    for prefix in sorted(routes, key=len, reverse=True):
        if url.startswith(prefix):
            return routes[prefix] + url[len(prefix):]
    return url


def _routes(text: str) -> dict[str, str]:
    if not text.strip():
        return {}
    try:
        routes = json.loads(text)
    except ValueError:
        raise ServiceUnavailable(f"{ROUTES_VARIABLE} is not a JSON object") from None
    if not isinstance(routes, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in routes.items()
    ):
        raise ServiceUnavailable(f"{ROUTES_VARIABLE} must map URL prefixes to URL prefixes")
    return routes


def make_backend(name: str, replay_dir: Path | None = None) -> ServiceBackend:
    """The backend a `--exec-backend` value names."""
    if name == "offline":
        return OfflineServices()
    if name == "replay":
        if replay_dir is None:
            raise ValueError("the replay backend needs a folder of recorded responses")
        return ReplayServices(Path(replay_dir))
    if name == "live":
        return LiveServices(Path(replay_dir) if replay_dir is not None else None)
    raise ValueError(f"unknown exec backend {name!r} (choose from {', '.join(BACKENDS)})")
