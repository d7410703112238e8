"""The site's files, without a browser (tests/export/test_site_browser.py drives Chromium)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import typing
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from qbank.characters import HIDDEN
from qbank.export import files, pagefacts, site
from qbank.export.release import Entry
from qbank.model import public
from tests.conftest import run_cli
from tests.export import hostile
from tests.export.conftest import RELEASED, release_of


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, bank: Path) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    site.build(release_of(bank), out)
    return out


def test_a_page_per_released_question_and_nothing_withheld(built: Path) -> None:
    assert sorted(p.stem for p in (built / "q").iterdir()) == RELEASED
    manifest = dict(line.split("  ")[::-1] for line in (built / files.MANIFEST).read_text().splitlines())
    on_disk = {
        str(p.relative_to(built)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in built.rglob("*")
        if p.is_file() and p.name != files.MANIFEST
    }
    assert manifest == on_disk
    assert {"index.html", "coverage.html", "assets/index.js", "assets/katex/katex.min.js"} <= set(manifest)


def test_each_page_links_its_neighbours_in_the_release_order(built: Path) -> None:
    for i, question in enumerate(RELEASED):  # (sorted by id, as the release is)
        text = (built / "q" / f"{question}.html").read_text(encoding="utf-8")
        links = re.findall(r'<a rel="(prev|next)" id="\w+" href="([^"]+)\.html">', text)
        expected = [("prev", RELEASED[i - 1])] if i else []
        expected += [("next", RELEASED[i + 1])] if i + 1 < len(RELEASED) else []
        assert links == expected, question


def test_pages_need_nothing_from_the_network(built: Path) -> None:
    for page in built.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text, page
    css = (built / "assets" / "katex" / "katex.min.css").read_text()
    fonts = {
        name.split("/")[-1]
        for name in css.split("url(")[1:]
        for name in [name.split(")")[0]]
        if "woff2" in name
    }
    assert fonts and all((built / "assets" / "katex" / "fonts" / f).is_file() for f in fonts)


def test_question_text_is_escaped_in_pages_and_index(built: Path) -> None:
    page = (built / "q" / "cloud-202611-e002.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;window.__xss = 1&lt;/script&gt;" in page and "<script>window" not in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold" not in page
    index = (built / "assets" / "index.js").read_text(encoding="utf-8")
    assert "<" not in index and "\\u003cscript>window.__xss" in index
    data = json.loads(index.removeprefix("window.QBANK = ").removesuffix(";\n"))
    assert [row[0] for row in data["questions"]] == RELEASED
    assert "<script>window.__xss = 1</script>" in next(
        r[7] for r in data["questions"] if r[0] == "cloud-202611-e002"
    )


def test_only_pages_with_math_load_katex(built: Path) -> None:
    assert "katex.min.js" in (built / "q" / "cloud-202611-e003.html").read_text()
    assert "katex.min.js" not in (built / "q" / "cloud-202611-e000.html").read_text()


def test_coverage_counts_and_links(built: Path) -> None:
    coverage = (built / "coverage.html").read_text(encoding="utf-8")
    assert '<a href="index.html#track=cloud&amp;level=L3">4</a>' in coverage
    assert '<a href="index.html#area=precision&amp;track=edge">1</a>' in coverage


def test_rebuild_removes_its_stale_pages_and_nothing_else(tmp_path: Path, bank: Path) -> None:
    out = tmp_path / "site"
    chosen = release_of(bank)
    site.build(chosen, out)
    (out / "notes.txt").write_text("mine")
    (out / "q" / "my-page.html").write_text("mine too")
    (out / "q" / f"{chosen.entries[1].id}.html").write_text("my annotated copy")
    fewer = type(chosen)(chosen.entries[2:], chosen.topic_groups, chosen.withheld)
    site.build(fewer, out)
    assert not (out / "q" / f"{chosen.entries[0].id}.html").exists()
    assert (out / "notes.txt").read_text() == "mine" and (out / "q" / "my-page.html").exists()
    assert (out / "q" / f"{chosen.entries[1].id}.html").read_text() == "my annotated copy"  # changed: kept


def test_refuses_a_folder_it_did_not_make(tmp_path: Path, bank: Path) -> None:
    out = tmp_path / "docs"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    with pytest.raises(files.OutputError, match="not empty"):
        site.build(release_of(bank), out)
    assert [p.name for p in out.iterdir()] == ["thesis.tex"]
    result = run_cli("export", "site", "--out", str(out), cwd=bank)
    assert result.exit_code == 2 and "not empty" in result.output


def test_never_writes_through_a_linked_folder(tmp_path: Path, bank: Path) -> None:
    out, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    site.build(release_of(bank), out)
    elsewhere.mkdir()
    for page in (out / "q").iterdir():
        page.unlink()
    (out / "q").rmdir()
    os.symlink(elsewhere, out / "q")
    with pytest.raises(files.OutputError, match="not a plain folder"):
        site.build(release_of(bank), out)
    assert list(elsewhere.iterdir()) == []


def test_refuses_an_out_that_is_a_link(tmp_path: Path, bank: Path) -> None:
    out, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    elsewhere.mkdir()
    out.symlink_to(elsewhere)
    with pytest.raises(files.OutputError, match="not a folder"):
        site.build(release_of(bank), out)
    result = run_cli("export", "site", "--out", str(out), cwd=bank)
    assert result.exit_code == 2 and "not a folder" in result.output
    assert list(elsewhere.iterdir()) == [] and out.is_symlink()


def test_never_replaces_a_link_where_a_page_was(tmp_path: Path, bank: Path) -> None:
    out, victim = tmp_path / "site", tmp_path / "victim.html"
    site.build(release_of(bank), out)
    victim.write_text("not ours")
    (out / "index.html").unlink()
    (out / "index.html").symlink_to(victim)
    with pytest.raises(files.OutputError, match="not a plain file"):
        site.build(release_of(bank), out)
    assert victim.read_text() == "not ours" and (out / "index.html").is_symlink()


def test_parallel_build_writes_the_same_bytes(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = release_of(bank)
    site.build(chosen, tmp_path / "serial")
    monkeypatch.setattr(site, "PARALLEL_FROM", 1)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    site.build(chosen, tmp_path / "parallel")
    for page in (tmp_path / "serial").rglob("*"):
        if page.is_file():
            assert (
                page.read_bytes()
                == (tmp_path / "parallel" / page.relative_to(tmp_path / "serial")).read_bytes()
            )


def test_every_template_and_asset_ships_in_the_package() -> None:
    """An installed (non-editable) qbank has only what package-data lists."""
    import tomllib
    from fnmatch import fnmatch

    from tests.conftest import REPO

    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "qbank"
    ]
    export = REPO / "qbank" / "export"
    needed = [p for folder in ("templates", "assets") for p in (export / folder).rglob("*") if p.is_file()]
    needed = [p for p in needed if p.name != "README.md"]  # notes for maintainers, not shipped
    assert needed
    for path in needed:
        name = path.relative_to(REPO / "qbank").as_posix()
        assert any(
            fnmatch(name, pattern) and name.count("/") == pattern.count("/") for pattern in patterns
        ), name


# --- hostile input (tests/export/hostile.py; in Chromium: test_site_browser.py) -------------------


def _hostile_pages(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html"))


def test_hostile_site_has_a_page_for_every_payload_question(
    hostile_site: tuple[Path, list[hostile.Hostile]],
) -> None:
    out, questions = hostile_site
    assert _hostile_pages(out) == sorted(hostile.page_names())
    assert len(questions) == 2 * len(hostile.PAYLOADS) >= 2 * 25


@pytest.mark.parametrize("name", hostile.page_names())
def test_hostile_page_holds_only_what_the_templates_make(
    hostile_site: tuple[Path, list[hostile.Hostile]], name: str
) -> None:
    out, _ = hostile_site
    page = hostile.read((out / name).read_text(encoding="utf-8"))
    assert hostile.problems(page.elements) == []


def test_hostile_payloads_show_as_text_in_every_field(
    hostile_site: tuple[Path, list[hostile.Hostile]],
) -> None:
    out, questions = hostile_site
    for question in questions:
        page = hostile.read((out / "q" / f"{question.id}.html").read_text(encoding="utf-8"))
        assert hostile.visible(page.title) == hostile.visible(f"{question.title()} · qbank study site")
        for where, text in question.shown().items():
            assert hostile.visible(text) in hostile.visible(page.text), (question.id, where)


def test_hostile_index_data_is_one_inert_json_literal(
    hostile_site: tuple[Path, list[hostile.Hostile]],
) -> None:
    out, questions = hostile_site
    script = (out / "assets" / "index.js").read_text(encoding="utf-8")
    assert not {"<", "\u2028", "\u2029"} & set(script)  # cannot close a <script>, nor break a JS line
    assert script.startswith("window.QBANK = ") and script.endswith(";\n")
    rows = {row[0]: row for row in json.loads(script[len("window.QBANK = ") : -2])["questions"]}
    for question in questions:
        assert rows[question.id][1] == question.title()
        assert question.tag() in rows[question.id][7]  # as written: the browser lower-cases it


def test_hostile_facet_links_carry_the_value_exactly(
    hostile_site: tuple[Path, list[hostile.Hostile]],
) -> None:
    """Track, level, zone, area and topic go into the index's address (`#topic=...`) URL-encoded,
    so no value can add a parameter or end the attribute."""
    out, questions = hostile_site
    for question in questions:
        page = hostile.read((out / "q" / f"{question.id}.html").read_text(encoding="utf-8"))
        links = [dict(e.attributes)["href"] for e in page.elements if e.tag == "a"]
        facets = [urlsplit(link).fragment for link in links if link.startswith("../index.html#")]
        pairs = [pair for fragment in facets for pair in parse_qsl(fragment, keep_blank_values=True)]
        assert [key for key, _ in pairs] == ["track", "track", "level", "zone", "area", "topic"]
        values = question.values()
        assert [value for _, value in pairs] == [
            values[key] for key in ("track", "track", "level", "zone", "competency_area", "topic")
        ]


def test_the_real_pipeline_lets_payloads_reach_every_prose_field(
    hostile_site: tuple[Path, list[hostile.Hostile]],
) -> None:
    """What validation lets through, so what the validated questions test: every payload reaches
    every prose field (as written, or in a code span) but a multi-line HTML block (a code span is
    one line) and the three that `deceptive-text` refuses (NUL, a bidi override, U+2028); tags take
    all but those; titles take a few as written (raw-html refuses markup there too); track, level, zone, area and topic none."""
    _, questions = hostile_site
    valid = [q for q in questions if "-v" in q.id]
    deceptive = {p.text for p in hostile.PAYLOADS if HIDDEN.search(p.text)}
    block = {p.text for p in hostile.PAYLOADS if "\n" in p.text}
    assert len(deceptive) == len(block) + 2 == 3
    refused_prose = {q.payload.text for q in valid for f in hostile.PROSE if q.how[f] == "refused"}
    assert refused_prose == block | deceptive
    assert {q.payload.text for q in valid if q.how["tags"] == "refused"} == deceptive
    assert 1 <= sum(q.how["title"] == "raw" for q in valid) < 10  # raw-html refuses markup in titles too
    assert {q.how[f] for q in valid for f in hostile.ENUMS} == {"refused"}


def test_a_question_id_cannot_name_a_page_outside_q(tmp_path: Path, bank: Path) -> None:
    chosen = release_of(bank)
    entry = Entry.of(chosen.entries[0].data | {"id": "../../escaped"})
    with pytest.raises(ValueError, match="cannot name a page"):
        site.build(type(chosen)((entry,), chosen.topic_groups, {}), tmp_path / "site")
    assert not (tmp_path / "escaped.html").exists()


# --- rebuilds: a page is rendered again only when what it is made of changed ----------------------


def _pages(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (out / "q").iterdir()}


def _retitled(entry: Entry, title: str) -> Entry:
    """The entry with another title, and the content hash that goes with it."""
    data = {k: v for k, v in entry.data.items() if k != "content_hash"} | {"title": title}
    return Entry.of(data | {"content_hash": hashlib.sha256(public.canonical(data)).hexdigest()}, entry.facts)


def test_a_rebuild_renders_only_the_pages_that_changed(tmp_path: Path, bank: Path) -> None:
    chosen = release_of(bank)
    out = tmp_path / "site"
    assert site.build(chosen, out).rendered == len(chosen.entries)
    before = _pages(out)
    assert site.build(chosen, out).rendered == 0
    assert _pages(out) == before
    entries = list(chosen.entries)
    entries[1] = _retitled(entries[1], "Loss Scaling Keeps Small FP16 Gradients Alive")
    rebuilt = site.build(replace(chosen, entries=tuple(entries)), out)
    assert rebuilt.rendered == 1
    after = _pages(out)
    changed = {name for name in before if after[name] != before[name]}
    assert changed == {f"{entries[1].id}.html"}
    assert "Keeps Small FP16 Gradients Alive" in after[f"{entries[1].id}.html"].decode()


def test_a_change_in_what_the_audit_found_renders_that_page_again(tmp_path: Path, bank: Path) -> None:
    """The same question with other page facts (a napkin line no longer checked): its page is keyed
    by the facts' digest, so it alone is rendered again."""
    chosen = release_of(bank)
    out = tmp_path / "site"
    site.build(chosen, out)
    entries = list(chosen.entries)
    entries[2] = Entry.of(entries[2].data, entries[2].facts | {"checked": {}})
    assert entries[2].facts_hash != chosen.entries[2].facts_hash
    assert site.build(replace(chosen, entries=tuple(entries)), out).rendered == 1


