from __future__ import annotations

from qbank.model.fields import classification


def test_zone_bloom_table_is_complete() -> None:
    assert len(classification.ZONE_BLOOM) == 11
    assert all(levels <= set(classification.BLOOM_ORDER) for levels in classification.ZONE_BLOOM.values())


def test_zone_bloom() -> None:
    assert classification.zone_bloom("recall", "remember") is None
    assert classification.zone_bloom("recall", None) is None
    problem = classification.zone_bloom("mastery", "remember")
    assert problem is not None and "analyze, evaluate, create" in problem.message


def test_unknown_topic() -> None:
    assert classification.unknown_topic("kv-cache-management", {"kv-cache-management"}) is None
    assert classification.unknown_topic("kv-cache", {"kv-cache-management"}) is not None


def test_deletion_reason_both_ways() -> None:
    assert classification.deletion_reason("deleted", "duplicate") is None
    assert classification.deletion_reason("deleted", "  ") is not None
    assert classification.deletion_reason("published", "why") is not None
    assert classification.deletion_reason("published", None) is None
