"""A toy backend: every request is answered with the text of its last user message."""

from __future__ import annotations

from typing import Any

from fcbench.models.base import ChatRequest, FcArgs, Reply
from fcbench.models.registry import BackendOptions


class EchoBackend:
    fc_args: FcArgs = "json_string"

    def __init__(self, model: str) -> None:
        self.name = model

    def describe(self) -> dict[str, Any]:
        return {"backend": "echo", "endpoints": [], "sampling": {}}

    async def step(self, request: ChatRequest) -> Reply:
        users = [m["content"] for m in request.messages if m.get("role") == "user"]
        text = str(users[-1]) if users else ""
        return Reply(result=text, message={"role": "assistant", "content": text},
                     input_tokens=0, output_tokens=0)

    async def aclose(self) -> None:
        return None


def from_options(options: BackendOptions) -> EchoBackend:
    return EchoBackend(options.model)
