"""Secrets out of every text fcbench keeps or shows: the one redaction layer.

fcbench holds keys (the backends' and web providers' API keys, the executable categories'
web-API keys, a key named by `--api-key-env`, credentials written into a `--base-url`), and
texts that were never meant to carry them end up carrying them: an HTTP library's exception
names the URL it failed on, query string and all; a server log echoes its command line. So
every sink (the console, result and score files, the web record, the response cache,
`model.json`, reports, the serve log) and every text sent to a model passes through here.

Two strengths, because not every text may be rewritten alike:

* `values(text)`: only the secret values themselves (each known key variable's value, and
  values registered with `add_secret`) are replaced, wherever they appear verbatim (also
  percent-encoded or JSON-escaped). This is what data sinks use (result and score files, the
  web record, the cache, reports): a model's answer that merely *looks* like a credential
  (`requests.get(url='...?api_key=YOUR-RAPID-API-KEY')`, a `rest` answer) must stay byte for
  byte, or verdicts would change; a real key value is never in ordinary output.
* `text(message)`: `values`, plus anything shaped like a credential: the password of a URL's
  userinfo, `api_key=` / `key=` / `token=`-like query parameters of any URL, `Authorization`
  / `x-api-key`-like headers, `--api-key X`-like arguments. This is what messages use:
  errors, warnings, progress lines, exception texts, serve-log headers, manifests.

Values shorter than `MIN_SECRET_LENGTH` are not treated as keys (`EMPTY`, `none`, `dummy`:
what local servers are given), since replacing them everywhere would rewrite ordinary text.

This module imports nothing of fcbench: every layer may use it.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import logging
import os
import re
import sys
import threading
import urllib.parse
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

__all__ = [
    "KEY_VARIABLES",
    "MASK",
    "MIN_SECRET_LENGTH",
    "URL_VARIABLES",
    "add_secret",
    "add_secrets_of_url",
    "add_variable",
    "console",
    "credentials_of_url",
    "format_exception",
    "guarded_logger",
    "secrets",
    "text",
    "url",
    "values",
]

MASK = "***"
"""What a secret is replaced with."""

MIN_SECRET_LENGTH = 8
"""Shorter values are placeholders (`EMPTY`, `dummy`), not keys: never replaced verbatim."""

KEY_VARIABLES: tuple[str, ...] = (
    # the backends' key variables (models.registry)
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY",
    # the providers' key variables (models.providers)
    "MISTRAL_API_KEY", "TOGETHER_API_KEY", "FIREWORKS_API_KEY", "GROQ_API_KEY",
    "DEEPSEEK_API_KEY", "OPENROUTER_API_KEY", "VLLM_API_KEY", "VIVO_API_KEY",
    # what LiteLLM reads for the APIs with their own auth (--backend litellm)
    "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK", "AZURE_API_KEY",
    "AZURE_OPENAI_API_KEY", "AZURE_AI_API_KEY", "GEMINI_API_KEY", "VERTEXAI_API_KEY",
    "COHERE_API_KEY", "XAI_API_KEY", "HUGGINGFACE_API_KEY", "LITELLM_API_KEY",
    # the web-search provider (envs.web_search.providers)
    "SERPAPI_API_KEY",
    # the executable categories' web APIs (envs.exec_functions.backends.KEY_VARIABLES)
    "RAPID_API_KEY", "GEOCODE_API_KEY", "EXCHANGERATE_API_KEY", "OMDB_API_KEY",
    # what a served engine may read to download weights (runner.serve passes them on)
    "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
)
"""Every environment variable fcbench reads a secret from (a test checks that the
registries name none outside it); `add_variable` adds one at run time (`--api-key-env`)."""

URL_VARIABLES: tuple[str, ...] = (
    # the SDKs' base URLs (each SDK reads its own when no base URL is passed to it)
    "OPENAI_BASE_URL", "OPENAI_API_BASE", "ANTHROPIC_BASE_URL", "ANTHROPIC_BEDROCK_BASE_URL",
    "ANTHROPIC_VERTEX_BASE_URL", "ANTHROPIC_FOUNDRY_BASE_URL", "ANTHROPIC_AWS_BASE_URL",
    "ANTHROPIC_GOOGLE_CLOUD_BASE_URL", "ANTHROPIC_BEDROCK_MANTLE_BASE_URL",
    "AWS_BEDROCK_BASE_URL", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL",
    # the providers' base-URL overrides (models.providers.base_url_variable), LiteLLM's
    "FCBENCH_OPENAI_BASE_URL", "FCBENCH_ANTHROPIC_BASE_URL", "FCBENCH_GOOGLE_BASE_URL",
    "FCBENCH_MISTRAL_BASE_URL", "FCBENCH_TOGETHER_BASE_URL", "FCBENCH_FIREWORKS_BASE_URL",
    "FCBENCH_GROQ_BASE_URL", "FCBENCH_DEEPSEEK_BASE_URL", "FCBENCH_OPENROUTER_BASE_URL",
    "FCBENCH_VLLM_BASE_URL", "FCBENCH_VIVO_BASE_URL", "FCBENCH_LITELLM_BASE_URL",
    "AZURE_API_BASE", "LITELLM_API_BASE",
    # proxies: `http://user:password@proxy:3128` is sent as Proxy-Authorization
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
)
"""Environment variables holding a URL whose credentials (userinfo, `api_key=`-like query
parameters) are secrets: read like `KEY_VARIABLES`, at every use, whichever source set them."""

SECRET_NAME = (r"(?:[a-z0-9_.-]*(?:api[_-]?key|apikey|access[_-]?key|secret|token|password|"
               r"passwd|auth|signature|sig|key))")
"""Parameter and header names that carry credentials (`api_key`, `key`, `access_token`,
`X-RapidAPI-Key`, `client_secret`, `sig`, ...), case-insensitive."""

_QUERY = re.compile(r"(?i)([?&;](?:" + SECRET_NAME + r")=)([^&#\s\"'<>\\]+)")
_USERINFO = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^/@\s:\"'<>]*:)([^/@\s\"'<>]+)(@)")
_USER_ONLY = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)([^/@\s:\"'<>*]+)(@)")
"""A username-only userinfo (`http://TOKEN@host`): the name is the credential (a token
sent as the user of Basic authentication)."""
HEADER_NAME = (r"(?:authorization|proxy-authorization|[a-z0-9_-]*(?:api[_-]?key|apikey|"
               r"access[_-]?token|auth[_-]?token|secret|password))")
"""Header (and keyword-argument) names whose value is a credential: narrower than
`SECRET_NAME`, since a message may well say `key: id` or `token: 12` about ordinary things."""

_HEADER = re.compile(
    r"(?i)(\b" + HEADER_NAME
    + r"[\"']?\s*[:=]\s*[\"']?)(?:(bearer|basic|token)\s+)?([^\s\"',}&]+)"
)
_ARGUMENT = re.compile(
    r"(?i)(--(?:[a-z0-9]+[-_])*(?:api[-_]?key|token|password|secret)(?:=|\s+))([^\s\"']+)")
"""`--api-key X`, `--api-key=X`, `--hf-token X`, `--admin-password X` on a command line."""
_SCHEME = re.compile(r"(?i)(?<![\w-])(Bearer|Basic)\s+([A-Za-z0-9._~+/=-]{8,})")
"""A bare `Bearer X` / `Basic X` credential (an engine logging the headers it got or the
token it requires), outside a header line (`_HEADER` takes those)."""

_extra_values: set[str] = set()
_extra_variables: set[str] = set()
_lock = threading.Lock()
_compiled: tuple[Any, re.Pattern[str] | None] = (None, None)


def add_variable(name: str | None) -> None:
    """Treat the value of environment variable `name` as a secret (`--api-key-env NAME`)."""
    if name:
        with _lock:
            _extra_variables.add(name)


def add_secret(value: str | None) -> None:
    """Treat `value` as a secret from now on (an API key passed in, a URL's password)."""
    if value and len(value) >= MIN_SECRET_LENGTH:
        with _lock:
            _extra_values.add(value)


def add_secrets_of_url(address: str) -> None:
    """Register the credentials written into a URL (`user:pw@`, `TOKEN@`, `?api_key=...`)
    as secrets, so that they are found verbatim later, e.g. inside an HTTP library's message
    or a server's echo of the `Authorization: Basic` header built from them."""
    for value in credentials_of_url(address):
        add_secret(value)


def credentials_of_url(address: str) -> tuple[str, ...]:
    """The secret values a URL carries, in every form a client sends or a library prints.

    Parsed leniently and before any validation, so that a URL the backend later rejects
    (`ht!tp://u:pw@host`, a bad port) still has its password registered: the userinfo is what
    lies between `//` (or the start) and the last `@` before the path; its password (or, with
    no password, its username: `http://TOKEN@host`), as written and percent-decoded, and the
    base64 of `user:password` that HTTP clients send as `Authorization: Basic`; and every
    `api_key=`-like query parameter, as written and decoded."""
    if not isinstance(address, str) or not address:
        return ()
    found: list[str] = []
    _, slashes, rest = address.partition("//")
    authority = re.split(r"[/?#]", rest if slashes else address, maxsplit=1)[0]
    if "@" in authority:
        user, colon, password = authority.rpartition("@")[0].partition(":")
        secret = password if colon else user
        found += [secret, urllib.parse.unquote(secret)]
        plain = f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}"
        if len(secret) >= MIN_SECRET_LENGTH:
            found += [base64.b64encode(plain.encode()).decode(),
                      base64.b64encode(f"{user}:{password}".encode()).decode()]
    query = address.partition("?")[2].partition("#")[0]
    for pair in re.split(r"[&;]", query):
        name, equals, value = pair.partition("=")
        if equals and re.fullmatch(SECRET_NAME, urllib.parse.unquote_plus(name), re.I):
            found += [value, urllib.parse.unquote_plus(value)]
    return tuple(dict.fromkeys(v for v in found if len(v) >= MIN_SECRET_LENGTH))


