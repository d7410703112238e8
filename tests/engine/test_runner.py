from __future__ import annotations

import os
import zlib

import pytest

from qbank.engine import runner


@pytest.mark.parametrize("size", [0, 1, runner.DEFLATE_CHUNK, 2 * runner.DEFLATE_CHUNK + 12_345])
def test_chunks_deflated_apart_are_one_stream_whatever_the_threads(
    size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = (os.urandom(4096) + b"anki " * 2000) * (size // 14096 + 1)
    data = data[:size]
    monkeypatch.setattr(runner, "cpus", lambda: 1)
    alone = b"".join(runner.deflated(data, 1))
    monkeypatch.setattr(runner, "cpus", lambda: 4)
    assert b"".join(runner.deflated(data, 1)) == alone
    assert zlib.decompress(alone, -zlib.MAX_WBITS) == data


def test_unchanged_chunks_are_kept_and_the_stream_is_a_whole_deflate(monkeypatch: pytest.MonkeyPatch) -> None:
    """An earlier input's outputs are kept for the chunks that are the same, in the same place; the
    stream is byte for byte the one a whole deflate makes."""
    chunk = runner.DEFLATE_CHUNK
    old = os.urandom(chunk) + b"a" * chunk + b"b" * chunk + b"tail"
    before = runner.deflated(old, 1)
    new = old[:chunk] + b"A" + old[chunk + 1 :]  # the second chunk changed
    made: list[int] = []
    real = zlib.compressobj
    monkeypatch.setattr(zlib, "compressobj", lambda *a, **k: made.append(1) or real(*a, **k))
    outputs = runner.deflated(new, 1, (old, before))
    assert len(made) == 1 and outputs[0] is before[0] and outputs[2] is before[2]
    assert b"".join(outputs) == b"".join(runner.deflated(new, 1))
    made.clear()  # a change in the window before the third chunk: it primes that chunk, so both go again
    end = old[: 2 * chunk - 1] + b"B" + old[2 * chunk :]
    outputs = runner.deflated(end, 1, (old, before))
    assert len(made) == 2 and outputs[0] is before[0]
    assert b"".join(outputs) == b"".join(runner.deflated(end, 1))
    assert zlib.decompress(b"".join(outputs), -zlib.MAX_WBITS) == end
    longer = runner.deflated(old + b"more", 1, (old, before))  # the last chunk is last no more
    assert zlib.decompress(b"".join(longer), -zlib.MAX_WBITS) == old + b"more"


def test_outputs_that_are_not_the_earlier_inputs_chunks_are_not_kept() -> None:
    """`before` whose outputs do not number the earlier input's chunks (a kept collection and a deck
    out of step) keeps nothing: the stream is a whole deflate's."""
    old = b"a" * (2 * runner.DEFLATE_CHUNK)
    before = (old, [b"forged"])  # one output for two chunks
    assert b"".join(runner.deflated(old, 1, before)) == b"".join(runner.deflated(old, 1))
