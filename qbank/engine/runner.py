"""Worker processes: the per-file checks, and the two halves of a large near-duplicate search. The
one place the audit starts processes and keeps worker state (_WORKER, _FORKED), and sets the
garbage collector (collector_paused; cli.run freezes it at exit); the per-file chunks shrink as
the work runs out. Also the threads that deflate a large export (deflated)."""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qbank.checks.api import Context
from qbank.engine.per_file import Result, check_file, sign
from qbank.engine.settings import Progress
from qbank.engine.views import View, release_view
from qbank.finding import Finding
from qbank.similarity import Confirm

PARALLEL_MIN = 300  # files to check before worker processes pay for their start (benchmarks/README.md)

Job = tuple[Path, str, "bytes | Finding | None"]  # a file, as findings show it, and what _read gave


Checked = tuple[Result, "View | None"]  # a file's result, and its release view when one was asked for


def run_checks(
    jobs: list[Job], context: Context, workers: int, progress: Progress, views: bool = False
) -> list[Checked]:
    """Check the files serially, or in worker processes when there are many; with `views`, make
    each file's release view too (exports)."""
    workers = workers or (cpus() if len(jobs) >= PARALLEL_MIN else 1)
    if workers <= 1 or len(jobs) < 2:
        ticks = progress([file for file, _, _ in jobs])  # first in zip: the bar is drawn to its end
        return [check_job(job, context, views) for _, job in zip(ticks, jobs, strict=True)]
    import concurrent.futures  # only a large run starts processes
    import multiprocessing

    import numpy  # noqa: F401  (imported once here, not in every worker: they sign entries)

    import qbank.model.records  # noqa: F401  (likewise)

    # fork where there is one: workers start in milliseconds with qbank already imported, and are
    # given the jobs without pickling them (initargs are pickled only where processes are spawned)
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with concurrent.futures.ProcessPoolExecutor(
        workers,
        multiprocessing.get_context(method),
        initializer=_worker_init,
        initargs=(context, jobs, views),
    ) as pool:
        done = itertools.chain.from_iterable(pool.map(_worker_check, chunks(len(jobs), workers)))
        return [result for _, result in zip(progress([file for file, _, _ in jobs]), done, strict=True)]


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for an audit (with cli.run's gc.freeze, the only
    places qbank sets it; the commands that audit run under it). An audit builds tens of thousands of small acyclic objects (paths, results,
    entries), and each burst of them started collections that walked every live object
    (benchmarks/README.md, gc). An audit makes next to no cycles, and the gc documentation allows
    turning the collector off "if you are sure your program does not create reference cycles";
    reference counting still frees everything else."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        # What the run made and still holds is long-lived: filed in the oldest generation (freeze,
        # then unfreeze: two list splices), so that the first young collection after does not walk
        # all of it, as it did at the end of every audit (15 ms at 10,000 files, 25 ms after a
        # site export; gc's documentation, gc.freeze and gc.unfreeze).
        gc.freeze()
        gc.unfreeze()
        gc.enable()


