"""`qbank migrate PATH`: a StaffML-style vault made into a bank `qbank audit` checks, by the edits a
machine can make without judgement. Whatever needs a person is listed, never filled in.

Per question file (a dry run unless `write` is given):
  - moved to questions/<track>/<competency_area>/<id>.yaml (`git mv` inside a git work tree);
  - `provenance: imported` added where provenance is missing: qbank requires the field, and the
    vault's own model defaulted it to `imported` (research/anchor-vault.md §1.3), so that is what
    the file already meant;
  - plain values that YAML 1.1 reads as something else (`no`, `on`, `2026-01-01`) quoted, keeping
    the YAML 1.2 value qbank reads (rule ambiguous-value);
  - napkin-math and common-mistake markers with exactly one near miss fixed, as `qbank fix` does;
  - the keys of LEGACY_KEYS kept as they are (the model accepts them, as information only).
Once: schema/ with qbank's taxonomy, title words and hardware table, unless the vault has a schema/
folder; topics its files use that qbank's taxonomy lacks are added in a group `imported`.

Left alone and listed: a file that does not load, or whose track, competency area or id cannot
name its place; a placeholder title; a marker that is missing with no near miss; a deleted question
without a deletion reason; a key the model does not know. The structural edits go through
qbank/rewrite.py (ruamel.yaml, or a splice where ruamel.yaml cannot keep the file), the marker
fixes through qbank/fix.py; a file is replaced atomically and never through a link.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from qbank import atomic, load, rewrite
from qbank.checks.api import Context
from qbank.engine import check_document
from qbank.finding import Finding
from qbank.fix import marker_fixes, read_file, write_file
from qbank.model.taxonomy import TAXONOMY_FILE, BankTables, load_bank_tables
from qbank.model.vocabulary import CompetencyArea, Track
from qbank.new import builtin_schema, lay_out

LEGACY_KEYS = {
    # key: why it stays (none is dropped or renamed: every StaffML key has a place in the model)
    "validated": "an LLM validation stamp of the vault; shown nowhere, trusted by no rule",
    "validation_status": "the same",
    "validation_date": "the same",
    "validation_model": "the same",
    "validation_issues": "the same",
    "validation_status_pro": "the same",
    "validation_issues_pro": "the same",
    "math_verified": "an LLM math stamp; qbank re-executes the napkin math itself",
    "math_status": "the same",
    "math_date": "the same",
    "math_model": "the same",
    "math_issues": "the same",
    "chains": "the vault overwrote it from chains.json at load time; ignored",
    "classification_review": "a reviewer's note on the level and zone",
}
_SKIPPED_FOLDERS = ("schema", "evidence", ".git")


@dataclass
class FilePlan:
    """What migrate does to one file, or why it leaves it."""

    source: Path
    shown: str
    target: Path | None = None  # None: left where it is
    old: str = ""
    new: str = ""
    before: os.stat_result | None = None
    changes: list[str] = field(default_factory=list)  # "provenance-added", "value-quoted", ...
    topic: object = None  # as the file gives it (no edit changes it), for the taxonomy's extra topics
    writer: str = ""  # "ruamel.yaml" or "splice", when the structure changed
    why_splice: str = ""
    left: list[str] = field(default_factory=list)  # what a person must do


@dataclass
class Plan:
    root: Path
    files: list[FilePlan]
    schema: dict[str, bytes]  # files to make under schema/, by name

    def counts(self) -> dict[str, int]:
        """How many of each change, over the files and schema/."""
        counted: dict[str, int] = {}
        for plan in self.files:
            for change in plan.changes:
                counted[change] = counted.get(change, 0) + 1
        if self.schema:
            counted["schema-file-made"] = len(self.schema)
        return dict(sorted(counted.items()))


class MigrateError(Exception):
    """The vault cannot be migrated at all (PATH is not a folder, or is a link)."""


def plan(root: Path) -> Plan:
    """Everything migrate would do to the vault at `root`, computed and proven, nothing written."""
    if not root.is_dir() or root.is_symlink():
        raise MigrateError(f"{root}: not a folder")
    root = Path(os.path.abspath(root))  # absolute for git, unresolved so that links stay visible
    files = [_plan_file(root, source) for source in _question_files(root)]
    _one_file_a_place(files)
    schema = _schema(root, files)
    tables = _tables(root, schema)
    for file in files:
        _left_for_a_person(root, file, tables)
    return Plan(root, files, schema)


def apply(migration: Plan) -> list[str]:
    """Write the plan: schema/ first, then each file's new text, then its move. The problems met,
    each naming its file; a file that fails is left as it was and the others go on."""
    root = migration.root
    problems = []
    try:
        lay_out(root, migration.schema)
    except (atomic.WriteError, OSError) as exc:
        return [f"schema/: {exc}"]
    git = _git_root(root)
    for file in migration.files:
        problem = _apply_file(root, file, git)
        if problem:
            problems.append(f"{file.shown}: {problem}")
    return problems


# --- planning one file ---------------------------------------------------------------------------


def _question_files(root: Path) -> list[Path]:
    skipped = {root / name for name in _SKIPPED_FOLDERS}
    return sorted(path for path in load.iter_yaml_files(root) if not any(p in skipped for p in path.parents))


def _plan_file(root: Path, source: Path) -> FilePlan:
    shown = source.relative_to(root).as_posix()
    file = FilePlan(source, shown)
    link = _link_on_the_way(root, source)
    read = read_file(source, shown) if link is None else f"{link} is a symbolic link: not followed"
    if isinstance(read, str):
        file.left.append(f"not migrated: {read}")
        return file
    data, file.before = read
    try:
        file.old = data.decode("utf-8")
    except UnicodeDecodeError:
        file.left.append("not migrated: not UTF-8 (rule encoding)")
        return file
    ambiguous: list[load.Loc] = []
    document = load.parse(file.old, shown, ambiguous)
    if isinstance(document, Finding):
        file.left.append(f"not migrated: {document.name} at line {document.line}: {document.message}")
        return file
    file.topic = document.data.get("topic")
    file.new = _edited(file, document, ambiguous)
    file.target = _target(root, document.data, file)
    return file


def _edited(file: FilePlan, document: load.Document, ambiguous: list[load.Loc]) -> str:
    """The file's text with the structural edits, then the marker fixes."""
    edits: list[rewrite.Edit] = [rewrite.Quote(loc) for loc in ambiguous]
    if "provenance" not in document.data:
        edits.append(rewrite.Add("provenance", "imported", after=("status", "details")))
    text = file.old
    if edits:
        done = rewrite.rewrite(text, document, edits)
        if isinstance(done, str):
            file.left.append(f"structure not changed: {done}")
            return text
        text, file.writer, file.why_splice = done.text, done.writer, done.why_splice
        file.changes += ["value-quoted"] * len(ambiguous)
        file.changes += ["provenance-added"] * (len(edits) - len(ambiguous))
    reread = load.parse(text, file.shown)
    if isinstance(reread, Finding):  # rewrite proved it loads; kept as a guard for the marker step
        return text
    fixed, changes, notes = marker_fixes(text, reread)
    file.changes += ["marker-fixed"] * len(changes)
    file.left += notes
    return fixed


