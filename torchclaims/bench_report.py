"""``python -m torchclaims bench-report RESULTS.json [-o DIR]``: the benchmark report.

Reads the JSON that ``pytest benchmarks/ --benchmark-json RESULTS.json`` writes and renders

- ``DIR/report.md``: the machine, CPU, torch version and method, then one table per claim
  (measured value, the material's value, their ratio, a verdict), then every benchmark's
  own timing statistics, then the claims whose benchmark did not run (e.g. GPU-only);
- ``DIR/report.png``: measured/material ratios on a log axis (matplotlib).

Benchmarks talk to the report only through ``benchmark.extra_info`` (see CONTRIBUTING.md)::

    claim="topic.slug", quantity="...", measured=3.1, material=5.0, unit="x", method="..."

``material`` may be a number or a bound such as ``"< 1"`` or ``">= 2"``.  Optional keys:
``tolerance`` (relative band for "agrees", default 0.25), ``note``, and ``more``: a list of
further rows (dicts with the same keys) when one benchmark measures several claims or
quantities.  Any other keys are shown as details.  A user error (missing or malformed JSON) is one line on stderr and
exit status 2.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import pathlib
import re
import sys

DEFAULT_TOLERANCE = 0.25
KNOWN_KEYS = {"claim", "quantity", "measured", "material", "unit", "method", "tolerance", "note", "more"}
_BOUND = re.compile(r"^\s*(<=|>=|<|>|==|~|≈)\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$")


class ReportError(Exception):
    """Bad input: printed as one line, exit status 2."""


# ------------------------------------------------------------------ reading

def load_results(path: pathlib.Path) -> dict:
    """The pytest-benchmark JSON, checked for the fields the report needs."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file (run pytest benchmarks/ --benchmark-json {path} first)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise ReportError(f"{path}: not a pytest-benchmark result (no 'benchmarks' list)")
    for index, bench in enumerate(data["benchmarks"]):
        if not isinstance(bench, dict) or not isinstance(bench.get("stats"), dict) or "name" not in bench:
            raise ReportError(f"{path}: benchmark #{index} lacks 'name' or 'stats'")
        if not isinstance(bench.get("extra_info", {}), dict):
            raise ReportError(f"{path}: benchmark {bench['name']!r}: extra_info is not a mapping")
    return data


