"""Where the web-service functions get their answers: live HTTP, a replay store, or nowhere.

The executable categories call public web services (weather, geocoding, exchange rates,
stock quotes, COVID figures, holidays, IP lookup, movies, products) and the `rest` category
sends arbitrary GET requests. Their answers change over time and need keys, so fcbench
separates *what* a function asks (an `HttpRequest`) from *how* it is answered:

* `live`: real HTTP. Keys come from the environment: `RAPID_API_KEY` (RapidAPI services:
  Urban Dictionary, COVID-19, Amazon product data, Yahoo Finance, timezone-by-location, and
  the `rest` requests' `YOUR-RAPID-API-KEY` placeholders), `GEOCODE_API_KEY`
  (geocode.maps.co), `EXCHANGERATE_API_KEY` (exchangerate-api.com), `OMDB_API_KEY` (OMDb).
  open-meteo, ip-api.com, ziptastic and date.nager.at need no key. A missing key makes the
  call unavailable (the case is skipped), never a failure. With a replay folder, every live
  answer is also recorded there.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

BACKENDS = ("offline", "replay", "live")
KEY_VARIABLES = ("RAPID_API_KEY", "GEOCODE_API_KEY", "EXCHANGERATE_API_KEY", "OMDB_API_KEY")
LIVE_TIMEOUT = 20.0


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
        self.folder.mkdir(parents=True, exist_ok=True)
        record = {
            "request": {"url": request.url, "params": [list(p) for p in request.params]},
            "status_code": response.status_code,
            "text": response.text,
        }
        path = self.folder / f"{request.key()}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
        tmp.replace(path)


@dataclass
class LiveServices:
    """Real HTTP GETs; records every answer when a replay folder is given."""

    record_to: Path | None = None
    environ: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    name: str = "live"

    def get(self, request: HttpRequest) -> HttpResponse:
        if request.needs_key and not self.environ.get(request.needs_key):
            raise ServiceUnavailable(
                f"needs the {request.service} web service, but {request.needs_key} is not set"
            )
        if "geocode.maps.co" in request.url:
            time.sleep(2)  # the service's free tier rate limit, as the original did
        response = self._fetch(request)
        if self.record_to is not None:
            ReplayServices(self.record_to).record(request, response)
        return response

    def _fetch(self, request: HttpRequest) -> HttpResponse:  # pragma: no cover - network
        params = [(k, self._with_keys(v)) for k, v in request.params]
        query = urllib.parse.urlencode(params)
        url = self._with_keys(request.url)
        url += ("&" if "?" in url else "?") + query if query else ""
        headers = {k: self._with_keys(v) for k, v in request.headers}
        http = urllib.request.Request(url, headers=headers, method="GET")
        try:
            with urllib.request.urlopen(http, timeout=LIVE_TIMEOUT) as reply:
                return HttpResponse(reply.status, reply.read().decode("utf-8", "replace"))
        except urllib.error.HTTPError as exc:
            return HttpResponse(exc.code, exc.read().decode("utf-8", "replace"))
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise ServiceUnavailable(f"{request.describe()}: {exc}") from None

    def _with_keys(self, value: str) -> str:
        """Key tokens (`${RAPID_API_KEY}`...) and the dataset's `YOUR-RAPID-API-KEY`
        placeholder become the real keys, only here, so keys never reach a recording."""
        for variable in KEY_VARIABLES:
            value = value.replace(key_token(variable), self.environ.get(variable, ""))
        key = self.environ.get("RAPID_API_KEY")
        return key if key and value == "YOUR-RAPID-API-KEY" else value


def key_token(variable: str) -> str:
    """The stand-in for an API key inside a request (replaced by the live backend)."""
    return "${" + variable + "}"


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
