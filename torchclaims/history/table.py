"""The claim history as Markdown: the summary, the flips, the table of claims x releases, the notes.
The data is ``reports.history_data``'s."""
from __future__ import annotations

import collections

from ..bench.cells import cell as markdown_cell
from ..outcomes import MEASURED
from ..strings import state_word, text, translate

SYMBOL = {"right": "✓", "wrong": "✗", "partly": "◐", "contradiction": "⚠", "broken": "!", "measured": "▣",
          "not-applicable": "n/a", "not-measurable": "⊘", "skipped": "s", None: "—"}


def summary_lines(data: dict, lang: str = "en") -> list[str]:
    rows = data["rows"]
    stable = collections.Counter(_stable(row) for row in rows)
    changed = [row for row in rows if row["flips"]]
    unexpected = sum(c["unexpected"] for row in rows for c in row["cells"])
    broken = sum(c["material"] in ("broken", "contradiction") for row in rows for c in row["cells"])
    state = collections.Counter(c["material"] for row in rows for c in row["cells"])
    by_device = collections.Counter(data["devices"])
    devices = text(lang, "mx:list_join").join(text(lang, "mx:on_device", n=n, axis=axis) for axis, n in by_device.items())
    return [
        text(lang, "mx:runs", rows=len(rows), n=len(data["versions"]), devices=devices, first=data["versions"][0],
             last=data["versions"][-1]),
        text(lang, "mx:s_right", n=stable["right"]),
        text(lang, "mx:s_wrong", wrong=stable["wrong"], partly=stable["partly"]),
        text(lang, "mx:s_changed", claims=len(changed), flips=len(data["flips"])),
        text(lang, "mx:s_never", n=stable[None]),
        text(lang, "mx:s_unexpected", unexpected=unexpected, broken=broken),
        text(lang, "mx:s_states", na=state["not-applicable"], nm=state["not-measurable"], skipped=state["skipped"]),
    ]


def selection(report: dict, lang: str = "en") -> str:
    """Which specs the run selected, in a few words (from its pytest arguments)."""
    argv = report.get("argv") or []
    if "--full" in argv:
        return text(lang, "mx:sel_full")
    if "-m" in argv:
        return text(lang, "mx:sel_m", expr=argv[argv.index('-m') + 1])
    return text(lang, "mx:sel_quick")


def _stable(row) -> str | None:
    values = {c["material"] for c in row["cells"] if c["material"] in MEASURED}
    return values.pop() if len(values) == 1 else (None if not values else "changed")


def render_markdown(reports: list[dict], data: dict, claims: dict | None = None, lang: str = "en") -> str:
    def say(key, **fields):
        return text(lang, "mx:" + key, **fields)
    cols = data["versions"]
    out = ["# " + say("title"), ""]
    out += summary_lines(data, lang) + [""]
    out.append("## " + say("flips"))
    out.append("")
    if data["flips"]:
        out.append(say("flips_head"))
        out.append("|---|---|---|---|---|")
        for f in data["flips"]:
            out.append(f"| `{f['claim']}` | {say('m_' + f['from'])} | {say('m_' + f['to'])} | **{f['since']}** | {f['after']} |")
        out += ["", say("flips_note")]
    else:
        out.append(say("no_flips"))
    out += ["", "## " + say("table"), "", say("legend"), ""]
    out.append(f"| {say('col_runs')} | " + " | ".join(cols) + " |")
    out.append("|---|" + "---|" * len(cols))
    out.append(f"| {say('row_accelerator')} | " + " | ".join(data["devices"]) + " |")
    for key in ("torchvision", "python", "device", "commit"):
        out.append(f"| {say('row_' + key)} | " + " | ".join(str(r.get(key) or say("row_none")) for r in reports) + " |")
    out.append(f"| {say('row_specs')} | " + " | ".join(selection(r, lang) for r in reports) + " |")
    for value in ("right", "wrong", "partly", "not-applicable", "not-measurable", "skipped", "broken", "contradiction"):
        word = state_word(value, lang) if value not in MEASURED else value if lang == "en" else say("m_" + value)
        out.append(f"| {SYMBOL[value]} {word} | " + " | ".join(str(c[value]) for c in data["counts"]) + " |")
    out.append("")
    out.append(f"| {say('col_claim')} | {say('col_verdict')} | {say('col_history')} | " + " | ".join(cols) + " |")
    out.append("|---|---|---|" + "---|" * len(cols))
    for row in data["rows"]:
        cells = []
        for cell in row["cells"]:
            mark = SYMBOL[cell["material"]] + (f"<sup>{cell['note']}</sup>" if cell["note"] else "")
            mark += " ≠" if cell["unexpected"] else ""
            cells.append(f"**▲ {mark}**" if cell["flip"] else mark)
        verdict = row["verdict"] if lang == "en" else text(lang, row["verdict"])
        out.append(f"| `{row['id']}` | {verdict} | {row['history' if lang == 'en' else 'history_' + lang]} | "
                   + " | ".join(cells) + " |")
    if data["notes"]:
        out += ["", "## " + say("notes"), ""]
        for reason, n in data["notes"].items():
            out.append(f"{n}. {markdown_cell(translate(lang, reason))}")
    return "\n".join(out) + "\n"


