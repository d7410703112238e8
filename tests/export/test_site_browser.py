"""The built site in real headless Chromium, opened from disk (file://), as a learner would.

Every page load is watched: a console error, an uncaught exception, or a request for anything but
a local file fails the test. Screenshots go to each test's tmp dir (pytest prints where).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from qbank.export import site
from tests.export import hostile
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


def test_every_question_is_reachable_by_paging(watched: Watched, built: Path) -> None:
    """Issue 29: only the first 200 questions were reachable from the unfiltered index. Rows are
    added to the page's own index data (a bank of 450 distinct questions is slow to build)."""
    page = watched.open(built / "index.html")
    page.evaluate(
        """() => { for (let i = 0; i < 450; i++) window.QBANK.questions.push(
             ["cloud-202611-p" + i, "Paged Question " + i, "cloud", "L2", "recall", "compute",
              "roofline-analysis", "paged question " + i]); }"""
    )
    page.fill("#q", "paged")
    total = 450
    assert page.inner_text("#count") == f"{total} questions, the first 200 shown"
    assert page.inner_text("#more") == "Show 200 more (250 not shown)"
    page.click("#more")
    assert (
        len(_titles(page)) == 400
        and page.evaluate("document.activeElement.textContent") == "Paged Question 200"
    )
    page.click("#more")
    assert len(_titles(page)) == total and page.locator("#more").is_hidden()
    assert page.inner_text("#count") == f"{total} questions"
    page.fill("#q", "paged question 4")  # a new query starts at the first page again
    assert (
        len(_titles(page)) == sum("4" in str(i) for i in range(total)) and page.locator("#more").is_hidden()
    )


def test_previous_and_next_follow_the_filtered_list(watched: Watched, built: Path) -> None:
    """Issue 29: ←/→ went through the whole bank whatever the filter (edge L5 -> an L1 question)."""
    page = watched.open(built / "index.html")
    page.fill("#q", "ported V100")
    first, second = [a.get_attribute("href") for a in page.locator("#results li > a").all()][:2]
    page.click("#results li:first-child > a")
    page.wait_for_url("**/" + first)
    assert page.get_attribute("#next", "href") == second.removeprefix("q/")
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**/" + second)
    assert page.locator("#next").count() == 0  # the last of the filtered list
    assert page.get_attribute("#prev", "href") == first.removeprefix("q/")
    assert page.get_attribute("nav.pager a[href*='index.html']", "href").endswith("index.html#q=ported+V100")


def test_random_unseen_picks_from_the_filtered_list_and_never_a_seen_question(
    watched: Watched, built: Path
) -> None:
    page = watched.open(built / "index.html")
    page.fill("#q", "ported V100")  # two questions
    visited = set()
    for _ in range(2):
        page.click("#random")
        page.wait_for_url("**/q/*.html")
        visited.add(page.url.rsplit("/", 1)[-1])  # the page marks itself seen
        page.go_back()
        page.wait_for_url("**/index.html*")
    assert visited == {"cloud-202611-e000.html", "cloud-202611-e004.html"}
    page.click("#random")
    assert page.inner_text("#count") == "Every question of this list has been seen."


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
    page.goto((built / "index.html").as_uri() + "#provenance=human")
    assert page.input_value("#f-provenance") == "human" and len(_titles(page)) == len(RELEASED)


def test_reveal_shows_the_answer_mistake_and_napkin_math(
    watched: Watched, built: Path, tmp_path: Path
) -> None:
    page = watched.open(built / "q" / "cloud-202611-e004.html")
    answer = page.locator("#answer")
    assert not answer.locator("p.correct").is_visible()
    weight = "getComputedStyle(document.getElementById('option-1')).fontWeight"
    assert page.evaluate(weight) == "400"  # the right option is not given away
    assert answer.locator("summary").inner_text().startswith("Show the answer")
    page.click("#answer summary")
    assert answer.locator("summary").inner_text().startswith("Hide the answer")  # issue 29: it stayed "Show"
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
    assert page.locator("#results .badge").all_inner_texts() == ["review again", "due"]
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
    assert page.locator("#prev").count() == 0  # the search found this one question: no previous
    fresh = page.context.new_page()  # a new tab: no list, so the bank's order
    fresh.goto((built / "q" / "edge-202611-e001.html").as_uri())
    fresh.keyboard.press("ArrowLeft")  # previous in id order
    fresh.wait_for_url("**/q/cloud-202611-e004.html")


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


