"""The ground-truth model (`--model ground-truth`): a backend that answers with the
benchmark's own ground truth, so a run checks the whole pipeline without an endpoint.

Its own layer above the checkers (docs/design.md, "Layers"): an agentic answer must be the
first acceptable answer the checker can match (`check.agentic.ground_truth_message`), so this
backend stands on the checker, while every other backend knows nothing of checking."""
