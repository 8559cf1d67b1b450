"""Model backends by name: what `--backend NAME` (or `fcbench.run(backend=NAME)`) builds.

Each entry names the module and factory that build the backend (imported only when chosen,
so `fcbench --help` imports no SDK), the pip extra that brings its SDK, and the environment
variable its API key is read from. A factory takes `BackendOptions` and returns a `Backend`,
or raises `BackendSetupError` with a one-line reason (a missing extra, a missing folder, an
option that does not apply). Adding a backend = one module with a factory + one line here.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fcbench.models.base import Backend, Mode, Sampling
from fcbench.models.limits import DEFAULT_CONCURRENCY, DEFAULT_MAX_REPLY_BYTES, DEFAULT_TIMEOUT


class BackendSetupError(ValueError):
    """A backend cannot be built as asked (the message says why, in one line)."""


@dataclass(frozen=True)
class BackendOptions:
    """Everything a factory may use; each backend reads what applies to it."""

    model: str
    mode: Mode = "fc"
    base_urls: tuple[str, ...] = ()
    api_key: str | None = None
    sampling: Sampling = field(default_factory=Sampling)
    timeout: float = DEFAULT_TIMEOUT
    tool_call_format: str | None = None
    """FC mode: how the model writes tool calls as text (`decode.tool_call_formats`)."""
    concurrency: int = DEFAULT_CONCURRENCY
    model_path: Path | None = None
    key_variable: str | None = None
    """The variable the key was read from (named when a needed key is missing)."""
    prompt_format: str | None = None
    """An official open-model prompt format (`models.families`), for `completions`."""
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    """The cap on one reply's body (`models.limits`); `timeout` is the whole request's."""


@dataclass(frozen=True)
class BackendSpec:
    name: str
    factory: str
    """`module:function` taking BackendOptions."""
    summary: str
    requires: tuple[str, ...] = ()
    """Modules that must import (the extra's SDK)."""
    extra: str | None = None
    key_variable: str | None = None


BACKENDS: dict[str, BackendSpec] = {
    spec.name: spec
    for spec in (
        BackendSpec("openai", "fcbench.models.openai_compat:from_options",
                    "any OpenAI-compatible endpoint (vLLM, SGLang, Ollama, hosted APIs)",
                    key_variable="OPENAI_API_KEY"),
        BackendSpec("anthropic", "fcbench.models.anthropic_native:from_options",
                    "the Anthropic Messages API", ("anthropic",), "anthropic",
                    "ANTHROPIC_API_KEY"),
        BackendSpec("google", "fcbench.models.google_native:from_options",
                    "the Gemini API", ("google.genai",), "google", "GOOGLE_API_KEY"),
        BackendSpec("hf", "fcbench.models.hf_local:from_options",
                    "a local transformers model (--model-path)", ("torch", "transformers"),
                    "hf"),
        BackendSpec("completions", "fcbench.models.completions:from_options",
                    "an OpenAI-compatible /v1/completions endpoint prompted in an official "
                    "open-model format (--prompt-format)", key_variable="OPENAI_API_KEY"),
        BackendSpec("ground-truth", "fcbench.models.ground_truth:from_options",
                    "the benchmark's own answers (a self-check; no endpoint)"),
    )
}

GROUND_TRUTH = "ground-truth"
"""The model name that selects the ground-truth backend whatever `--backend` says."""


def register(spec: BackendSpec) -> None:
    """Add (or replace) a backend at run time."""
    BACKENDS[spec.name] = spec


def api_key(spec: BackendSpec, variable: str | None = None) -> str | None:
    """The API key from the backend's variable (or the one named)."""
    name = variable or spec.key_variable
    return os.environ.get(name) if name else None


def key_variable(backend: str, variable: str | None = None) -> str | None:
    """The variable a backend's key is read from: the one named, else the backend's own."""
    spec = BACKENDS.get(backend)
    return variable or (spec.key_variable if spec else None)


def create(name: str, options: BackendOptions) -> Backend:
    """Build the named backend (BackendSetupError with the reason when it cannot be)."""
    spec = BACKENDS.get(name)
    if spec is None:
        raise BackendSetupError(f"unknown backend {name!r} (one of {', '.join(BACKENDS)})")
    for module in spec.requires:
        try:
            importlib.import_module(module)
        except ImportError:
            extra = f": pip install 'fcbench[{spec.extra}]'" if spec.extra else ""
            raise BackendSetupError(
                f"--backend {name} needs {', '.join(spec.requires)}{extra}"
            ) from None
    module_name, _, attribute = spec.factory.partition(":")
    factory: Callable[[BackendOptions], Backend] = getattr(
        importlib.import_module(module_name), attribute
    )
    return factory(options)
