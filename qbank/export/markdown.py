"""Question prose as HTML: CommonMark, raw HTML escaped, no images, math kept for KaTeX or Anki.

CommonMark matters for the napkin-math format: `**Assumptions:**` followed by a list on the next
line is a list in CommonMark, one run-on paragraph in Python-Markdown (research/ecosystem.md §6.1).
`html: False` turns any tag in a question into text; images are off, because an image would make
an offline study page fetch from the network. Links (`safe_link`) keep only http, https, mailto and
same-site relative targets; any other is left as the text it was written as, the way markdown-it
leaves `javascript:`.

Math: `\\(..\\)` and `$..$` inline, `\\[..\\]` and `$$..$$` display. The corpus writes money with `$`
(`$2/GPU-hour = $40`), so a single `$` opens math only as pandoc's rule has it (a non-space after
the opening `$`, a non-space before the closing one, no digit after it) and when the text between
holds TeX (`\\`, `^`, `_` or `{`): `$\\times$` and `$10^{13}$` are math, `$2 and $3` is money.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

_BRACKETS = (("$$", "$$", True), ("\\[", "\\]", True), ("\\(", "\\)", False))
_TEX = frozenset("\\^_{")
MAX_MATH = 2000  # characters: past this it is not a formula, and the text stays as written


def _math(state: StateInline, silent: bool) -> bool:
    src, start = state.src, state.pos
    for opener, closer, display in _BRACKETS:
        if src.startswith(opener, start):
            end = src.find(closer, start + len(opener))
            if end > start + len(opener):
                return _push(state, silent, src[start + len(opener) : end], display, end + len(closer))
            return False
    if src[start] != "$":
        return False
    end = src.find("$", start + 1)
    tex = src[start + 1 : end]
    closes = end > start + 1 and not tex[0].isspace() and not tex[-1].isspace()
    if closes and not src[end + 1 : end + 2].isdigit() and _TEX.intersection(tex):
        return _push(state, silent, tex, False, end + 1)
    return False


def _push(state: StateInline, silent: bool, tex: str, display: bool, after: int) -> bool:
    if len(tex) > MAX_MATH or not tex.strip():
        return False
    if not silent:
        token = state.push("math", "", 0)
        token.content = tex
        token.meta = {"display": display}
    state.pos = after
    return True


def for_site(tex: str, display: bool) -> str:
    """A span the site's script typesets with KaTeX; its text is the TeX, escaped."""
    return f'<span class="math" data-display="{str(display).lower()}">{html.escape(tex)}</span>'


def for_anki(tex: str, display: bool) -> str:
    """Anki typesets `\\(..\\)` and `\\[..\\]` itself (MathJax)."""
    return f"\\[{html.escape(tex)}\\]" if display else f"\\({html.escape(tex)}\\)"


Render = Callable[[str], str]
escape = html.escape


# A line that opens a section of the bank's formats: `**Calculations:**`, `2. **Conclusion:**`.
_SECTION = re.compile(r"\n(?=[ \t]*(?:\d+[.)][ \t]+)?\*\*[^*\n]+\*\*)")


def sections(text: str) -> str:
    """Put a blank line before each section marker. The formats write markers on the line after a
    list item (`- last assumption` then `**Calculations:**`), which CommonMark reads as more of that
    item, and write `**The Pitfall:**`/`**The Rationale:**` on consecutive lines, one paragraph."""
    return _SECTION.sub("\n\n", text)


LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"([a-z][a-z0-9+.-]*):")  # RFC 3986 section 3.1


def safe_link(url: str) -> bool:
    """Whether a link may be made: an http, https or mailto URL, or a relative one that stays on the
    site. Refused: any other scheme (`javascript:`, `data:`, `file:`, `smb:`, and OS protocol
    handlers such as `ms-msdt:`, CVE-2022-30190), and a network-path reference `//host/share` (RFC
    3986 section 4.2): a page opened from file:// resolves it to `file://host/share`, which Windows
    opens over SMB, sending the user's credentials to that host. `url` comes normalized from
    markdown-it (a backslash, a space or a tab percent-encoded; `<  //host>` stripped to `//host`)."""
    url = url.strip().lower()
    scheme = _SCHEME.match(url)
    if scheme:
        return scheme.group(1) in LINK_SCHEMES
    return not url.startswith("//")


def renderer(math: Callable[[str, bool], str] = for_site) -> Render:
    """A function from question prose to safe HTML."""
    md = _markdown(math)
    return lambda text: md.render(sections(text))


@dataclass(frozen=True)
class Mark:
    """How a block whose source lines the audit re-executed is marked: its class, a symbol shown
    before it, and a title that says what the audit found."""

    css: str
    symbol: str
    title: str


Marked = Callable[[str, Mapping[str, Mark]], str]


def marking_renderer(math: Callable[[str, bool], str] = for_site) -> Marked:
    """Like `renderer`, and each paragraph or list item holding a source line of `marks` (keyed by
    the line, stripped, as the audit reports it: Outcome.line) carries that line's mark. Block
    tokens know their source lines (`map`); sections() only adds blank lines, so a stripped line
    reads the same in the text rendered as in the text the audit read. Where a block holds lines
    with different marks, the first mark in `marks` order wins (the caller puts failures first)."""
    md = _markdown(math)

    def render(text: str, marks: Mapping[str, Mark]) -> str:
        source = sections(text)
        env: dict[str, Any] = {}
        tokens = md.parse(source, env)
        if marks:
            _mark(tokens, source.splitlines(), marks)
        return str(md.renderer.render(tokens, md.options, env))

    return render


def _mark(tokens: list[Any], lines: list[str], marks: Mapping[str, Mark]) -> None:
    order = {line: i for i, line in enumerate(marks)}
    items = 0  # open list items: a paragraph inside one is marked through its item
    for token in tokens:
        if token.type == "list_item_close":
            items -= 1
        if token.type not in ("list_item_open", "paragraph_open") or token.map is None:
            continue
        if token.type == "list_item_open":
            items += 1
        elif items:
            continue
        found = [line.strip() for line in lines[token.map[0] : token.map[1]] if line.strip() in marks]
        if found:
            mark = marks[min(found, key=order.__getitem__)]
            token.attrSet("class", mark.css)
            token.attrSet("title", mark.title)
            token.meta = {**(token.meta or {}), "mark": mark.symbol}


def _markdown(math: Callable[[str, bool], str]) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).disable("image")
    md.validateLink = safe_link  # type: ignore[method-assign]
    md.inline.ruler.before("escape", "math", _math)

    def render_math(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        return math(tokens[idx].content, tokens[idx].meta["display"])

    def render_marked(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        symbol = (tokens[idx].meta or {}).get("mark")
        shown = f'<span class="check">{html.escape(symbol)}</span> ' if symbol else ""
        return str(self.renderToken(tokens, idx, options, env)) + shown

    md.add_render_rule("math", render_math)
    md.add_render_rule("list_item_open", render_marked)
    md.add_render_rule("paragraph_open", render_marked)
    return md
