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
    alone = runner.deflated(data, 1)
    monkeypatch.setattr(runner, "cpus", lambda: 4)
    assert runner.deflated(data, 1) == alone
    assert zlib.decompress(alone, -zlib.MAX_WBITS) == data