def _number(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def judge(measured, material, tolerance: float = DEFAULT_TOLERANCE) -> tuple[float | None, str]:
    """(measured/material ratio or None, verdict words) for one row."""
    m = _number(measured)
    if m is None:
        return None, "not measured" if measured is None else "see value"
    if material is None or material == "":
        return None, "measured (material gives no figure)"
    target = _number(material)
    if target is not None:
        if target == 0:
            return None, "agrees" if abs(m) <= tolerance else "differs"
        ratio = m / target
        if abs(ratio - 1) <= tolerance:
            return ratio, f"agrees (within {tolerance:.0%})"
        return ratio, "higher than the material" if ratio > 1 else "lower than the material"
    match = _BOUND.match(str(material))
    if not match:
        return None, "compare by hand"
    op, bound = match.group(1), float(match.group(2))
    ok = {"<": m < bound, "<=": m <= bound, ">": m > bound, ">=": m >= bound,
          "==": m == bound, "~": abs(m - bound) <= tolerance * abs(bound),
          "≈": abs(m - bound) <= tolerance * abs(bound)}[op]
    ratio = m / bound if bound else None
    return ratio, "holds" if ok else "does not hold"


# ------------------------------------------------------------------ formatting

def _fmt(value) -> str:
    if value is None:
        return "–"
    number = _number(value)
    if number is None:
        return str(value).replace("|", "\\|")
    if number == 0:
        return "0"
    if abs(number) >= 1000:
        return f"{number:,.0f}"
    if abs(number) >= 10:
        return f"{number:.1f}"
    if abs(number) >= 0.01:
        return f"{number:.3g}"
    return f"{number:.2e}"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _seconds(value: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} s"


def _short_name(bench: dict) -> str:
    return bench.get("fullname") or bench["name"]


def _catalog():
    try:
        from . import catalog
        return catalog.load()
    except Exception:  # the report must render even where the catalog is broken
        return {}


def header_lines(data: dict, source: pathlib.Path) -> list[str]:
    info = data.get("machine_info", {}) or {}
    cpu = info.get("cpu", {}) or {}
    torch_info = info.get("torch", {}) or {}
    cpu_name = cpu.get("brand_raw") or info.get("processor") or "unknown CPU"
    cores = cpu.get("count")
    lines = [
        "# Benchmark report",
        "",
        f"Results: `{source.name}`, run {data.get('datetime', 'at an unknown time')}.",
        "",
        "| | |",
        "|---|---|",
        f"| machine | {_cell(info.get('node', 'unknown'))} ({_cell(info.get('system', '?'))} {_cell(info.get('release', ''))}, {_cell(info.get('machine', '?'))}) |",
        f"| CPU | {_cell(cpu_name)}{f', {cores} logical cores' if cores else ''} |",
        f"| Python | {_cell(info.get('python_implementation', ''))} {_cell(info.get('python_version', '?'))} |",
        f"| torch | {_cell(torch_info.get('version', 'unknown'))} |",
    ]
    if torch_info:
        lines += [
            f"| torchvision | {_cell(torch_info.get('torchvision', 'not installed'))} |",
            f"| CUDA | {_cell(torch_info.get('cuda_device') or 'absent')} |",
            f"| torch threads | {_cell(torch_info.get('num_threads', '?'))} |",
        ]
        if torch_info.get("suite_wall_s") is not None:
            lines.append(f"| suite wall time (collection to JSON) | {torch_info['suite_wall_s'] / 60:.1f} min |")
        if torch_info.get("load_average"):
            lines.append(f"| load average (1, 5, 15 min) when the JSON was written | "
                         f"{', '.join(f'{x:.1f}' for x in torch_info['load_average'])} |")
    lines.append(f"| pytest-benchmark | {_cell(data.get('version', '?'))} |")
    lines += [
        "",
        "## Method",
        "",
        "Each benchmark times one operation with pytest-benchmark (its statistics are in the last "
        "table) and puts the comparison the material makes into `extra_info`: the quantity, the "
        "measured value, the material's value and how it was measured (the *method* column). "
        "torch.compile benchmarks check the compiled output against eager before timing, warm up "
        "explicitly, report compile latency apart from steady state (cold: a fresh temporary "
        "`TORCHINDUCTOR_CACHE_DIR`; warm: after `torch._dynamo.reset()` with that cache filled), "
        "interleave eager and compiled rounds, use `torch.get_num_threads()` timer threads, "
        "synchronise CUDA inside the timed function, and treat a recompilation during timing as an "
        "error. Values are medians; IQR is given where measured.",
        "",
        "*ratio* = measured / material. *verdict*: **agrees** when the ratio is within the row's "
        f"tolerance (default ±{DEFAULT_TOLERANCE:.0%}), otherwise **higher**/**lower**; for a bound "
        "such as `< 1`, **holds** or **does not hold**. A measurement on this machine can refute a "
        "general claim, but cannot confirm or refute a figure the material gives for other "
        "hardware (e.g. an A100): those rows are context, and their catalog verdict stays as "
        "catalogued (shown as *catalog*).",
    ]
    return lines


def claim_rows(data: dict) -> dict[str, list[dict]]:
    rows: dict[str, list[dict]] = {}
    for bench in data["benchmarks"]:
        extra = bench.get("extra_info") or {}
        more = extra.get("more") if isinstance(extra.get("more"), list) else []
        entries = ([extra] if "claim" in extra else []) + [m for m in more if isinstance(m, dict) and "claim" in m]
        for index, entry in enumerate(entries):
            tolerance = _number(entry.get("tolerance")) or DEFAULT_TOLERANCE
            ratio, verdict = judge(entry.get("measured"), entry.get("material"), tolerance)
            rows.setdefault(str(entry["claim"]), []).append({
                "bench": bench, "extra": entry, "ratio": ratio, "verdict": verdict,
                "details": entry is extra})
    return rows


def _claims_of(bench: dict) -> str:
    extra = bench.get("extra_info") or {}
    ids = [extra.get("claim")] + [m.get("claim") for m in extra.get("more", []) if isinstance(m, dict)]
    seen = list(dict.fromkeys(i for i in ids if i))
    return ", ".join(f"`{i}`" for i in seen)


def render_markdown(data: dict, source: pathlib.Path, chart: str | None) -> str:
    claims = _catalog()
    rows = claim_rows(data)
    cuda_here = bool(((data.get("machine_info") or {}).get("torch") or {}).get("cuda_device"))
    out = header_lines(data, source)
    out += ["", f"## Claims measured ({len(rows)})", ""]
    if chart:
        out += [f"![measured / material]({chart})", ""]
    if not rows:
        out += ["No benchmark in this run carries a `claim` in its extra_info.", ""]
    for cid in sorted(rows):
        claim = claims.get(cid)
        title = f"### `{cid}`"
        if claim is not None:
            title += f" (catalog: {claim.verdict}; {claim.source_text})"
        out += [title, ""]
        if claim is not None:
            out += [f"> Material: {claim.says}", ""]
        out += ["| benchmark | quantity | measured | material | unit | ratio | verdict | method |",
                "|---|---|---|---|---|---|---|---|"]
        details = []
        for row in rows[cid]:
            bench, extra = row["bench"], row["extra"]
            out.append("| " + " | ".join([
                f"`{_cell(bench['name'])}`", _cell(extra.get("quantity", "")), _fmt(extra.get("measured")),
                _fmt(extra.get("material")), _cell(extra.get("unit", "")),
                "–" if row["ratio"] is None else f"{row['ratio']:.2f}",
                row["verdict"] + (" (context only: other hardware)"
                                  if claim is not None and claim.verdict == "gpu-only" and not cuda_here else ""),
                _cell(extra.get("method", "")),
            ]) + " |")
            others = {k: v for k, v in extra.items() if k not in KNOWN_KEYS} if row["details"] else {}
            if others or extra.get("note"):
                text = "; ".join(f"{k} = {_fmt(v) if not isinstance(v, (dict, list)) else json.dumps(v)}"
                                 for k, v in others.items())
                if extra.get("note"):
                    text = f"{extra['note']}" + (f"; {text}" if text else "")
                details.append(f"- `{bench['name']}`: {_cell(text)}")
        out += [""] + details + ([""] if details else [])
    measured_ids = set(rows)
    missing = [c for c in claims.values() if c.measure and c.id not in measured_ids]
    if missing:
        out += ["## Claims with a benchmark that did not run here", "",
                "| claim | catalog | benchmark | why |", "|---|---|---|---|"]
        for claim in sorted(missing, key=lambda c: c.id):
            why = "needs CUDA" if claim.verdict == "gpu-only" else "not in this results file"
            out.append(f"| `{claim.id}` | {claim.verdict} | `{_cell(claim.measure)}` | {why} |")
        out.append("")
    out += ["## All benchmarks (pytest-benchmark statistics)", "",
            "| benchmark | median | IQR | min | rounds | claim |", "|---|---|---|---|---|---|"]
    for bench in sorted(data["benchmarks"], key=_short_name):
        stats = bench["stats"]
        out.append("| " + " | ".join([
            f"`{_cell(_short_name(bench))}`",
            _seconds(stats.get("median", float("nan"))) if _number(stats.get("median")) is not None else "–",
            _seconds(stats["iqr"]) if _number(stats.get("iqr")) is not None else "–",
            _seconds(stats["min"]) if _number(stats.get("min")) is not None else "–",
            str(stats.get("rounds", "–")),
            _claims_of(bench),
        ]) + " |")
    total = sum(_number(b["stats"].get("total")) or 0.0 for b in data["benchmarks"])
    out += ["", f"{len(data['benchmarks'])} benchmarks; time inside the timed rounds: {total:.1f} s. "
            f"Rendered {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC by "
            "`python -m torchclaims bench-report`.", ""]
    return "\n".join(out)


def render_chart(data: dict, path: pathlib.Path) -> bool:
    """A horizontal bar per claim row with a numeric ratio; False where there is none."""
    bars = []
    for cid, rows in sorted(claim_rows(data).items()):
        for row in rows:
            if row["ratio"] is not None and row["ratio"] > 0:
                label = f"{row['extra'].get('quantity') or row['bench']['name']} [{cid}]"
                bars.append((label if len(label) <= 72 else label[:69] + "...", row["ratio"], row["verdict"]))
    if not bars:
        return False
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    height = max(2.5, 0.32 * len(bars) + 1.2)
    fig, ax = plt.subplots(figsize=(13, height))
    colours = ["tab:green" if v.startswith(("agrees", "holds")) else "tab:red" if "not" in v or "lower" in v
               else "tab:orange" for _, _, v in bars]
    ax.barh(range(len(bars)), [r for _, r, _ in bars], color=colours)
    ax.set_yticks(range(len(bars)), [b[0] for b in bars], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_xlabel("measured / material (log scale; 1 = as the material says)")
    torch_version = ((data.get("machine_info") or {}).get("torch") or {}).get("version", "")
    ax.set_title(f"Material's figures vs this machine (torch {torch_version})", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ------------------------------------------------------------------ command line

def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m torchclaims bench-report",
        description="Render a pytest-benchmark JSON file as a Markdown report and a PNG chart.")
    parser.add_argument("results", help="the file written by pytest benchmarks/ --benchmark-json FILE")
    parser.add_argument("-o", "--output", metavar="DIR",
                        help="folder for report.md and report.png (default: the results file's folder)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its one-line usage error
        return 2 if exc.code else 0
    source = pathlib.Path(args.results)
    try:
        data = load_results(source)
        out_dir = pathlib.Path(args.output) if args.output else source.resolve().parent
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ReportError(f"{out_dir}: cannot create the output folder: {exc.strerror}") from None
        chart_name = "report.png"
        has_chart = render_chart(data, out_dir / chart_name)
        (out_dir / "report.md").write_text(
            render_markdown(data, source, chart_name if has_chart else None), encoding="utf-8")
    except ReportError as exc:
        print(f"bench-report: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out_dir / 'report.md'}" + (f" and {out_dir / chart_name}" if has_chart else " (no chart: no numeric ratio)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
