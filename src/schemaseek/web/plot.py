"""The eval page's charts, rendered server-side as SVG with leather (no script, no fetch)."""

from __future__ import annotations

from collections.abc import Sequence

import leather

from schemaseek.web.history import RecordedRun

__all__ = ["PLOTTED", "metrics_svg", "ranks_svg"]

PLOTTED = ("recall@5", "recall@10", "hit@1", "mrr", "ndcg@10")
COLORS = ("#2563eb", "#16a34a", "#f59e0b", "#db2777", "#7c3aed")
WIDTH = 760


def _svg(chart: leather.Chart, height: int) -> str:
    svg: str = chart.to_svg(width=WIDTH, height=height)
    return svg.replace('font-family="Monaco"', 'font-family="system-ui, sans-serif"')


def metrics_svg(runs: Sequence[RecordedRun]) -> str:
    """A line per metric of :data:`PLOTTED` over the runs, numbered oldest first (the table
    under the chart says when each run was made and why)."""
    chart = leather.Chart("metrics per run")
    chart.add_x_scale(1, max(2, len(runs)))
    chart.add_y_scale(0, 1)
    chart.add_x_axis(ticks=list(range(1, max(2, len(runs)) + 1)) if len(runs) <= 20 else None)
    for metric, color in zip(PLOTTED, COLORS, strict=True):
        points = [(i, round(r.run.metrics.get(metric, 0.0), 4)) for i, r in enumerate(runs, 1)]
        if len(points) == 1:
            chart.add_dots(points, name=metric, fill_color=color, radius=4)
        elif points:
            chart.add_line(points, name=metric, stroke_color=color, width=2)
    return _svg(chart, 320)


def ranks_svg(run: RecordedRun, limit: int = 20) -> str:
    """The rank of each question's first gold id in ``run`` (a miss is drawn past ``limit``)."""
    chart = leather.Chart("first gold rank per question (shorter is better)")
    chart.add_x_scale(0, limit + 1)
    rows = [(o.rank if o.rank is not None else limit + 1, o.id) for o in run.run.outcomes]
    chart.add_bars(list(reversed(rows)), fill_color="#2563eb")
    return _svg(chart, max(200, 24 * len(rows) + 90))
