"""The two ways decoding fails, named as the official evaluator names them."""

from __future__ import annotations

from typing import Any

DECODER_FAILED = "ast_decoder:decoder_failed"
WRONG_OUTPUT_FORMAT = "ast_decoder:decoder_wrong_output_format"


class DecodeError(Exception):
    """The raw output could not be turned into calls.

    `error_type` is one of the official strings above; `decoded` holds what the decoder did
    produce when the failure is a wrong output shape (it is reported in score files).
    """

    def __init__(self, message: str, error_type: str = DECODER_FAILED, decoded: Any = None):
        super().__init__(message)
        self.error_type = error_type
        self.decoded = decoded
