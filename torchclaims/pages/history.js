
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
