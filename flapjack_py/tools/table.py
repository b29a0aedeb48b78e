"""Plain-text tables bordered like Ruby's terminal-table, as Flapjack's tools print them. Pure."""

from __future__ import annotations

from collections.abc import Sequence


def render_table(headings: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """The table as lines joined by newlines (no trailing newline); None cells print empty."""
    cells = [[_text(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headings)]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    lines = [rule, _line(headings, widths), rule]
    lines += [_line(row, widths) for row in cells]
    if cells:
        lines.append(rule)
    return "\n".join(lines)


def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "|" + "|".join(f" {c.ljust(w)} " for c, w in zip(cells, widths, strict=True)) + "|"


def _text(value: object) -> str:
    return "" if value is None else str(value)
