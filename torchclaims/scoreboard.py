"""The terminal scoreboard: claims by topic, verdicts, and what this run reproduced."""
from __future__ import annotations

import collections
import io

from .catalog import VERDICTS, Claim

LABELS = {
    "en": {
        "title": "torchclaims scoreboard",
        "topic": "topic", "claims": "claims", "total": "total",
        "confirmed": "confirmed", "refuted": "refuted", "partly": "partly",
        "version-dependent": "version-dep", "gpu-only": "gpu-only",
        "not-checkable": "not-checkable", "pending": "pending",
        "reproduced": "reproduced", "changed": "CHANGED", "broken": "BROKEN", "not-applicable": "n/a",
        "skipped": "skipped",
        "broken_title": "BROKEN SPECS: these failed for a reason other than the one they state; fix the spec",
        "says": "the material says", "truth": "what is true", "source": "source",
        "as_written": "this spec encodes the material's statement, which is wrong",
        "changed_title": "CHANGED VERDICTS on torch {torch}: the installed torch no longer behaves as catalogued",
        "skipped_title": "skipped claims, by reason",
        "gaps": "{n} claims pending: not yet verified",
        "claims_title": "claims",
    },
    "zh": {
        "title": "torchclaims 论断记分板",
        "topic": "主题", "claims": "论断", "total": "合计",
        "confirmed": "属实", "refuted": "错误", "partly": "部分属实",
        "version-dependent": "随版本", "gpu-only": "仅GPU",
        "not-checkable": "无法检验", "pending": "待核实",
        "reproduced": "已复现", "changed": "已改变", "broken": "用例损坏", "not-applicable": "不适用",
        "skipped": "跳过",
        "broken_title": "用例损坏：以下用例失败的原因不是其声明的原因，需要修正用例本身",
        "says": "资料的说法", "truth": "实际情况", "source": "出处",
        "as_written": "此用例按资料原意编写，而资料的说法有误",
        "changed_title": "torch {torch} 上判定已改变：当前 torch 的行为与目录记录不符",
        "skipped_title": "跳过的论断（按原因）",
        "gaps": "{n} 条论断待核实",
        "claims_title": "论断列表",
    },
}
SYMBOLS = {"reproduced": "✓", "changed": "✗", "broken": "!", "not-applicable": "-", "skipped": "s", "pending": "?"}
VERDICT_COLUMNS = [v for v in VERDICTS if v != "pending"] + ["pending"]


def claim_text(claim: Claim, lang: str = "en", as_written: bool = False) -> str:
    """The says / truth / source block shown under a failure and in --claims-detail."""
    t = LABELS[lang]
    lines = []
    if as_written:
        lines.append(f"({t['as_written']})")
    lines += [
        f"{t['says']}: {claim.text('says', lang)}",
        f"{t['truth']}: {claim.text('truth', lang)}",
        f"{t['source']}: {claim.source_text}",
    ]
    return "\n".join(lines)


def table_rows(summary) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the by-topic table (also used by the command line)."""
    by_topic = collections.defaultdict(list)
    for o in summary:
        by_topic[o.claim.topic].append(o)
    header = ["topic", "claims"] + VERDICT_COLUMNS + ["reproduced", "changed", "broken", "not-applicable", "skipped"]
    keys = header[:2] + [f"verdict:{v}" for v in VERDICT_COLUMNS] + [
        "outcome:reproduced", "outcome:changed", "outcome:broken", "outcome:not-applicable", "outcome:skipped"]
    rows = []
    totals = collections.Counter()
    for topic in sorted(by_topic):
        counts = collections.Counter()
        for o in by_topic[topic]:
            counts[f"verdict:{o.claim.verdict}"] += 1
            counts[f"outcome:{o.outcome}"] += 1
        counts["claims"] = len(by_topic[topic])
        totals.update(counts)
        rows.append([topic] + [str(counts[c]) for c in keys[1:]])
    rows.append(["total"] + [str(totals[c]) for c in keys[1:]])
    return header, rows


def render(tr, summary, claims, lang="en", detail=False, verbosity=0, selected=False) -> None:
    from rich.console import Console
    from rich.table import Table

    import torch

    t = LABELS[lang]
    buf = io.StringIO()
    console = Console(file=buf, width=max(tr._tw.fullwidth, 132), force_terminal=tr.hasmarkup,
                      color_system="standard" if tr.hasmarkup else None, highlight=False)
    shown = [o for o in summary if o.tests or not selected]

    if verbosity >= 0 or detail:
        console.rule(t["claims_title"])
        topic = None
        for o in shown:
            if o.claim.topic != topic:
                topic = o.claim.topic
                console.print(f"[bold]{topic}[/bold]")
            style = {"changed": "bold red", "broken": "bold red", "skipped": "yellow", "not-applicable": "yellow",
                     "pending": "magenta"}.get(o.outcome, "green")
            verdict = t[o.claim.verdict]
            line = f"  [{style}]{SYMBOLS[o.outcome]}[/{style}] {o.claim.id:<48} {verdict:<13} {o.claim.source_text}"
            console.print(line, overflow="fold")
            if detail:
                for text_line in claim_text(o.claim, lang).splitlines():
                    console.print(f"      {text_line}", overflow="fold")

    header, rows = table_rows(shown)
    table = Table(title=t["title"] + f" (torch {torch.__version__})", title_justify="left")
    for name in header:
        table.add_column(t.get(name, name), justify="left" if name == "topic" else "right")
    for row in rows:
        table.add_row(*(t["total"] if cell == "total" else cell for cell in row),
                      style="bold" if row[0] == "total" else None)
    console.print(table)

    skipped = collections.Counter(o.reason for o in shown if o.outcome in ("skipped", "not-applicable"))
    if skipped:
        console.print(f"[yellow]{t['skipped_title']}[/yellow]")
        for reason, n in skipped.most_common():
            console.print(f"  {n:>4}  {reason}", overflow="fold")
    pending = sum(o.outcome == "pending" for o in shown)
    if pending:
        console.print(f"[magenta]{t['gaps'].format(n=pending)}[/magenta]")
    broken = [o for o in shown if o.outcome == "broken"]
    if broken:
        console.rule(f"[bold red]{t['broken_title']}[/bold red]")
        for o in broken:
            console.print(f"[bold red]! {o.claim.id}[/bold red]: {o.reason}", overflow="fold")
    changed = [o for o in shown if o.outcome == "changed"]
    if changed:
        console.rule(f"[bold red]{t['changed_title'].format(torch=torch.__version__)}[/bold red]")
        for o in changed:
            console.print(f"[bold red]✗ {o.claim.id}[/bold red] ({t[o.claim.verdict]}): {o.reason}", overflow="fold")
            for text_line in claim_text(o.claim, lang).splitlines():
                console.print(f"    {text_line}", overflow="fold")
    tr.write(buf.getvalue())
