"""report.html of the fixed run-log set in headless Chromium: every plot has a size, nothing is fetched."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.html_report import RATE_PLOTS, write_report
from evals.tests.fixed_runs import fixed_summary
from evals.tests.report_browser import assert_every_plot_renders, rendered_plots

pytestmark = pytest.mark.browser


async def test_report_renders_every_plot(tmp_path: Path) -> None:
    summary = await fixed_summary(tmp_path)
    _, html = write_report(summary, tmp_path / "runs" / "eval-test")
    screenshot = tmp_path / "report.png"
    sizes, outside = await rendered_plots(html, screenshot)
    # The gate chart, the step histograms, and category + language bars for each message metric.
    assert_every_plot_renders(sizes, outside, 2 + 2 * len(RATE_PLOTS), screenshot)
    text = html.read_text(encoding="utf-8")
    for failing in summary.splits["all"].metrics["T-LEGIT-FALSE-BLOCK"].failures:
        assert f'href="../{failing.turn_ids[0]}.json"' in text
        assert (tmp_path / "runs" / f"{failing.turn_ids[0]}.json").exists()