def secrets() -> tuple[str, ...]:
    """Every secret value known now (the key variables' current values, the credentials of
    the URL variables' current values, and those added), longest first so that replacing one
    never leaves part of another."""
    names = (*KEY_VARIABLES, *sorted(_extra_variables))
    found = {os.environ.get(name) or "" for name in names} | _extra_values
    for name in URL_VARIABLES:
        found.update(credentials_of_url(os.environ.get(name) or ""))
    return tuple(sorted((v for v in found if len(v) >= MIN_SECRET_LENGTH),
                        key=lambda v: (-len(v), v)))


def _pattern() -> re.Pattern[str] | None:
    """One regex matching every known secret in its plain, percent-encoded and JSON-escaped
    forms, rebuilt only when a key variable or an added secret changed (every result line
    passes here: the check is a handful of dictionary lookups)."""
    global _compiled
    state = (_raw_values((*KEY_VARIABLES, *URL_VARIABLES, *_extra_variables)),
             frozenset(_extra_values))
    cached_for, pattern = _compiled
    if state == cached_for:
        return pattern
    forms: set[str] = set()
    for value in secrets():
        forms.update({value, urllib.parse.quote(value, safe=""),
                      urllib.parse.quote_plus(value), json.dumps(value)[1:-1]})
    ordered = sorted(forms, key=lambda v: (-len(v), v))
    pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None
    _compiled = (state, pattern)
    return pattern


