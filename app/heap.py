"""The heap of a process that runs one app or worker until it exits."""

from __future__ import annotations

import gc


def freeze_startup_heap() -> None:
    """Take every object alive after start-up out of the cyclic collector's reach.

    The modules, the ORM's metadata, the SDKs and the caches built at start-up are hundreds of
    thousands of objects that live as long as the process. Every full collection walked them
    all: 40-144 ms with the event loop stopped and nothing found (BENCHMARKS.md, 2026-11-27),
    which held every job in flight for as long. Frozen, they are still freed by their reference
    counts; garbage already waiting is collected first, so none of it is kept. Only for a
    process that runs one app or worker: tests that start many in one process would keep each
    one's cycles.
    """
    gc.collect()
    gc.freeze()
