"""The claim history as one HTML page (``matrix -o PATH`` writes PATH.html beside PATH.md): the
table of releases by claims, its summary, flips, legend and filters, in English and Chinese with
a switch; offline, inline CSS and JS. The data is matrix.build()'s, the same the Markdown shows."""
from __future__ import annotations

import html
import json

from . import matrix
from .strings import LANGS, VERDICT_KEYS, table as strings_table, text, translate

HTML_STYLE = """
body{font-family:system-ui,sans-serif;font-size:13px;margin:1em 2em}
#table{overflow:auto;max-height:calc(100vh - 2em);max-width:100%;border:1px solid #ccc;overscroll-behavior-x:contain}
table{border-collapse:separate;border-spacing:0}td,th{border:solid #ccc;border-width:0 1px 1px 0;padding:2px 2px;text-align:center}
td.id,td.hist{text-align:left}td.hist{min-width:9em}th{position:sticky;top:0;background:#f4f4f4;z-index:2;font-size:11px;font-weight:600}
td.id,th:first-child{position:sticky;left:0;background:#fff;z-index:1;border-right:2px solid #bbb}th:first-child{background:#f4f4f4;z-index:3}
td.id{min-width:11em}td.id code,li{overflow-wrap:anywhere}
@media (max-width:700px){body{margin:.6em}h1{font-size:1.4em}td.id{min-width:8em;max-width:10em}}
.right{background:#dcefdc}.wrong{background:#f6d2d2}.partly{background:#fbe9c8}
.not-applicable,.skipped{background:#f0f0f0;color:#777}.not-measurable{background:#e4ebf5;color:#456}.broken,.contradiction{background:#e0b0ff}
td.flip{outline:3px solid #c00;font-weight:bold}td.unexpected:after{content:' ≠'}
#filters{margin:1em 0;padding:.5em;background:#f8f8f8}#filters label{margin-right:1.5em}
tr.detail td{text-align:left;background:#fffff4;white-space:normal}
tr.detail .text{position:sticky;left:.5em;max-width:min(60em,calc(100vw - 5em))}
button.more{font-size:11px}
"""

HTML_SCRIPT = """
const D = JSON.parse(document.getElementById('data').textContent);
const $ = id => document.getElementById(id);
const SYM = D.symbols;
function esc(s){return String(s).replace(/[&<>"']/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));}
function render(){
  const topic = $('topic').value, verdict = $('verdict').value, changed = $('changed').checked, lang = $('lang').value;
  const state = $('state').value;
  const T = D.text[lang];
  let shown = 0, html = '';
  for (const row of D.rows){
    if (topic && row.topic !== topic) continue;
    if (verdict && row.verdict !== verdict) continue;
    if (changed && !row.flips) continue;
    if (state && !row.cells.some(cell => cell.material === state)) continue;
    shown++;
    const c = D.claims[row.id] || {};
    html += `<tr class="claim" data-id="${esc(row.id)}"><td class="id"><code>${esc(row.id)}</code> `
      + `<button class="more" aria-expanded="false">${T.more}</button></td><td>${esc(T.verdicts[row.verdict] || row.verdict)}</td>`
      + `<td class="hist">${esc(lang === 'en' ? row.history : row['history_' + lang])}</td>`
      + row.cells.map(cell => `<td class="${cell.material || ''}${cell.flip ? ' flip' : ''}${cell.unexpected ? ' unexpected' : ''}" `
        + `title="${esc(cell.reason)}">${esc(SYM[cell.material || ''])}${cell.note ? '<sup>' + cell.note + '</sup>' : ''}</td>`).join('')
      + `</tr><tr class="detail" hidden><td colspan="${3 + D.versions.length}"><div class="text">`
      + `<b>${T.says}:</b> ${esc(c['says_' + lang] || '')}<br><b>${T.truth}:</b> ${esc(c['truth_' + lang] || '')}`
      + `<br><b>${T.source}:</b> ${esc(c['source_' + lang] || '')}</div></td></tr>`;
  }
  $('rows').innerHTML = html;
  $('count').textContent = T.shown.replace('{n}', shown).replace('{total}', D.rows.length);
}
document.addEventListener('click', e => {
  if (!e.target.classList.contains('more')) return;
  const detail = e.target.closest('tr').nextElementSibling;
  detail.hidden = !detail.hidden;
  e.target.setAttribute('aria-expanded', String(!detail.hidden));
});
function switchLang(){
  const lang = $('lang').value;
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll('[data-en]')) el.textContent = el.dataset[lang];
  for (const el of document.querySelectorAll('.l-en, .l-zh')) el.hidden = !el.classList.contains('l-' + lang);
  render();
}
for (const id of ['topic', 'verdict', 'changed', 'state']) $(id).addEventListener('change', render);
$('lang').addEventListener('change', switchLang);
$('lang').value = D.lang; switchLang();
"""

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
