"""English articles for rendered text: "an H100", "an 8-bit model", "an 18,000-token prompt".

Templates write "a {device}" and the slot decides the sound: acronyms are read letter by letter
(A100, FP16, L4, H100 start with a vowel sound; BF16, T4, V100 do not) and numbers as words
("eight", "eleven", "eighteen thousand").
"""

from __future__ import annotations

import re

_VOWEL_LETTERS = frozenset("AEFHILMNORSX")  # letter names that start with a vowel sound
# "a"/"an" before a token that is read as letters or as a number; ordinary words are left alone.
_ARTICLE = re.compile(r"\b([Aa])n? (?=([A-Z][A-Z0-9]|\d))")
_NUMBER = re.compile(r"\d[\d,]*")


def vowel_sound(word: str) -> bool:
    """Whether `word` starts with a vowel sound when read aloud."""
    if not word:
        return False
    if word[0].isdigit():
        digits = _NUMBER.match(word).group(0).rstrip(",")  # type: ignore[union-attr]
        lead = digits.split(",")[0] if "," in digits else digits
        return lead.startswith("8") or (lead[:2] in ("11", "18") and len(lead) % 3 == 2)
    if len(word) > 1 and word[0].isupper() and (word[1].isupper() or word[1].isdigit()):
        return word[0] in _VOWEL_LETTERS
    return word[0].lower() in "aeiou"


def article(word: str) -> str:
    """`word` with "a" or "an" in front."""
    return f"{'an' if vowel_sound(word) else 'a'} {word}"


def fix_articles(text: str) -> str:
    """Every "a"/"an" in front of an acronym or a number made to match how that token is read."""

    def mend(match: re.Match[str]) -> str:
        word = text[match.end() :].split(" ", 1)[0]
        a = match.group(1)
        return f"{a}{'n' if vowel_sound(word) else ''} "

    return _ARTICLE.sub(mend, text)
