"""The OpenAI Batch API (`--batch` with the OpenAI-compatible backend), through the `openai` SDK.

A batch is a JSONL file uploaded with purpose `batch` (one line per request:
`{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}`, the body exactly as
the live backend would POST it), then a batch created on that file with the 24-hour window.
When it has ended, its output file holds one line per answered request
(`{"custom_id", "response": {"status_code", "body"}, "error"}`) and its error file the
requests that failed. The endpoint is the live backend's first base URL, with its key, its
timeout per request and, for downloads, a cap of `RESULTS_CAP` bytes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from fcbench.models.batch import BatchItem, BatchLine, BatchStatus
from fcbench.models.limits import capped_client_args, within_deadline
from fcbench.models.openai_compat import OpenAICompatBackend, classify

if TYPE_CHECKING:
    from openai import AsyncOpenAI

RESULTS_CAP = 1 << 30
"""Bytes an output or error file may have (a batch of 50,000 long replies stays below)."""
TOKEN = "fcbench_token"
"""The metadata key of a submission's token (`find`)."""
FIND_LIMIT = 1000
"""Recent batches searched for a lost submission (it was made minutes or hours ago)."""
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
"""Batch states after which nothing more happens (`cancelling` ends in `cancelled`)."""


class OpenAIBatch:
    """Batches on the OpenAI-compatible endpoint the live backend asks."""

    name = "openai"
    max_requests = 50_000
    max_bytes = 190_000_000
    """The API takes 200 MB per input file; a margin for the JSONL framing."""

    def __init__(self, live: OpenAICompatBackend) -> None:
        self.live = live
        self.url = live.base_urls[0]
        self._client: AsyncOpenAI | None = None

    def client(self) -> AsyncOpenAI:
        if self._client is None:
            from openai import AsyncOpenAI, DefaultAsyncHttpxClient

            self._client = AsyncOpenAI(
                base_url=self.url, api_key=self.live.api_key, max_retries=0,
                timeout=self.live.timeout,
                http_client=DefaultAsyncHttpxClient(**capped_client_args(
                    max(RESULTS_CAP, self.live.max_reply_bytes))))
        return self._client

    async def _call(self, request: Any) -> Any:
        """An SDK call within the live backend's deadline, its failure as ours."""
        try:
            return await within_deadline(request, self.live.timeout, self.url)
        except Exception as exc:
            raise classify(exc, self.url) from exc

    can_find = True

    async def submit(self, lines: list[BatchLine], token: str) -> str:
        text = "".join(json.dumps({"custom_id": line.custom_id, "method": "POST",
                                   "url": "/v1" + line.request["path"],
                                   "body": line.request["body"]}) + "\n" for line in lines)
        uploaded = await self._call(self.client().files.create(
            file=("fcbench-batch.jsonl", text.encode(), "application/jsonl"), purpose="batch"))
        batch = await self._call(self.client().batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions",
            completion_window="24h", metadata={"created_by": "fcbench", TOKEN: token}))
        return str(batch.id)

    async def find(self, token: str) -> str | None:
        """Looked up by the token in the metadata of the most recent `FIND_LIMIT` batches."""
        async def scan() -> str | None:
            seen = 0
            async for batch in self.client().batches.list(limit=100):
                if (batch.metadata or {}).get(TOKEN) == token:
                    return str(batch.id)
                seen += 1
                if seen >= FIND_LIMIT:
                    break
            return None

        found: str | None = await self._call(scan())
        return found

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self._call(self.client().batches.retrieve(batch_id))
        counts = batch.request_counts
        return BatchStatus(
            str(batch.status), str(batch.status) in ENDED,
            total=int(counts.total) if counts else 0,
            completed=int(counts.completed) + int(counts.failed) if counts else 0,
            failed=int(counts.failed) if counts else 0)

    async def results(self, batch_id: str) -> dict[str, BatchItem]:
        batch = await self._call(self.client().batches.retrieve(batch_id))
        items: dict[str, BatchItem] = {}
        for file_id in (batch.error_file_id, batch.output_file_id):  # answers win
            if file_id:
                content = await self._call(self.client().files.content(file_id))
                items.update(read_output(content.text))
        return items

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
        self._client = None


def read_output(text: str) -> dict[str, BatchItem]:
    """An output or error file's lines by custom id: a 200 response's body, else the error
    (a line that cannot be read is left out: its request is asked live)."""
    items: dict[str, BatchItem] = {}
    for line in text.splitlines():
        try:
            record = json.loads(line)
            custom_id = str(record["custom_id"])
        except (ValueError, KeyError, TypeError):
            continue
        response = record.get("response") if isinstance(record, dict) else None
        body = response.get("body") if isinstance(response, dict) else None
        if isinstance(response, dict) and response.get("status_code") == 200 and isinstance(
                body, dict) and body.get("choices"):
            items[custom_id] = BatchItem(json.dumps(body), body)
        else:
            items[custom_id] = BatchItem(error=_error(record, response))
    return items


def _error(record: dict[str, Any], response: Any) -> str:
    """Why a line has no answer, in one line."""
    error = record.get("error")
    if not error and isinstance(response, dict):
        body = response.get("body")
        error = body.get("error") if isinstance(body, dict) else body
        status = response.get("status_code")
        if status is not None:
            return f"HTTP {status}: {_message(error)}"
    return _message(error)


def _message(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error.get("code") or error)[:500]
    return str(error)[:500] if error else "no answer"


def from_backend(backend: object) -> OpenAIBatch:
    if not isinstance(backend, OpenAICompatBackend):
        from fcbench.models.batch import BatchUnsupported

        raise BatchUnsupported("--batch: not an OpenAI-compatible backend")
    return OpenAIBatch(backend)
