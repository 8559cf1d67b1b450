"""Hostile inputs from others' files, endpoints and web pages (issue 20, items 2-4), as plain
data: each is a name and how to make it, so the tests here and a benchmark
(`benchmarks/bench_hostile.py`) can include the same corpus and time it.

Nothing here is sent anywhere: the servers that serve the streamed ones live in the tests
(`tests/envs/web_search/fake_web.py`, `tests/models/hostile_server.py`) and bind 127.0.0.1.
"""

from __future__ import annotations

import functools
import json
import struct
import zlib

DEEP = 200_000
"""How deep the nested JSON goes: far past any parser's recursion limit."""


def deep_json(depth: int = DEEP) -> str:
    """`[[[...]]]` nested `depth` deep: one line, 2 * depth bytes."""
    return "[" * depth + "]" * depth


RESULT_LINES: dict[str, str] = {
    "nested 200,000 deep": deep_json(),
    "nested object 200,000 deep": '{"a":' * DEEP + "1" + "}" * DEEP,
    "result nested 900 deep": json.dumps(
        {"id": "simple_python_1", "result": json.loads(deep_json(900))}),
    "id of the wrong type": json.dumps({"id": ["simple_python_2"], "result": "[f()]"}),
    "usage of the wrong types": json.dumps(
        {"id": "simple_python_3", "result": "[f()]", "latency": "slow",
         "input_token_count": {"n": 1}, "output_token_count": [2]}),
    "result of the wrong type": json.dumps({"id": "simple_python_4", "result": {"a": [None]}}),
    "not an object": "[1, 2, 3]",
    "torn": '{"id": "simple_python_5", "result": ',
}
"""Lines a result file may hold besides good ones (each must cost one warning or one
failed case, never the file)."""

MODEL_JSONS: dict[str, str] = {
    "nested 200,000 deep": deep_json(),
    "object nested 200,000 deep": '{"mode":' * DEEP + '"fc"' + "}" * DEEP,
    "mode of the wrong type": json.dumps({"mode": 123}),
    "family of the wrong type": json.dumps({"mode": "prompt", "family": [1]}),
    "fc_names unknown": json.dumps({"mode": "fc", "fc_names": "camel"}),
    "not an object": json.dumps(["fc"]),
    "torn": '{"mode": "fc",\n "fc_args": ',
    "not UTF-8": "\udcff",
}
"""model.json contents that must leave that one model out with one warning."""


@functools.lru_cache(maxsize=2)
def gzip_bomb(size: int = 1 << 30) -> bytes:
    """A valid gzip stream of `size` zero bytes in about size / 1000 bytes, built in a second
    or two: one 1 MiB block compressed after a full flush is the same every time, so it is
    compressed once and repeated (the trailer's CRC is computed over the zeros)."""
    block = bytes(1 << 20)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    steady = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    ending = packer.flush()[:-8]  # the final empty block; the trailer is redone below
    crc = 0
    for _ in range(size >> 20):
        crc = zlib.crc32(block, crc)
    blocks = first + steady * ((size >> 20) - 1)
    return blocks + ending + struct.pack("<II", crc, size & 0xFFFFFFFF)


@functools.lru_cache(maxsize=2)
def brotli_bomb(size: int = 1 << 30) -> bytes:
    """A brotli stream of `size` zero bytes (about 200 KB for 1 GiB)."""
    import brotli

    packer = brotli.Compressor(quality=1)
    block = bytes(1 << 20)
    return b"".join(packer.process(block) for _ in range(size >> 20)) + packer.finish()


PAGES: dict[str, str] = {
    "/huge": "1 GiB of HTML, Content-Length announced",
    "/huge-chunked": "1 GiB of HTML, chunked, no length",
    "/gzip-bomb": "1 MB of gzip that inflates to 1 GiB",
    "/br-bomb": "200 KB of brotli that inflates to 1 GiB",
    "/drip": "one byte every 5 s, never finished",
    "/to-localhost": "a redirect to localhost:<port>/secret",
    "/to-metadata": "a redirect to the cloud metadata address 169.254.169.254",
    "/to-private": "a redirect to 10.0.0.1 (scheme-relative)",
    "/loop": "a redirect to itself, for ever",
}
"""The hostile pages `tests/envs/web_search/fake_web.py` serves (path: what it sends)."""

REFUSED_URLS: tuple[str, ...] = (
    "http://127.0.0.1/", "http://localhost:8080/admin", "http://[::1]/",
    "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://10.1.2.3/", "http://192.168.0.1/",
    "http://172.16.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/",
    "http://[fd00:ec2::254]/", "http://100.100.100.200/", "https://127.1/",
    "http://2130706433/",
)
"""URLs refused by default without a byte sent (loopback, private, link-local, metadata,
shared and unspecified addresses, in the spellings that reach them)."""
