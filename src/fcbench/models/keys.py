"""API keys: a missing one is said at once, naming the variable, not after a minute of 401s.

A server on this machine (vLLM, SGLang, Ollama, a test double) usually takes no key, so none
is needed for loopback endpoints (`localhost`, `127.0.0.0/8`, `::1`); every other endpoint,
and the Anthropic and Gemini APIs by default, needs the key variable set. Without this the
OpenAI client would send `Bearer EMPTY` and every case would fail with 401.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback(url: str) -> bool:
    """Whether `url` points at this machine (an empty URL is the vendor's default: no)."""
    host = urlsplit(url if "//" in url else f"//{url}").hostname or ""
    if not host:
        return False
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def missing_key(
    api_key: str | None, variable: str | None, urls: Sequence[str], default_endpoint: str = ""
) -> str | None:
    """The one-line complaint when a key is needed and absent (None when all is well)."""
    if api_key or not variable:
        return None
    remote = [u or default_endpoint for u in (urls or [""]) if not is_loopback(u)]
    if not remote:
        return None
    return (f"no API key for {remote[0]}: set {variable} (or name another variable with "
            "--api-key-env)")
