"""The all-MiniLM-L6-v2 weights this user already has, found before any test moves
`$FCBENCH_HOME` (tests/conftest.py calls `point_at_user_weights` at import).

The README's set-up runs `fcbench data fetch-embeddings`, which puts the weights in the user's
own `$FCBENCH_HOME`; the `fetched_home` fixture then points `$FCBENCH_HOME` at a fresh folder
for the session, where nothing would be found. Locating them first and naming them in
`$FCBENCH_EMBEDDING_MODEL` (inherited by child processes too) keeps them in sight.
"""

from __future__ import annotations

import os


def point_at_user_weights() -> str | None:
    """Set `$FCBENCH_EMBEDDING_MODEL` to the weights found here (never downloading); the
    folder, or None when there are none or the `memory` extra is not installed."""
    if os.environ.get("FCBENCH_EMBEDDING_MODEL"):
        return os.environ["FCBENCH_EMBEDDING_MODEL"]
    try:
        from fcbench.envs.memory.weights import EmbeddingUnavailable, locate_model
    except ImportError:  # no `memory` extra: the tests that need it say so
        return None
    try:
        folder = str(locate_model(download=False))
    except EmbeddingUnavailable:
        return None
    os.environ["FCBENCH_EMBEDDING_MODEL"] = folder
    return folder