# --- hostile input (tests/export/hostile.py) ------------------------------------------------------

# Every element as tests/export/hostile.py checks them: inside KaTeX's output or not, and a
# script's inline code.
ELEMENTS = """() => Array.from(document.querySelectorAll("*"), (e) => [
  e.localName,
  Array.from(e.attributes, (a) => [a.name, a.value]),
  e.closest(".katex, .katex-error") !== null,
  e.localName === "script" ? e.textContent : "",
])"""
# Every math span typeset (or shown as KaTeX's red error text).
TYPESET = """() => Array.from(document.querySelectorAll(".math")).every(
  (e) => e.querySelector(".katex, .katex-error") !== null)"""
OPEN_ALL = "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"
TEXTS = "(selectors) => selectors.map((s) => document.querySelector(s).innerText)"
# The index's own search, as typing does it: set the box, send `input`, read the titles listed.
SEARCH = """(words) => words.map((word) => {
  const box = document.getElementById("q");
  box.value = word;
  box.dispatchEvent(new Event("input"));
  return Array.from(document.querySelectorAll("#results li > a"), (a) => a.textContent);
})"""


def _problems(page: Any) -> list[str]:
    elements = [
        hostile.Element(tag.lower(), tuple(map(tuple, attributes)), math, text)
        for tag, attributes, math, text in page.evaluate(ELEMENTS)
    ]
    return hostile.problems(elements)


class HostileTab(Watched):
    """One tab for every hostile page (a context per page would cost more than the page), which
    also records every alert(), confirm() or prompt() opened (and dismisses it)."""

    def __init__(self, page: Any) -> None:
        super().__init__(page)
        self.dialogs: list[str] = []
        page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))

    def open(self, path: Path) -> Any:
        self.problems.clear()  # a page is judged on what it does itself
        self.dialogs.clear()
        return super().open(path)

    def ran_nothing(self) -> bool:
        return self.dialogs == [] and self.problems == [] and self.page.evaluate("window.__xss") is None


@pytest.fixture(scope="module")
def tab(browser: Any) -> Iterator[HostileTab]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    yield HostileTab(context.new_page())
    context.close()


@pytest.mark.parametrize("name", [n for n in hostile.page_names() if n.startswith("q/")])
def test_hostile_question_page_runs_nothing_and_shows_text(
    tab: HostileTab, hostile_site: tuple[Path, list[hostile.Hostile]], name: str
) -> None:
    out, questions = hostile_site
    question = next(q for q in questions if name == f"q/{q.id}.html")
    page = tab.open(out / name)
    page.evaluate(OPEN_ALL)  # the answer, mistake and napkin math: shown, so their text is compared
    page.wait_for_function(TYPESET)  # KaTeX typesets math in the browser
    if page.locator(".math").count():
        assert page.evaluate("typeof window.katex") == "object"
    assert tab.ran_nothing(), (tab.dialogs, tab.problems)
    assert _problems(page) == []
    assert hostile.visible(page.title()) == hostile.visible(f"{question.title()} · qbank study site")
    shown = question.shown()
    for (selector, text), seen in zip(shown.items(), page.evaluate(TEXTS, list(shown)), strict=True):
        assert hostile.visible(text) in hostile.visible(seen), selector


def test_hostile_index_lists_and_finds_every_payload_as_text(
    tab: HostileTab, hostile_site: tuple[Path, list[hostile.Hostile]]
) -> None:
    out, questions = hostile_site
    page = tab.open(out / "index.html")
    titles = [hostile.visible(t) for t in _titles(page)]
    assert titles == [hostile.visible(q.title()) for q in sorted(questions, key=lambda q: q.id)]
    assert _problems(page) == []
    words = [" ".join(q.tag().split()) for q in questions]  # each question's tag
    for question, found in zip(questions, page.evaluate(SEARCH, words), strict=True):
        assert hostile.visible(question.title()) in map(hostile.visible, found), question.id
    for payload in hostile.PAYLOADS:  # a link that carries a payload in its address
        page.goto(f"{(out / 'index.html').as_uri()}#{urlencode({'q': payload.text, 'topic': payload.text})}")
        assert page.input_value("#q") == payload.text.replace("\n", "")  # a search box drops newlines
    assert tab.ran_nothing(), (tab.dialogs, tab.problems)
    assert _problems(page) == []


