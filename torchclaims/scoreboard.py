"""The terminal scoreboard: a learner's summary of what this run found about the material.

The default run ends with a short summary that fits the terminal (80 columns and up, about
30 lines): a legend, a table by topic, the material's mistakes counted, why claims did not
run, the four source documents, and the next commands to try.  ``-v`` adds one line per
claim, ``--claims-detail`` also what the material says and what is true under each.
Broken specs and changed verdicts are listed one by one, loudly, whatever the verbosity.

Everything goes through a ``rich`` console as wide as pytest's terminal writer, so rich
measures each line (a Chinese character counts two columns) and wraps what is too long;
no width is ever forced.
"""
from __future__ import annotations

import collections
import io
import re

from . import catalog
from .catalog import Claim
from .strings import default_lang, fill, table as strings, translate, wrap_spans

SYMBOLS = {"reproduced": "✓", "changed": "✗", "broken": "!", "not-applicable": "n/a", "skipped": "s", "pending": "?"}
STYLES = {"changed": "bold red", "broken": "bold red", "skipped": "yellow", "not-applicable": "yellow",
          "pending": "magenta", "reproduced": "green"}
MAX_REASONS = 5        # reasons for not running, listed one per line; the rest are summed up
_TRAILING = re.compile(r" +((?:\x1b\[[0-9;]*m)*\n?)$")  # the pad rich leaves after a cell
MAX_TOPICS = 4         # topics named under the material's mistakes


def claim_text(claim: Claim, lang: str = "en", as_written: bool = False) -> str:
    """The says / truth / source block shown under a failure and in --claims-detail."""
    t = strings(lang)
    lines = []
    if as_written:
        lines.append(f"({t['as_written']})")
    say = "：" if lang == "zh" else ": "
    lines += [
        f"{t['says']}{say}{claim.text('says', lang)}",
        f"{t['truth']}{say}{claim.text('truth', lang)}",
        f"{t['source']}{say}{claim.source_labels(lang, with_file=True)}",
    ]
    return "\n".join(lines)


OUTCOME_COLUMNS = ("reproduced", "changed", "broken", "not-applicable", "skipped", "pending")
MATERIAL_COLUMNS = ("right", "wrong", "partly")


def table_rows(summary) -> tuple[list[str], list[list[str]]]:
    """Header keys and rows (topic, claims, the material right / wrong / partly as measured,
    then one count per outcome) of the by-topic table; the last row is the total."""
    by_topic = collections.defaultdict(list)
    for o in summary:
        by_topic[o.claim.topic].append(o)
    header = ["topic", "claims", *MATERIAL_COLUMNS, *OUTCOME_COLUMNS]
    keys = ["claims"] + [f"material:{m}" for m in MATERIAL_COLUMNS] + [f"outcome:{o}" for o in OUTCOME_COLUMNS]
    rows, totals = [], collections.Counter()
    for topic in sorted(by_topic):
        counts = collections.Counter()
        for o in by_topic[topic]:
            counts[f"material:{o.material}"] += 1
            counts[f"outcome:{o.outcome}"] += 1
        counts["claims"] = len(by_topic[topic])
        totals.update(counts)
        rows.append([topic] + [str(counts[k]) for k in keys])
    rows.append(["total"] + [str(totals[k]) for k in keys])
    return header, rows


def _width(tr) -> int:
    """The terminal's width as pytest's terminal writer sees it (COLUMNS, the tty, or 80)."""
    return tr._tw.fullwidth


def _console(tr, buf):
    from rich.console import Console
    return Console(file=buf, width=_width(tr), force_terminal=tr.hasmarkup,
                   color_system="standard" if tr.hasmarkup else None, highlight=False,
                   emoji=False, soft_wrap=False)


def _hang(console, lead: str, text: str, style: str | None = None) -> None:
    """``lead`` then ``text`` (rich markup), wrapped to the console's width under its own first
    column by display width, never inside an identifier, a path or a command (strings.wrap)."""
    from rich.text import Text
    body = Text.from_markup(text, style=style or "")
    first = Text.from_markup(lead, style=style or "")
    pad = first.cell_len
    if console.width - pad < min(10, body.cell_len):   # no room beside the lead: the text goes under it
        console.print(first, no_wrap=True, overflow="ignore", crop=False)
        first, pad = Text(" " * 8), 8
    for i, (start, end) in enumerate(wrap_spans(body.plain, console.width - pad)):
        line = (first if i == 0 else Text(" " * pad)) + body[start:end]
        console.print(line, no_wrap=True, overflow="ignore", crop=False)


