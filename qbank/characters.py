"""Characters that hide what text holds: the audit reports them in question files (rule
deceptive-text) and every reporter escapes them in what it prints."""

from __future__ import annotations

import re

# Characters that make text show something other than what it holds: C0 and C1 controls other than
# tab and line feed (a terminal escape, `\e[2J`, rewrites the screen a log is read on), the line and
# paragraph separators (line breaks to some readers, not to others), bidirectional
# controls (Trojan Source, CVE-2021-42574) and invisible format characters (Unicode TR36 §3; the
# default-ignorable code points of DerivedCoreProperties.txt that are not letters or marks).
HIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u2028\u2029\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
)
