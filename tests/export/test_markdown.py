from __future__ import annotations

import pytest

from qbank.export import markdown

render = markdown.renderer()


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("a <b>bold</b> word", "a &lt;b&gt;bold&lt;/b&gt; word"),
        ('`<img src=x onerror="alert(1)">`', "<code>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</code>"),
        ("p99 < 5 ms & p50 > 2 ms", "p99 &lt; 5 ms &amp; p50 &gt; 2 ms"),
    ],
)
def test_markup_in_prose_is_text(text: str, shown: str) -> None:
    assert render(text) == f"<p>{shown}</p>\n"


def test_no_script_links_and_no_images() -> None:
    html = render("[x](javascript:alert(1)) ![chart](https://example.com/a.png)")
    assert 'href="javascript' not in html and "<img" not in html


@pytest.mark.parametrize(
    ("text", "tex", "display"),
    [
        ("spacing \\(2^{-24}\\) apart", "2^{-24}", "false"),
        ("so $10^{13}$ FLOPs", "10^{13}", "false"),
        ("a $\\times$ b", "\\times", "false"),
        ("$$E = mc^2$$", "E = mc^2", "true"),
        ("\\[a_b\\]", "a_b", "true"),
    ],
)
def test_math_becomes_a_span_for_katex(text: str, tex: str, display: str) -> None:
    assert f'<span class="math" data-display="{display}">{tex}</span>' in render(text)


@pytest.mark.parametrize(
    "text",
    [
        "$2/GPU-hour = $40 a day",  # money: a space before the second `$`
        "costs $2 and $3 each",
        "$a_b$5",  # a digit right after the closing `$`
        "$ x^2$",  # a space after the opening `$`
        "$40 and $60",  # no TeX between
    ],
)
def test_money_is_not_math(text: str) -> None:
    assert 'class="math"' not in render(text)


def test_math_text_is_escaped() -> None:
    assert "&lt;img" in render("\\(x<img src=x onerror=alert(1)>\\)")


def test_anki_keeps_math_for_anki_to_typeset() -> None:
    assert "\\(2^{-24}\\)" in markdown.renderer(markdown.for_anki)("\\(2^{-24}\\)")


def test_section_markers_start_new_blocks() -> None:
    napkin = "**Assumptions:**\n- one\n**Calculations:**\n- two\n**Conclusion:** done"
    html = render(napkin)
    assert html.count("<ul>") == 2 and "<p><strong>Calculations:</strong></p>" in html
    mistake = render("**The Pitfall:** a\n**The Rationale:** b")
    assert mistake.count("<p>") == 2


@pytest.mark.parametrize(
    "text",
    [
        "[share](//evil.example/share)",  # a network path from a file:// page (SMB on Windows)
        "[share](<  //evil.example/share>)",
        "[share](\t//evil.example/share)",
        "[share][s]\n\n[s]: //evil.example/share",
        "<smb://evil.example/share>",
        "[run](ms-msdt:/id%20PCWDiagnostic)",  # CVE-2022-30190
        "[x](file:///etc/passwd) [y](vbscript:msgbox)",
    ],
)
def test_links_that_leave_the_site_stay_text(text: str) -> None:
    html = render(text)
    assert "<a " not in html and "href" not in html


@pytest.mark.parametrize(
    ("text", "href"),
    [
        ("[docs](https://example.com/a)", "https://example.com/a"),
        ("<mailto:a@example.com>", "mailto:a@example.com"),
        ("[next](q/cloud-202611-e001.html)", "q/cloud-202611-e001.html"),
        ("[up](#answer)", "#answer"),
        ("[odd](/\\\\evil.example/share)", "/%5Cevil.example/share"),  # one slash and an escaped backslash
    ],
)
def test_web_mail_and_site_links_are_kept(text: str, href: str) -> None:
    assert f'<a href="{href}">' in render(text)