def _target(root: Path, data: dict[str, Any], file: FilePlan) -> Path | None:
    track, area, question_id = data.get("track"), data.get("competency_area"), data.get("id")
    if (
        track not in get_args(Track)
        or area not in get_args(CompetencyArea)
        or not isinstance(question_id, str)
    ):
        file.left.append("not moved: track, competency_area or id is missing or not a known value")
        return None
    if not question_id or "/" in question_id or question_id.startswith(".") or "\\" in question_id:
        file.left.append(f"not moved: id {question_id!r} cannot be a file name")
        return None
    target = root / "questions" / str(track) / str(area) / f"{question_id}.yaml"
    if target != file.source:
        if target.exists() or target.is_symlink():
            file.left.append(f"not moved: {target.relative_to(root).as_posix()} exists")
            return None
        file.changes.append("moved")
    return target


def _left_for_a_person(root: Path, file: FilePlan, tables: BankTables | Finding) -> None:
    """What the audit will still find in the migrated file, at its new place: each is left for a
    person, since migrate has made every edit it can make alone."""
    if not file.new:
        return
    place = file.target or file.source
    document = load.parse(file.new, place.relative_to(root).as_posix())
    if isinstance(document, Finding):
        found = [document]
    elif isinstance(tables, Finding):
        found = [tables]
    else:
        _, found, _ = check_document(place, document, Context(tables, root / "questions"))
    file.left += [f"{f.code} {f.name} at line {f.line}: {f.message}" for f in sorted(found)]


