"""The claim history as one HTML page (``matrix -o PATH`` writes PATH.html beside PATH.md): the
table of releases by claims, its summary, flips, legend and filters, in English and Chinese with
a switch; offline, inline CSS and JS. The data is matrix.build()'s, the same the Markdown shows."""
from __future__ import annotations

import html
import json

from . import matrix
from .files import page_file
from .strings import LANGS, VERDICT_KEYS, table as strings_table, text, translate

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
    e = html.escape
    cols = data["versions"]
    texts = {}
    for cid, c in (claims or {}).items():
        texts[cid] = {"says_en": c.says, "says_zh": c.says_zh, "truth_en": c.truth, "truth_zh": c.truth_zh,
                      "source_en": c.source_labels("en", with_file=True),
                      "source_zh": c.source_labels("zh", with_file=True)}
    payload = {"lang": lang, "versions": cols, "rows": data["rows"], "claims": texts,
               "text": {la: page_texts(la) for la in LANGS},
               "symbols": {("" if k is None else k): v for k, v in matrix.SYMBOL.items()}}
    topics = sorted({row["topic"] for row in data["rows"]})
    verdicts = sorted({row["verdict"] for row in data["rows"]})

    def say(la, key, **fields):
        return text(la, "mx:" + key, **fields)

    def both(tag, words: dict, attrs: str = "") -> str:
        """An element in the page's language that the switch turns into the other one."""
        return (f"<{tag}{attrs} data-en='{e(words['en'])}' data-zh='{e(words['zh'])}'>{e(words[lang])}</{tag}>")

    def each(key, **fields):
        return {la: say(la, key, **fields) for la in LANGS}

    def per_lang(block) -> str:
        """A block written once per language; the one of the other language is hidden."""
        return "".join(f"<div class='l-{la}'{'' if la == lang else ' hidden'}>{block(la)}</div>" for la in LANGS)

    def flips(la):
        def item(f):   # the sentence of la's grammar, with the claim id as code in it
            said = say(la, "flip_item", claim="\0", before=say(la, "m_" + f["from"]), after=say(la, "m_" + f["to"]),
                       since=f["since"], previous=f["after"], device=f["device"])
            return "<li>" + e(said).replace("\0", f"<code>{e(f['claim'])}</code>") + "</li>"
        items = "".join(item(f) for f in data["flips"])
        return (f"<h2>{e(say(la, 'flips_n', n=len(data['flips'])))}</h2>"
                f"<ul class='flips'>{items or '<li>' + e(say(la, 'none')) + '</li>'}</ul>")

    summary = per_lang(lambda la: "<ul class='summary'>" + "".join(
        f"<li>{e(line.lstrip('- '))}</li>" for line in matrix.summary_lines(data, la)) + "</ul>")
    parts = [
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{e(say(lang, 'page_title'))}</title><style>" + HTML_STYLE + "</style></head><body>",
        both("h1", each("title")),
        summary,
        per_lang(flips),
        both("h2", each("table")),
        per_lang(lambda la: "<p>" + e(say(la, "legend").replace("**", "")) + "</p>"),
        "<div id='filters'><label>" + both("span", each("f_topic")) + " <select id='topic'>"
        + both("option", each("f_all"), " value=''")
        + "".join(both("option", {la: text(la, "topic:" + t) if f"topic:{t}" in strings_table(la) else t for la in LANGS},
                       f" value='{e(t)}'") for t in topics) + "</select></label>"
        "<label>" + both("span", each("f_verdict")) + " <select id='verdict'>" + both("option", each("f_all"), " value=''")
        + "".join(both("option", {la: v if la == "en" else text(la, v) for la in LANGS}, f" value='{e(v)}'")
                  for v in verdicts) + "</select></label>"
        "<label><input type='checkbox' id='changed'> " + both("span", each("f_changed")) + "</label>"
        "<label>" + both("span", each("f_state")) + " <select id='state'>" + both("option", each("f_any"), " value=''")
        + "".join(both("option", {la: f"{matrix.state_word(k, la)} ({matrix.SYMBOL[k]})" for la in LANGS}, f" value='{k}'")
                  for k in matrix.UNMEASURED + ("broken",))
        + "</select></label>"
        "<label>" + both("span", each("f_lang")) + f" <select id='lang'><option value='en'{' selected' if lang == 'en' else ''}>"
        f"English</option><option value='zh'{' selected' if lang == 'zh' else ''}>中文</option></select></label>"
        "<span id='count'></span></div>",
        "<div id='table'><table><thead><tr>" + both("th", each("col_claim")) + both("th", each("col_verdict"))
        + both("th", each("col_history"))
        + "".join(f"<th>{e(c)}</th>" for c in cols) + "</tr></thead><tbody id='rows'></tbody></table></div>",
    ]
    if data["notes"]:
        parts.append(both("h2", each("notes")) + per_lang(
            lambda la: "<ol>" + "".join(f"<li>{e(translate(la, r))}</li>" for r in data["notes"]) + "</ol>"))
    blob = json.dumps(payload, ensure_ascii=False).replace("</", "<\\/")
    parts.append(f"<script type='application/json' id='data'>{blob}</script><script>{HTML_SCRIPT}</script>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
