"""`python -m qbank`."""

from __future__ import annotations

from qbank.cli import run

run()
