"""Gemma 4 with thinking suppressed (upstream PR #1357, `gemma_4.py Gemma4NoThinkHandler`):
the Gemma 4 layout of `gemma_4`, no `<|think|>` header, an empty thought channel after the
generation prompt. Its own module because the registry finds each family's `FAMILY` by
module."""

from __future__ import annotations

from fcbench.models.families.gemma_4 import NO_THINK

FAMILY = NO_THINK
