"""Providers by name (`models.providers`): which names are read as `provider/model`, where
they go, the key each needs, and the trust rules (masked keys, the cache and the folder
keyed by provider, preflight before the first case)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from fake_openai import FakeOpenAI
from fcbench import redact
from fcbench.cli import main
from fcbench.models import providers
from fcbench.models.providers import PROVIDERS, Provider, base_url_variable, resolve
from fcbench.models.urls import BadBaseURL

KEY_VALUE = "gsk-provider-secret-0123456789"


@pytest.fixture(autouse=True)
def no_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROVIDERS:
        monkeypatch.delenv(base_url_variable(name), raising=False)


@pytest.mark.parametrize(("model", "backend", "urls", "expected"), [
    ("openai/gpt-4o", "openai", (), ("openai", "gpt-4o", ("https://api.openai.com/v1",))),
    ("mistral/mistral-large-latest", "openai", (),
     ("mistral", "mistral-large-latest", ("https://api.mistral.ai/v1",))),
    ("vllm/google/gemma-3-27b-it", "openai", (),
     ("vllm", "google/gemma-3-27b-it", ("http://localhost:8000/v1",))),
    ("openrouter/openai/gpt-4o", "openai", (),
     ("openrouter", "openai/gpt-4o", ("https://openrouter.ai/api/v1",))),
    ("anthropic/claude-x", "anthropic", (), ("anthropic", "claude-x", ())),
    ("litellm/bedrock/anthropic.claude-3", "litellm", (),
     ("litellm", "bedrock/anthropic.claude-3", ())),
    # an explicit --base-url wins: the name is the model's name on that server
    ("google/gemma-3-27b-it", "openai", ("http://127.0.0.1:8000/v1",), None),
    ("openai/gpt-oss-20b", "openai", ("http://127.0.0.1:8000/v1",), None),
    # another backend chosen: the name is its own
    ("google/gemma-3-4b-it", "hf", (), None),
    ("openai/gpt-4o", "litellm", (), None),
    # not a provider
    ("mistralai/Mistral-7B-Instruct-v0.3", "openai", (), None),
    ("Qwen/Qwen3-8B", "openai", (), None),
    ("gpt-4o", "openai", (), None),
    ("openai/", "openai", (), None),
])
def test_which_names_are_routed(
    model: str, backend: str, urls: tuple[str, ...], expected: tuple[str, str, tuple[str, ...]]
) -> None:
    route = resolve(model, backend, urls)
    found = None if route is None else (route.provider.name, route.model, route.base_urls)
    assert found == expected


def test_the_override_variable_points_a_provider_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FCBENCH_GROQ_BASE_URL", "http://127.0.0.1:9/v1")
    route = resolve("groq/llama-3.3-70b-versatile", "openai", ())
    assert route is not None and route.base_urls == ("http://127.0.0.1:9/v1",)
    monkeypatch.setenv("FCBENCH_GROQ_BASE_URL", "http://u:pw-in-url@127.0.0.1:0/v1")
    with pytest.raises(BadBaseURL, match="FCBENCH_GROQ_BASE_URL") as refused:
        resolve("groq/x", "openai", ())
    assert "pw-in-url" not in str(refused.value)


def test_every_provider_is_known_to_the_registry_and_the_redaction() -> None:
    from fcbench.models.registry import BACKENDS

    for provider in PROVIDERS.values():
        assert provider.backend in BACKENDS
        assert provider.key_variable is None or provider.key_variable in redact.KEY_VARIABLES
        assert base_url_variable(provider.name) in redact.URL_VARIABLES


def test_a_provider_key_is_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", KEY_VALUE)
    assert redact.values(f"sent {KEY_VALUE}!") == "sent ***!"


def test_models_lists_each_provider_with_its_variable_never_its_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GROQ_API_KEY", KEY_VALUE)
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    monkeypatch.setenv("FCBENCH_VLLM_BASE_URL", "http://me:url-secret-99@127.0.0.1:8001/v1")
    result = CliRunner().invoke(main, ["models"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for provider in PROVIDERS.values():
        [row] = [line for line in lines if line.startswith(f"{provider.name}/ ")]
        assert provider.key_variable is None or provider.key_variable in row
    assert "GROQ_API_KEY (set)" in result.output and "MISTRAL_API_KEY (unset)" in result.output
    assert "127.0.0.1:8001/v1 ($FCBENCH_VLLM_BASE_URL)" in result.output
    assert KEY_VALUE not in result.output and "url-secret-99" not in result.output


def _plan_backend(model: str, **options: object) -> object:
    from fcbench.pipeline import make_backend
    from fcbench.run_config import RunConfig

    return make_backend(model, RunConfig.of(options))  # type: ignore[arg-type]


def test_a_local_provider_needs_no_key_and_gets_the_local_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("VLLM_API_KEY", raising=False)
    backend, name = _plan_backend("vllm/Qwen/Qwen3-8B")
    assert name == "Qwen/Qwen3-8B"
    described = backend.describe()  # type: ignore[attr-defined]
    assert described["endpoints"] == ["http://localhost:8000/v1"]
    assert described["provider"] == "vllm" and described["default_max_tokens"] == 4096


def test_openai_base_url_keeps_names_whole_for_the_default_backend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A local server named by $OPENAI_BASE_URL is asked `google/gemma-3-27b-it`, as before;
    another backend chosen still reads the name as a provider's."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8011/v1")
    backend, name = _plan_backend("google/gemma-3-27b-it")
    assert name == "google/gemma-3-27b-it"
    assert backend.describe()["endpoints"] == ["http://127.0.0.1:8011/v1"]  # type: ignore[attr-defined]
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY_VALUE)
    backend, name = _plan_backend("anthropic/claude-x", backend="anthropic")
    assert name == "claude-x" and backend.describe()["provider"] == "anthropic"  # type: ignore[attr-defined]


def test_a_missing_key_is_one_line_naming_the_variable(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY_VALUE)  # another provider's key is not taken
    result = CliRunner().invoke(main, ["generate", "--model", "deepseek/deepseek-chat",
                                       "--categories", "simple_python", "--result-dir",
                                       str(tmp_path / "r")])
    assert result.exit_code == 2
    assert result.stderr == ("fcbench: error: no API key for https://api.deepseek.com/v1: set "
                             "DEEPSEEK_API_KEY (or name another variable with --api-key-env)\n")
    assert not (tmp_path / "r").exists()


def test_a_named_key_variable_must_be_set_on_a_route_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fcbench.models.registry import BackendSetupError

    monkeypatch.delenv("FCBENCH_NO_SUCH_KEY", raising=False)
    with pytest.raises(BackendSetupError, match="FCBENCH_NO_SUCH_KEY: the variable is not set"):
        _plan_backend("vllm/m", api_key_env="FCBENCH_NO_SUCH_KEY")


def test_a_provider_without_function_calling_is_refused_in_fc_mode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fcbench.models.registry import BackendSetupError

    monkeypatch.setitem(PROVIDERS, "textonly", Provider(
        "textonly", "openai", "http://127.0.0.1:9/v1", None, fc=False))
    with pytest.raises(BackendSetupError, match="textonly offers no function calling"):
        _plan_backend("textonly/m")
    _, name = _plan_backend("textonly/m", mode="prompt")
    assert name == "m"


def test_register_adds_a_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(providers, "PROVIDERS", dict(PROVIDERS))
    providers.register(Provider("mine", "openai", "http://127.0.0.1:7/v1", "MINE_KEY"))
    route = providers.resolve("mine/m", "openai", ())
    assert route is not None and route.base_urls == ("http://127.0.0.1:7/v1",)


def test_the_cache_keys_the_provider() -> None:
    from fcbench.models.openai_compat import OpenAICompatBackend
    from fcbench.runner.cached import backend_identity, raw_identity

    urls = ["http://127.0.0.1:9/v1"]
    together = OpenAICompatBackend("m", urls, provider="together")
    fireworks = OpenAICompatBackend("m", urls, provider="fireworks")
    plain = OpenAICompatBackend("m", urls)
    for scope in ("endpoint", "model"):
        raw = [raw_identity(b, scope) for b in (together, fireworks, plain)]  # type: ignore[arg-type]
        assert len({repr(r) for r in raw}) == 3
        keyed = [backend_identity(b, "m", scope) for b in (together, fireworks, plain)]  # type: ignore[arg-type]
        assert len({repr(k) for k in keyed}) == 3


def test_a_folder_holds_one_providers_answers() -> None:
    from fcbench.results.manifest import configuration_clash

    old = {"model": "m", "provider": "together", "backend": "openai-compatible"}
    assert configuration_clash(old, {**old, "provider": "fireworks"}) == [
        'provider: "together" -> "fireworks"']
    assert configuration_clash(old, dict(old)) is None


def test_a_refused_key_stops_at_preflight_naming_the_providers_variable(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROQ_API_KEY", KEY_VALUE)
    with FakeOpenAI(api_key="another-key-entirely", models=["m"]) as server:
        monkeypatch.setenv("FCBENCH_GROQ_BASE_URL", server.base_url)
        result = CliRunner().invoke(main, ["generate", "--model", "groq/m", "--categories",
                                           "simple_python", "--result-dir",
                                           str(tmp_path / "r")])
        asked = server.requests
    assert result.exit_code == 2
    assert "the key is read from GROQ_API_KEY (set)" in result.stderr
    assert asked == 0 and KEY_VALUE not in result.output


def test_litellm_is_one_vetted_pin_outside_the_core_and_the_test_install() -> None:
    """Never a range that admits the compromised 1.82.7 / 1.82.8 (BerriAI/litellm#24518)."""
    import tomllib

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert extras["litellm"] == ["litellm==1.82.6"]
    named = [dep for deps in (project["dependencies"], *(v for k, v in extras.items()
                                                         if k != "litellm")) for dep in deps]
    assert not [dep for dep in named if "litellm" in dep]
    assert "not litellm" in tomllib.loads(
        (Path(__file__).parents[2] / "pyproject.toml").read_text()
    )["tool"]["pytest"]["ini_options"]["addopts"]


def test_without_the_extra_litellm_is_one_line(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(__import__("sys").modules, "litellm", None)  # not installed
    result = CliRunner().invoke(main, ["generate", "--model", "litellm/bedrock/m",
                                       "--categories", "simple_python", "--result-dir",
                                       str(tmp_path / "r")])
    assert result.exit_code == 2
    assert result.stderr == ("fcbench: error: --backend litellm needs LiteLLM: pip install "
                             "'fcbench[litellm]'\n")


def test_a_litellm_reply_reads_as_a_chat_completion() -> None:
    from fcbench.models.litellm_backend import chat_completion

    class Response:
        def model_dump(self) -> dict[str, object]:
            return {"choices": [{"message": {
                "role": "assistant", "content": None, "function_call": None,
                "provider_specific_fields": {"x": 1},
                "tool_calls": [{"id": "c1", "type": "function", "provider_specific_fields": {},
                                "function": {"name": "f", "arguments": "{}"}}]}}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 2}}

    body = chat_completion(Response(), 0.25)
    assert body["choices"][0]["message"] == {
        "role": "assistant", "content": None,
        "tool_calls": [{"id": "c1", "type": "function",
                        "function": {"name": "f", "arguments": "{}"}}]}
    assert body["usage"]["cost"] == 0.25
    assert "cost" not in chat_completion(Response(), None)["usage"]


def test_a_served_vllm_name_is_the_model_the_server_starts(fetched_home: Path) -> None:
    """`--model vllm/X --serve-cmd ...`: the started server serves X and is asked X; the
    result keeps the name given (planned only: nothing is started)."""
    from fcbench.pipeline import plan
    from fcbench.run_config import RunConfig

    config = RunConfig.of({"serve_cmd": "my-server --port {port} --model {model}",
                           "categories": "simple_python", "limit": 1})
    planned = plan("vllm/Qwen/Qwen3-8B", config)
    assert planned.serve is not None and "Qwen/Qwen3-8B" in planned.serve.command
    assert not any("vllm/" in word for word in planned.serve.command)
    assert (planned.model, planned.model_name, planned.folder) == (
        "vllm/Qwen/Qwen3-8B", "Qwen/Qwen3-8B", "Qwen_Qwen3-8B-FC")