def test_hostile_coverage_page_runs_nothing(
    tab: HostileTab, hostile_site: tuple[Path, list[hostile.Hostile]]
) -> None:
    out, _ = hostile_site
    page = tab.open(out / "coverage.html")
    assert tab.ran_nothing(), (tab.dialogs, tab.problems)
    assert _problems(page) == []


# The texts in table cells that run over more than one line: a Range over one text node has a
# client rect per line (a cell may hold two texts on two lines by design: a count, then its split).
BROKEN_CELLS = """() => Array.from(document.querySelectorAll("th, td")).flatMap(cell => {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  const broken = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(node);
    if (new Set(Array.from(range.getClientRects(), r => Math.round(r.top))).size > 1) broken.push(node.textContent);
  }
  return broken;
})"""


@pytest.mark.parametrize("name", ["index.html", "coverage.html", "q/cloud-202611-e002.html"])
def test_readable_on_a_phone(browser: Any, built: Path, tmp_path: Path, name: str) -> None:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    watch = Watched(context.new_page())
    page = watch.open(built / name)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # no sideways scrolling
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") >= 16
    assert page.evaluate(BROKEN_CELLS) == []  # issue 29: 83 coverage cells broke mid-word at 390 px
    page.screenshot(path=str(tmp_path / f"phone-{name.replace('/', '-')}.png"), full_page=True)
    context.close()
    assert watch.problems == []


def test_coverage_heat_map_links_to_the_filtered_list(watched: Watched, built: Path, tmp_path: Path) -> None:
    page = watched.open(built / "coverage.html")
    cell = page.locator("#track-level + .scroll table tbody tr", has_text="cloud").locator("td").nth(2)
    assert cell.locator("a").inner_text() == "4" and "heat-5" in (cell.get_attribute("class") or "")
    assert cell.locator(".split").inner_text() == "4\xa0/\xa00"  # written / generated
    page.screenshot(path=str(tmp_path / "coverage.png"), full_page=True)
    cell.locator("a").click()
    page.wait_for_url("**/index.html#track=cloud&level=L3")
    assert page.input_value("#f-level") == "L3" and len(_titles(page)) == 4


# --- a study tool (issue 29, part 2): ranked search, live counts, review queue, phone layout -------

TITLES = {
    "cloud-202611-e000": "Loss Scaling Keeps FP16 Gradients Representable",
    "cloud-202611-e003": "Subnormal Spacing Written as Math",
    "cloud-202611-e004": "Pick the Loss Scale That Keeps Gradients",
    "edge-202611-e001": "Zeppelin Telemetry Gradients Vanish in FP16",
}


def test_search_ranks_title_and_whole_word_matches_first(watched: Watched, built: Path) -> None:
    page = watched.open(built / "index.html")
    page.fill("#q", "loss")  # in both titles and in e003's question only; the bank has e003 second
    assert _titles(page) == [
        TITLES[i] for i in ("cloud-202611-e000", "cloud-202611-e004", "cloud-202611-e003")
    ]
    # "gradient": whole in e004's, e001's and e003's scenario or question, only inside "Gradients" in
    # e000's title; the whole word ranks first, then a title match; a tie keeps the bank's order.
    page.fill("#q", "gradient")
    expected = ("cloud-202611-e004", "edge-202611-e001", "cloud-202611-e003", "cloud-202611-e000")
    assert _titles(page) == [TITLES[i] for i in expected]
    page.fill("#q", "gradient zeppelin")  # every word must still match
    assert _titles(page) == [TITLES["edge-202611-e001"]]
    page.fill("#q", "1e-8")  # a word with a character that means something in a regular expression
    assert _titles(page) == [TITLES["cloud-202611-e004"]]


