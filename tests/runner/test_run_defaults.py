"""Defaults of a real run that live outside RunConfig, pinned where they are defined: the
multi-turn step limit (a turn is force-quit past it: a verdict-deciding number), the progress
interval, the failure stop, the preflight's request timeouts."""

from __future__ import annotations

import types
from pathlib import Path

from fcbench.models import preflight
from fcbench.runner import conversation, progress
from fcbench.runner.failures import DEFAULT_STOP_AFTER


def texts(**prompts: object) -> object:
    return types.SimpleNamespace(prompts=prompts)


def test_the_step_limit_is_the_releases_else_twenty() -> None:
    assert conversation.DEFAULT_STEP_LIMIT == 20
    assert conversation.step_limit(texts()) == 20  # type: ignore[arg-type]
    assert conversation.step_limit(texts(MAXIMUM_STEP_LIMIT=7)) == 7  # type: ignore[arg-type]
    assert conversation.step_limit(texts(MAXIMUM_STEP_LIMIT="7")) == 20  # type: ignore[arg-type]


def test_the_fetched_release_says_twenty(fetched_home: Path) -> None:
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.prompt_texts import load_texts

    assert conversation.step_limit(load_texts(DEFAULT_RELEASE)) == 20


def test_progress_failure_stop_and_preflight_defaults() -> None:
    assert progress.DEFAULT_INTERVAL == 15.0
    assert DEFAULT_STOP_AFTER == 20
    assert (preflight.LIST_TIMEOUT, preflight.CHAT_TIMEOUT) == (10.0, 60.0)
