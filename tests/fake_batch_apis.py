"""A loopback stand-in of the OpenAI Batch API, Anthropic Message Batches and Gemini's batch
mode (127.0.0.1 only).

A small threaded HTTP server. It answers live requests too (`POST /v1/chat/completions`,
`POST /v1/messages`, `POST .../models/{m}:generateContent`), so that one server can answer a
live run and a `--batch` run with the same replies: both come from one responder (a
`fake_openai` responder, e.g. the e2e tests' `ScriptedModel`; Anthropic and Gemini requests
are shown to it in Chat Completions shape), shaped by `fake_openai`'s and `fake_gemini`'s
own helpers, so a batch reply is the body a live call gets.

OpenAI: `POST /v1/files` (multipart, purpose batch), `POST /v1/batches`,
`GET /v1/batches/{id}`, `GET /v1/files/{id}/content`. Anthropic: `POST /v1/messages/batches`,
`GET /v1/messages/batches/{id}`, `GET .../{id}/results`. Gemini (`root` as the base URL; the
SDK may say /v1 for /v1beta): `POST /v1beta/models/{m}:batchGenerateContent` (inline
requests; `batch_bodies` keeps each request without its `model`, which a live call names in
its URL), `GET /v1beta/batches/{id}` (the answers inline), `GET /v1beta/batches`.

A batch stays in progress until `finish` is set (a test kills its client meanwhile); then
each line is answered, or failed as `fail(custom_id, body)` says (`"errored"`,
`"expired"`), and the output and error files are written. Counts: `submissions` (batches
created), `polls`, `live_bodies` and `batch_bodies` (the request bodies as received),
`uploads`.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fake_gemini import as_chat as gemini_as_chat
from fake_gemini import gemini_answer
from fake_openai import FakeOpenAI, Responder, _anthropic_message, anthropic_as_chat

Fail = Callable[[str, dict[str, Any]], "str | None"]


class FakeBatchAPI:
    """The server; a context manager, `base_url` (OpenAI, with /v1) and `root` (Anthropic)
    ready on entry."""

    def __init__(self, responder: Responder, *, fail: Fail | None = None,
                 models: list[str] | None = None) -> None:
        self.responder = responder
        self.shapes = FakeOpenAI(responder)  # never started: its reply shapes only
        self.fail = fail
        self.models = models or []
        self.finish = threading.Event()
        self.error_text = "bad request"
        """What an errored line's error says."""
        self.lose_create_replies = 0
        """Create that many batches, answering each with HTTP 500 (a lost reply)."""
        self.unavailable = 0
        """Answer that many GETs of a batch's status with HTTP 503."""
        self.unavailable_results = 0
        """Answer that many GETs of results (Anthropic) or files (OpenAI) with HTTP 503."""
        self.lock = threading.Lock()
        self.submissions = 0
        self.polls = 0
        self.uploads = 0
        self.live_bodies: list[dict[str, Any]] = []
        self.batch_bodies: list[dict[str, Any]] = []
        self.files: dict[str, str] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None

    @property
    def root(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def base_url(self) -> str:
        return self.root + "/v1"

    def __enter__(self) -> FakeBatchAPI:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._answer(*owner.get(self.path.split("?")[0]))

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                data = self.rfile.read(length)
                self._answer(*owner.post(self.path, data, self.headers.get("content-type", "")))

            def _answer(self, status: int, payload: Any) -> None:
                body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # -- live ------------------------------------------------------------------------------

    def reply(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """The reply a live call to `path` gets (a batch line gets the same)."""
        with self.lock:
            if path.endswith("/messages"):
                return _anthropic_message(body, self.responder(anthropic_as_chat(body)))
            if path.endswith(":generateContent"):
                return gemini_answer(self.responder(gemini_as_chat(body)))
            return self.shapes._completion(body, self.responder(body))

    def post(self, path: str, data: bytes, content_type: str) -> tuple[int, Any]:
        path = path.replace("/v1/models/", "/v1beta/models/")  # the SDK's API version
        if path.startswith("/v1beta/models/") and path.endswith(":batchGenerateContent"):
            batch = json.loads(data)["batch"]
            lines = [{"custom_id": item["metadata"]["fcbench_request"], "url": ":generateContent",
                      "metadata": item["metadata"],
                      "body": {k: v for k, v in item["request"].items() if k != "model"}}
                     for item in batch["inputConfig"]["requests"]["requests"]]
            return self._lost_or(self._created(lines, "gemini", "", {
                "displayName": batch.get("displayName", "")}))
        if path.startswith("/v1beta/models/") and path.endswith(":generateContent"):
            body = json.loads(data)
            self.live_bodies.append(body)
            return 200, self.reply(path, body)
        if path in ("/v1/chat/completions", "/v1/messages"):
            body = json.loads(data)
            self.live_bodies.append(body)
            return 200, self.reply(path, body)
        if path == "/v1/files":
            return self._upload(data, content_type)
        if path == "/v1/batches":
            request = json.loads(data)
            lines = [json.loads(line) for line in self.files[request["input_file_id"]]
                     .splitlines()]
            return self._lost_or(self._created(lines, "openai", request["endpoint"],
                                               request.get("metadata")))
        if path == "/v1/messages/batches":
            lines = [{"custom_id": r["custom_id"], "url": "/v1/messages", "body": r["params"]}
                     for r in json.loads(data)["requests"]]
            return self._lost_or(self._created(lines, "anthropic", "/v1/messages"))
        return 404, {"error": {"message": f"no {path}"}}

    def _lost_or(self, created: dict[str, Any]) -> tuple[int, Any]:
        if self.lose_create_replies > 0:
            self.lose_create_replies -= 1
            return 500, {"error": {"message": "the reply was lost", "type": "server_error"}}
        return 200, created

    def get(self, path: str) -> tuple[int, Any]:
        results = path.endswith(("/content", "/results"))
        if (results and self.unavailable_results > 0) or (
                not results and "batches/" in path and self.unavailable > 0):
            if results:
                self.unavailable_results -= 1
            else:
                self.unavailable -= 1
            return 503, {"error": {"message": "try later", "type": "overloaded_error"}}
        if path in ("/v1beta/batches", "/v1/batches"):  # Gemini's list (and OpenAI's below)
            gemini = {"operations": [self._gemini_view(b) for b in
                                     reversed(self.batches.values()) if b["kind"] == "gemini"]}
            if path == "/v1beta/batches":
                return 200, gemini
        else:
            gemini = {}
        if path.startswith(("/v1beta/batches/", "/v1/batches/")) and self.batches.get(
                path.split("/")[3], {}).get("kind") == "gemini":
            return 200, self._gemini_view(self._polled(self.batches[path.split("/")[3]]))
        if path.startswith(("/v1/models", "/v1beta/models")):
            name = path.split("/models", 1)[1].strip("/")
            if name:
                return 200, {"id": name, "type": "model", "display_name": name}
            return 200, {"object": "list", "data": [{"id": m, "object": "model"}
                                                   for m in self.models]}
        if path.startswith("/v1/files/") and path.endswith("/content"):
            return 200, self.files[path.split("/")[3]].encode()
        if path.startswith("/v1/messages/batches/"):
            parts = path.split("/")
            batch = self.batches[parts[4]]
            if len(parts) > 5 and parts[5] == "results":
                return 200, self._anthropic_results(batch).encode()
            return 200, self._anthropic_view(self._polled(batch))
        if path == "/v1/batches":  # the list, newest first (one page)
            listed = [self._openai_view(b) for b in reversed(self.batches.values())
                      if b["kind"] == "openai"]
            return 200, {**gemini, "object": "list", "data": listed, "has_more": False,
                         "first_id": listed[0]["id"] if listed else None,
                         "last_id": listed[-1]["id"] if listed else None}
        if path.startswith("/v1/batches/"):
            return 200, self._openai_view(self._polled(self.batches[path.split("/")[3]]))
        return 404, {"error": {"message": f"no {path}"}}

    # -- batches ---------------------------------------------------------------------------

    def _upload(self, data: bytes, content_type: str) -> tuple[int, Any]:
        """A multipart upload: the `file` part kept under a new id."""
        boundary = content_type.split("boundary=")[1].strip('"').encode()
        text = ""
        for part in data.split(b"--" + boundary):
            head, _, content = part.partition(b"\r\n\r\n")
            if b'name="file"' in head:
                text = content.removesuffix(b"\r\n").decode()
        self.uploads += 1
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = text
        return 200, {"id": file_id, "object": "file", "bytes": len(text), "created_at": 0,
                     "filename": "batch.jsonl", "purpose": "batch", "status": "processed"}

    def _created(self, lines: list[dict[str, Any]], kind: str, endpoint: str,
                 metadata: dict[str, str] | None = None) -> dict[str, Any]:
        with self.lock:
            self.submissions += 1
        self.batch_bodies.extend(line["body"] for line in lines)
        prefix = {"anthropic": "msgbatch_", "gemini": ""}.get(kind, "batch_")
        batch = {"id": f"{prefix}{next(self._ids)}", "kind": kind, "lines": lines,
                 "endpoint": endpoint, "done": False, "items": {}, "metadata": metadata}
        self.batches[batch["id"]] = batch
        view = {"anthropic": self._anthropic_view, "gemini": self._gemini_view}
        return view.get(kind, self._openai_view)(batch)

    def _polled(self, batch: dict[str, Any]) -> dict[str, Any]:
        """The batch, answered once `finish` is set."""
        with self.lock:
            self.polls += 1
        if self.finish.is_set() and not batch["done"]:
            for line in batch["lines"]:
                failure = self.fail(line["custom_id"], line["body"]) if self.fail else None
                batch["items"][line["custom_id"]] = failure or self.reply(line["url"],
                                                                          line["body"])
            batch["done"] = True
            if batch["kind"] == "openai":
                self._write_files(batch)
        return batch

    def _write_files(self, batch: dict[str, Any]) -> None:
        out, errors = [], []
        for name, item in batch["items"].items():
            if isinstance(item, str):
                errors.append({"id": "x", "custom_id": name, "response": None, "error": {
                    "code": f"batch_{item}", "message": f"{item}: {self.error_text}"}})
            else:
                out.append({"id": "x", "custom_id": name, "response": {
                    "status_code": 200, "request_id": "r", "body": item}, "error": None})
        for key, records in (("output_file_id", out), ("error_file_id", errors)):
            if records:
                file_id = f"file-{next(self._ids)}"
                self.files[file_id] = "".join(json.dumps(r) + "\n" for r in records)
                batch[key] = file_id

    def _counts(self, batch: dict[str, Any]) -> tuple[int, int, int]:
        items = batch["items"]
        failed = sum(isinstance(i, str) for i in items.values())
        return len(batch["lines"]), len(items) - failed, failed

    def _openai_view(self, batch: dict[str, Any]) -> dict[str, Any]:
        total, completed, failed = self._counts(batch)
        return {"id": batch["id"], "object": "batch", "endpoint": batch["endpoint"],
                "input_file_id": "file-in", "completion_window": "24h", "created_at": 0,
                "status": "completed" if batch["done"] else "in_progress",
                "output_file_id": batch.get("output_file_id"),
                "error_file_id": batch.get("error_file_id"),
                "request_counts": {"total": total, "completed": completed, "failed": failed},
                "metadata": batch["metadata"]}

    def _anthropic_view(self, batch: dict[str, Any]) -> dict[str, Any]:
        total, succeeded, failed = self._counts(batch)
        items = batch["items"].values()
        return {"id": batch["id"], "type": "message_batch",
                "processing_status": "ended" if batch["done"] else "in_progress",
                "request_counts": {
                    "processing": total - succeeded - failed, "succeeded": succeeded,
                    "errored": sum(i == "errored" for i in items),
                    "expired": sum(i == "expired" for i in items), "canceled": 0},
                "results_url": None}

    def _gemini_view(self, batch: dict[str, Any]) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
            "model": "models/scripted", "displayName": batch["metadata"]["displayName"],
            "state": "BATCH_STATE_SUCCEEDED" if batch["done"] else "BATCH_STATE_PENDING"}
        if batch["done"]:
            answers = []
            for line in batch["lines"]:
                item = batch["items"][line["custom_id"]]
                answers.append({"metadata": line["metadata"], **(
                    {"error": {"code": 400, "message": f"{item}: {self.error_text}"}}
                    if isinstance(item, str) else {"response": item})})
            metadata["output"] = {"inlinedResponses": {"inlinedResponses": answers}}
        return {"name": f"batches/{batch['id']}", "metadata": metadata, "done": batch["done"]}

    def _anthropic_results(self, batch: dict[str, Any]) -> str:
        lines = []
        for name, item in batch["items"].items():
            if isinstance(item, str):
                result: dict[str, Any] = {"type": item}
                if item == "errored":
                    result["error"] = {"type": "error", "error": {
                        "type": "invalid_request_error", "message": self.error_text}}
            else:
                result = {"type": "succeeded", "message": item}
            lines.append(json.dumps({"custom_id": name, "result": result}) + "\n")
        return "".join(lines)
