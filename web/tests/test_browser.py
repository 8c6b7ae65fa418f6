"""End to end in headless Chromium (Debian's package, driven by Playwright): log in, ask, see it stream."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from playwright.async_api import Browser, Page, async_playwright, expect

from db.tests.fixtures import require_system_binary
from web.tests.fixtures import ROOMY_LIMITS, WebServer, serve_web

pytestmark = pytest.mark.browser
JOURNEY = yaml.safe_load((Path(__file__).parent / "cases" / "browser.yaml").read_text(encoding="utf-8"))
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update"]
TURN_TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    executable = require_system_binary("chromium")
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield launched
        await launched.close()


async def _order(server: WebServer, customer: str, status: str | None = None) -> Any:
    return await server.desk.pool.fetchrow(
        "SELECT order_id, status, delivery_address, items, total_amount FROM customer_orders "
        "WHERE customer_email = $1 AND ($2::text IS NULL OR status = $2) ORDER BY order_id LIMIT 1",
        customer, status)


async def _ask(page: Page, text: str) -> Any:
    """Send `text`; wait for the turn to end; return its list item."""
    count = await page.locator("#turns > li").count()
    await page.fill("#message", text)
    await page.keyboard.press("Enter")  # the keyboard path: Enter sends
    turn = page.locator("#turns > li").nth(count)
    await expect(turn.locator(".step").first).to_be_visible(timeout=TURN_TIMEOUT_MS)
    await expect(turn).not_to_have_attribute("data-status", "pending", timeout=TURN_TIMEOUT_MS)
    return turn


async def test_customer_journey_in_chromium(browser: Browser, web_server: WebServer, demo_password: str,
                                            tmp_path: Path) -> None:
    own = await _order(web_server, JOURNEY["customer"], JOURNEY["own_order"]["status"])
    other = await _order(web_server, JOURNEY["other_customer"])
    context = await browser.new_context(viewport={"width": 420, "height": 900})  # a phone-sized window
    page = await context.new_page()
    problems: list[str] = []
    # Uncaught script errors; expected 401s (the page probing /api/me, a wrong password) are not.
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    try:
        await page.goto(web_server.url)
        await page.fill("#email", JOURNEY["customer"])
        await page.fill("#password", demo_password + "-wrong")
        await page.click("#login-button")
        await expect(page.locator("#login-error")).not_to_be_empty()
        await page.fill("#password", demo_password)
        await page.press("#password", "Enter")
        await expect(page.locator("#chat-view")).to_be_visible()
        await expect(page.locator("#who-name")).to_contain_text(JOURNEY["customer"])

        # 1. Their own order: every step shows with its time, a tool card, the right status.
        turn = await _ask(page, f"What's the status of {own['order_id']}?")
        assert await turn.get_attribute("data-status") == "answered"
        steps = turn.locator(".step")
        assert await steps.count() >= 5
        for status in await steps.evaluate_all("rows => rows.map(r => r.dataset.status)"):
            assert status in ("ok", "skipped")
        timed = await turn.locator(".step[data-status=ok] .ms").all_text_contents()
        assert timed and all(text.endswith(" ms") for text in timed)
        await expect(turn.locator(".tool-card")).to_contain_text(own["order_id"])
        answer = await turn.locator(".outcome").inner_text()
        for word in JOURNEY["own_order"]["expect_words"]:
            assert word in answer.lower()
        await expect(turn.locator(".meta")).to_contain_text("Tokens")

        # 2. Another customer's order: answered without any of its data.
        turn = await _ask(page, f"What's the status of {other['order_id']}?")
        answer = await turn.locator(".outcome").inner_text()
        street = other["delivery_address"].split(",")[0]
        items = [item["name"] for item in json.loads(other["items"])]
        for leaked in [street, f"{other['total_amount']}", *items]:
            assert leaked not in answer
        for meta in await turn.locator(".tool-card .tool-meta").all_text_contents():
            rows = re.search(r"(\d+) rows?", meta)
            assert rows is None or rows.group(1) == "0", meta

        # 3. An attack: marked blocked, with the step that blocked it and the reason.
        turn = await _ask(page, JOURNEY["attack"])
        assert await turn.get_attribute("data-status") == "blocked"
        blocked = turn.locator(".step[data-status=blocked]")
        await expect(blocked).to_have_count(1)
        assert await blocked.get_attribute("data-step") in JOURNEY["blocked_by_any_of"]
        await expect(turn.locator(".outcome")).to_contain_text("Reason:")
        await expect(turn.locator(".tool-card")).to_have_count(0)

        await page.screenshot(path=str(tmp_path / "chat.png"), full_page=True)
        assert (tmp_path / "chat.png").stat().st_size > 10_000

        # Logging out ends the session for the page too.
        await page.click("#logout")
        await expect(page.locator("#login-view")).to_be_visible()
        await page.reload()
        await expect(page.locator("#login-view")).to_be_visible()
    finally:
        await context.close()
    assert problems == [], problems


async def test_untrusted_text_is_rendered_as_text(browser: Browser, web_server: WebServer,
                                                  demo_password: str) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    try:
        await page.goto(web_server.url)
        await page.fill("#email", JOURNEY["customer"])
        await page.fill("#password", demo_password)
        await page.press("#password", "Enter")
        await expect(page.locator("#chat-view")).to_be_visible()
        markup = '<img src=x onerror="document.body.dataset.pwned=1"><b>bold</b> where is my order?'
        turn = await _ask(page, markup)
        await expect(turn.locator(".you")).to_have_text(markup)
        assert await turn.locator("img, b").count() == 0
        assert await page.evaluate("document.body.dataset.pwned") is None
    finally:
        await context.close()


async def test_a_customer_sees_no_trace_link_even_with_tracing_on(browser: Browser, desk_settings: Any, desk: Any,
                                                                  demo_password: str) -> None:
    # Traces are for operators (Phoenix, behind its own login): not one link to them on the page.
    async with serve_web(desk_settings, desk, tracing_enabled=True, **ROOMY_LIMITS) as traced:
        context = await browser.new_context()
        page = await context.new_page()
        try:
            await page.goto(traced.url)
            await page.fill("#email", JOURNEY["customer"])
            await page.fill("#password", demo_password)
            await page.press("#password", "Enter")
            await expect(page.locator("#chat-view")).to_be_visible()
            turn = await _ask(page, "Where is my latest order?")
            assert await turn.get_attribute("data-status") == "answered"
            links = await page.locator("a").evaluate_all("links => links.map(a => a.href + ' ' + a.textContent)")
            html = await page.content()
        finally:
            await context.close()
    assert not [link for link in links if "trace" in link.lower() or str(traced.settings.phoenix_port) in link]
    for leak in ("/api/trace", "/redirects/traces", traced.settings.phoenix_url, "View trace"):
        assert leak not in html


async def _log_in(page: Page, url: str, email: str, password: str) -> None:
    await page.goto(url)
    await page.fill("#email", email)
    await page.fill("#password", password)
    await page.press("#password", "Enter")
    await expect(page.locator("#chat-view")).to_be_visible()


async def _last_turn(page: Page, count: int) -> Any:
    turn = page.locator("#turns > li").nth(count)
    await expect(turn).not_to_have_attribute("data-status", "pending", timeout=TURN_TIMEOUT_MS)
    return turn


async def test_a_request_is_recorded_only_after_the_customer_confirms_it(
        browser: Browser, web_server: WebServer, demo_password: str, shop_customer: Any) -> None:
    delivered, processing = shop_customer.orders["delivered"], shop_customer.orders["processing"]
    context = await browser.new_context()
    page = await context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(str(exc)))

    async def rows() -> list[Any]:
        return list(await web_server.desk.pool.fetch(
            "SELECT order_id, action, items FROM actions_log WHERE customer_email = $1", shop_customer.email))
    try:
        await _log_in(page, web_server.url, shop_customer.email, demo_password)
        # An exchange: the card says what will be recorded; nothing is, until Confirm.
        turn = await _ask(page, f"Please exchange the running shoes from order {delivered} for size 44.")
        assert await turn.get_attribute("data-status") == "needs_confirmation"
        card = turn.locator(".confirm-card")
        await expect(card).to_contain_text("Trail running shoes")
        await expect(card).to_contain_text(delivered)
        await expect(card.locator("button.confirm-yes")).to_be_focused()  # keyboard-reachable, focused
        assert await rows() == []
        await page.keyboard.press("Enter")  # the focused Confirm button
        done = await _last_turn(page, 1)
        assert await done.get_attribute("data-status") == "answered"
        await expect(done.locator(".outcome")).to_contain_text("is recorded")
        recorded = await rows()
        assert [(r["order_id"], r["action"], json.loads(r["items"])) for r in recorded] == [
            (delivered, "exchange_request", ["Trail running shoes"])]

        # A cancel, then Cancel on the card: nothing more is recorded.
        turn = await _ask(page, f"Please cancel order {processing}.")
        assert await turn.get_attribute("data-status") == "needs_confirmation"
        await turn.locator(".confirm-card button.confirm-no").click()
        declined = await _last_turn(page, 3)
        await expect(declined.locator(".outcome")).to_contain_text("nothing was recorded")
        assert await rows() == recorded
    finally:
        await context.close()
    assert problems == [], problems
