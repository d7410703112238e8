"""The built site in real headless Chromium, opened from disk (file://), as a learner would.

Every page load is watched: a console error, an uncaught exception, or a request for anything but
a local file fails the test. Screenshots go to each test's tmp dir (pytest prints where).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qbank.export import site
from qbank.export.release import Entry, Release, exported
from qbank.model import Question
from tests.export.conftest import RELEASED, release_of

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, bank: Path) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    site.build(release_of(bank), out)
    return out


class Watched:
    """A page plus what went wrong on it."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.problems: list[str] = []
        page.on(
            "console",
            lambda m: self.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
        )
        page.on("pageerror", lambda e: self.problems.append(f"uncaught: {e}"))
        page.on("request", self._request)

    def _request(self, request: Any) -> None:
        if not request.url.startswith(("file:", "data:")):
            self.problems.append(f"network request: {request.url}")

    def open(self, path: Path) -> Any:
        self.page.goto(path.as_uri())
        return self.page


@pytest.fixture
def watched(browser: Any) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    watch = Watched(context.new_page())
    yield watch
    context.close()
    assert watch.problems == []


def _titles(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#results li > a").all_inner_texts()]


def test_search_finds_a_question_by_a_word_of_its_scenario(
    watched: Watched, built: Path, tmp_path: Path
) -> None:
    page = watched.open(built / "index.html")
    assert page.inner_text("#count") == f"{len(RELEASED)} questions"
    page.fill("#q", "zeppelin")
    assert _titles(page) == ["Zeppelin Telemetry Gradients Vanish in FP16"]
    page.fill("#q", "ported V100")  # every word must match, in any order
    assert _titles(page) == [
        "Loss Scaling Keeps FP16 Gradients Representable",
        "Pick the Loss Scale That Keeps Gradients",
    ]
    page.screenshot(path=str(tmp_path / "search.png"))


def test_a_filter_narrows_the_list_and_lives_in_the_address(watched: Watched, built: Path) -> None:
    page = watched.open(built / "index.html")
    page.select_option("#f-track", "edge")
    assert page.inner_text("#count") == "1 question"
    assert "#track=edge" in page.url
    page.select_option("#f-track", "cloud")
    page.select_option("#f-level", "L3")
    assert len(_titles(page)) == 4
    page.goto((built / "index.html").as_uri() + "#topic=mixed-precision-training&track=edge")
    assert page.input_value("#f-track") == "edge" and len(_titles(page)) == 1


def test_reveal_shows_the_answer_mistake_and_napkin_math(
    watched: Watched, built: Path, tmp_path: Path
) -> None:
    page = watched.open(built / "q" / "cloud-202611-e004.html")
    answer = page.locator("#answer")
    assert not answer.locator("p.correct").is_visible()
    weight = "getComputedStyle(document.getElementById('option-1')).fontWeight"
    assert page.evaluate(weight) == "400"  # the right option is not given away
    page.click("#answer summary")
    assert answer.locator("p.correct").inner_text() == "Correct option: B"
    assert page.evaluate(weight) == "600"
    assert answer.get_by_text("dynamic loss scaling keeps them representable").is_visible()
    page.keyboard.press("n")  # the napkin math, from the keyboard
    assert page.locator("#napkin").get_by_text("Calculations:").is_visible()
    assert not page.locator("#mistake").get_by_text("The Rationale:").is_visible()
    page.screenshot(path=str(tmp_path / "revealed.png"), full_page=True)


def test_progress_survives_a_reload_and_shows_in_the_index(watched: Watched, built: Path) -> None:
    page = watched.open(built / "q" / "edge-202611-e001.html")
    assert page.inner_text("#mark") == "Seen"  # opening a question marks it seen
    page.click("#got-it")
    page.reload()
    assert page.get_attribute("#got-it", "aria-pressed") == "true"
    assert page.get_attribute("#review", "aria-pressed") == "false"
    page.keyboard.press("r")
    page.reload()
    assert page.get_attribute("#review", "aria-pressed") == "true"
    page.goto((built / "index.html").as_uri())
    page.select_option("#f-progress", "review")
    assert _titles(page) == ["Zeppelin Telemetry Gradients Vanish in FP16"]
    assert page.locator("#results .badge").inner_text() == "review again"
    page.select_option("#f-progress", "unseen")
    assert len(_titles(page)) == len(RELEASED) - 1


def test_keyboard_alone_reaches_a_question(watched: Watched, built: Path) -> None:
    page = watched.open(built / "index.html")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type("zeppelin")
    page.keyboard.press("Enter")  # focuses the first result
    page.keyboard.press("Enter")
    page.wait_for_url("**/q/edge-202611-e001.html")
    page.keyboard.press("a")
    assert page.evaluate("document.getElementById('answer').open") is True
    page.keyboard.press("ArrowLeft")  # previous in id order
    page.wait_for_url("**/q/cloud-202611-e004.html")


def test_math_is_typeset_offline(watched: Watched, built: Path, tmp_path: Path) -> None:
    page = watched.open(built / "q" / "cloud-202611-e003.html")
    assert (
        page.locator(".scenario .katex").count() == 2
    )  # \\(2^{-24}\\) and $10^{-8}$; $2/GPU-hour stays money
    assert "$2/GPU-hour" in page.inner_text(".scenario")
    page.click("#answer summary")
    assert page.locator("#answer .katex-display").count() == 1
    assert page.locator(".katex-error").count() == 0
    page.screenshot(path=str(tmp_path / "math.png"))


def test_hostile_question_renders_as_text(watched: Watched, built: Path) -> None:
    page = watched.open(built / "q" / "cloud-202611-e002.html")
    text = page.inner_text(".scenario")
    assert "<script>window.__xss = 1</script>" in text and "<b>bold</b>" in text
    assert page.evaluate("window.__xss") is None
    assert page.locator("main img, main b, main script").count() == 0
    page.goto((built / "index.html").as_uri())
    page.fill("#q", "window.__xss")
    assert _titles(page) == ["Dashboard Markup Shows as Text"]


PAYLOADS = [
    "<script>window.__xss = 'script'</script>",
    "<img src=x onerror=\"window.__xss = 'img'\">",
    '"><svg onload="window.__xss = \'svg\'">',
    "javascript:window.__xss = 'url'",
    "</title><script>window.__xss = 'title'</script>",
]


def _hostile_release(bank: Path) -> Release:
    """Every text field set to markup, past the model's validators (model_construct): the page must
    still show it as text. The model rejects most of this, so the site must not depend on that."""
    base = release_of(bank).entries[0].question
    entries = []
    for i, payload in enumerate(PAYLOADS):
        details = base.details.model_copy(
            update={
                "realistic_solution": payload,
                "common_mistake": payload,
                "napkin_math": payload,
                "options": [payload, "b", "c", "d"],
                "correct_index": 0,
            }
        )
        question = Question.model_construct(
            **(
                dict(base)
                | {"id": f"cloud-202611-x{i}", "title": payload, "scenario": payload, "question": payload}
            )
            | {"details": details, "tags": [payload]}
        )
        entries.append(Entry(question, exported(question, f"questions/x{i}.yaml")))
    return Release(tuple(entries), {"precision": ("mixed-precision-training",)}, {})


def test_markup_in_every_field_stays_text(watched: Watched, tmp_path: Path, bank: Path) -> None:
    out = tmp_path / "site"
    site.build(_hostile_release(bank), out)
    page = watched.open(out / "index.html")
    assert _titles(page) == PAYLOADS
    for i, payload in enumerate(PAYLOADS):
        page = watched.open(out / "q" / f"cloud-202611-x{i}.html")
        for summary in page.locator("summary").all():
            summary.click()
        assert page.locator("h1").inner_text() == payload
        assert page.inner_text("main").count(payload) >= 5  # title, scenario, question, option, answer ...
        assert page.evaluate("window.__xss") is None
        assert page.locator("main img, main svg, main script, main b").count() == 0
        assert page.title().startswith(payload)


@pytest.mark.parametrize("name", ["index.html", "coverage.html", "q/cloud-202611-e002.html"])
def test_readable_on_a_phone(browser: Any, built: Path, tmp_path: Path, name: str) -> None:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    watch = Watched(context.new_page())
    page = watch.open(built / name)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # no sideways scrolling
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") >= 16
    page.screenshot(path=str(tmp_path / f"phone-{name.replace('/', '-')}.png"), full_page=True)
    context.close()
    assert watch.problems == []


def test_coverage_heat_map_links_to_the_filtered_list(watched: Watched, built: Path, tmp_path: Path) -> None:
    page = watched.open(built / "coverage.html")
    cell = page.locator("#track-level + .scroll table tbody tr", has_text="cloud").locator("td").nth(2)
    assert cell.inner_text() == "4" and "heat-5" in (cell.get_attribute("class") or "")
    page.screenshot(path=str(tmp_path / "coverage.png"), full_page=True)
    cell.locator("a").click()
    page.wait_for_url("**/index.html#track=cloud&level=L3")
    assert page.input_value("#f-level") == "L3" and len(_titles(page)) == 4
