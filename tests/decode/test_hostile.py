"""The hostile corpus (`tests/hostile_corpus.py`): every answer decoded in a process of its
own ends within 10 s and 500 MB over a normal answer's process, as a recorded failure."""

from __future__ import annotations

import pytest

from hostile_corpus import HOSTILE, NORMAL, Hostile, measure

SECONDS = 10.0
MEGABYTES_OVER_BASELINE = 500.0


@pytest.fixture(scope="module")
def baseline_mb() -> float:
    normal = measure(NORMAL.name)
    assert normal.outcome.get("calls") == 1, normal.outcome
    return normal.peak_mb


@pytest.mark.parametrize("entry", HOSTILE, ids=lambda entry: entry.name)
def test_hostile_answer_is_bounded_and_fails(entry: Hostile, baseline_mb: float) -> None:
    measured = measure(entry.name, timeout=SECONDS * 3)
    outcome = measured.outcome
    assert "crash" not in outcome and "timeout" not in outcome, outcome
    assert measured.seconds <= SECONDS, measured
    assert measured.peak_mb - baseline_mb <= MEGABYTES_OVER_BASELINE, measured
    if entry.refused:
        assert outcome.get("failure") == "ast_decoder:decoder_failed", outcome
        assert outcome["reason"] or entry.name == "deep_unary"  # ast.parse's bare MemoryError
    else:
        assert "failure" in outcome or "calls" in outcome, outcome
