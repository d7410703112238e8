"""qbank: a question bank for ML-systems interviews, and the tool that keeps it honest."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("qbank")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
