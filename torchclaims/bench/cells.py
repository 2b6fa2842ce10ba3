"""Numbers and Markdown table cells as the report prints them."""
from __future__ import annotations

from .phrases import say
from .statistics import Figure, number


def fmt(value) -> str:
    """A figure with the digits that matter (1,234 / 12.3 / 1.23 / 1.23e-03); "–" for none."""
    if value is None:
        return "–"
    num = number(value)
    if num is None:
        return cell(value)
    if num == 0:
        return "0"
    if abs(num) >= 1000:
        return f"{num:,.0f}"
    if abs(num) >= 10:
        return f"{num:.1f}"
    if abs(num) >= 0.01:
        return f"{num:.3g}"
    return f"{num:.2e}"


def cell(text) -> str:
    """Text made safe for one Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def seconds(value: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} s"


def ci_text(fig: Figure, lang: str = "en") -> str:
    if fig.exact:
        return say(lang, "exact")
    if fig.ci is None:
        return say(lang, "ci_none")
    return f"[{fmt(fig.ci[0])}, {fmt(fig.ci[1])}]"


def iqr_text(fig: Figure, lang: str = "en") -> str:
    if fig.exact:
        return "0"
    if fig.rel_iqr is None:
        return "–"
    shown = f"{fig.rel_iqr:.1%}"
    return f"**{shown}** {say(lang, 'noisy_mark')}" if fig.noisy else shown


def rounds_text(fig: Figure, lang: str = "en") -> str:
    return say(lang, "one_exact") if fig.exact else str(fig.rounds or "–")


def figure_text(fig: Figure, lang: str = "en") -> str:
    """"1.23 [1.1, 1.4]" with a noisy mark: a figure and its interval in one cell."""
    if fig.value is None:
        return say(lang, "not_measured")
    noisy = f" {say(lang, 'noisy_mark')}" if fig.noisy else ""
    return f"{fmt(fig.value)} {ci_text(fig, lang)}{noisy}"


def short_name(bench: dict) -> str:
    return bench.get("fullname") or bench["name"]
