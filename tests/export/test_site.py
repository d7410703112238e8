"""The site's files, without a browser (tests/export/test_site_browser.py drives Chromium)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from qbank.export import files, site
from tests.conftest import run_cli
from tests.export.conftest import RELEASED, release_of


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, bank: Path) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    site.build(release_of(bank), out)
    return out


def test_a_page_per_released_question_and_nothing_withheld(built: Path) -> None:
    assert sorted(p.stem for p in (built / "q").iterdir()) == RELEASED
    manifest = (built / files.MANIFEST).read_text().splitlines()
    on_disk = sorted(
        str(p.relative_to(built)) for p in built.rglob("*") if p.is_file() and p.name != files.MANIFEST
    )
    assert manifest == on_disk
    assert {"index.html", "coverage.html", "assets/index.js", "assets/katex/katex.min.js"} <= set(manifest)


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
    fewer = type(chosen)(chosen.entries[1:], chosen.topic_groups, chosen.withheld)
    site.build(fewer, out)
    assert not (out / "q" / f"{chosen.entries[0].id}.html").exists()
    assert (out / "notes.txt").read_text() == "mine" and (out / "q" / "my-page.html").exists()


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