def escape(text: str) -> str:
    """``text`` with rich's markup characters escaped (rich is imported only when rendering)."""
    from rich.markup import escape as rich_escape
    return rich_escape(text)


def _pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal columns (a CJK character is two)."""
    from rich.cells import cell_len
    return text + " " * max(0, width - cell_len(text))


def _claim_lines(console, shown, t, lang, detail) -> None:
    from rich.cells import cell_len
    console.rule(t["claims_title"], characters="-")
    id_width = max((len(o.claim.id) for o in shown), default=0)
    # a long verdict ("measured by the benchmark report") does not widen the column for all the others
    verdict_width = max((w for o in shown if (w := cell_len(t[f"m:{o.material}"])) <= 16), default=0)
    topic = None
    for o in shown:
        if o.claim.topic != topic:
            topic = o.claim.topic
            console.print(f"[bold]{topic}[/bold]")
        style = STYLES[o.outcome]
        lead = (f"  [{style}]{_pad(SYMBOLS[o.outcome], 3)}[/{style}] {_pad(o.claim.id, id_width)} "
                f"{_pad(t['m:' + o.material], verdict_width)} ")
        _hang(console, lead, o.claim.source_brief(lang))
        if detail:
            for line in claim_text(o.claim, lang).splitlines():
                _hang(console, "        ", escape(line))


def _topic_table(console, shown, t, torch_version):
    from rich import box
    from rich.table import Table
    header, rows = table_rows(shown)
    names = {"topic": t["col_topic"], "claims": t["col_claims"], "right": t["col_right"],
             "wrong": t["col_wrong"], "partly": t["col_partly"]}
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False)
    for key in header:
        if key in OUTCOME_COLUMNS:
            table.add_column(SYMBOLS[key], justify="right", header_style=STYLES[key], no_wrap=True)
        else:
            table.add_column(names[key], justify="left" if key == "topic" else "right", no_wrap=True)
    for row in rows:
        total = row[0] == "total"
        cells = [t["total"] if total else row[0]] + ["·" if cell == "0" else cell for cell in row[1:]]
        table.add_row(*cells, style="bold" if total else None)
    console.print(table)


def _mistakes(console, shown, t) -> None:
    ran = [o for o in shown if o.material in ("right", "wrong", "partly", "contradiction")]
    wrong = [o for o in ran if o.material == "wrong"]
    partly = [o for o in ran if o.material == "partly"]
    if not wrong and not partly:
        console.print(fill(t["mistakes_none"], checked=len(ran)))
        return
    _hang(console, "", fill(t['mistakes'], wrong=len(wrong), partly=len(partly), checked=len(ran)), style="bold")
    by_topic = collections.Counter(o.claim.topic for o in wrong + partly)
    if len(by_topic) > 1:
        _hang(console, "  ", t["mistakes_by_topic"].format(
            topics=", ".join(f"{topic} {n}" for topic, n in by_topic.most_common(MAX_TOPICS))))


def _not_run(console, shown, t, lang) -> None:
    reasons = collections.Counter(o.reason for o in shown if o.outcome in ("skipped", "not-applicable")
                                  and o.material != "measured")   # figure claims: _figures
    if not reasons:
        return
    console.print(f"[yellow]{fill(t['skipped_title'], n=sum(reasons.values()))}[/yellow]")
    common = reasons.most_common()
    for reason, n in common[:MAX_REASONS]:
        _hang(console, f"  {n:>3}  ", escape(translate(lang, reason)))
    rest = common[MAX_REASONS:]
    if rest:
        console.print(fill(t["skipped_more"], n=sum(n for _, n in rest), k=len(rest)))


def _figures(console, shown, t, lang, figure_verdicts) -> None:
    """The figure claims, which no spec scores: the committed benchmark report's verdict of each."""
    figures = [o.claim.id for o in shown if o.material == "measured"]
    if not figures:
        return
    verdicts = figure_verdicts(figures, lang) if figure_verdicts else {}
    if not verdicts:
        _hang(console, "", fill(t["bench_figures_none"], n=len(figures)))
        return
    _hang(console, "", fill(t["bench_figures_some"], n=len(verdicts), total=len(figures)))
    for cid in figures:
        _hang(console, f"  {cid}  ", escape(verdicts.get(cid) or t["bench_figure_context_only"]))


