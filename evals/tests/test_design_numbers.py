"""DESIGN.md quotes the eval only from the published summary (evals/results/latest.json).

Every table row of DESIGN.md's eval-results section (between its markers) that begins with a
gate name (`| T-…`) or a public set (`| public:<set>`) must hold, after its first cell, exactly what the summary says
(`python -m evals.design_rows` prints the rows), and every gate and set of the summary needs a row.
"""

from __future__ import annotations

import pytest

from evals import design_rows


def test_design_quotes_every_gate_from_the_published_summary() -> None:
    problems = design_rows.mismatches(design_rows.DESIGN.read_text(encoding="utf-8"), design_rows.load())
    assert problems == [], "run `python -m evals.design_rows` and paste its rows into DESIGN.md"


@pytest.mark.parametrize(("line", "cells"), [
    ("| T-ATTACK-BLOCK (our attacks) | 93 | 97.8% [92.5%–99.4%] (91/93) | ≥ 97% | not shown |",
     ["93", "97.8% [92.5%–99.4%] (91/93)", "≥ 97%", "not shown"]),
    ("| T-LAT-P50 | 180 | 31.2 ms (n 180) | ≤ 60 ms | met |", ["180", "31.2 ms (n 180)", "≤ 60 ms", "met"]),
    ("| public:tau-bench-retail (retail turns) | 40 | 5.0% [1.4%–16.5%] (2/40) |",
     ["40", "5.0% [1.4%–16.5%] (2/40)"]),
])
def test_rows_are_read_by_gate_name(line: str, cells: list[str]) -> None:
    text = f"| T-LEAK | 1 | 2 |\n{design_rows.BEGIN}\n{line}\n| Isolation | 24 | 100% |\n{design_rows.END}\n"
    assert list(design_rows.quoted_rows(text).values()) == [[cells]], "only rows between the markers count"


def test_the_section_markers_are_required() -> None:
    with pytest.raises(ValueError, match="eval-results"):
        design_rows.quoted_rows("| T-LEAK | 12 | 0 of 12 | ≤ 0 | met |")


def test_a_rate_the_summary_does_not_hold_is_caught() -> None:
    summary = design_rows.load()
    rows = design_rows.rows(summary)

    def section(lines: list[str]) -> str:
        return "\n".join([design_rows.BEGIN, *lines, design_rows.END])

    assert design_rows.mismatches(section(rows), summary) == []
    rate = next(i for i, g in enumerate(summary.gates) if g.kind == "rate" and g.n)
    tampered = [*rows[:rate], rows[rate].replace("%", "1%", 1), *rows[rate + 1:]]
    assert [p.split(":")[0] for p in design_rows.mismatches(section(tampered), summary)] == \
        [summary.gates[rate].name]
    assert design_rows.mismatches(section(rows[1:]), summary)[0].startswith(summary.gates[0].name)
