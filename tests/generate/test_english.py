"""Articles in front of slot values: the acronym or number decides, read aloud."""

from __future__ import annotations

import pytest

from qbank.generate.english import article, fix_articles, lower_first, tidy


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("a H100 and a A100", "an H100 and an A100"),
        ("on a L4 or a T4", "on an L4 or a T4"),
        ("A FP16 run, an BF16 run", "An FP16 run, a BF16 run"),
        ("a 8-bit model, a 80K-parameter net", "an 8-bit model, an 80K-parameter net"),
        ("a 18,000-token prompt, a 11 kHz tone", "an 18,000-token prompt, an 11 kHz tone"),
        ("a 180 W card, a 112x112 image, a 110 GB file", "a 180 W card, a 112x112 image, a 110 GB file"),
        ("a USB stick, an STM32, a one-line fix", "a USB stick, an STM32, a one-line fix"),
        ("a audio clip on a Apple A17", "an audio clip on an Apple A17"),
        (
            "a unit, a European site, an hour, a once-a-day job",
            "a unit, a European site, an hour, a once-a-day job",
        ),
    ],
)
def test_fix_articles_matches_how_the_token_is_read(text: str, fixed: str) -> None:
    assert fix_articles(text) == fixed


def test_article_for_ordinary_words_follows_the_first_letter() -> None:
    assert article("activation") == "an activation"
    assert article("weight gradient") == "a weight gradient"
    assert article("FP8 value") == "an FP8 value"


def test_counts_of_one_are_singular_and_others_are_left_alone() -> None:
    text = "1 GPUs per replica, 1 bytes each, 0.1 bytes, 21 GPUs, 11 days"
    assert tidy(text) == "1 GPU per replica, 1 byte each, 0.1 bytes, 21 GPUs, 11 days"


def test_lower_first_keeps_a_leading_acronym() -> None:
    assert lower_first("The ML serving team") == "the ML serving team"
    assert lower_first("A startup's inference team") == "a startup's inference team"
    assert lower_first("ML engineers at a bank") == "ML engineers at a bank"
