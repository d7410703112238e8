"""qbank: a question bank for ML-systems interviews, and the tool that keeps it honest."""

# The one place the version is written: pyproject.toml reads it from here (setuptools' `attr:`),
# so no run pays for importlib.metadata at start-up (benchmarks/README.md, start-up).
__version__ = "0.1.0"
