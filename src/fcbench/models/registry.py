"""Model backends by name: what `--backend NAME` (or `fcbench.run(backend=NAME)`) builds.

Each entry names the module and factory that build the backend (imported only when chosen,
so `fcbench --help` imports no SDK), the pip extra that brings its SDK, and the environment
variable its API key is read from. A factory takes `BackendOptions` and returns a `Backend`,
or raises `BackendSetupError` with a one-line reason (a missing extra, a missing folder, an
option that does not apply). Adding a backend = one module with a factory + one line here
(or `register` at run time, or one `fcbench.backends` entry-point line in an installed package:
a `BackendSpec`, or a bare factory; see `fcbench.plugins`). `--backend` offers `names()`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fcbench import plugins
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
    provider: str | None = None
    """The provider a `provider/model` name named (`models.providers`): recorded in
    `model.json` and the response cache's key."""


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


def _plugin_spec(name: str, value: object) -> BackendSpec:
    """An entry point's object as a backend: a `BackendSpec` as is, a factory by reference."""
    if isinstance(value, BackendSpec):
        if value.name != name:
            raise ValueError(f"its BackendSpec is named {value.name!r}, not {name!r}")
        return value
    if not callable(value):
        raise TypeError(f"not a BackendSpec or a factory but {type(value).__name__}")
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", "")
    if not module or not qualname or "<" in qualname or "." in qualname:
        raise TypeError("the factory is not a module-level function")
    return BackendSpec(name, f"{module}:{qualname}", f"a plugin backend ({module})")


BACKENDS: plugins.Registry[BackendSpec] = plugins.Registry(plugins.BACKENDS, {
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
        BackendSpec("litellm", "fcbench.models.litellm_backend:from_options",
                    "LiteLLM's completion, for the APIs with their own auth (Bedrock, "
                    "Vertex, Azure, ...): litellm/<provider>/<model>", (), "litellm"),
        # no `requires`: the factory imports LiteLLM itself, once its phoning home is off
        BackendSpec("ground-truth", "fcbench.ground_truth.backend:from_options",
                    "the benchmark's own answers (a self-check; no endpoint)"),
    )
}, _plugin_spec)

GROUND_TRUTH = "ground-truth"
"""The model name that selects the ground-truth backend whatever `--backend` says."""


def register(spec: BackendSpec) -> None:
    """Add (or replace) a backend at run time."""
    BACKENDS[spec.name] = spec


def names() -> list[str]:
    """The backends `--backend` offers: every registered one but the ground truth, which
    `--model ground-truth` selects."""
    return [name for name in BACKENDS if name != GROUND_TRUTH]


def known_models() -> list[str]:
    """The model names fcbench knows by itself: the ground truth and the official registry's
    local models (`models.families`)."""
    from fcbench.models.families import MODEL_FAMILIES

    return [GROUND_TRUTH, *MODEL_FAMILIES]


def did_you_mean(model: str) -> str:
    """` (did you mean NAME?)` when `model` is a near miss of a known model name, else "":
    a mistyped `ground-truth` otherwise reads as an endpoint model and fails for want of
    `--base-url`, which sends the user the wrong way."""
    import difflib

    known = known_models()
    if model in known:
        return ""
    close = difflib.get_close_matches(model, known, n=1, cutoff=0.8)
    return f" (did you mean {close[0]}?)" if close else ""


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
    try:
        return factory(options)
    except BackendSetupError as exc:
        hint = did_you_mean(options.model)
        if not hint:
            raise
        raise BackendSetupError(f"{exc}{hint}") from None
