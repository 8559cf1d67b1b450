"""Hostile web pages (issue 20, item 2): what `tests/envs/web_search/fake_web.py` serves on
127.0.0.1, the compression bombs it sends, and the URLs the host policy must refuse; plain
data, so the tests and `benchmarks/bench_hostile.py` include the same corpus."""

from __future__ import annotations

import functools
import struct
import zlib


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
