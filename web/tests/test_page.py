"""The page's own files: no inline script or style (CSP allows neither), no CDN, no HTML injection sinks."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from web.app import STATIC
from web.tests.fixtures import WebServer

#: DOM APIs that parse strings as HTML or code; untrusted answers must never reach one.
SINKS = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
         "setTimeout(\"", "setInterval(\"")


class _Inventory(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.inline_script = ""
        self.handlers: list[str] = []
        self.urls: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.handlers += [name for name in named if name.startswith("on") or name == "style"]
        self.urls += [value for name, value in named.items() if name in ("src", "href") and value]
        if tag == "script":
            self.scripts.append(named)
            self._in_script = True

    def handle_endtag(self, tag: str) -> None:
        self._in_script = self._in_script and tag != "script"

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.inline_script += data.strip()


def test_index_has_no_inline_code_and_no_outside_resources() -> None:
    page = _Inventory()
    page.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    assert page.scripts and all(script.get("src") for script in page.scripts)
    assert page.inline_script == ""
    assert page.handlers == []
    assert all(url.startswith("/static/") for url in page.urls), page.urls


@pytest.mark.parametrize("path", sorted(STATIC.glob("*.js")), ids=lambda p: p.name)
def test_scripts_use_no_html_sinks(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert [sink for sink in SINKS if sink in source] == []
    assert not re.search(r"https?://", source)


@pytest.mark.parametrize(("path", "media_type"), [("/", "text/html"), ("/static/app.js", "text/javascript"),
                                                  ("/static/style.css", "text/css")])
async def test_page_files_are_served_with_their_type(web_server: WebServer, path: str, media_type: str) -> None:
    async with web_server.client() as client:
        response = await client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == media_type
