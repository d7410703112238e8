"""The load rules: why a file could not be read as a question at all. Each is a function that builds
its Finding (the loader reports at most one per file), documented by its docstring."""

from __future__ import annotations

from qbank.finding import Finding
from qbank.rules import rule, rule_of

MAX_BYTES = 256 * 1024  # file-too-large
MAX_DEPTH = 64  # nesting-too-deep: a question is 3 levels deep; libyaml's C composer recurses once per level


@rule("QB001", "yaml-syntax")
def yaml_syntax(path: str, line: int, column: int, message: str) -> Finding:
    """The file must be valid YAML holding exactly one document.

    Reported at the place libyaml stopped, with its explanation. Control characters such as NUL
    and non-scalar mapping keys are reported here too.

    Fails:
        title: "an unterminated string
    Passes:
        title: "A Terminated String"
    """
    return rule_of(yaml_syntax).finding(path, line, column, f"invalid YAML: {message}")


@rule("QB002", "duplicate-key")
def duplicate_key(path: str, line: int, column: int, message: str) -> Finding:
    """A key may appear only once in a mapping.

    Most YAML loaders keep the last value silently, so the first one is lost without a word.

    Fails:
        level: L2
        level: L3
    Passes:
        level: L3
    """
    return rule_of(duplicate_key).finding(path, line, column, f"duplicate {message}")


@rule("QB003", "encoding")
def encoding(path: str, line: int, column: int, message: str) -> Finding:
    """Files are UTF-8 without a byte-order mark.

    Fails:
        (a file saved as Latin-1 or UTF-16, or starting with the bytes EF BB BF)
    Passes:
        (the same text saved as plain UTF-8)
    """
    return rule_of(encoding).finding(path, line, column, message)


@rule("QB004", "empty-file")
def empty_file(path: str) -> Finding:
    """A question file must hold a question: an empty file, or one of only comments, is an error.

    Fails:
        # nothing here yet
    Passes:
        id: cloud-202611-0001
        (and the rest of the question)
    """
    return rule_of(empty_file).finding(path, 1, 1, "file is empty (no YAML document)")


@rule("QB005", "not-mapping")
def not_mapping(path: str, found: str) -> Finding:
    """The top level of a question file is a mapping of field names to values.

    Fails:
        - id: cloud-202611-0001
    Passes:
        id: cloud-202611-0001
    """
    return rule_of(not_mapping).finding(path, 1, 1, f"top level is a {found}, not a mapping of fields")


@rule("QB006", "yaml-alias")
def yaml_alias(path: str, line: int, column: int, message: str) -> Finding:
    """Anchors (`&name`) and aliases (`*name`) are not allowed.

    Question files have no use for them, and aliases are how a few lines of YAML expand into
    gigabytes (the "billion laughs" alias bomb).

    Fails:
        tags: &t [fp16]
        keywords: *t
    Passes:
        tags: [fp16]
        keywords: [fp16]
    """
    return rule_of(yaml_alias).finding(path, line, column, f"{message}: anchors and aliases are not allowed")


@rule("QB007", "yaml-tag")
def yaml_tag(path: str, line: int, column: int, message: str) -> Finding:
    """Explicit YAML tags (`!!python/object`, `!!str`, `!custom`, the non-specific `!`) are not allowed.

    Tags ask a loader to build arbitrary objects; qbank never does, and refuses the file.

    Fails:
        title: !!python/object/apply:os.system ["true"]
    Passes:
        title: The FP16 Loss Scaling Dance
    """
    return rule_of(yaml_tag).finding(path, line, column, f"{message}: tags are not allowed")


@rule("QB008", "merge-key")
def merge_key(path: str, line: int, column: int, message: str) -> Finding:
    """The YAML 1.1 merge key `<<` is not allowed: write the fields out.

    Fails:
        <<: {track: cloud}
    Passes:
        track: cloud
    """
    return rule_of(merge_key).finding(path, line, column, f"{message} is not allowed; write the fields out")


@rule("QB009", "file-too-large")
def file_too_large(path: str) -> Finding:
    """A question file is at most 256 KiB (real questions are 2 to 5 KiB).

    The cap keeps a hostile file from exhausting memory or time; the file is not parsed.

    Fails:
        (a 300 KiB file)
    Passes:
        (a 3 KiB question)
    """
    return rule_of(file_too_large).finding(
        path, 1, 1, f"file is larger than {MAX_BYTES // 1024} KiB; not parsed"
    )


@rule("QB010", "unreadable-file")
def unreadable_file(path: str, why: OSError | str) -> Finding:
    """The file could not be read (permissions, a broken link or a loop of links, removed during the
    run), or was not read: a folder, FIFO or socket named *.yaml, or a link leading out of the bank.

    Fails:
        (a file with mode 000; a link to ~/.ssh/id_rsa)
    Passes:
        (a readable file)
    """
    message = why if isinstance(why, str) else f"cannot read file: {why.strerror or why}"
    return rule_of(unreadable_file).finding(path, 1, 1, message)


@rule("QB012", "ambiguous-value")
def ambiguous_value(path: str, line: int, column: int, message: str) -> Finding:
    """A plain value that YAML 1.1 reads as something other than a string must be quoted.

    qbank reads YAML 1.2, where `no`, `on`, `2026-01-01` and `1:30` are strings. PyYAML's safe_load
    and other YAML 1.1 readers see the boolean false, true, a date and the number 90: the same file
    would mean something else to them (the "Norway problem"). Quoted, it means the same to both.

    Fails:
        validation_date: 2026-01-01
    Passes:
        validation_date: '2026-01-01'
    """
    return rule_of(ambiguous_value).finding(path, line, column, f"{message}: quote it")


@rule("QB011", "nesting-too-deep")
def nesting_too_deep(path: str, line: int, column: int, message: str) -> Finding:
    """Collections nest at most 64 levels (a question uses 3).

    Deeper nesting is only ever hostile: it overflows recursive YAML composers.

    Fails:
        title: [[[[[[ ... 100 levels ... ]]]]]]
    Passes:
        tags: [fp16, loss-scaling]
    """
    return rule_of(nesting_too_deep).finding(path, line, column, f"nesting too deep: {message}")