def _one_file_a_place(files: list[FilePlan]) -> None:
    """Two files of the vault with the same track, area and id: the first (in path order) moves,
    the other stays where it is, listed."""
    taken: dict[Path, str] = {}
    for file in files:
        if file.target is None or file.target == file.source:
            continue
        if file.target in taken:
            file.left.append(f"not moved: {taken[file.target]} has the same track, area and id")
            file.changes.remove("moved")
            file.target = None
        else:
            taken[file.target] = file.shown


# --- schema/ -------------------------------------------------------------------------------------


def _schema(root: Path, files: list[FilePlan]) -> dict[str, bytes]:
    """qbank's schema files for a vault without schema/, the vault's extra topics added."""
    if (root / "schema").exists():
        return {}
    made = builtin_schema()
    tables = load_bank_tables(None)
    assert not isinstance(tables, Finding), tables  # the package's own files
    extra = sorted({t for t in _topics(files) if t not in tables.topics})
    if extra:
        lines = "".join(f"    - {topic}\n" for topic in extra)
        taxonomy = made[TAXONOMY_FILE].decode("utf-8")
        made[TAXONOMY_FILE] = (
            taxonomy.rstrip("\n") + "\n  imported:  # topics the vault used that qbank's list lacks\n" + lines
        ).encode("utf-8")
    return made


def _tables(root: Path, schema: dict[str, bytes]) -> BankTables | Finding:
    """The tables the migrated bank will have: its own schema/, or qbank's with the extra topics."""
    if not schema:
        return load_bank_tables(root / "schema")
    tables = load_bank_tables(None)
    topics = load.parse(schema[TAXONOMY_FILE].decode("utf-8"), TAXONOMY_FILE)
    if isinstance(tables, Finding):
        return tables
    if isinstance(topics, Finding):
        return topics
    groups = {group: tuple(slugs) for group, slugs in topics.data["topics"].items()}
    return dataclasses.replace(tables, topic_groups=groups)


def _topics(files: list[FilePlan]) -> set[str]:
    return {file.topic for file in files if file.new and isinstance(file.topic, str)}


# --- writing -------------------------------------------------------------------------------------


def _apply_file(root: Path, file: FilePlan, git: Path | None) -> str | None:
    if file.new and file.new != file.old:
        assert file.before is not None
        problem = write_file(file.source, file.new.encode("utf-8"), file.before)
        if problem:
            return problem
    if file.target is None or file.target == file.source:
        return None
    try:
        atomic.make_folder(file.target.parent)
    except atomic.WriteError as exc:
        return str(exc)
    if file.target.exists() or file.target.is_symlink():
        return f"not moved: {file.target.relative_to(root).as_posix()} appeared meanwhile"
    return _move(file.source, file.target, git)


def _move(source: Path, target: Path, git: Path | None) -> str | None:
    """`git mv` when the file is tracked in a work tree, so its history follows; else a rename."""
    if git is not None:
        moved = subprocess.run(
            ["git", "-C", str(git), "mv", "-k", "--", str(source), str(target)],
            capture_output=True,
            check=False,
        )
        if moved.returncode == 0 and target.exists():
            return None
    try:
        os.rename(source, target)
    except OSError as exc:
        return f"not moved: {exc.strerror or exc}"
    return None


def _git_root(root: Path) -> Path | None:
    try:
        found = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(found.stdout.strip()) if found.returncode == 0 and found.stdout.strip() else None


def _link_on_the_way(root: Path, path: Path) -> str | None:
    """The first folder between `root` and `path`, or `path` itself, that is a symbolic link."""
    here = path
    while here != root and here != here.parent:
        if here.is_symlink():
            return here.relative_to(root).as_posix()
        here = here.parent
    return None