def test_search_highlights_the_matched_words_as_text(watched: Watched, built: Path) -> None:
    page = watched.open(built / "index.html")
    page.fill("#q", "LOSS scal")
    row = page.locator("#results li", has_text=TITLES["cloud-202611-e004"])
    assert row.locator("a mark").all_inner_texts() == ["Loss", "Scal"]
    assert row.locator("a").text_content() == TITLES["cloud-202611-e004"]  # marks split no text
    page.fill("#q", "zeppelin")  # in the title and the scenario: a stretch of the scenario shows
    assert page.locator("#results .snippet mark").all_inner_texts() == ["zeppelin"]
    assert "zeppelin fleet retrains" in page.inner_text("#results .snippet")
    page.fill("#q", "script")  # the hostile question: its markup highlighted as text, never run
    snippet = page.locator("#results li", has_text="Dashboard Markup").locator(".snippet")
    assert "<script>window.__xss = 1</script>" in snippet.inner_text()
    assert snippet.locator("mark").count() >= 2 and page.locator("main script, main img").count() == 0
    page.fill("#q", "")
    assert page.locator("#results mark, #results .snippet").count() == 0


def _options(page: Any, facet: str) -> list[str]:
    return [t.strip() for t in page.locator(f"#f-{facet} option").all_inner_texts()]


def test_filter_counts_follow_the_query_and_the_other_filters(watched: Watched, built: Path) -> None:
    page = watched.open(built / "index.html")
    assert _options(page, "track") == ["All", "edge (1)", "cloud (4)"]
    assert "L3 (5)" in _options(page, "level")
    page.fill("#q", "zeppelin")
    assert _options(page, "track") == ["All", "edge (1)", "cloud (0)"]
    assert "L3 (1)" in _options(page, "level") and "Not seen yet (1)" in _options(page, "progress")
    page.select_option("#f-track", "cloud")  # an option with none stays selectable
    assert _titles(page) == [] and page.inner_text("#count") == "0 questions"
    assert _options(page, "track") == ["All", "edge (1)", "cloud (0)"]  # a filter ignores itself
    assert "L3 (0)" in _options(page, "level")
    page.fill("#q", "")
    assert _options(page, "track") == ["All", "edge (1)", "cloud (4)"]
    assert "L3 (4)" in _options(page, "level") and "human (4)" in _options(page, "provenance")


# The site reads the clock through Date, so a test sets it (Playwright's clock, UTC).
START = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


@pytest.fixture
def study(browser: Any) -> Iterator[Any]:
    """Makes watched browser contexts (each its own localStorage) whose clock is at START."""
    made: list[tuple[Any, Watched]] = []

    def new() -> Watched:
        context = browser.new_context(viewport={"width": 1100, "height": 900}, timezone_id="UTC")
        context.clock.set_fixed_time(START)
        made.append((context, Watched(context.new_page())))
        return made[-1][1]

    yield new
    for context, _ in made:
        context.close()
    assert [p for _, watch in made for p in watch.problems] == []


def _progress_list(page: Any, built: Path, value: str) -> list[str]:
    """The index's list for one value of the progress filter, as loaded now."""
    url = (built / "index.html").as_uri() + "#progress=" + value
    if page.url == url:
        page.reload()  # going to the same address again would not load the page
    else:
        page.goto(url)
    return _titles(page)


def _grade(page: Any, built: Path, question_id: str, button: str) -> str:
    page.goto((built / "q" / f"{question_id}.html").as_uri())
    page.click(button)
    return str(page.inner_text("#status"))


