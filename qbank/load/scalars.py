"""Plain scalars read by the YAML 1.2 core schema, not PyYAML's 1.1 rules: `no`, `on` and `1:30` stay
strings (research/ecosystem.md §4.8); and what a YAML 1.1 reader would make of the same text, for
the ambiguous-value rule."""

from __future__ import annotations

import re
from typing import Any

import yaml

# YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution), for plain scalars only.
_NULL = re.compile(r"~|null|Null|NULL|")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# First letters of plain scalars that the core schema can only read as strings: none of null, true,
# false, a number or .inf/.nan begins with these.
STRING_STARTS = frozenset("abcdeghijklmopqrsuvwxyzABCDEGHIJKLMOPQRSUVWXYZ")
_SPECIAL_FLOAT = {
    ".inf": "inf",
    ".Inf": "inf",
    ".INF": "inf",
    "-.inf": "-inf",
    "-.Inf": "-inf",
    "-.INF": "-inf",
    "+.inf": "inf",
    "+.Inf": "inf",
    "+.INF": "inf",
    ".nan": "nan",
    ".NaN": "nan",
    ".NAN": "nan",
}


def scalar_value(text: str, style: str | None) -> Any:
    """The typed value of a scalar: quoted and block scalars are always strings."""
    if style or text[:1] in STRING_STARTS:  # most plain values are words: `cloud`, `L3`, ids
        return text
    if _NULL.fullmatch(text):
        return None
    if text in _BOOL:
        return _BOOL[text]
    try:
        if _INT.fullmatch(text) and text[:2] in ("0o", "0x"):
            value = int(text, 0)
            # int() reads any number of hex or octal digits, but the value then fails wherever it is
            # printed (a finding, an export): str() raises past 4,300 decimal digits, as int() does.
            str(value)
            return value
        if _INT.fullmatch(text):
            return int(text)
        if _FLOAT.fullmatch(text):
            return float(text)
    except ValueError:  # e.g. more digits than int() accepts (CVE-2020-10735 limit)
        return text
    if text in _SPECIAL_FLOAT:
        return float(_SPECIAL_FLOAT[text])
    return text


# Plain scalars that YAML 1.1 readers (PyYAML's safe_load, the StaffML tools) read as something other
# than the string the 1.2 core schema reads: its booleans include y/n, yes/no and on/off
# (https://yaml.org/type/bool.html, of which PyYAML leaves out y and n), and it has dates, sexagesimal
# numbers (1:30) and 0b/underscored numbers. PyYAML's own resolver says which.
YAML11_WORDS = frozenset(
    ["y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"]
)
_YAML11_KINDS = {"bool": "boolean", "int": "number", "float": "number", "timestamp": "date", "null": "null"}


def yaml11_type(text: str) -> str | None:
    """What YAML 1.1 reads a plain string scalar as, when not a string: "boolean", "date", …"""
    if text in YAML11_WORDS:
        return "boolean"
    if text[:1] in STRING_STARTS:  # none of 1.1's other implicit types starts with these letters
        return None
    for tag, pattern in yaml.resolver.Resolver.yaml_implicit_resolvers.get(text[:1], ()):
        if pattern.match(text):
            return _YAML11_KINDS.get(tag.rsplit(":", 1)[-1])
    return None


def ambiguity(value: str, kind: str) -> str:
    shown = value if len(value) <= 40 else value[:40] + "…"
    if _INT.fullmatch(value) or _FLOAT.fullmatch(value):  # the core schema's number, past int()'s limit
        return f"`{shown}` is a number of {len(value)} characters, too long to read"
    return f"`{shown}` is a {kind} to YAML 1.1 readers"
