"""A base URL checked when it is given, not when the first connection fails.

Why: `--base-url http://127.0.0.1:99999/v1` reached the socket layer and ended in an
`OverflowError` traceback; `ftp://x/v1` or `localhost:8000/v1` got as far as the key check
or the preflight, whose messages blame something else. A URL is usable when its scheme is
http or https, it names a host, and its port (if any) is a number from 1 to 65535; anything
else is one line naming where the URL came from (the flag or the variable).

The URL in that line is shown with its userinfo and its query masked whole (a password or
a `?key=` must never be printed, and a malformed URL may not split the way `redact` expects),
then passed through `redact.text` for any known secret left.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Sequence

from fcbench import redact

__all__ = ["BadBaseURL", "check_base_url", "endpoint_urls", "shown"]

SCHEMES = frozenset({"http", "https"})
EXAMPLE = "http://localhost:8000/v1"
_CONTROL = re.compile(r"[\x00-\x20\x7f]")


class BadBaseURL(ValueError):
    """A base URL that no request could be sent to (one line, secrets masked)."""


def shown(url: str) -> str:
    """`url` fit to print: everything from `//` (or the start, without one) to the last `@`
    replaced by `***@` (a typed password may hold `/`, `?` or `@`), then the query and
    fragment by `?***`; found without parsing, so that a URL too broken to parse is masked
    too (over-masking beats a leak)."""
    head, slashes, rest = url.partition("//")
    if not slashes:  # `user:pw@host:8000/v1`: no scheme, the userinfo is still one
        head, rest = "", url
    if "@" in rest:
        rest = redact.MASK + "@" + rest.rpartition("@")[2]
    cuts = [i for i in (rest.find("?"), rest.find("#")) if i >= 0]
    if cuts:
        rest = rest[: min(cuts)] + "?" + redact.MASK
    return redact.text(head + slashes + rest)


def check_base_url(url: str, where: str) -> str:
    """`url` when requests can be sent to it; BadBaseURL naming `where` (`--base-url`,
    `OPENAI_BASE_URL`) and the reason otherwise."""
    reason = _problem(url)
    if reason is None:
        return url
    raise BadBaseURL(f"{where} {shown(url)}: {reason} (expected http(s)://host[:port]/path, "
                     f"e.g. {EXAMPLE})")


def _problem(url: str) -> str | None:
    """What is wrong with `url` (None: nothing)."""
    if not url:
        return "empty"
    if _CONTROL.search(url):
        return "it holds a space or a control character"
    if "://" not in url:
        return "no http:// or https:// before the host"
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:  # an unclosed IPv6 bracket, say
        return f"not a URL ({exc})"
    if parts.scheme.lower() not in SCHEMES:
        named = f"the scheme {parts.scheme!r}" if parts.scheme else "no scheme"
        return f"{named}: only http and https are served"
    if not parts.hostname:
        return "no host"
    try:
        port = parts.port
    except ValueError:
        return "the port is not a number from 1 to 65535"
    if port == 0:
        return "the port is not a number from 1 to 65535"
    return None


def endpoint_urls(given: Sequence[str], variable: str = "OPENAI_BASE_URL") -> list[str]:
    """The base URLs a backend uses: those given (`--base-url`), else the variable's value,
    each checked (BadBaseURL naming where it came from); empty when there is neither."""
    if given:
        return [check_base_url(url, "--base-url") for url in given]
    value = os.environ.get(variable)
    return [check_base_url(value, variable)] if value else []