def test_review_queue_follows_the_schedule(study: Any, built: Path) -> None:
    page = study().page
    assert _grade(page, built, "cloud-202611-e000", "#got-it") == "Marked: got it, next review in 1 day"
    assert _grade(page, built, "cloud-202611-e004", "#review") == "Marked: review again, due for review now"
    page.reload()
    assert page.get_attribute("#review", "aria-pressed") == "true"
    assert _progress_list(page, built, "due") == [TITLES["cloud-202611-e004"]]
    assert "Due for review (1)" in _options(page, "progress")
    assert page.inner_text("#review-due") == "Review due (1)"
    page.clock.set_fixed_time(START + timedelta(hours=14, minutes=1))  # past midnight: e000 is due
    # earliest due first, not the bank's order
    assert _progress_list(page, built, "due") == [TITLES["cloud-202611-e004"], TITLES["cloud-202611-e000"]]
    page.fill("#q", "zeppelin")  # the due list with a query: none
    page.click("#review-due")
    assert page.inner_text("#count") == "Nothing in this list is due for review."
    page.fill("#q", "")
    page.click("#review-due")  # opens the first due question; → follows the due list
    page.wait_for_url("**/q/cloud-202611-e004.html")
    assert page.get_attribute("#next", "href") == "cloud-202611-e000.html"
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**/q/cloud-202611-e000.html")
    page.keyboard.press("g")  # a second "got it": 1 day -> 3 days
    assert page.inner_text("#status") == "Marked: got it, next review in 3 days"
    page.keyboard.press("g")  # pressed again on the same visit: still one grade
    assert page.inner_text("#status") == "Marked: got it, next review in 3 days"
    assert _progress_list(page, built, "due") == [TITLES["cloud-202611-e004"]]
    page.clock.set_fixed_time(START + timedelta(days=4))
    assert _progress_list(page, built, "due") == [TITLES["cloud-202611-e004"], TITLES["cloud-202611-e000"]]


def test_got_it_intervals_grow_to_at_most_180_days(study: Any, built: Path) -> None:
    page = study().open(built / "index.html")
    intervals = page.evaluate(
        """() => { const p = window.QBANK_PROGRESS; let entry = null; const seen = [];
             for (let i = 0; i < 10; i++) { entry = p.grade(entry, "got-it"); seen.push(entry.interval); }
             const again = p.grade(entry, "review");
             return [seen, again.interval, again.due === Date.now(), p.grade(again, "got-it").interval]; }"""
    )
    assert intervals == [[1, 3, 7, 16, 35, 77, 169, 180, 180, 180], 1, True, 3]


def test_old_progress_marks_are_kept(study: Any, built: Path) -> None:
    """Before the review queue, progress was {id: mark}: every mark survives, "review again" due."""
    page = study().open(built / "index.html")
    old = {"cloud-202611-e000": "review", "edge-202611-e001": "got-it", "cloud-202611-e004": "seen"}
    page.evaluate("(old) => localStorage.setItem('qbank-progress', JSON.stringify(old))", old)
    assert _progress_list(page, built, "review") == [TITLES["cloud-202611-e000"]]
    assert _progress_list(page, built, "got-it") == [TITLES["edge-202611-e001"]]
    assert _progress_list(page, built, "seen") == [TITLES["cloud-202611-e004"]]
    assert _progress_list(page, built, "due") == [TITLES["cloud-202611-e000"]]
    page.goto((built / "q" / "edge-202611-e001.html").as_uri())
    assert page.get_attribute("#got-it", "aria-pressed") == "true"


def _export(page: Any, built: Path) -> dict[str, Any]:
    page.goto((built / "index.html").as_uri())
    page.click("#backup summary")
    with page.expect_download() as download:
        page.click("#export")
    assert download.value.suggested_filename == "qbank-progress.json"
    return dict(json.loads(Path(download.value.path()).read_text(encoding="utf-8")))


def _load(page: Any, name: str, data: Any) -> str:
    text = data if isinstance(data, str) else json.dumps(data)
    page.set_input_files("#import", {"name": name, "mimeType": "application/json", "buffer": text.encode()})
    page.wait_for_function("() => document.getElementById('import-status').textContent !== ''")
    return str(page.inner_text("#import-status"))


