"""One benchmark across torch releases: the same benchmark files rerun on several releases, one
column each, to answer "does this get faster?". A change counts only beyond both intervals."""
from __future__ import annotations

import pathlib

from packaging.version import InvalidVersion, Version

from ..errors import UsageError
from .cells import cell, ci_text, fmt, short_name
from .results import catalog_or_empty, load_warnings, torch_info
from .rows import build_rows
from .statistics import Figure


def _version_key(version: str):
    try:
        return (0, Version(version))
    except InvalidVersion:
        return (1, version)


def change(figures: list[Figure | None], versions: list[str]) -> str:
    """Where consecutive measured releases differ beyond both intervals, which way; else none."""
    if sum(1 for f in figures if f is not None and f.ci is not None) < 2:
        return "no intervals to compare (one round each)"
    steps, last = [], None
    for fig, version in zip(figures, versions):
        if fig is None or fig.value is None or fig.ci is None:
            continue
        if last is not None:
            (prev, prev_version) = last
            if fig.ci[0] > prev.ci[1]:
                steps.append(f"up from {prev_version} to {version}")
            elif fig.ci[1] < prev.ci[0]:
                steps.append(f"down from {prev_version} to {version}")
        last = (fig, version)
    return "; ".join(steps) if steps else "none beyond the intervals"


def _machine_cells(key: str | None, path: pathlib.Path, info: dict) -> str:
    if key is None:
        return f"`{cell(path.name)}`"
    if key == "load":
        before, after = info.get("load_before") or [None], info.get("load_after") or [None]
        return ", ".join(fmt(x[0]) for x in (before, after))
    if key == "others":
        return fmt(info.get("others_cpu_cores")) if info.get("others_cpu_cores") is not None else "–"
    return f"{info['suite_wall_s'] / 60:.1f} min" if info.get("suite_wall_s") else "–"


def render_across(sources: list[tuple[pathlib.Path, dict]], claims: dict | None = None) -> str:
    """One table per quantity, one column per torch release. Each cell is the median with its 95%
    interval and rounds; a cell whose interval overlaps the neighbouring release's is not a
    change, and the report says so rather than ranking medians. Rows are built once per file."""
    claims = catalog_or_empty() if claims is None else claims
    runs = []
    for path, data in sources:
        info = torch_info(data)
        runs.append((str(info.get("version", path.stem)), path, data, build_rows(data, claims)))
    runs.sort(key=lambda r: _version_key(r[0]))
    versions = [v for v, *_ in runs]
    if len(set(versions)) != len(versions):
        raise UsageError(f"two results files are for the same torch release: {', '.join(versions)}")
    out = ["# Benchmarks across torch releases", "",
           "The same benchmark files run on each release below, on the same machine, with the same "
           "method as [the CPU report](report.md) (interleaved rounds, ratio of medians, 95% intervals). "
           "A difference between two releases counts only where their intervals do not overlap.", ""]
    header = "| | " + " | ".join(f"torch {v}" for v in versions) + " |"
    out += [header, "|---" * (len(versions) + 1) + "|"]
    for label, key in (("results file", None), ("load before, after", "load"), ("others' CPU (cores)", "others"),
                       ("suite wall time", "wall")):
        cells = [_machine_cells(key, path, torch_info(data)) for _, path, data, _ in runs]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out += ["", *[w for _, _, data, _ in runs for w in load_warnings(data)]]
    keys: list[tuple[str, str]] = []
    for *_, rows in runs:
        for row in rows:
            key = (short_name(row.bench), str(row.entry.get("quantity", "")))
            if key not in keys:
                keys.append(key)
    out += ["", "| benchmark | quantity | " + " | ".join(f"torch {v}" for v in versions) + " | change |",
            "|---|---|" + "---|" * len(versions) + "---|"]
    for name, quantity in keys:
        figures = []
        for *_, rows in runs:
            row = next((r for r in rows if (short_name(r.bench), str(r.entry.get("quantity", ""))) == (name, quantity)),
                       None)
            figures.append(row.figure if row is not None else None)
        cells = []
        for fig in figures:
            if fig is None or fig.value is None:
                cells.append("not run")
            else:
                cells.append(f"{fmt(fig.value)} {ci_text(fig)}, n={fig.rounds or 1}{' (noisy)' if fig.noisy else ''}")
        out.append(f"| `{cell(name)}` | {cell(quantity)} | " + " | ".join(cells) + f" | {change(figures, versions)} |")
    out += ["", "Rendered by `python -m torchclaims bench-report --across FILE...`.", ""]
    return "\n".join(out)
