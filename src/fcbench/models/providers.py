"""Hosted APIs by name: `--model mistral/mistral-large-latest` instead of a base URL and a
key variable the user has to look up.

Each provider is one `Provider` line of data: the backend that speaks its API (the native
SDK backends for Anthropic and Google, the OpenAI-compatible one for the rest, LiteLLM for
`litellm/...`), its base URL, the variable its key is read from, whether it offers function
calling, and its quirks (a note shown by `fcbench models`: the request body is the OpenAI
path's, byte for byte, whichever route reaches a model, so a quirk never changes what is
sent). `FCBENCH_<PROVIDER>_BASE_URL` points a provider elsewhere (a proxy, a gateway, a test's
loopback stand-in); `register` adds one at run time.

When a name is read as a provider's (`resolve`): its first segment names a provider, the
backend is the default one (`openai`) or the provider's own, and no `--base-url` is given
(`pipeline.provider_route` counts `$OPENAI_BASE_URL` as one for the default backend). An
explicit `--base-url` wins: the name is then sent whole to that endpoint, as before (vLLM
serving `openai/gpt-oss-20b` or `google/gemma-3-27b-it`, OpenRouter's `openai/gpt-4o`: those
are the model's names there). `vllm/google/gemma-3-27b-it` reaches a local server by name.

The result folder keeps the official-style name of the model part (`openai/gpt-4o` writes to
`gpt-4o-FC`, as the official handler's folder is named); `model.json` records `provider` and
`model` apart, and a folder holds one provider's answers (`provider` is a configuration field).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["PROVIDERS", "Provider", "Route", "base_url_variable", "register", "resolve"]


@dataclass(frozen=True)
class Provider:
    """One hosted API (or local server) reached by `name/model`."""

    name: str
    backend: str
    """The registry backend that speaks its API (`models.registry.BACKENDS`)."""
    base_url: str
    """Where requests go ("" = the vendor SDK's default endpoint)."""
    key_variable: str | None
    """The variable its key is read from (None: the backend's own auth, LiteLLM's)."""
    fc: bool = True
    """Whether it offers function calling (`--mode fc`)."""
    quirks: str = ""
    """What a user should know (model naming, server flags); never a change of the body."""


PROVIDERS: dict[str, Provider] = {p.name: p for p in (
    Provider("openai", "openai", "https://api.openai.com/v1", "OPENAI_API_KEY"),
    Provider("anthropic", "anthropic", "", "ANTHROPIC_API_KEY",
             quirks="native Messages API (the anthropic extra)"),
    Provider("google", "google", "", "GOOGLE_API_KEY",
             quirks="native Gemini API (the google extra)"),
    Provider("mistral", "openai", "https://api.mistral.ai/v1", "MISTRAL_API_KEY",
             quirks="tool-call ids are 9 letters/digits (the server's own are sent back)"),
    Provider("together", "openai", "https://api.together.xyz/v1", "TOGETHER_API_KEY",
             quirks="model names are the host's: together/meta-llama/Llama-3.3-70B-Instruct-Turbo"),
    Provider("fireworks", "openai", "https://api.fireworks.ai/inference/v1",
             "FIREWORKS_API_KEY",
             quirks="model names are paths: fireworks/accounts/fireworks/models/<model>"),
    Provider("groq", "openai", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    Provider("deepseek", "openai", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY",
             quirks="deepseek-reasoner takes no tools: use deepseek-chat, or --mode prompt"),
    Provider("openrouter", "openai", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY",
             quirks="model names are vendor/model: openrouter/openai/gpt-4o"),
    Provider("vllm", "openai", "http://localhost:8000/v1", "VLLM_API_KEY",
             quirks="a local server (no key on loopback); start it with "
                    "--enable-auto-tool-choice --tool-call-parser NAME, or use --serve vllm"),
    Provider("vivo", "openai", "https://api-ai.vivo.com.cn/v1", "VIVO_API_KEY",
             quirks="upstream #1356's handler reads `tool_calls: []` as the text reply: add "
                    "--corrections community-2026 to score as it does"),
    Provider("litellm", "litellm", "", None,
             quirks="litellm/<provider>/<model>; LiteLLM reads each provider's own auth "
                    "(Bedrock, Vertex, Azure, ...); the litellm extra"),
)}
"""Every provider by name, one line each."""


@dataclass(frozen=True)
class Route:
    """How a `provider/model` name is reached."""

    provider: Provider
    model: str
    """The model part, sent to the provider as it is (`gpt-4o`, `meta-llama/Llama-3-8B`)."""
    base_urls: tuple[str, ...]
    """The provider's base URL, or its `FCBENCH_<PROVIDER>_BASE_URL` override (checked)."""


def base_url_variable(provider: str) -> str:
    """The variable that points `provider` elsewhere: `FCBENCH_MISTRAL_BASE_URL`."""
    return f"FCBENCH_{provider.upper().replace('-', '_')}_BASE_URL"


def register(provider: Provider) -> None:
    """Add (or replace) a provider at run time."""
    PROVIDERS[provider.name] = provider


def resolve(model: str, backend: str, base_urls: tuple[str, ...]) -> Route | None:
    """The route of `model` when it names a provider (see the module docstring), else None.

    BadBaseURL (`models.urls`) when the provider's override variable holds no usable URL."""
    prefix, slash, rest = model.partition("/")
    provider = PROVIDERS.get(prefix)
    if provider is None or not slash or not rest or base_urls:
        return None
    if backend not in ("openai", provider.backend):
        return None
    return Route(provider, rest, _base_urls(provider))


def _base_urls(provider: Provider) -> tuple[str, ...]:
    """The override when set (checked, named in the error), else the registry's URL."""
    from fcbench.models.urls import check_base_url

    variable = base_url_variable(provider.name)
    override = os.environ.get(variable)
    if override:
        return (check_base_url(override, variable),)
    return (provider.base_url,) if provider.base_url else ()


def override_variables() -> tuple[str, ...]:
    """Every provider's base-URL variable (URLs whose credentials `redact` masks)."""
    return tuple(base_url_variable(name) for name in PROVIDERS)