def test_progress_file_moves_the_review_queue_to_another_browser(study: Any, built: Path) -> None:
    mine = study().page
    _grade(mine, built, "cloud-202611-e000", "#got-it")
    _grade(mine, built, "cloud-202611-e004", "#review")
    data = _export(mine, built)
    assert (data["format"], data["version"]) == ("qbank-progress", 1)
    assert {i: e["mark"] for i, e in data["progress"].items()} == {
        "cloud-202611-e000": "got-it",
        "cloud-202611-e004": "review",
    }
    data["progress"]["cloud-209912-gone"] = data["progress"]["cloud-202611-e004"]  # not in this bank

    other = study().page
    other.clock.set_fixed_time(START + timedelta(hours=1))
    _grade(other, built, "cloud-202611-e000", "#review")  # newer here than in the file: kept
    other.goto((built / "q" / "cloud-202611-e004.html").as_uri())  # seen here, not graded: the file's wins
    other.goto((built / "index.html").as_uri())
    other.click("#backup summary")
    assert _load(other, "qbank-progress.json", data) == (
        "Loaded 3 questions' progress: 2 newer than this browser's, "
        "1 not in this bank (kept for a bank that has them)."
    )
    assert _progress_list(other, built, "due") == [TITLES["cloud-202611-e004"], TITLES["cloud-202611-e000"]]
    assert _progress_list(other, built, "review") == [
        TITLES["cloud-202611-e000"],
        TITLES["cloud-202611-e004"],
    ]
    assert "cloud-209912-gone" in other.evaluate("localStorage.getItem('qbank-progress')")


def test_a_malformed_progress_file_is_refused_with_a_message(study: Any, built: Path) -> None:
    watch = study()
    page = watch.page
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    _grade(page, built, "cloud-202611-e000", "#got-it")
    page.goto((built / "index.html").as_uri())
    page.click("#backup summary")
    before = page.evaluate("localStorage.getItem('qbank-progress')")
    entry = {"mark": "got-it", "due": None, "interval": 1, "last": 1}
    bad = {
        "this is { not JSON": "This file is not JSON.",
        json.dumps(
            {"format": "anki", "version": 1, "progress": {}}
        ): "This file is not a qbank progress file.",
        json.dumps({"format": "qbank-progress", "version": 2, "progress": {}}): (
            "This progress file's version is not 1."
        ),
        json.dumps(
            {
                "format": "qbank-progress",
                "version": 1,
                "progress": {"cloud-202611-e000": entry | {"mark": "<img src=x onerror=alert(1)>"}},
            }
        ): "Refused: cloud-202611-e000: mark is not seen, got-it or review.",
        json.dumps(
            {
                "format": "qbank-progress",
                "version": 1,
                "progress": {"cloud-202611-e000": entry | {"interval": 999}},
            }
        ): ("Refused: cloud-202611-e000: interval is not 0 to 180 days."),
        json.dumps(
            {
                "format": "qbank-progress",
                "version": 1,
                "progress": {"cloud-202611-e000": entry | {"run": "alert(1)"}},
            }
        ): ('Refused: cloud-202611-e000: an unknown field "run".'),
        '{"format": "qbank-progress", "version": 1, "progress": {"__proto__": {"mark": "seen"}}}': (
            'Refused: "__proto__" is not a question id.'
        ),
    }
    for text, message in bad.items():
        page.evaluate("document.getElementById('import-status').textContent = ''")
        assert _load(page, "qbank-progress.json", text) == message
    assert page.evaluate("localStorage.getItem('qbank-progress')") == before  # nothing merged
    assert dialogs == [] and page.locator("main img").count() == 0
    assert page.evaluate("({}).mark") is None  # no prototype polluted


def test_phone_folds_the_filters_away_and_shows_the_first_result(
    browser: Any, built: Path, tmp_path: Path
) -> None:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    watch = Watched(context.new_page())
    page = watch.open(built / "index.html")
    first = page.locator("#results li").first.bounding_box()
    assert first["y"] + first["height"] <= PHONE["height"]  # on the first screen, without scrolling
    assert page.locator("#q").is_visible() and not page.locator("#f-track").is_visible()
    page.click("#filters summary")
    assert page.locator("#f-track").is_visible()
    page.select_option("#f-track", "edge")
    assert page.inner_text("#filters summary") == "Filters (1 on)"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(tmp_path / "phone-filters.png"), full_page=True)
    page = watch.open(built / "coverage.html")  # the wide table scrolls in its own box, not the page
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    boxes = page.evaluate(
        "Array.from(document.querySelectorAll('.scroll'), (s) => s.scrollWidth > s.clientWidth)"
    )
    assert True in boxes
    context.close()
    assert watch.problems == []


def test_wide_screen_shows_the_filters_open(watched: Watched, built: Path) -> None:
    page = watched.open(built / "index.html")
    assert page.evaluate("document.getElementById('filters').open") is True
    assert page.locator("#f-track").is_visible()
