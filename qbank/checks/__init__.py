"""The checks that run in the engine after validation, by scope (their contracts: checks/api.py):
RECORD_CHECKS on each loaded file, BANK_CHECKS once over all of them. Field rules run inside the
model (qbank/model/fields/); rules of loading live with the loader (qbank/load/rules.py).
"""

from __future__ import annotations

from qbank.checks import (
    arithmetic,
    bank,
    device,
    format_facts,
    hardware_constants,
    numeric_claims,
    similar,
    text,
)

RECORD_CHECKS = (
    bank.check_topic,
    bank.check_path,
    arithmetic.check_math,
    hardware_constants.check_hardware_constants,
    numeric_claims.check_claims,
    format_facts.check_format_facts,
    device.refuted,
    device.unverified,
    text.check_deceptive_text,
)
BANK_CHECKS = (bank.check_duplicate_ids, similar.check_duplicate_content, similar.check_near_duplicates)
