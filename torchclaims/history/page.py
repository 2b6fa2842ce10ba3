"""The claim history as one HTML page (``matrix -o PATH`` writes PATH.html beside PATH.md): the
table of releases by claims, its summary, flips, legend and filters, in English and Chinese with
a switch; offline, inline CSS and JS. The data is reports.history_data()'s, the same the Markdown shows."""
from __future__ import annotations

import json

from ..files import page_file, page_template
from ..outcomes import UNMEASURED
from ..strings import LANGS, VERDICT_KEYS, state_word, table as strings_table, text, translate
from .table import SYMBOL, summary_lines

HTML_STYLE = page_file("history.css")

HTML_SCRIPT = page_file("history.js")

def page_texts(lang: str) -> dict:
    """What the page's script writes, in ``lang`` (strings.py: the ``mx:`` keys and the catalog words)."""
    return {"more": text(lang, "mx:more"), "says": text(lang, "says"), "truth": text(lang, "truth"),
            "source": text(lang, "source"), "shown": text(lang, "mx:shown"),
            "verdicts": {v: text(lang, v) if lang != "en" else v for v in VERDICT_KEYS}}


def render_html(reports: list[dict], data: dict, claims: dict | None = None, lang: str = "en") -> str:
    """The page, opened in ``lang``; its language switch turns every word the project wrote
    (headings, summary, flips, legend, filters, histories, claim texts) into the other one."""
    cols = data["versions"]
    texts = {}
    for cid, c in (claims or {}).items():
        texts[cid] = {"says_en": c.says, "says_zh": c.says_zh, "truth_en": c.truth, "truth_zh": c.truth_zh,
                      "source_en": c.source_labels("en", with_file=True),
                      "source_zh": c.source_labels("zh", with_file=True)}
    payload = {"lang": lang, "versions": cols, "rows": data["rows"], "claims": texts,
               "text": {la: page_texts(la) for la in LANGS},
               "symbols": {("" if k is None else k): v for k, v in SYMBOL.items()}}

    def say(la, key, **fields):
        return text(la, "mx:" + key, **fields)

    def flip(f, la):   # the sentence of la's grammar, cut where the claim id goes (shown as code)
        said = say(la, "flip_item", claim="\0", before=say(la, "m_" + f["from"]), after=say(la, "m_" + f["to"]),
                   since=f["since"], previous=f["after"], device=f["device"])
        before, _, after = said.partition("\0")
        return before, f["claim"], after

    words = {key: {la: say(la, key) for la in LANGS}
             for key in ("title", "table", "f_topic", "f_all", "f_verdict", "f_changed", "f_state", "f_any", "f_lang",
                         "col_claim", "col_verdict", "col_history", "notes")}
    return page_template("history.html").render(
        lang=lang, langs=LANGS, page_title=say(lang, "page_title"), style=HTML_STYLE, script=HTML_SCRIPT,
        words=words, cols=cols,
        summary={la: [line.lstrip("- ") for line in summary_lines(data, la)] for la in LANGS},
        flips={la: {"head": say(la, "flips_n", n=len(data["flips"])), "none": say(la, "none"),
                    "items": [flip(f, la) for f in data["flips"]]} for la in LANGS},
        legend={la: say(la, "legend").replace("**", "") for la in LANGS},
        topics=[(t, {la: text(la, "topic:" + t) if f"topic:{t}" in strings_table(la) else t for la in LANGS})
                for t in sorted({row["topic"] for row in data["rows"]})],
        verdicts=[(v, {la: v if la == "en" else text(la, v) for la in LANGS})
                  for v in sorted({row["verdict"] for row in data["rows"]})],
        states=[(k, {la: f"{state_word(k, la)} ({SYMBOL[k]})" for la in LANGS})
                for k in UNMEASURED + ("broken",)],
        notes={la: [translate(la, r) for r in data["notes"]] for la in LANGS} if data["notes"] else None,
        data=json.dumps(payload, ensure_ascii=False).replace("</", "<\\/"))
