"""The built documentation site, in a real browser: search, the catalogue, the API reference, no console errors.

The site is served from ``site/`` (``mkdocs build --strict``; another
directory with ``CHAINRULES_SITE``) on localhost and driven through
Playwright with Debian's chromium (``/usr/bin/chromium``; ``CHAINRULES_CHROMIUM``
for another). Without playwright, chromium or a built site the tests skip
with the reason, as under README's test command; with
``CHAINRULES_SITE_TEST=required`` (``.ci/run``, which builds the site and
installs both) any of them missing is a failure.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("CHAINRULES_SITE", ROOT / "site"))
CHROMIUM = os.environ.get("CHAINRULES_CHROMIUM", "/usr/bin/chromium")
REQUIRED = os.environ.get("CHAINRULES_SITE_TEST") == "required"


def _missing() -> str | None:
    """Why the site cannot be tested here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[site-test]')"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no chromium at {CHROMIUM} (apt-get install chromium)"
    if not (SITE / "index.html").exists():
        return f"no built site in {SITE} (mkdocs build --strict)"
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    problem = _missing()
    if problem is not None:
        if REQUIRED:
            pytest.fail(f"CHAINRULES_SITE_TEST=required, but {problem}")
        pytest.skip(problem)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(SITE)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(base_url: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(browser: Any, base_url: str) -> Iterator[Any]:
    """A page that records in ``page.errors`` its console errors, uncaught exceptions and any request that leaves
    the local server (the site is read offline: no web fonts, no scripts from elsewhere)."""
    page = browser.new_page()
    page.errors = []
    page.on("console", lambda m: page.errors.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: page.errors.append(f"exception: {e}"))

    def request(r: Any) -> None:
        if not r.url.startswith((base_url, "data:", "blob:")):
            page.errors.append(f"request off the site: {r.url}")

    page.on("request", request)
    try:
        yield page
    finally:
        page.close()


def _search(page: Any, base_url: str, query: str) -> list[str]:
    """The links of the search results for ``query``, as the search box shows them."""
    page.goto(base_url)
    page.locator("label.md-search__icon, .md-search__input").first.click()
    page.locator("input.md-search__input").fill(query)
    # The index is built in a web worker when the page loads: seconds on a busy machine.
    page.wait_for_selector(".md-search-result__item", timeout=90_000)
    for more in page.locator(".md-search-result__more summary").all():  # "N more on this page"
        more.click()
    return [a.get_attribute("href") or "" for a in page.locator("a.md-search-result__link").all()]


@pytest.mark.parametrize(
    ("query", "family", "anchor"),
    [
        ("svd", "numpy.linalg.spectral", "np-linalg-svd"),
        ("gammainc", "scipy.special.gamma", "scipy-special-gammainc"),
    ],
)
def test_search_finds_a_function_and_opens_its_catalogue_entry(
    page: Any, base_url: str, query: str, family: str, anchor: str
) -> None:
    links = _search(page, base_url, query)
    page_path = f"/catalogue/{family}/"
    hits = [link for link in links if urlsplit(link).path == page_path and urlsplit(link).fragment == anchor]
    assert hits, f"searching {query!r} shows no link to {page_path}#{anchor}; it shows {links}"
    page.locator(f'a.md-search-result__link[href*="{page_path}"][href$="#{anchor}"]').first.click()
    page.wait_for_url(lambda url: urlsplit(url).path == page_path and urlsplit(url).fragment == anchor)
    heading = page.locator(f"[id='{anchor}']")
    assert heading.is_visible()
    assert query in heading.inner_text()
    assert "declared cases" in page.locator("article").inner_text()
    assert page.errors == []


def test_api_reference_of_test_rrule_renders(page: Any, base_url: str) -> None:
    page.goto(base_url + "api/testing/")
    entry = page.locator("[id='chainrules_core.testing.test_rrule']")
    assert entry.is_visible()
    assert "test_rrule" in entry.inner_text()
    assert page.locator("article").inner_text().count("test_rrule") > 1
    assert page.errors == []


def test_no_page_logs_a_console_error_or_leaves_the_site(page: Any, base_url: str) -> None:
    pages = sorted(
        path.parent.relative_to(SITE).as_posix()
        for path in SITE.rglob("index.html")
        if not path.relative_to(SITE).as_posix().startswith("source/")  # the listings: plain highlighted code
    )
    assert len(pages) > 30, pages
    errors = []
    for path in pages:
        page.errors.clear()
        page.goto(base_url + ("" if path == "." else path + "/"), wait_until="load")
        errors += [f"{path}: {e}" for e in page.errors]
    assert errors == []
