"""Anthropic Message Batches (`--batch` with the Anthropic backend), through the `anthropic` SDK.

`POST /v1/messages/batches` with `{"requests": [{"custom_id", "params"}]}` (`params`: the
Messages API body exactly as the live backend would POST it), `GET .../{id}` until its
`processing_status` is `ended`, then `GET .../{id}/results`: one JSON line per request,
`result.type` `succeeded` with the `message` (the same body a live call returns), or
`errored` / `canceled` / `expired`. Sent with the SDK's generic requests, as the live backend
sends its messages, so no SDK model rewrites a body; the results are read from the batch's
own path on the live endpoint (never from a `results_url` elsewhere: the key goes with it).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from fcbench.models.anthropic_native import AnthropicBackend, classify
from fcbench.models.batch import BatchItem, BatchLine, BatchStatus
from fcbench.models.limits import capped_client_args, within_deadline

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

RESULTS_CAP = 1 << 30
"""Bytes a batch's results may have."""
PATH = "/v1/messages/batches"


class AnthropicBatch:
    """Message batches on the endpoint the live backend asks."""

    name = "anthropic"
    max_requests = 100_000
    max_bytes = 250_000_000
    """The API takes 256 MB per batch request; a margin for the framing."""

    def __init__(self, live: AnthropicBackend) -> None:
        self.live = live
        self.url = live.base_urls[0]
        self._client: AsyncAnthropic | None = None

    def client(self) -> AsyncAnthropic:
        if self._client is None:
            from anthropic import AsyncAnthropic, DefaultAsyncHttpxClient

            self._client = AsyncAnthropic(
                base_url=self.url or None, api_key=self.live.api_key, max_retries=0,
                timeout=self.live.timeout,
                http_client=DefaultAsyncHttpxClient(**capped_client_args(
                    max(RESULTS_CAP, self.live.max_reply_bytes))))
        return self._client

    async def _text(self, request: Any) -> str:
        """A generic SDK request's body text, within the deadline, its failure as ours."""
        try:
            return str(await within_deadline(request, self.live.timeout,
                                             self.url or self.live.default_endpoint))
        except Exception as exc:
            raise classify(exc) from exc

    async def _object(self, request: Any) -> dict[str, Any]:
        from fcbench.models.base import TransientError

        text = await self._text(request)
        try:
            found = json.loads(text)
        except ValueError:
            raise TransientError("malformed message batch (not JSON)") from None
        if not isinstance(found, dict) or not isinstance(found.get("id"), str):
            raise TransientError("malformed message batch (no id)")
        return found

    can_find = False
    """Message batches keep no tags: a submission whose answer was lost cannot be told."""

    async def submit(self, lines: list[BatchLine], token: str) -> str:
        body = {"requests": [{"custom_id": line.custom_id, "params": line.request["body"]}
                             for line in lines]}
        batch = await self._object(self.client().post(PATH, body=body, cast_to=str))
        return str(batch["id"])

    async def find(self, token: str) -> str | None:
        return None

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self._object(self.client().get(f"{PATH}/{batch_id}", cast_to=str))
        counts = batch.get("request_counts") or {}
        number = {k: int(v) for k, v in counts.items() if isinstance(v, int)}
        failed = sum(number.get(k, 0) for k in ("errored", "canceled", "expired"))
        state = str(batch.get("processing_status"))
        return BatchStatus(state, state == "ended", total=sum(number.values()),
                           completed=number.get("succeeded", 0) + failed, failed=failed)

    async def results(self, batch_id: str) -> dict[str, BatchItem]:
        text = await self._text(self.client().get(f"{PATH}/{batch_id}/results", cast_to=str))
        return read_results(text)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
        self._client = None


def read_results(text: str) -> dict[str, BatchItem]:
    """Result lines by custom id: a succeeded one's message, else why it has none (a line
    that cannot be read is left out: its request is asked live)."""
    items: dict[str, BatchItem] = {}
    for line in text.splitlines():
        try:
            record = json.loads(line)
            custom_id, result = str(record["custom_id"]), record["result"]
            kind = result["type"]
        except (ValueError, KeyError, TypeError):
            continue
        message = result.get("message") if isinstance(result, dict) else None
        if kind == "succeeded" and isinstance(message, dict) and isinstance(
                message.get("content"), list):
            items[custom_id] = BatchItem(json.dumps(message), message)
            continue
        error = result.get("error") if isinstance(result, dict) else None
        detail = error.get("error", error) if isinstance(error, dict) else error
        reason = detail.get("message") if isinstance(detail, dict) else detail
        items[custom_id] = BatchItem(error=f"{kind}: {reason}"[:500] if reason else str(kind))
    return items


def from_backend(backend: object) -> AnthropicBatch:
    if not isinstance(backend, AnthropicBackend):
        from fcbench.models.batch import BatchUnsupported

        raise BatchUnsupported("--batch: not an Anthropic backend")
    return AnthropicBatch(backend)
