"""Open a report.html in headless Chromium (Debian's, via Playwright) and check that every plot renders."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import async_playwright

from db.tests.fixtures import require_system_binary

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update"]
#: Every image and inline SVG with its natural (or laid-out) size, in CSS pixels.
_SIZES = """() => [
  ...Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth, i.naturalHeight]),
  ...Array.from(document.querySelectorAll('svg')).map(s => {
      const r = s.getBoundingClientRect(); return ['svg', true, r.width, r.height]; }),
]"""


async def rendered_plots(report: Path, screenshot: Path) -> tuple[list[list[object]], list[str]]:
    """(alt, loaded, width, height) per plot, and every URL the page asked for besides itself.

    `report` must be an absolute path.
    """
    executable = require_system_binary("chromium")
    requests: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            page = await browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("request", lambda r: requests.append(r.url))
            await page.goto(report.as_uri(), wait_until="load")
            sizes: list[list[object]] = await page.evaluate(_SIZES)
            await page.screenshot(path=str(screenshot), full_page=True)
        finally:
            await browser.close()
    own = report.as_uri()
    return sizes, [url for url in requests if url != own and not url.startswith("data:")]


def assert_every_plot_renders(sizes: list[list[object]], outside: list[str], expected: int,
                              screenshot: Path) -> None:
    assert len(sizes) == expected, sizes
    for alt, loaded, width, height in sizes:
        assert loaded and isinstance(width, int | float) and isinstance(height, int | float), alt
        assert width > 0 and height > 0, f"plot {alt!r} did not render"
    assert outside == [], "the report must be self-contained (no CDN, no network)"
    assert screenshot.stat().st_size > 10_000
