"""The catalog as its commands show and check it: the ``claims`` listing, ``show`` (one claim, or
a topic's claims), ``check`` (the catalog, its links to specs, the lints, the anchors, the survey),
and the one-line messages for a mistyped claim id or topic that the plugin gives too.

The options are torchclaims/commands/ (claims.py, show.py, check.py); this is the work.
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil

from . import anchors, catalog, links as _links, lint, survey
from .bench.cells import cell as markdown_cell
from .errors import UsageError
from .strings import cell_width, default_lang, text, wrap

SPECS_DIR = catalog.ROOT / "specs"
WIDE_TABLE = 120  # columns from which `claims` is a table; below, one block per claim (ids never wrap)


# ---------------------------------------------------------------- catalog listing

def did_you_mean(close: list[str], lang: str = "en") -> str:
    """" (did you mean X? also close: Y, Z)" for the nearest matches, or "" when there are none."""
    if not close:
        return ""
    more = text(lang, "also_close", names=", ".join(close[1:])) if close[1:] else ""
    return text(lang, "did_you_mean", best=close[0], more=more)


def _filter(claims, topic, verdict, lang="en"):
    known_topics = catalog.topics(claims)
    if topic and topic not in known_topics:
        hint = did_you_mean(catalog.suggest(topic, known_topics), lang)
        raise UsageError(text(lang, "unknown_topic", name=topic, hint=hint, topics=", ".join(known_topics)))
    return [c for c in claims.values()
            if (not topic or c.topic == topic) and (not verdict or c.verdict == verdict)]


def colon(lang: str) -> str:
    """The colon after a label: ": " in English, "：" in Chinese."""
    return "：" if lang == "zh" else ": "


def verdict_word(lang: str, verdict: str) -> str:
    """The catalog's label in English (whole: never the tables' ``version-dep``), or its translation."""
    return verdict if lang == "en" else text(lang, verdict)


def _claims_table(claims, lang) -> None:
    """The catalog as a table on a wide terminal, else one block per claim: the id alone on
    its line, never wrapped (so it can be copied into ``show``), the texts indented under it."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
    console = Console()
    if console.width >= WIDE_TABLE:
        # the two long columns are wrapped here (strings.wrap: by display width, never inside an
        # identifier), the others keep their width: rich's own folding cuts a word anywhere
        id_w = max((len(c.id) for c in claims), default=2)
        verdict_w = max([cell_width(text(lang, key)) for key in ("verdict",)]
                        + [cell_width(text(lang, c.verdict)) for c in claims])
        source_w = max([cell_width(text(lang, "source"))] + [cell_width(c.source_brief(lang)) for c in claims])
        long_w = max(20, (console.width - id_w - verdict_w - source_w - 16) // 2)   # 5 columns: borders, padding
        table = Table(show_lines=True)
        table.add_column(text(lang, "col_id"), no_wrap=True, min_width=id_w)
        table.add_column(text(lang, "verdict"), no_wrap=True)
        for key in ("says", "truth"):
            table.add_column(text(lang, key), width=long_w, no_wrap=True, overflow="ignore")
        table.add_column(text(lang, "source"), no_wrap=True)
        for c in claims:
            table.add_row(Text(c.id), text(lang, c.verdict), *(Text("\n".join(wrap(c.text(key, lang), long_w)))
                                                            for key in ("says", "truth")), Text(c.source_brief(lang)))
        console.print(table)
        return
    import io
    buf = io.StringIO()
    blocks = Console(file=buf, width=console.width, force_terminal=console.is_terminal,
                     color_system=console.color_system and "standard")
    labels = {key: f"  {text(lang, key)}{colon(lang)}" for key in ("verdict", "source", "says", "truth")}
    pad = max(cell_width(label) for label in labels.values())
    for c in claims:
        blocks.print(Text(c.id, style="bold"), no_wrap=True, crop=False, overflow="ignore")
        for key, value in (("verdict", verdict_word(lang, c.verdict)), ("source", c.source_brief(lang)),
                           ("says", c.text("says", lang)), ("truth", c.text("truth", lang))):
            lead = labels[key] + " " * (pad - cell_width(labels[key]))
            for line in wrap(lead + value, console.width, " " * pad):
                blocks.print(Text(line), no_wrap=True, crop=False, overflow="ignore")
        blocks.print()
    print("\n".join(line.rstrip(" ") for line in buf.getvalue().splitlines()))


def claims_listing(topic: str | None, verdict: str | None, lang: str, fmt: str) -> int:
    """``claims``: the catalog (a topic's, a verdict's) as a table, JSON or Markdown."""
    claims = _filter(catalog.load_for_command(), topic, verdict, lang)
    if fmt == "json":
        rows = [{"id": c.id, "topic": c.topic, "verdict": c.verdict, "source": list(c.source),
                 "source_label": c.source_labels(lang),
                 "says": c.text("says", lang), "truth": c.text("truth", lang),
                 "refs": list(c.refs), "versions": c.versions} for c in claims]
        print(json.dumps(rows, indent=1, ensure_ascii=False))
    elif fmt == "markdown":
        head = [text(lang, key) for key in ("col_id", "verdict", "source", "says", "truth")]
        print("| " + " | ".join(head) + " |\n|---|---|---|---|---|")
        for c in claims:
            cells = [c.id, verdict_word(lang, c.verdict), c.source_text, c.text("says", lang), c.text("truth", lang)]
            print("| " + " | ".join(markdown_cell(x) for x in cells) + " |")
    else:
        _claims_table(claims, lang)
        print(text(lang, "claims_count", n=len(claims)))
        if lang == "en":
            print(text(lang, "lang_hint"))
    return 0


# ---------------------------------------------------------------- claim -> specs

def unknown_claim_message(name: str, claims, lang: str = "en") -> str:
    """One line for a mistyped claim id (or topic), with the nearest ids (difflib)."""
    close = catalog.suggest(name, list(claims) + catalog.topics(claims))
    return text(lang, "unknown_claim", name=name, hint=did_you_mean(close, lang))


def claim_option_message(name: str, claims, lang: str = "en") -> str:
    """The one line for ``pytest --claim NAME`` naming neither a claim nor a topic."""
    close = catalog.suggest(name, list(claims) + catalog.topics(claims))
    return text(lang, "claim_option", name=name, hint=did_you_mean(close, lang))


def show_topic(topic: str, claims, lang: str) -> None:
    """``show TOPIC``: the topic's claims, one line each (the id whole, then the catalog verdict)."""
    members = sorted(c.id for c in claims.values() if c.topic == topic)
    print(text(lang, "topic_head", topic=topic, n=len(members)))
    for cid in members:
        print("  " + text(lang, "topic_line", id=cid, verdict=verdict_word(lang, claims[cid].verdict)))


def show(ident: str, lang: str) -> int:
    """``show``: one claim with its clauses and specs, or a topic's claims."""
    claims = catalog.load_for_command()
    # a topic by its id or by its name in either language (the page shows 自动求导 for autograd)
    names = {text(code, f"topic:{t}").casefold(): t for t in catalog.topics(claims) for code in ("en", "zh")}
    topic = ident if ident in catalog.topics(claims) else names.get(ident.strip().casefold())
    if topic:
        show_topic(topic, claims, lang)
        return 0
    if ident not in claims:
        raise UsageError(unknown_claim_message(ident, claims, lang))
    c = claims[ident]
    width = shutil.get_terminal_size((100, 24)).columns
    say = colon(lang)

    def hang(label: str, value: str) -> None:
        for line in wrap(f"  {label}{say}{value}", width, "    "):
            print(line)
    print(f"{c.id}  [{text(lang, 'verdict')}{say}{verdict_word(lang, c.verdict)}]")
    for source in c.seed_sources:
        file, _, _ = source.partition(" ")
        hang(text(lang, "source"), f"{catalog.source_label(source, lang)}  ({file})")
    if c.tutorials:
        hang(text(lang, "source"), c.tutorials_label(lang, with_addresses=False))
        for address in c.tutorials:
            print(f"    {address}")
    hang(text(lang, "says"), c.text("says", lang))
    hang(text(lang, "truth"), c.text("truth", lang))
    if c.clauses:
        print(f"  {text(lang, 'clauses')}{say.rstrip()}")
        for clause in c.clauses:
            for line in wrap(f"    [{clause.id}]{say}{getattr(clause, lang)}", width, "      "):
                print(line)
            evidence = (f"{text(lang, 'clause_specs')}{say}{', '.join(clause.specs)}" if clause.specs
                        else f"{text(lang, 'clause_ref')}{say}{clause.ref}")
            for line in wrap(f"      {evidence}", width, "        "):
                print(line)
    if c.versions:
        print(f"  {text(lang, 'versions')}{say}{c.versions}")
    for ref in c.refs:
        print(f"  {text(lang, 'refs')}{say}{ref}")
    specs = _links.spec_links(SPECS_DIR, catalog.ROOT).get(c.id, [])
    print(f"  {text(lang, 'specs')}{say.rstrip()}" if specs else f"  {text(lang, 'specs_none')}")
    for name, as_written in specs:
        print(f"    {name}" + (f"  ({text(lang, 'spec_as_written')})" if as_written else ""))
    if lang == "en":
        print(f"  ({text(lang, 'lang_hint')})")
    return 0


# ---------------------------------------------------------------- checks the plugin runs before a session

def check_report_path(path: str | None, lang: str = "en") -> str | None:
    """Why ``--claims-report PATH`` cannot be written (one line), or None when it can.

    Checked before the run starts, so a typo costs a second, not a whole run."""
    if not path:
        return None
    target = pathlib.Path(path)
    if target.is_dir():
        return text(lang, "report_is_dir", path=path.rstrip("/") or "/")
    parent = target.parent
    if not parent.is_dir():
        return text(lang, "report_no_dir", path=path, parent=str(parent))
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return text(lang, "report_not_writable", path=path, reason="permission denied")
    return None


# ---------------------------------------------------------------- check

def link_problems(claims: dict[str, catalog.Claim], links: dict[str, list[tuple[str, bool]]]) -> list[str]:
    """Every verified claim has a truth spec; every refuted or partly one an as-written spec."""
    problems = []
    for cid in sorted(set(links) - set(claims)):
        problems.append(f"{cid}: linked from {links[cid][0][0]} but not in the catalog")
    figures = _links.figure_claims(claims)   # measured by a benchmark, never checked by a spec
    for c in claims.values():
        specs = links.get(c.id, [])
        if c.verdict not in catalog.NEEDS_NO_SPEC and c.id not in figures and not any(not aw for _, aw in specs):
            problems.append(f"{c.id} ({c.verdict}): no truth spec")
        if c.verdict in catalog.NEEDS_AS_WRITTEN and not any(aw for _, aw in specs):
            problems.append(f"{c.id} ({c.verdict}): no as-written spec")
    return problems


def collected_links(args: list[str] | None = None) -> dict[str, list[tuple[str, bool]]]:
    """The links as pytest itself collects them (parametrized and inherited marks included)."""
    import pytest

    class Collector:
        links: dict[str, list[tuple[str, bool]]] = {}

        def pytest_collection_modifyitems(self, items):
            for item in items:
                for link in _links.claim_marks(item):
                    self.links.setdefault(link.claim, []).append((item.nodeid, link.as_written))

    collector = Collector()
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main([str(SPECS_DIR), "--collect-only", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                           *(args or [])], plugins=[collector])
    if code not in (0, 5):
        raise UsageError(f"collecting specs/ failed (pytest exit {int(code)}); run pytest specs/ --collect-only")
    return collector.links


def check(static: bool) -> int:
    """``check``: every problem of the catalog, one a line, and a summary; 1 when there is one."""
    claims = catalog.load_for_command()
    links = _links.spec_links(SPECS_DIR, catalog.ROOT) if static else collected_links()
    problems = link_problems(claims, links)
    # hollow specs and labels that contradict their entry (rules: torchclaims/lint.py)
    problems += [str(f) for f in lint.all_findings(claims)]
    # anchors: each claim placed in the documents it cites, checked against them when present
    problems += anchors.problems(claims)
    # the survey of real tutorials: each statement's claim in the catalog, each source a tutorial read
    problems += list(survey.load(claims=claims).problems)
    for p in problems:
        print(p)
    lang = default_lang()
    counts = {v: sum(c.verdict == v for c in claims.values()) for v in catalog.VERDICTS}
    listed = ("，" if lang == "zh" else ", ").join(f"{n} {v if lang == 'en' else verdict_word(lang, v)}"
                                                  for v, n in counts.items() if n)
    print(text(lang, "check_summary", n=len(claims), counts=listed, p=len(problems)))
    return 1 if problems else 0
