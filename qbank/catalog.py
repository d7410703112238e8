"""Every rule, by the module that defines it, listed here rather than found by import side effects.

A rule is a decorated function (qbank/rules.py) of one of these scopes:
    load     qbank/load/rules.py, qbank/model/taxonomy.py, qbank/model/records.py: the file, the schema files, the model
    field    qbank/model/fields/: one value -> Problem, attached to a model field
    record   qbank/checks/: (Record, Context) -> findings, listed in checks.RECORD_CHECKS
    bank     qbank/checks/: (entries, Context) -> findings, listed in checks.BANK_CHECKS
A new rule module is added to MODULES; tests/test_catalog.py fails on a rule module missing here.
"""

from __future__ import annotations

from types import ModuleType

from qbank import rules
from qbank.checks import arithmetic, bank, device, format_facts, hardware_constants, numeric_claims, similar
from qbank.checks import text as text_checks
from qbank.load import rules as load_rules
from qbank.model import records, taxonomy
from qbank.model.fields import classification, markers, options
from qbank.model.fields import text as text_fields
from qbank.rules import Rule

MODULES: tuple[ModuleType, ...] = (
    load_rules,
    taxonomy,
    records,
    text_fields,
    markers,
    options,
    classification,
    bank,
    similar,
    arithmetic,
    hardware_constants,
    numeric_claims,
    format_facts,
    device,
    text_checks,
)


def all_rules() -> list[Rule]:
    """Every rule, sorted by code."""
    return rules.registered()


def get(code_or_name: str) -> Rule:
    """A rule by code (`QB110`, any case) or name (`title-case`); KeyError if unknown."""
    return rules.get(code_or_name)
