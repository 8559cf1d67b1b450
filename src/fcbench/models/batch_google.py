"""The Gemini API's batch mode (`--batch` with the Google backend), through the `google-genai`
SDK (`client.aio.batches`).

The live Gemini backend keeps each request as the SDK call's arguments (model, contents,
config as plain data) and sends them typed (`types.Content`, `types.GenerateContentConfig`);
a batch line is an `InlinedRequest` of exactly those arguments, typed the same way, with the
request's name in its `metadata` (the answers come back with it). The SDK writes both to the
wire with the same converters (contents, generation config, system instruction, tools). The
batch is created with the token in its display name, so a submission whose answer was lost
is found in the batch list. Inline batches are capped at 20 MB by the API (`max_bytes`).
Each answer is an SDK `GenerateContentResponse`, kept as its JSON as the live backend keeps
one, and read by the same `parse`.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from fcbench.models.batch import BatchItem, BatchLine, BatchStatus
from fcbench.models.google_native import GoogleBackend, classify
from fcbench.models.limits import within_deadline

if TYPE_CHECKING:
    from google.genai import Client

RESULTS_CAP = 1 << 30
"""Bytes a batch (its inlined answers) may have when read."""
ENDED = frozenset({"JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED",
                   "JOB_STATE_EXPIRED"})
NAME_KEY = "fcbench_request"
"""The metadata key of a request's name (custom id) in an inlined request and its answer."""
DISPLAY_PREFIX = "fcbench-"
FIND_LIMIT = 1000


class GeminiBatch:
    """Inline batches on the Gemini API endpoint the live backend asks."""

    name = "google"
    can_find = True
    max_requests = 10_000
    max_bytes = 19_000_000
    """The API takes inline batch requests up to 20 MB; a margin for the framing."""

    def __init__(self, live: GoogleBackend) -> None:
        self.live = live
        self.url = live.base_urls[0]
        self._client: Client | None = None

    def client(self) -> Client:
        if self._client is None:
            reader = copy.copy(self.live)  # the live client's settings, a larger reply cap
            reader.max_reply_bytes = max(RESULTS_CAP, self.live.max_reply_bytes)
            self._client = reader._make_client(self.url)
        return self._client

    async def _call(self, request: Any) -> Any:
        try:
            return await within_deadline(request, self.live.timeout,
                                         self.url or self.live.default_endpoint)
        except Exception as exc:
            raise classify(exc) from exc

    async def submit(self, lines: list[BatchLine], token: str) -> str:
        from google.genai import types

        src = [types.InlinedRequest(
            model=self.live.model,
            contents=[types.Content.model_validate(c) for c in line.request["contents"]],
            config=types.GenerateContentConfig.model_validate(line.request["config"]),
            metadata={NAME_KEY: line.custom_id}) for line in lines]
        job = await self._call(self.client().aio.batches.create(
            model=self.live.model, src=src,
            config=types.CreateBatchJobConfig(display_name=DISPLAY_PREFIX + token)))
        return str(job.name)

    async def find(self, token: str) -> str | None:
        async def scan() -> str | None:
            seen = 0
            async for job in await self.client().aio.batches.list():
                if job.display_name == DISPLAY_PREFIX + token:
                    return str(job.name)
                seen += 1
                if seen >= FIND_LIMIT:
                    break
            return None

        found: str | None = await self._call(scan())
        return found

    async def status(self, batch_id: str) -> BatchStatus:
        job = await self._call(self.client().aio.batches.get(name=batch_id))
        state = str(getattr(job.state, "value", job.state))
        return BatchStatus(state, state in ENDED)

    async def results(self, batch_id: str) -> dict[str, BatchItem]:
        job = await self._call(self.client().aio.batches.get(name=batch_id))
        items: dict[str, BatchItem] = {}
        answers = job.dest.inlined_responses if job.dest is not None else None
        for answer in answers or []:
            name = (answer.metadata or {}).get(NAME_KEY)
            if name is None:
                continue  # not ours to read: its request is asked live
            if answer.response is not None and answer.response.candidates:
                items[name] = BatchItem(answer.response.model_dump_json(exclude_none=True),
                                        answer.response.model_dump(exclude_none=True))
            else:
                error = answer.error
                reason = getattr(error, "message", None) or "no answer"
                items[name] = BatchItem(error=str(reason)[:500])
        return items

    async def aclose(self) -> None:
        if self._client is not None:
            await self.live._close_client(self._client)
        self._client = None


def from_backend(backend: object) -> GeminiBatch:
    if not isinstance(backend, GoogleBackend):
        from fcbench.models.batch import BatchUnsupported

        raise BatchUnsupported("--batch: not a Gemini backend")
    return GeminiBatch(backend)
