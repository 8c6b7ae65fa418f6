"""report.html: one self-contained page (plots inline as PNG data URIs; no script, CDN or network)."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from evals import plots
from evals.metrics import Failure, Metric
from evals.report import EvalSummary, gate_figure, gate_target, pct, with_interval
from pipeline.core.intervals import Percentiles

#: The page template sits beside this module, so package-data's "*.html" ships it.
_ENV = Environment(loader=FileSystemLoader(Path(__file__).parent), autoescape=select_autoescape(["html"]))
#: Metrics whose block rates are drawn per category and per language.
RATE_PLOTS = ("T-ATTACK-BLOCK", "T-LEGIT-FALSE-BLOCK", "T-OFFTOPIC-BLOCK")


def _metric_table(metrics: dict[str, Metric]) -> Markup:
    rows = Markup("").join(
        Markup("<tr><td>{}</td><td>{}</td><td class='num'>{}</td><td class='num'>{} (k={})</td></tr>").format(
            m.name, m.description, with_interval(m), pct(m.pass_k.rate), m.repeat) for m in metrics.values())
    return Markup("<table><tr><th>metric</th><th>counts</th><th>rate [95% Wilson] (hits/n)</th>"
                  "<th>pass^k</th></tr>{}</table>").format(rows)


def _failures(summary: EvalSummary) -> list[tuple[str, Failure]]:
    """Every failing case of every metric (all splits), then of the public sets; each once per metric."""
    metrics = [*summary.splits["all"].metrics.values(), *summary.datasets.values()]
    return [(m.name, f) for m in metrics for f in m.failures]


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def render(summary: EvalSummary) -> str:
    head = summary.head
    rates = [(f"{name} by {key}", plots.rate_bars(f"{name} by {key}: share blocked", head.metrics[name].by[key]))
             for name in RATE_PLOTS if name in head.metrics for key in ("category", "language")
             if head.metrics[name].by.get(key)]
    latency_rows: list[tuple[str, Percentiles]] = [(f"end to end, {o}", p) for o, p in head.latency.end_to_end.items()]
    latency_rows += [(f"{step} ({o})", p) for o, steps in head.latency.steps.items() for step, p in steps.items()]
    latency_rows.append(("end to end, pattern-tier block", head.latency.pattern_block))
    return _ENV.get_template("report_page.html").render(
        s=summary, failures=_failures(summary), latency_rows=latency_rows,
        plots={"gates": plots.gate_chart(summary.gates), "histograms": plots.histograms(head.latency.samples),
               "rates": rates},
        metric_table=_metric_table, interval=with_interval, target=gate_target, figure=gate_figure, ms=_ms)


def write_report(summary: EvalSummary, directory: Path) -> list[Path]:
    """summary.json and report.html in `directory` (created); returns both paths."""
    directory.mkdir(parents=True, exist_ok=True)
    json_path, html_path = directory / "summary.json", directory / "report.html"
    json_path.write_text(summary.model_dump_json(indent=2), encoding="utf-8")
    html_path.write_text(render(summary), encoding="utf-8")
    return [json_path, html_path]
