"""The report's chart: one panel per kind of quantity, the measured median with its 95% interval
next to the material's figure, drawn from the rows the report was built from (never rebuilt)."""
from __future__ import annotations

import pathlib
import textwrap

from .phrases import recorded, say
from .rows import Row
from .rule import BOUND
from .statistics import number

_MEMORY = {"B": 1 / 2**20, "KiB": 1 / 1024, "MiB": 1.0, "GiB": 1024.0, "kB": 1e3 / 2**20, "MB": 1e6 / 2**20,
           "GB": 1e9 / 2**20}
_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6}
PANELS = (  # (key, log scale): each panel's title and axis label are strings (bench_chart_KEY, _axis)
    ("ratio", True),
    ("percent", False),
    ("memory", True),
    ("latency", True),
)
# a Chinese chart needs a font with CJK glyphs (CI installs fonts-noto-cjk); the first one found is used
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Serif CJK SC", "WenQuanYi Zen Hei", "SimHei")
COLOURS = {"agrees": "tab:green", "holds": "tab:green", "weaker": "tab:orange", "stronger": "tab:brown",
           "higher": "tab:orange", "lower": "tab:orange", "contradicts": "tab:red",
           "inconclusive": "tab:gray", "context": "tab:blue"}


def panel_of(unit: str) -> tuple[str, float] | None:
    """(panel key, factor to the panel's unit) for a row's unit, or None (not charted)."""
    if unit in ("x", "ratio"):
        return "ratio", 1.0
    if unit == "%":
        return "percent", 1.0
    if unit in _MEMORY:
        return "memory", _MEMORY[unit]
    if unit in _TIME:
        return "latency", _TIME[unit]
    return None


def chart_points(rows: list[Row], lang: str = "en") -> dict[str, list[dict]]:
    """What the chart draws, panel by panel, its labels in ``lang`` (tested without matplotlib)."""
    panels: dict[str, list[dict]] = {}
    for r in rows:
        where = panel_of(str(r.entry.get("unit", "")))
        if where is None or r.figure.value is None:
            continue
        key, factor = where
        log = dict(PANELS)[key]
        value = r.figure.value * factor
        if log and value <= 0:
            continue
        low, high = (r.figure.ci or (r.figure.value, r.figure.value))
        material = number(r.entry.get("material"))
        bound = BOUND.match(r.entry["material"]) if isinstance(r.entry.get("material"), str) else None
        word = "context" if r.verdict is None else r.verdict.word
        quantity = recorded(lang, r.entry.get("quantity")) if r.entry.get("quantity") else r.bench["name"]
        label = textwrap.fill(str(quantity), 30 if lang == "zh" else 58)
        panels.setdefault(key, []).append(dict(
            label=f"{label}\n[{r.claim_id}]", value=value, low=low * factor, high=high * factor,
            material=None if material is None else material * factor,
            bound=None if bound is None else float(bound.group(2)) * factor,
            verdict=word, colour=COLOURS.get(word.split()[0], "tab:purple")))
    return panels


def cjk_font() -> str | None:
    """The first of CJK_FONTS matplotlib finds here, or None."""
    from matplotlib import font_manager
    for name in CJK_FONTS:
        try:
            font_manager.findfont(font_manager.FontProperties(family=name), fallback_to_default=False)
        except ValueError:
            continue
        return name
    return None


def render_chart(rows: list[Row], path: pathlib.Path, torch_version: str = "", lang: str = "en") -> bool:
    """One panel per kind of quantity, its words in ``lang``; False where nothing numeric can be
    drawn, or for a Chinese chart where no font here has CJK glyphs."""
    panels = chart_points(rows, lang)
    if not panels:
        return False
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter
    font = cjk_font() if lang == "zh" else None
    if lang == "zh" and font is None:
        return False
    style = {"font.family": [font, "DejaVu Sans"]} if font else {}
    with matplotlib.rc_context(style):
        return _draw(plt, Line2D, FuncFormatter, panels, path, torch_version, lang)


def _draw(plt, Line2D, FuncFormatter, panels, path, torch_version, lang) -> bool:
    order = [p for p in PANELS if p[0] in panels]
    heights = [max(1.6, 0.62 * len(panels[p[0]]) + 0.9) for p in order]
    fig, axes = plt.subplots(len(order), 1, figsize=(13, sum(heights) + 1.6),
                             gridspec_kw={"height_ratios": heights}, squeeze=False, layout="constrained")
    for ax, (key, log) in zip(axes[:, 0], order):
        title, xlabel = say(lang, f"chart_{key}"), say(lang, f"chart_{key}_axis")
        points = panels[key]
        ys = list(range(len(points)))
        for y, p in zip(ys, points):
            ax.errorbar(p["value"], y, xerr=[[max(p["value"] - p["low"], 0)], [max(p["high"] - p["value"], 0)]],
                        fmt="o", color=p["colour"], ecolor=p["colour"], capsize=4, markersize=6)
            if p["material"] is not None:
                ax.plot(p["material"], y, marker="D", color="black", markersize=6, fillstyle="none")
            if p["bound"] is not None:
                ax.plot(p["bound"], y, marker="|", color="black", markersize=14, markeredgewidth=2)
        ax.set_yticks(ys, [p["label"] for p in points], fontsize=8)
        ax.set_ylim(len(points) - 0.5, -0.5)
        if log:
            ax.set_xscale("log")
            low = min(min(p["low"], p["material"] or p["low"], p["bound"] or p["low"]) for p in points)
            high = max(max(p["high"], p["material"] or p["high"], p["bound"] or p["high"]) for p in points)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            narrow = low > 0 and high / low < 30      # few decades: label the minor ticks too
            ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _, narrow=narrow: f"{v:g}" if narrow else ""))
            ax.tick_params(axis="x", which="minor", labelsize=7)
        if key in ("ratio", "percent"):
            ax.axvline(1.0 if key == "ratio" else 0.0, color="gray", linewidth=1, linestyle="--")
        ax.set_title(title, fontsize=10, loc="left")
        ax.set_xlabel(xlabel, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    used = {p["verdict"].split()[0] for pts in panels.values() for p in pts}
    handles = [Line2D([], [], marker="o", linestyle="-", color=COLOURS[w],
                      label=say(lang, "chart_measured", word=say(lang, f"word_{w}" if w != "context" else "chart_context")))
               for w in COLOURS if w in used]
    handles += [Line2D([], [], marker="D", linestyle="", color="black", fillstyle="none", label=say(lang, "chart_material")),
                Line2D([], [], marker="|", linestyle="", color="black", markersize=12, markeredgewidth=2,
                       label=say(lang, "chart_bound"))]
    fig.legend(handles=handles, loc="outside lower center", ncol=4, fontsize=8, frameon=False)
    fig.suptitle(say(lang, "chart_title", torch=torch_version), fontsize=11)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
