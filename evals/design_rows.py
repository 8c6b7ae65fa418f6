"""DESIGN.md's eval table, row by row, from a published summary (`evals/results/latest.json`).

    .venv/bin/python -m evals.design_rows [SUMMARY]

Convention (kept by evals/tests/test_design_numbers.py): between DESIGN.md's markers
`<!-- eval-results:begin -->` and `<!-- eval-results:end -->`, a table row whose first cell begins
with a gate name (`| T-…`) quotes that gate from the published summary's headline split, and one
that begins with `public:<set>` quotes that public set's sample. The first cell is free
text after the name; the other cells are exactly what this prints: n, the result (rate with its
95 % Wilson bounds and hits/n; a count; or ms), and for gates the target and the status.
`supportdesk eval --publish` rewrites those cells of the rows DESIGN.md already has (`update`);
a gate or set without a row is reported by the test, and prose is never touched.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from evals.gates import GateResult
from evals.report import EvalSummary, gate_figure, gate_target, with_interval

RESULTS = Path(__file__).parent / "results" / "latest.json"
DESIGN = Path(__file__).parents[1] / "DESIGN.md"
SIGNS = {">=": "≥", "<=": "≤"}
BEGIN, END = "<!-- eval-results:begin -->", "<!-- eval-results:end -->"
_ROW = re.compile(r"^\|\s*(T-[A-Z0-9-]+|public:[a-z0-9-]+)(?![\w-])[^|]*\|(.*)\|\s*$")


def cells(gate: GateResult) -> list[str]:
    """The cells after the first of `gate`'s DESIGN.md row."""
    target = gate_target(gate)
    for op, sign in SIGNS.items():
        target = target.replace(op, sign)
    return [str(gate.n), gate_figure(gate), target, gate.status]


def expected(summary: EvalSummary) -> dict[str, list[str]]:
    """Row name → its cells after the first: every gate, then every public set sampled."""
    found = {gate.name: cells(gate) for gate in summary.gates}
    found.update({f"public:{name}": [str(m.n), with_interval(m)] for name, m in summary.datasets.items()})
    return found


def rows(summary: EvalSummary) -> list[str]:
    return ["| " + " | ".join([name, *found]) + " |" for name, found in expected(summary).items()]


def _parts(text: str) -> tuple[str, str, str]:
    """(before, the eval-results section, after); a text without both markers is an error."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError(f"DESIGN.md needs exactly one {BEGIN} … {END} section")
    head, rest = text.split(BEGIN)
    body, tail = rest.split(END)
    return head + BEGIN, body, END + tail


def quoted_rows(text: str) -> dict[str, list[list[str]]]:
    """Name → the cells after the first, for every row of the eval-results section that starts with one."""
    found: dict[str, list[list[str]]] = {}
    for line in _parts(text)[1].splitlines():
        match = _ROW.match(line)
        if match:
            found.setdefault(match.group(1), []).append([c.strip() for c in match.group(2).split("|")])
    return found


def mismatches(text: str, summary: EvalSummary) -> list[str]:
    """Every way `text`'s gate rows differ from `summary` (empty: they quote it exactly)."""
    quoted, want = quoted_rows(text), expected(summary)
    problems = [f"{name}: quoted but not in the summary" for name in quoted if name not in want]
    for name, found in want.items():
        if quoted.get(name) != [found]:
            problems.append(f"{name}: DESIGN.md has {quoted.get(name)}, the summary says {found}")
    return problems


def update(text: str, summary: EvalSummary) -> str:
    """`text` with every quoting row's cells after the first replaced by the summary's (prose untouched)."""
    want = expected(summary)

    def refresh(line: str) -> str:
        match = _ROW.match(line)
        if not match or match.group(1) not in want:
            return line
        first = line.split("|")[1]
        return "|" + first + "| " + " | ".join(want[match.group(1)]) + " |"

    head, body, tail = _parts(text)
    return head + "\n".join(refresh(line) for line in body.split("\n")) + tail


def load(path: Path = RESULTS) -> EvalSummary:
    return EvalSummary.model_validate_json(path.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    summary = load(Path(args[0]) if args else RESULTS)
    print(f"<!-- {summary.model}, {summary.finished_at:%Y-%m-%d %H:%M} UTC, settings {summary.settings_hash} -->")
    print("\n".join(rows(summary)))


if __name__ == "__main__":
    main()
