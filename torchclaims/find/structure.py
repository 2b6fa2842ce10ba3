"""What a sentence means can lie outside it: a list item takes its subject from the lead-in line
above the list, a table row from the table's header, a sentence that opens with "it" / "它" / "这"
from the sentence before it in its paragraph, any other sentence (a list item under a lead-in too) its
subject from the heading of its section (a short one: the heading lends its subject, never its
negations or its "myth"). The Markdown structure comes from a real parser
(markdown-it-py, CommonMark with tables); each unit gets its ``context`` (lead-in, header or
previous sentence). URLs are never statements: they are blanked before matching.

A lead-in is the line that introduces a list: a long paragraph before a list is cut to its last
sentences, at most LEAD characters (lead_in), so that a document whose 20,000-character paragraph
runs into a list is read in time linear in its length (each item is matched with its context)."""
from __future__ import annotations

import bisect
import dataclasses
import re

from markdown_it import MarkdownIt

from ..segment import Unit, units as sentences
from .words import words

URL = re.compile(r"https?://\S+|www\.\S+")
HEADING = 80   # characters: a heading up to this long is the context of its section's sentences
LEAD = 300   # characters of a lead-in paragraph kept as its list's context: its last sentences


@dataclasses.dataclass(frozen=True)
class Context:
    context: str = ""     # lead-in line, table header or the previous sentence
    section: str = ""     # the section's short heading: it lends its subject only, never its stance


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def lead_in(paragraph: str) -> str:
    """What of a paragraph introduces the list after it: the whole paragraph when it is at most LEAD
    characters, else its last sentences that fit in LEAD (the last one's tail when it alone does
    not): the subject a list takes is named just before it, not 20,000 characters earlier."""
    if len(paragraph) <= LEAD:
        return paragraph
    kept = len(paragraph)
    for unit in reversed(sentences(paragraph)):
        if len(paragraph) - unit.start > LEAD:
            break
        kept = unit.start
    return paragraph[kept if kept < len(paragraph) else len(paragraph) - LEAD:].strip()


def _markdown_regions(text: str) -> list[tuple[int, int, str]]:
    """(first line, end line, context) of each list and table body."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    regions = []
    last_para: tuple[int, str] | None = None     # (end line, text) of the last top-level paragraph
    depth = 0
    header: list[str] = []
    in_head = False
    for i, tok in enumerate(tokens):
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            if depth == 0 and tok.map and last_para and tok.map[0] - last_para[0] <= 1:
                regions.append((tok.map[0], tok.map[1], lead_in(last_para[1])))
            depth += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif tok.type == "paragraph_open" and depth == 0 and tok.map and i + 1 < len(tokens):
            last_para = (tok.map[1], tokens[i + 1].content)
        elif tok.type == "thead_open":
            in_head, header = True, []
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "inline" and in_head:
            header.append(tok.content)
        elif tok.type == "tbody_open" and tok.map:
            regions.append((tok.map[0], tok.map[1], lead_in(" | ".join(header))))   # each row has it
    return regions


def contexts(text: str, units: list[Unit], markdown: bool = True) -> list[Context]:
    """Each unit's context (see the module doc)."""
    starts = _line_starts(text)
    regions = sorted(_markdown_regions(text)) if markdown and len(text) < 5_000_000 else []
    firsts = [first for first, _, _ in regions]   # top-level lists and tables do not overlap
    pronoun = words().pronoun
    heading: str | None = None   # the last short heading above the unit
    out = []
    for k, unit in enumerate(units):
        line = bisect.bisect_right(starts, unit.start) - 1
        at = bisect.bisect_right(firsts, line) - 1
        context = regions[at][2] if at >= 0 and line < regions[at][1] else ""
        if not context and k and unit.kind == "prose" and units[k - 1].block == unit.block \
                and pronoun.match(text[unit.start:unit.end].lower()):
            context = text[units[k - 1].start:units[k - 1].end]
        # a section's sentences (a list item under a lead-in too) are about what its heading names
        out.append(Context(context, section=(heading or "") if unit.kind == "prose" else ""))
        if unit.kind == "heading":
            heading = text[unit.start:unit.end].lstrip("# \t") if unit.end - unit.start <= HEADING else None
    return out
