"""Failure reasons and the early stop: what groups together, when a run stops, how waits read."""

from __future__ import annotations

from collections import Counter

from fcbench.runner.failures import Outcomes, Wait, describe_reasons, reason_key, reason_label


def test_labels_drop_the_retry_count_and_keys_mask_numbers() -> None:
    label = reason_label("connection failed to http://h:1/v1: connection refused "
                         "(gave up after 8 attempts)")
    assert label == "connection failed to http://h:1/v1: connection refused"
    a = reason_key("HTTP 400: maximum context length is 8192 tokens, you sent 9000")
    b = reason_key("HTTP 400: maximum context length is 8192 tokens, you sent 9100")
    assert a == b and a.startswith("HTTP 400")
    assert reason_key("HTTP 400: x") != reason_key("HTTP 401: x")
    assert len(reason_label("x" * 1000)) <= 160


def test_stops_when_the_first_n_fail_alike() -> None:
    outcomes = Outcomes(stop_after=3)
    counts: Counter[str] = Counter()
    for _ in range(2):
        outcomes.failed("HTTP 401: bad key", counts)
        assert outcomes.stop is None
    outcomes.failed("HTTP 401: bad key", counts)
    assert outcomes.stop == "the first 3 cases all failed with: HTTP 401: bad key"
    assert counts == {"HTTP 401: bad key": 3}


def test_no_stop_after_a_success_or_a_different_reason_or_when_disabled() -> None:
    mixed = Outcomes(stop_after=3)
    mixed.failed("HTTP 401: a")
    mixed.succeeded()
    mixed.failed("HTTP 401: a")
    mixed.failed("HTTP 401: a")
    assert mixed.stop is None
    different = Outcomes(stop_after=2)
    different.failed("HTTP 401: a")
    different.failed("HTTP 500: b")
    assert different.stop is None
    late = Outcomes(stop_after=2)  # only the *first* cases decide
    late.succeeded()
    late.succeeded()
    for _ in range(10):
        late.failed("HTTP 401: a")
    assert late.stop is None
    never = Outcomes(stop_after=0)
    for _ in range(50):
        never.failed("HTTP 401: a")
    assert never.stop is None


def test_reasons_with_similar_messages_share_one_label() -> None:
    outcomes = Outcomes(stop_after=0)
    counts: Counter[str] = Counter()
    outcomes.failed("HTTP 400: context 8192 < 9000", counts)
    outcomes.failed("HTTP 400: context 8192 < 9100", counts)
    assert counts == {"HTTP 400: context 8192 < 9000": 2}


def test_describe_reasons_orders_and_folds_the_tail() -> None:
    lines = describe_reasons({"a": 1, "b": 5, "c": 2, "d": 1}, limit=2)
    assert lines == ["b × 5", "c × 2", "2 other reason(s) × 2"]


def test_wait_says_why_and_the_cap() -> None:
    capped = Wait("HTTP 429: slow down", 300.0, 3600.0, 300.0, until=1300.0)
    text = capped.describe(now=1000.0)
    assert text == ("waiting 300 s: HTTP 429: slow down (Retry-After 3600 s, capped at 300 s "
                    "(--max-retry-wait))")
    backoff = Wait("HTTP 503: busy", 2.0, None, 300.0, until=5.0)
    assert backoff.describe(now=4.0) == "waiting 1 s: HTTP 503: busy (backoff)"
    assert backoff.remaining(now=9.0) == 0.0


def test_service_failures_stop_after_n_alike_in_a_row_at_any_point() -> None:
    outcomes = Outcomes(stop_after=3)
    for _ in range(5):
        outcomes.succeeded()
    outcomes.failed("web tool failed: SerpAPI HTTP 503", in_a_row=True)
    outcomes.failed("web tool failed: SerpAPI HTTP 503", in_a_row=True)
    outcomes.succeeded()  # a success breaks the row
    outcomes.failed("web tool failed: SerpAPI HTTP 503", in_a_row=True)
    outcomes.failed("HTTP 400: bad request")  # so does any other failure
    outcomes.failed("web tool failed: SerpAPI HTTP 503", in_a_row=True)
    outcomes.failed("web tool failed: SerpAPI ConnectionError", in_a_row=True)  # and another reason
    assert outcomes.stop is None
    outcomes.failed("web tool failed: SerpAPI ConnectionError", in_a_row=True)
    outcomes.failed("web tool failed: SerpAPI ConnectionError", in_a_row=True)
    assert outcomes.stop == "3 cases in a row failed with: web tool failed: SerpAPI ConnectionError"
    late_model_errors = Outcomes(stop_after=2)  # a model's failures keep the first-N rule
    late_model_errors.succeeded()
    for _ in range(5):
        late_model_errors.failed("HTTP 401: a")
    assert late_model_errors.stop is None
    never = Outcomes(stop_after=0)
    for _ in range(5):
        never.failed("web tool failed: x", in_a_row=True)
    assert never.stop is None
