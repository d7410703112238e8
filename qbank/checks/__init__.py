"""The check registry: one module per check family.

Field rules (text, markers, options, classification) run inside pydantic validation: qbank/model.py
attaches each one to its field. The checks listed here run in the engine after validation:
RECORD_CHECKS on each loaded file, BANK_CHECKS once over all of them.
"""

from __future__ import annotations

from qbank.checks import (
    arithmetic,
    bank,
    classification,
    device,
    hardware,
    markers,
    numeric,
    options,
    similar,
    text,
)

RECORD_CHECKS = (
    bank.check_topic,
    bank.check_path,
    arithmetic.check_math,
    hardware.check_hardware_constants,
    numeric.check_claims,
    device.refuted,
    device.unverified,
    text.check_deceptive_text,
)
BANK_CHECKS = (bank.check_duplicate_ids, similar.check_duplicate_content, similar.check_near_duplicates)
FAMILIES = (text, markers, options, classification, bank, similar, arithmetic, hardware, numeric, device)
