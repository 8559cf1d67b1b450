"""What the native vendor-SDK backends (Anthropic, Google) share: their settings, one SDK
client per endpoint used in turn, and how they describe themselves in the run manifest.

A subclass says how to build a client for a base URL and how to close one; requests and
response parsing stay in the subclass, since they are what differs between vendors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from fcbench.models.base import FcArgs
from fcbench.models.exchange import RawStore
from fcbench.models.limits import DEFAULT_MAX_REPLY_BYTES, DEFAULT_TIMEOUT
from fcbench.models.openai_compat import Sampling

if TYPE_CHECKING:
    from fcbench.models.registry import BackendOptions

ClientT = TypeVar("ClientT")


class SDKBackend(Generic[ClientT]):
    backend_name = ""
    default_endpoint = ""
    fc_args: FcArgs = "json_string"
    raw_store: RawStore | None = None
    """Where replies are kept as received (the response cache), None: always asked."""

    def __init__(
        self,
        model: str,
        base_urls: Sequence[str],
        *,
        api_key: str | None = None,
        sampling: Sampling | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        provider: str | None = None,
    ) -> None:
        self.name = model
        self.model = model
        self.base_urls = list(base_urls) or [""]
        self.api_key = api_key or "EMPTY"
        self.sampling = sampling or Sampling()
        self.timeout = timeout
        """Seconds for a whole request (`models.limits.within_deadline`)."""
        self.max_reply_bytes = max_reply_bytes
        self.provider = provider
        """The provider named by `provider/model` (`models.providers`), None otherwise."""
        self._clients: list[ClientT] | None = None
        self._turn = 0

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.backend_name,
            "endpoints": [u or self.default_endpoint for u in self.base_urls],
            "sampling": self.sampling.describe(),
            "timeout": self.timeout,
            **({"provider": self.provider} if self.provider else {}),
        }

    def use_raw_store(self, store: RawStore | None) -> None:
        """Keep replies as received (`models.exchange`): the subclass sends each request
        through `exchanged` and reads what comes back, kept or fresh."""
        self.raw_store = store

    def _make_client(self, base_url: str) -> ClientT:
        """A client for one endpoint (`""`: the vendor's default), retries left to the runner."""
        raise NotImplementedError

    async def _close_client(self, client: ClientT) -> None:
        raise NotImplementedError

    def _client(self) -> tuple[ClientT, str]:
        """The next endpoint's client, in turn (built on first use: the SDK loads lazily)."""
        if self._clients is None:
            self._clients = [self._make_client(url) for url in self.base_urls]
        self._turn = (self._turn + 1) % len(self._clients)
        return self._clients[self._turn], self.base_urls[self._turn]

    async def aclose(self) -> None:
        for client in self._clients or []:
            await self._close_client(client)
        self._clients = None


def sdk_from_options(cls: type[SDKBackend[Any]], options: BackendOptions) -> SDKBackend[Any]:
    """A vendor-SDK backend from the registry's options (no text parsers apply)."""
    from fcbench.models.keys import missing_key
    from fcbench.models.registry import BackendSetupError

    if options.tool_call_format:
        raise BackendSetupError("--tool-call-format applies to the OpenAI-compatible backend")
    missing = missing_key(options.api_key, options.key_variable, options.base_urls,
                          cls.default_endpoint)
    if missing:
        raise BackendSetupError(missing)
    return cls(options.model, options.base_urls, api_key=options.api_key,
               sampling=options.sampling, timeout=options.timeout,
               max_reply_bytes=options.max_reply_bytes, provider=options.provider)
