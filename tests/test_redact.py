"""The redaction layer: what is a secret, what each strength replaces, the console sink."""

from __future__ import annotations

import io
import json
import logging
import sys
import urllib.parse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench import redact

KEY = "sk-live-Abc123XYZ/+="  # with characters that percent- and JSON-encode differently


@pytest.fixture(autouse=True)
def clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in redact.KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(redact, "_extra_values", set())
    monkeypatch.setattr(redact, "_extra_variables", set())


@pytest.mark.parametrize("variable", redact.KEY_VARIABLES)
def test_every_known_variable_is_masked_in_every_form(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, KEY)
    forms = [KEY, urllib.parse.quote(KEY, safe=""), urllib.parse.quote_plus(KEY),
             json.dumps(KEY)[1:-1]]
    for form in forms:
        assert redact.values(f"before {form} after") == "before *** after"


def test_registries_name_no_variable_outside_the_layer() -> None:
    from fcbench.envs.exec_functions.backends import KEY_VARIABLES
    from fcbench.models.registry import BACKENDS

    named = {spec.key_variable for spec in BACKENDS.values() if spec.key_variable}
    assert named | set(KEY_VARIABLES) | {"SERPAPI_API_KEY"} <= set(redact.KEY_VARIABLES)


def test_api_key_env_and_added_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_VENDOR_SECRET", "vendor-secret-value")
    assert redact.values("x vendor-secret-value") == "x vendor-secret-value"
    redact.add_variable("MY_VENDOR_SECRET")
    assert redact.values("x vendor-secret-value") == "x ***"
    redact.add_secret("given-in-python")
    assert redact.values("given-in-python!") == "***!"


def test_short_values_are_placeholders_not_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
    assert redact.values("EMPTY result") == "EMPTY result"
    assert redact.secrets() == ()


def test_values_leave_credential_shaped_model_text_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAPID_API_KEY", KEY)
    answer = ("requests.get(url='https://h/x?api_key=YOUR-RAPID-API-KEY', "
              "headers={'X-RapidAPI-Key': 'RAPID-API-KEY'})")
    assert redact.values(answer) == answer


def test_text_masks_credential_shapes() -> None:
    cases = {
        "GET /search?engine=duckduckgo&api_key=abc123456&q=x failed":
            "GET /search?engine=duckduckgo&api_key=***&q=x failed",
        "http://user:pa55word@host:8000/v1?key=zz&x=1": "http://user:***@host:8000/v1?key=***&x=1",
        "https://h/p?access_token=t0k&apiKey=k&sig=s": "https://h/p?access_token=***&apiKey=***&sig=***",
        "{'X-RapidAPI-Key': 'abcdef12', 'Authorization': 'Bearer sk-1'}":
            "{'X-RapidAPI-Key': '***', 'Authorization': 'Bearer ***'}",
        "x-api-key: abc, x-goog-api-key=def": "x-api-key: ***, x-goog-api-key=***",
        "vllm serve m --api-key s3cr3t --port 9": "vllm serve m --api-key *** --port 9",
    }
    for message, masked in cases.items():
        assert redact.text(message) == masked


def test_text_leaves_ordinary_messages_alone() -> None:
    for message in ("duplicate key: id", "token: 12 of 40", "max_tokens=100",
                    "see https://example.com/docs?page=2&author=me", "keys: a, b"):
        assert redact.text(message) == message


def test_base_url_credentials_are_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    redact.add_secrets_of_url("http://me:hunter2hunter2@127.0.0.1:9/v1?api_key=zzzzzzzz1&v=1")
    assert redact.values("auth hunter2hunter2, zzzzzzzz1, v=1") == "auth ***, ***, v=1"


def test_console_masks_click_logging_and_print(monkeypatch: pytest.MonkeyPatch) -> None:
    import click

    monkeypatch.setenv("SERPAPI_API_KEY", KEY)
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    with redact.console():
        click.echo(f"a {KEY}")
        click.echo("b https://x/?token=abc", err=True)
        print(f"c {KEY}", file=sys.stderr)
        record = logging.LogRecord("fcbench.web", logging.WARNING, __file__, 1, "d %s", (KEY,),
                                   None)
        assert logging.lastResort is not None  # what a CLI run's warnings go through
        logging.lastResort.emit(record)
        with pytest.raises(TypeError):
            sys.stdout.write(b"bytes")  # type: ignore[arg-type]
    assert out.getvalue() == "a ***\n"
    assert err.getvalue() == "b https://x/?token=***\nc ***\nd ***\n"
    assert sys.stdout is out and sys.stderr is err  # restored