def chunks(count: int, workers: int) -> list[range]:
    """Chunks of the jobs that shrink as the work runs out ("guided self-scheduling", Polychronopoulos
    and Kuck 1987): each takes a 1/(4 x workers) share of the jobs left, and no fewer than MIN_CHUNK,
    so the first are large (fewer results to send back) and the last small. With 16 equal chunks one
    worker could wait up to a whole chunk's time at the end (benchmarks/README.md, chunks)."""
    chunks = []
    first = 0
    while first < count:
        size = max(MIN_CHUNK, (count - first) // (workers * 4))
        chunks.append(range(first, min(first + size, count)))
        first += size
    return chunks


MIN_CHUNK = 16


def cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_WORKER: tuple[Context, list[Job], bool] | None = None


def _worker_init(context: Context, jobs: list[Job], views: bool) -> None:
    global _WORKER
    _WORKER = context, jobs, views


def _worker_check(chunk: range) -> list[Checked]:
    """Some files checked, and their entries signed in one batch: a run this large searches for
    near-duplicates with MinHash, and signing here keeps that work off the parent's serial tail."""
    assert _WORKER is not None
    context, jobs, views = _WORKER
    checked = [check_job(jobs[i], context, views) for i in chunk]
    results = [result for result, _ in checked]
    sign(results)
    return list(zip(results, (view for _, view in checked), strict=True))


def check_job(job: Job, context: Context, views: bool) -> Checked:
    result, record = check_file(*job, context)
    return result, release_view(record, job[1], context) if views else None


def in_two_processes(confirm: Confirm, left: Any, right: Any) -> tuple[Any, Any, Any]:
    """confirm(left, right): the odd-numbered candidates in a forked process while this one takes
    the even-numbered. After the per-file checks this is the audit's longest serial step
    (benchmarks/README.md, near-duplicates). It needs fork (spawning a process would pickle the
    inputs): without it, this process confirms them all."""
    import concurrent.futures  # only a large bank confirms in two processes
    import multiprocessing

    import numpy as np

    if "fork" not in multiprocessing.get_all_start_methods():
        return confirm(left, right)

    global _FORKED
    _FORKED = confirm, left[1::2], right[1::2]  # the child finds its half here, not in a pickle
    try:
        with concurrent.futures.ProcessPoolExecutor(1, multiprocessing.get_context("fork")) as pool:
            theirs = pool.submit(_confirm_forked)
            halves = [confirm(left[::2], right[::2]), theirs.result()]
    finally:
        _FORKED = None
    left, right, scores = (np.concatenate(parts) for parts in zip(*halves, strict=True))
    order = np.lexsort((right, left))  # the pairs in order again, as one process gives them
    return left[order], right[order], scores[order]


_FORKED: tuple[Confirm, Any, Any] | None = None


def _confirm_forked() -> tuple[Any, Any, Any]:
    assert _FORKED is not None
    confirm, left, right = _FORKED
    return confirm(left, right)


DEFLATE_CHUNK = 1024 * 1024  # bytes deflated apart: a 42 MB Anki collection is 41 chunks
WINDOW = 32 * 1024  # deflate's window (RFC 1951 §2): how far back a chunk may refer


def deflated(data: bytes, level: int, before: tuple[bytes, list[bytes]] | None = None) -> list[bytes]:
    """`data` as one raw deflate stream (RFC 1951), in the outputs of its chunks, deflated in threads
    (zlib lets go of the GIL while it works), as pigz makes them: each chunk is primed with the
    WINDOW bytes before it (so it may refer back into them, as a whole deflate would), and each
    but the last ends with a sync flush, an empty stored block that ends its output on a byte
    boundary, so the outputs joined are one stream. The chunks do not depend on the number of
    threads, so neither do the bytes. At level 1, a 42 MB collection packs in 0.14 s on two cores,
    no larger than one stream (0.08% smaller; unprimed 4 MB chunks were 0.2% larger).

    `before`: an earlier input and its chunks' outputs; a chunk whose bytes, the WINDOW before
    them, and place (last or not) are the same is not deflated again: its output would be the
    same. An Anki collection updated in place changes three of its 41 chunks."""
    import concurrent.futures  # only an export that packs a deck starts threads

    view = memoryview(data)
    starts = range(0, max(len(data), 1), DEFLATE_CHUNK)
    if before is not None and len(before[1]) != len(range(0, max(len(before[0]), 1), DEFLATE_CHUNK)):
        before = None  # outputs that are not that input's chunks: nothing to keep

    def pack(start: int) -> bytes:
        last = start + DEFLATE_CHUNK >= len(data)
        if before is not None and _unchanged(before, data, start, last):
            return before[1][start // DEFLATE_CHUNK]
        window = view[max(start - WINDOW, 0) : start]  # (none before the first chunk)
        packer = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS, zdict=window)
        return packer.compress(view[start : start + DEFLATE_CHUNK]) + packer.flush(
            zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH
        )

    with concurrent.futures.ThreadPoolExecutor(cpus()) as pool:
        return list(pool.map(pack, starts))


def _unchanged(before: tuple[bytes, list[bytes]], data: bytes, start: int, last: bool) -> bool:
    """Whether the chunk at `start`, with the window before it, is the earlier input's, in the same
    place."""
    old, outputs = before
    index = start // DEFLATE_CHUNK
    was_last = start + DEFLATE_CHUNK >= len(old)
    # Slices of bytes, not of memoryviews: memoryview's == compares item by item (42 MB in 129 ms,
    # as long as deflating them), bytes' is one memcmp (42 MB in 6 ms, with the copies).
    begin, end = max(start - WINDOW, 0), start + DEFLATE_CHUNK
    return index < len(outputs) and was_last == last and old[begin:end] == data[begin:end]
