"""What the response cache costs and saves: cases per second of generation against the
zero-latency local server, without the cache, with a cold one (every step missed, then
stored) and with a warm one (every step served from the file, no request sent).

Against a zero-latency server the cold figure is the cache's whole overhead (a key hash, a
lookup and one committed write per step); the warm figure is how fast a repeated run replays.
Against a real model every hit saves a model call.

    python benchmarks/bench_cache.py [--cases 2000] [--concurrency 64] [--runs 3]

Uses `bench_generate.py`'s server and cases; fetches the data itself when it is missing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_generate import ensure_data, load_cases, start_server


def rate(url: str, cases: list, concurrency: int, cache_dir: Path | None) -> tuple[float, int]:
    """(cases/s, cache hits) of one generation through the pipeline's cache wrapper."""
    from fcbench.models.base import Sampling
    from fcbench.models.openai_compat import OpenAICompatBackend
    from fcbench.runner.cached import CacheSettings, with_cache
    from fcbench.runner.generate import GenerateSettings, generate

    backend = OpenAICompatBackend("bench", [url], concurrency=concurrency)
    if cache_dir is not None:
        backend = with_cache(backend, "bench", CacheSettings("auto", cache_dir),  # type: ignore[assignment]
                             sampling=Sampling(), from_registry=True)
    with tempfile.TemporaryDirectory() as tmp:
        report = generate(backend, Path(tmp) / "bench", cases,
                          GenerateSettings(mode="fc", concurrency=concurrency))
    assert report.errors == 0, report.summary()
    hits = int(report.extra.get("cache", {}).get("hits", 0))
    return report.asked / report.seconds, hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    ensure_data()
    cases = load_cases(args.cases)
    server, url = start_server()
    try:
        rate(url, cases[:1], 1, None)  # warm the imports and the client
        plain, cold, warm = [], [], []
        for _ in range(args.runs):
            plain.append(rate(url, cases, args.concurrency, None)[0])
            with tempfile.TemporaryDirectory() as folder:
                cold.append(rate(url, cases, args.concurrency, Path(folder))[0])
                speed, hits = rate(url, cases, args.concurrency, Path(folder))
                assert hits == args.cases, hits
                warm.append(speed)
                size = sum(p.stat().st_size for p in Path(folder).iterdir())
    finally:
        server.terminate()
    print(f"{args.cases} cases, concurrency {args.concurrency}, best of {args.runs}:")
    print(f"  no cache      {max(plain):8.0f} cases/s")
    print(f"  cold cache    {max(cold):8.0f} cases/s  ({max(cold) / max(plain):.2f}x; "
          f"every step stored)")
    print(f"  warm cache    {max(warm):8.0f} cases/s  ({max(warm) / max(plain):.2f}x; "
          f"no request sent; file {size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