def test_the_web_logger_masks_for_programs_with_their_own_logging(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import fcbench.envs.web_search.services  # noqa: F401 - sets up the "fcbench.web" logger

    monkeypatch.setenv("SERPAPI_API_KEY", KEY)
    with caplog.at_level(logging.WARNING, logger="fcbench.web"):
        logging.getLogger("fcbench.web").warning("GET /search?api_key=%s failed", KEY)
    assert caplog.messages == ["GET /search?api_key=*** failed"]


def test_every_credential_of_a_url_is_learnt_leniently() -> None:
    """Issue 31 item 3: a username-only URL, the base64 of `user:password` an HTTP client
    sends as Basic authentication, percent-encoded forms, and a URL that does not parse."""
    import base64

    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    cases = {
        "http://TOKEN-only-123@127.0.0.1:9/v1": {"TOKEN-only-123", b64("TOKEN-only-123:")},
        "http://me:p%40ss-word-9@h/v1?api_key=q%2Bkey-value-1&n=12345678":
            {"p%40ss-word-9", "p@ss-word-9", b64("me:p@ss-word-9"), b64("me:p%40ss-word-9"),
             "q%2Bkey-value-1", "q+key-value-1"},
        "ht!tp://u:malformed-pw-7@127.0.0.1:99999/v1?token=malformed-tok-8":
            {"malformed-pw-7", b64("u:malformed-pw-7"), "malformed-tok-8"},
        "u:no-scheme-pass-5@host/v1": {"no-scheme-pass-5", b64("u:no-scheme-pass-5")},
        "http://127.0.0.1:9/v1?page=12345678": set(),
    }
    for address, expected in cases.items():
        assert set(redact.credentials_of_url(address)) == expected, address
    redact.add_secrets_of_url("http://me:hunter2hunter2@h/v1")
    echoed = json.dumps({"headers": {"Authorization": "Basic " + b64("me:hunter2hunter2")}})
    assert "hunter2" not in redact.values(echoed) and b64("me:hunter") not in redact.values(echoed)


@pytest.mark.parametrize("variable", redact.URL_VARIABLES)
def test_the_sdks_url_variables_are_read_at_every_use(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    secret = "url-variable-secret-1"
    assert redact.values(f"x {secret}") == f"x {secret}"
    monkeypatch.setenv(variable, f"http://u:{secret}@127.0.0.1:9/v1?api_key=url-query-key-2")
    assert redact.values(f"x {secret} url-query-key-2") == "x *** ***"


def test_text_masks_bare_bearer_and_basic_credentials_and_engine_arguments() -> None:
    cases = {
        "auth: Bearer sk-abc12345 ok": "auth: Bearer *** ok",
        "got Basic dTpQQVNTV09SRDE= from": "got Basic *** from",
        "http://TOKEN-only-123@h/v1": "http://***@h/v1",
        "--hf-token=hf_abc --api-key=k123 --admin-password pw": "--hf-token=*** --api-key=*** "
                                                                 "--admin-password ***",
    }
    for message, masked in cases.items():
        assert redact.text(message) == masked
    for ordinary in ("Basic authentication failed", "Bearer authentication is required",
                     "basic usage: fcbench run", "mailto:me@example.com"):
        assert redact.text(ordinary) == ordinary


def test_a_traceback_is_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    try:
        try:
            raise OSError(f"cannot reach http://u:pw-in-url-1@h/?api_key={KEY}")
        except OSError as inner:
            raise RuntimeError("while asking http://TOKEN-only-123@h/v1") from inner
    except RuntimeError as exc:
        shown = redact.format_exception(exc)
    assert "Traceback" in shown and "RuntimeError" in shown and "OSError" in shown
    assert all(s not in shown for s in (KEY, "pw-in-url-1", "TOKEN-only-123"))


def test_the_console_masks_every_logger_and_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """An SDK's debug handler made before the console holds the raw stream; a thread's
    uncaught exception is printed by `threading.excepthook`: both masked."""
    import threading

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    raw = io.StringIO()
    logger = logging.getLogger("some.sdk")
    handler = logging.StreamHandler(raw)
    logger.addHandler(handler)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    try:
        with redact.console():
            logger.warning("request headers %s", {"Authorization": f"Bearer {KEY}"})

            def fail() -> None:
                raise ValueError(f"thread saw {KEY}")

            thread = threading.Thread(target=fail)
            thread.start()
            thread.join()
            err = sys.stderr.getvalue()  # type: ignore[attr-defined]
    finally:
        logger.removeHandler(handler)
    assert "request headers" in raw.getvalue() and KEY not in raw.getvalue()
    assert "thread saw ***" in err and KEY not in err


URL_TEXT = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=20)


@settings(max_examples=150, deadline=None)
@given(user=URL_TEXT, password=URL_TEXT.filter(lambda p: len(p) >= redact.MIN_SECRET_LENGTH),
       scheme=st.sampled_from(["http", "https", "ht!tp", ""]))
def test_whatever_the_userinfo_what_the_http_client_sends_is_masked(
    user: str, password: str, scheme: str
) -> None:
    """Any user and password (unicode, `@`, `:`, `/`, `%`), percent-encoded into a URL as a
    user would: after `add_secrets_of_url`, the `Authorization: Basic` value the SDKs' HTTP
    client builds from that URL, the password as sent and as written are all masked; also
    when the scheme makes the URL invalid."""
    import httpx2

    redact._extra_values.clear()
    quoted = (urllib.parse.quote(user, safe=""), urllib.parse.quote(password, safe=""))
    address = f"{scheme}://{quoted[0]}:{quoted[1]}@127.0.0.1:9/v1" if scheme else (
        f"{quoted[0]}:{quoted[1]}@127.0.0.1:9/v1")
    redact.add_secrets_of_url(address)
    parsed = httpx2.URL(f"http://{quoted[0]}:{quoted[1]}@127.0.0.1:9/v1")
    request = httpx2.Request("GET", parsed)
    sent = next(httpx2.BasicAuth(parsed.username, parsed.password).sync_auth_flow(request))
    header = str(sent.headers["authorization"]).split()[1]
    echoed = json.dumps({"auth": header, "password": password, "written": quoted[1]})
    masked = redact.values(echoed)
    assert header not in masked and quoted[1] not in masked
    assert json.dumps(password)[1:-1] not in masked
