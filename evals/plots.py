"""The report's plots, drawn with matplotlib (Agg, no display) and returned as PNG data URIs.

Figures are built with `matplotlib.figure.Figure` directly, not pyplot, so no global state or
GUI backend is touched and each plot is freed when its function returns.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping

from matplotlib.figure import Figure

from evals.gates import GateResult
from pipeline.core.intervals import Interval

COLOURS = {"met": "#2e7d32", "not shown": "#f9a825", "missed": "#c62828"}
DPI = 96


def _uri(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight", metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def gate_chart(gates: list[GateResult]) -> str:
    """One row per gate: the 95 % interval (rates) or the value (ms, counts) against its target."""
    figure = Figure(figsize=(8, 1.0 * len(gates) + 0.6), layout="constrained")
    axes = figure.subplots(len(gates), 1, squeeze=False)[:, 0]
    for ax, gate in zip(axes, gates, strict=True):
        colour = COLOURS[gate.status]
        if gate.kind == "rate" and gate.low is not None and gate.high is not None and gate.observed is not None:
            ax.plot([gate.low, gate.high], [0, 0], color=colour, linewidth=6, solid_capstyle="butt")
            ax.plot([gate.observed], [0], "o", color="black", markersize=5)
            ax.set_xlim(0, 1)
        elif gate.observed is not None:
            ax.barh([0], [gate.observed], color=colour, height=0.5)
            ax.set_xlim(0, max(gate.target, gate.observed, 1.0) * 1.25)
        ax.axvline(gate.target, color="black", linestyle="--", linewidth=1)
        unit = " ms" if gate.kind == "latency" else ""
        ax.set_yticks([0], [f"{gate.name} ({gate.status})"])
        ax.set_ylim(-0.6, 0.6)
        ax.tick_params(axis="x", labelsize=7)
        ax.text(1.01, 0, f"{gate.op} {gate.target:g}{unit}", transform=ax.get_yaxis_transform(), fontsize=7,
                va="center")
    figure.suptitle("Gates: 95% Wilson interval (bar) and point (dot) against the target (dashed)", fontsize=9)
    return _uri(figure)


def histograms(samples: dict[str, list[float]]) -> str:
    """Per step: the distribution of its own time in ms over every turn it ran in."""
    names = [name for name, values in samples.items() if values]
    figure = Figure(figsize=(8, 1.6 * max(1, len(names))), layout="constrained")
    axes = figure.subplots(max(1, len(names)), 1, squeeze=False)[:, 0]
    for ax, name in zip(axes, names, strict=False):
        ax.hist(samples[name], bins=40, color="#1565c0")
        ax.set_title(f"{name} (n {len(samples[name])})", fontsize=8, loc="left")
        ax.set_xlabel("ms", fontsize=7)
        ax.tick_params(labelsize=7)
    return _uri(figure)


def rate_bars(title: str, rates: Mapping[str, Interval]) -> str:
    """Share blocked per group, with the 95 % Wilson interval as the error bar."""
    shown = {k: v for k, v in rates.items() if v.n and v.rate is not None}
    figure = Figure(figsize=(8, 0.32 * max(1, len(shown)) + 0.9))
    ax = figure.subplots()
    labels = [f"{k} (n {v.n})" for k, v in shown.items()]
    values = [v.rate or 0.0 for v in shown.values()]
    errors = [[(v.rate or 0) - (v.low or 0) for v in shown.values()], [(v.high or 0) - (v.rate or 0)
                                                                      for v in shown.values()]]
    ax.barh(labels, values, xerr=errors, color="#6a1b9a", capsize=2)
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.tick_params(labelsize=7)
    ax.set_title(title, fontsize=9, loc="left")
    return _uri(figure)