def _raw_values(names: tuple[str, ...]) -> tuple[Any, ...]:
    """The variables' values as stored, to tell whether any changed: `os.environ.get` costs
    microseconds per missing name (it raises and catches KeyError), and this runs for every
    line written, so the mapping's own dictionary is read when it has one."""
    data = getattr(os.environ, "_data", None)
    encode = getattr(os.environ, "encodekey", None)
    if not isinstance(data, dict) or encode is None:
        return tuple(map(os.environ.get, names))
    return tuple(map(data.get, _encoded(names, encode)))


_encoded_names: dict[tuple[str, ...], tuple[Any, ...]] = {}


def _encoded(names: tuple[str, ...], encode: Any) -> tuple[Any, ...]:
    """The names as the environment's dictionary keys them, encoded once per set of names
    (about 30 names are looked up per line written)."""
    found = _encoded_names.get(names)
    if found is None:
        if len(_encoded_names) > 64:
            _encoded_names.clear()
        found = _encoded_names[names] = tuple(map(encode, names))
    return found


def values(content: str) -> str:
    """`content` with every known secret value replaced by MASK (nothing else touched)."""
    pattern = _pattern()
    if pattern is None or not content:
        return content
    return pattern.sub(MASK, content)


def text(message: str) -> str:
    """A message fit to show or keep: secret values, URL passwords, credential-like query
    parameters, headers and arguments replaced by MASK."""
    if not isinstance(message, str):
        raise TypeError(f"redact.text takes str, not {type(message).__name__}")
    message = values(message)
    message = _USERINFO.sub(lambda m: m.group(1) + MASK + m.group(3), message)
    message = _USER_ONLY.sub(lambda m: m.group(1) + MASK + m.group(3), message)
    message = _QUERY.sub(lambda m: m.group(1) + MASK, message)
    message = _HEADER.sub(_header_mask, message)
    message = _SCHEME.sub(_scheme_mask, message)
    return _ARGUMENT.sub(lambda m: m.group(1) + MASK, message)


