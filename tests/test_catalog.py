"""The rule catalogue lists every module that defines a rule, and the layers hold."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from qbank import catalog
from tests.conftest import REPO

_RULE = re.compile(r"^(?:@rule\(|\w+ = declare\()", re.MULTILINE)


def test_every_module_that_defines_a_rule_is_in_the_catalogue() -> None:
    defining = {
        ".".join(path.relative_to(REPO).with_suffix("").parts)
        for path in (REPO / "qbank").rglob("*.py")
        if _RULE.search(path.read_text(encoding="utf-8"))
    }
    assert defining == {module.__name__ for module in catalog.MODULES}
    assert len({r.code for r in catalog.all_rules()}) == len(catalog.all_rules()) > 40


def test_the_model_loads_no_check_and_no_napkin_math() -> None:
    code = "import sys, qbank.model.question; print(sorted(m for m in sys.modules if m.startswith('qbank.')))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert "qbank.checks" not in loaded.stdout and "qbank.napkin" not in loaded.stdout, loaded.stdout
    assert "'qbank.model.question'" in loaded.stdout


def test_the_command_line_loads_no_engine_before_a_command_runs() -> None:
    """`qbank --help` and the hook's start-up pay for click and the command modules only: each
    command imports what it runs (the engine, exports, the GPU probes) when it runs."""
    code = "import sys, qbank.cli; print(sorted(m for m in sys.modules if m.startswith('qbank.')))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert "qbank.commands.audit" in loaded.stdout
    for heavy in ("qbank.engine", "qbank.checks", "qbank.model.question", "qbank.export.site"):
        assert f"'{heavy}'" not in loaded.stdout, loaded.stdout


def test_the_engine_and_checks_import_neither_pydantic_nor_numpy() -> None:
    """A warm audit reads every file from the cache and never builds a model; a pre-commit run on a
    few files never replays evidence or searches with MinHash: the function-local imports that keep
    pydantic and numpy out of them are held here."""
    code = "import sys, qbank.engine, qbank.checks; print('numpy' in sys.modules, 'pydantic' in sys.modules)"
    loaded = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert loaded.stdout.split() == ["False", "False"]


def test_the_import_contracts_hold() -> None:
    """pyproject.toml [tool.importlinter]: imports only go down (also run by .ci/run and pre-commit)."""
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, "import-linter is a dev dependency: pip install -e '.[dev]'"
    done = subprocess.run([lint], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "0 broken" in done.stdout, done.stdout + done.stderr
