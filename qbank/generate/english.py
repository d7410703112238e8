"""English for rendered text: "an H100", "an 8-bit model", "an 18,000-token prompt", "1 byte".

Templates write "a {device}" and the slot decides the sound: acronyms are read letter by letter
(A100, FP16, L4, H100 start with a vowel sound; BF16, T4, V100 do not) and numbers as words
("eight", "eleven", "eighteen thousand").
"""

from __future__ import annotations

import re

_VOWEL_LETTERS = frozenset("AEFHILMNORSX")  # letter names that start with a vowel sound
# "a"/"an" before a token that is read as letters or as a number: either way round.
_ARTICLE = re.compile(r"\b([Aa])n? (?=([A-Z][A-Z0-9]|\d))")
# "a" before a word with a plain vowel sound ("a audio clip", "a Apple A17"). Words starting with
# u, "one" or "eu" are left alone (a unit, a one-off, a European), and so is every "an" before a word
# (an hour).
_A_VOWEL = re.compile(r"\b([Aa]) (?=[AEIOaeio])(?!one\b|once\b|[Ee]u)")
_NUMBER = re.compile(r"\d[\d,]*")
# "1 bytes" from "{n} bytes" templates; "0.1 bytes" and "21 bytes" are left alone.
_ONE_PLURAL = re.compile(r"(?<![\d.,])1 (GPU|byte|node|replica|core|day|hour|second|minute|swap)s\b")


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

    return _A_VOWEL.sub(lambda m: f"{m.group(1)}n ", _ARTICLE.sub(mend, text))


def fix_agreement(text: str) -> str:
    """ "1 GPUs" and "1 bytes" from count templates made singular."""
    return _ONE_PLURAL.sub(r"1 \1", text)


def tidy(text: str) -> str:
    """Articles and singular counts fixed: what every generated sentence goes through."""
    return fix_agreement(fix_articles(text))


def lower_first(text: str) -> str:
    """`text` made to continue a sentence: "A startup's team" -> "a startup's team", but "ML teams"
    and "The ML team" keep their acronym ("the ML team")."""
    first = text.split(" ", 1)[0]
    if len(first) > 1 and first[1].isupper():
        return text
    return text[:1].lower() + text[1:]