def _scheme_mask(match: re.Match[str]) -> str:
    """`Bearer X` when X looks like a token (a digit or a symbol in it: not `Bearer
    authentication`); `Basic X` when X is base64 of `user:password`."""
    scheme, value = match.group(1), match.group(2)
    if scheme.lower() == "bearer":
        credential = bool(re.search(r"[0-9._~+/=-]", value))
    else:
        credential = _is_basic_credential(value)
    return f"{scheme} {MASK}" if credential else match.group(0)


def _is_basic_credential(value: str) -> bool:
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded and decoded.isascii() and decoded.decode().isprintable()


def format_exception(exc: BaseException) -> str:
    """An exception's traceback as Python prints it, through `text`: what fcbench shows of an
    error nothing else caught (its message and the source lines alike may hold a URL)."""
    import traceback

    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return text("".join(lines))


def _header_mask(match: re.Match[str]) -> str:
    scheme = f"{match.group(2)} " if match.group(2) else ""
    value = match.group(3)
    if value == MASK or value.startswith(MASK):
        return match.group(0)
    return f"{match.group(1)}{scheme}{MASK}"


def url(address: str) -> str:
    """A URL as it may be stored or shown (password and credential parameters masked)."""
    return text(address)


def data(value: Any) -> Any:
    """A JSON-like value with `text` applied to every string in it (keys included)."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, dict):
        return {data(k) if isinstance(k, str) else k: data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [data(v) for v in value]
    return value


# --------------------------------------------------------------------------- logging


class LogFilter(logging.Filter):
    """Masks a record's message (`text`) before any handler sees it: for programs that call
    `fcbench.run` with their own logging, where the console sink is not installed."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = text(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True


_LOG_FILTER = LogFilter()


def guarded_logger(name: str) -> logging.Logger:
    """`logging.getLogger(name)` with the masking filter attached (once)."""
    logger = logging.getLogger(name)
    if _LOG_FILTER not in logger.filters:
        logger.addFilter(_LOG_FILTER)
    return logger


# --------------------------------------------------------------------------- the console


class RedactingStream(io.TextIOBase):
    """A text stream that writes `text(s)` to the stream it wraps (the console sink).

    It looks like the wrapped stream to libraries that inspect one (encoding, errors,
    isatty, fileno), and refuses bytes as a text stream does, so that click keeps writing
    through it instead of going around it to the binary buffer underneath."""

    def __init__(self, wrapped: TextIO) -> None:
        super().__init__()
        self.wrapped = wrapped

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        self.wrapped.write(text(s))
        return len(s)

    def writelines(self, lines: Iterable[str]) -> None:  # type: ignore[override]
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.wrapped.flush()

    def isatty(self) -> bool:
        return self.wrapped.isatty()

    def fileno(self) -> int:
        return self.wrapped.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.wrapped, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.wrapped, "errors", None)

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":  # writing bytes past the redaction is not offered
            raise AttributeError(name)
        return getattr(self.wrapped, name)


@contextmanager
def console() -> Iterator[None]:
    """Within the block, everything written to sys.stdout and sys.stderr (prints, click,
    logging's handlers, progress lines) is redacted with `text`; so is every log record of
    any logger (an SDK's debug log names URLs and headers, and its handler may hold a stream
    opened before the block), and the traceback of an exception a thread did not catch."""
    saved = sys.stdout, sys.stderr
    factory, thread_hook = logging.getLogRecordFactory(), threading.excepthook
    sys.stdout = _wrapped(sys.stdout)
    sys.stderr = _wrapped(sys.stderr)
    logging.setLogRecordFactory(_masking_factory(factory))
    threading.excepthook = _thread_excepthook
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        logging.setLogRecordFactory(factory)
        threading.excepthook = thread_hook


def _masking_factory(factory: Any) -> Any:
    def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record: logging.LogRecord = factory(*args, **kwargs)
        LogFilter().filter(record)
        return record

    return make


def _thread_excepthook(hook: threading.ExceptHookArgs) -> None:
    if hook.exc_value is None or isinstance(hook.exc_value, SystemExit):
        return
    name = hook.thread.name if hook.thread is not None else "?"
    sys.stderr.write(f"Exception in thread {name}:\n{format_exception(hook.exc_value)}")


def _wrapped(stream: TextIO) -> TextIO:
    if stream is None or isinstance(stream, RedactingStream):
        return stream
    return RedactingStream(stream)  # type: ignore[return-value]