def _sources(console, shown, lang, t) -> None:
    used = sorted({s.split(" ")[0] for o in shown for s in o.claim.source})
    docs = [catalog.DOCUMENTS[f] for f in used if f in catalog.DOCUMENTS]
    if not docs:
        return
    console.print(t["sources_title"])
    for doc in docs:
        _hang(console, f"  {doc.number}  ", doc.name(lang))


def _next_steps(console, shown, t, lang) -> None:
    steps = []
    if any(o.material in ("wrong", "partly") for o in shown):
        steps.append(("pytest specs/ --as-written", t["next_as_written"]))
    steps.append(("pytest specs/ -v", t["next_verbose"]))
    steps.append(("python -m torchclaims show ID", t["next_show"]))
    if any("--full" in o.reason for o in shown):
        steps.append(("pytest specs/ --full", t["next_full"]))
    steps.append(("python -m torchclaims workbook init ~/wb", t["next_workbook"]))
    if lang == "en":
        steps.append(("pytest specs/ --lang zh", t["next_zh"]))
    elif lang != default_lang():  # every command keeps the language: --lang, unless the locale gives it
        steps = [(f"{command} --lang {lang}", what) for command, what in steps]
    from rich.cells import cell_len
    console.print(t["next_title"])
    for command, what in steps:
        if cell_len("  " + t["next_step"].format(what=what, command=command)) <= console.width:
            _hang(console, "  ", t["next_step"].format(what=what, command=f"[bold]{command}[/bold]"))
        else:  # a command is never broken across lines: it goes whole under its description
            _hang(console, "  ", t["next_step"].format(what=what, command="").rstrip())
            console.print(f"    [bold]{command}[/bold]", no_wrap=True, crop=False, overflow="ignore")


def _loud(console, shown, t, lang, torch_version) -> None:
    pending = sum(o.outcome == "pending" for o in shown)
    if pending:
        console.print(f"[magenta]{fill(t['gaps'], n=pending)}[/magenta]")
    broken = [o for o in shown if o.outcome == "broken"]
    if broken:
        console.rule(style="bold red", characters="!")
        _hang(console, "", t["broken_title"], style="bold red")
        for o in broken:
            console.print(f"[bold red]! {o.claim.id}[/bold red]")
            _hang(console, "    ", escape(o.reason))
    changed = [o for o in shown if o.outcome == "changed"]
    if changed:
        console.rule(style="bold red", characters="✗")
        _hang(console, "", t["changed_title"].format(torch=torch_version), style="bold red")
        for o in changed:
            console.print(f"[bold red]✗ {o.claim.id}[/bold red] ({t[o.claim.verdict]})")
            _hang(console, "    ", escape(o.reason))
            for line in claim_text(o.claim, lang).splitlines():
                _hang(console, "    ", escape(line))


def render(tr, summary, claims, lang="en", detail=False, verbosity=0, selected=False, torch_version=None,
           interrupted=False, figure_verdicts=None) -> None:
    """Write the scoreboard of ``summary`` (outcomes.ClaimOutcome per claim) to ``tr``.

    ``figure_verdicts(ids, lang)``: the benchmark report's verdict of each figure claim
    (``reports.figure_verdicts``, which the plugin passes: a view reads no report itself); None: none.

    ``selected``: a --claim run, so only the claims whose specs were selected are shown;
    ``interrupted``: the run stopped early (Ctrl-C, -x), which the scoreboard says first and last.
    """
    if torch_version is None:
        import torch
        torch_version = torch.__version__
    t = strings(lang)
    buf = io.StringIO()
    console = _console(tr, buf)
    shown = [o for o in summary if o.tests or not selected]
    if verbosity > 0 or detail:
        _claim_lines(console, shown, t, lang, detail)
    console.rule(f"[bold]{t['title'].format(torch=torch_version)}[/bold]")
    if interrupted:
        _hang(console, "", t["interrupted_run"], style="bold red")
    _hang(console, "", t["legend_head"])
    for key in ("legend_verdict", "legend_marks", "legend_marks2"):
        _hang(console, "  ", t[key])
    _topic_table(console, shown, t, torch_version)
    _mistakes(console, shown, t)
    _not_run(console, shown, t, lang)
    _figures(console, shown, t, lang, figure_verdicts)
    _sources(console, shown, lang, t)
    _next_steps(console, shown, t, lang)
    _loud(console, shown, t, lang, torch_version)
    if interrupted:
        _hang(console, "", t["interrupted_run"], style="bold red")
    tr.write("".join(_TRAILING.sub(r"\1", line) for line in buf.getvalue().splitlines(keepends=True)))