def test_a_change_to_the_renderer_renders_every_page_again(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = release_of(bank)
    out = tmp_path / "site"
    site.build(chosen, out)
    monkeypatch.setattr(site, "_renderer", lambda: "another qbank")  # new templates, a new version
    assert site.build(chosen, out).rendered == len(chosen.entries)


def test_a_page_without_its_key_is_rendered_again(tmp_path: Path, bank: Path) -> None:
    """A page whose key is gone (a page an older qbank wrote) is rendered, never kept on trust."""
    chosen = release_of(bank)
    out = tmp_path / "site"
    site.build(chosen, out)
    page = out / site.page_name(chosen.entries[0].id)
    text = page.read_text(encoding="utf-8")
    stripped = "\n".join(line for line in text.splitlines() if "qbank-page" not in line) + "\n"
    page.write_text(stripped, encoding="utf-8")
    manifest = (out / files.MANIFEST).read_text(encoding="utf-8")  # as an older build recorded it
    digest = hashlib.sha256(stripped.encode()).hexdigest()
    name = site.page_name(chosen.entries[0].id)
    lines = [f"{digest}  {name}" if line.endswith(f"  {name}") else line for line in manifest.splitlines()]
    (out / files.MANIFEST).write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert site.build(chosen, out).rendered == 1
    assert page.read_text(encoding="utf-8") == text


# --- the layout, and what an interrupted build leaves (tests/test_hostile_site.py: the attacks) ----


def test_the_layout_is_exactly_what_a_build_writes(built: Path) -> None:
    written = sorted(str(p.relative_to(built)) for p in built.rglob("*") if p.is_file())
    written.remove(files.MANIFEST)
    assert written == sorted([*site.static_names(), *(site.page_name(i) for i in RELEASED)])
    assert all(site.in_layout(name) for name in written)


@pytest.mark.parametrize(
    "name",
    [
        "NOTES.md",
        "./index.html",
        "q/../index.html",
        "q/sub/cloud-202611-e000.html",
        "q/Cloud.html",
        "q/cloud-202611-e000.htm",
        "assets/katex/fonts/evil.woff2",
        "/index.html",
        files.MANIFEST,
    ],
)
def test_names_outside_the_layout(name: str) -> None:
    assert not site.in_layout(name)


def test_an_interrupted_build_can_be_built_again(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C after the pages were written: the manifest records them, so the next build proves
    them its own instead of refusing the folder as someone else's."""
    out, chosen = tmp_path / "site", release_of(bank)

    def interrupted(release: object) -> str:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(site, "_index_script", interrupted)
        with pytest.raises(KeyboardInterrupt):
            site.build(chosen, out)
    assert (out / "q" / f"{RELEASED[0]}.html").exists() and not (out / "index.html").exists()
    site.build(chosen, out)
    assert (out / "index.html").exists()


def test_coverage_and_pages_say_what_is_written_and_what_is_a_generated_drill(tmp_path: Path) -> None:
    """Issue 26: the coverage page splits each cell written / generated; a drill's page says so."""
    from tests.conftest import REPO
    from tests.export.conftest import write_bank

    root = write_bank(tmp_path / "bank")
    drill = (
        REPO / "tests" / "examples" / "valid" / "generated" / "cloud" / "precision" / "cloud-202611-e000.yaml"
    )
    text = drill.read_text(encoding="utf-8").replace("cloud-202611-e000", "cloud-202611-e010")
    (root / "questions" / "cloud" / "precision" / "cloud-202611-e010.yaml").write_text(text, encoding="utf-8")
    out = tmp_path / "site"
    site.build(release_of(root), out)
    coverage = (out / "coverage.html").read_text(encoding="utf-8")
    level = next(line for line in text.splitlines() if line.startswith("level: ")).split()[1]
    cell = f'<a href="index.html#track=cloud&amp;level={level}">'
    shown = coverage.split(cell)[1].split("</td>")[0]
    written = 4 if level == "L3" else 0
    assert shown == f'{written + 1}</a><span class="split">{written}&nbsp;/&nbsp;1</span>'
    assert "A generated drill" in (out / "q" / "cloud-202611-e010.html").read_text(encoding="utf-8")
    assert "A generated drill" not in (out / "q" / "cloud-202611-e000.html").read_text(encoding="utf-8")


def test_a_page_says_who_wrote_it_and_the_time_to_allow(tmp_path: Path, bank: Path) -> None:
    """Issue 29: provenance shown for every kind, and the expected time."""
    copy = tmp_path / "bank"
    shutil.copytree(bank, copy)
    path = next((copy / "questions").rglob("cloud-202611-e002.yaml"))
    text = path.read_text(encoding="utf-8").replace("provenance: human\n", "provenance: imported\n")
    path.write_text(
        text.replace("status: published\n", "status: published\nexpected_time_minutes: 12\n"),
        encoding="utf-8",
    )
    out = tmp_path / "site"
    site.build(release_of(copy), out)
    page = (out / "q" / "cloud-202611-e002.html").read_text(encoding="utf-8")
    assert "Imported from another bank; checked by the audit." in page
    index = (out / "index.html").read_text(encoding="utf-8")  # and filterable: the Written by facet
    assert '<select id="f-provenance" data-facet="provenance">' in index
    assert '<option value="imported">imported (1)</option>' in index
    assert '<span class="time">about 12 min</span>' in page
    other = (out / "q" / "cloud-202611-e004.html").read_text(encoding="utf-8")
    assert "Written by a person; checked by the audit." in other and 'class="time"' not in other


def test_the_site_orders_each_facet_as_the_model_declares_it() -> None:
    from qbank.model.question import Question

    for attribute in ("track", "level", "zone", "competency_area", "provenance"):
        assert site._order(attribute) == typing.get_args(Question.model_fields[attribute].annotation)


# --- proofs: pages the last build vouched for are not read again (files.PROOFS) -------------------

SECRET = b"s" * 32


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files read to prove them ours from here on."""
    seen: list[str] = []
    real = files._digest_of

    def counting(path: str) -> Any:
        seen.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(files, "_digest_of", counting)
    return seen


def _settled_build(bank: Path, out: Path, monkeypatch: pytest.MonkeyPatch, secret: bytes = SECRET) -> Any:
    monkeypatch.setattr(files, "SETTLED_NS", 0)  # every file settled, rather than waiting 2 s
    chosen = release_of(bank)
    site.build(chosen, out, secret=secret)
    return chosen


def test_a_page_the_last_build_vouched_for_is_not_read(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = _settled_build(bank, tmp_path / "site", monkeypatch)
    seen = _reads(monkeypatch)
    for _ in range(2):  # the second time by the proofs the first kept, not made again
        assert site.build(chosen, tmp_path / "site", secret=SECRET).rendered == 0
        assert not any(name.endswith(".html") and name not in (site.INDEX, site.COVERAGE) for name in seen)
    seen.clear()
    assert site.build(chosen, tmp_path / "site").rendered == 0  # no secret: every page read, kept
    assert len([n for n in seen if n.startswith(("cloud-", "edge-"))]) == len(chosen.entries)


def test_a_page_changed_after_its_proof_is_read_and_refused(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = _settled_build(bank, tmp_path / "site", monkeypatch)
    page = tmp_path / "site" / site.page_name(chosen.entries[0].id)
    before = page.stat()
    text = page.read_bytes()
    page.write_bytes(text.replace(b"<h1>", b"<h2>", 1).replace(b"</h1>", b"</h2>", 1))  # the same size
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime put back; ctime cannot be
    with pytest.raises(files.OutputError, match="changed since qbank wrote it"):
        site.build(chosen, tmp_path / "site", secret=SECRET)


@pytest.mark.parametrize("spoiled", ["another secret", "a line edited"])
def test_proofs_that_do_not_hold_prove_nothing(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch, spoiled: str
) -> None:
    """Proofs sealed with another user's secret, or with one line changed after the seal (here a
    page's status, to what a forger wants vouched): every page is read."""
    secret = b"another user's secret" if spoiled == "another secret" else SECRET
    chosen = _settled_build(bank, tmp_path / "site", monkeypatch, secret=secret)
    if spoiled == "a line edited":
        proofs = tmp_path / "site" / files.PROOFS
        head, _, body = proofs.read_bytes().partition(b"\n")
        first, _, rest = body.partition(b"\n")
        digest, mark, status, name = first.split(b"  ")
        forged = b"  ".join((digest, mark, status.replace(b" ", b" 1", 1), name))
        proofs.write_bytes(b"\n".join((head, forged, rest)))
    seen = _reads(monkeypatch)
    assert site.build(chosen, tmp_path / "site", secret=SECRET).rendered == 0
    assert len([n for n in seen if n.startswith(("cloud-", "edge-"))]) == len(chosen.entries)


def test_a_proof_is_of_the_digest_the_manifest_gives(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A manifest line changed after the build (another digest for a page): the page's proof is of
    the digest the build wrote, so it vouches for nothing, the page is read, and it is refused."""
    chosen = _settled_build(bank, tmp_path / "site", monkeypatch)
    manifest = tmp_path / "site" / files.MANIFEST
    page = site.page_name(chosen.entries[0].id)
    lines = [
        ("0" * 64 + "  " + page) if line.endswith("  " + page) else line
        for line in manifest.read_text().splitlines()
    ]
    manifest.write_text("\n".join(lines) + "\n")
    seen = _reads(monkeypatch)
    with pytest.raises(files.OutputError, match="changed since qbank wrote it"):
        site.build(chosen, tmp_path / "site", secret=SECRET)
    assert Path(page).name in seen


def test_fixed_files_whose_bytes_are_the_same_are_left_as_they_are(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An asset or index page that would be written with the bytes it holds is not written (it
    settles, so the next build proves it without reading it); one whose bytes change is written."""
    chosen = _settled_build(bank, tmp_path / "site", monkeypatch)
    fixed = [tmp_path / "site" / name for name in site.static_names()]
    before = {path: path.stat().st_mtime_ns for path in fixed}
    seen = _reads(monkeypatch)
    site.build(chosen, tmp_path / "site", secret=SECRET)
    assert {path: path.stat().st_mtime_ns for path in fixed} == before
    assert not seen  # the second build proved every file by its proof
    site.build(chosen, tmp_path / "site", name="another name", secret=SECRET)
    changed = {path.name for path in fixed if path.stat().st_mtime_ns != before[path]}
    assert changed == {site.INDEX, site.COVERAGE}
    assert "another name" in (tmp_path / "site" / site.INDEX).read_text()


def test_facets_that_are_not_one_array_each_are_refused(bank: Path) -> None:
    """The facets of all entries are decoded as one document: one entry's text that closes its array
    and opens another would shift every count after it, so the shape is checked."""
    chosen = release_of(bank)
    forged = chosen.entries[0]._replace(facets='["cloud"],["edge"]')
    with pytest.raises(ValueError, match="not one array each"):
        site._facets(replace(chosen, entries=(forged, *chosen.entries[1:])))
    columns = site._facets(chosen)
    assert columns["track"] == tuple(json.loads(e.facets)[0] for e in chosen.entries)


def test_the_units_script_is_compiled_again_only_when_what_makes_it_changed(
    tmp_path: Path, bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = _settled_build(bank, tmp_path / "site", monkeypatch)
    made: list[str] = []
    real = pagefacts.units_script
    monkeypatch.setattr(pagefacts, "units_script", lambda: made.append("units") or real())
    site.build(chosen, tmp_path / "site", secret=SECRET)
    assert made == []  # its mark is the key of what makes it: kept
    monkeypatch.setattr(site, "_units_key", lambda: "another napkin package")
    site.build(chosen, tmp_path / "site", secret=SECRET)
    assert made == ["units"]
    script = (tmp_path / "site" / pagefacts.UNITS_SCRIPT).read_text(encoding="utf-8")
    assert script == real()
