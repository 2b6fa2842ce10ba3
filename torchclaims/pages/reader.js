
const D = JSON.parse(document.getElementById('data').textContent);
const $ = id => document.getElementById(id);
const ORDER = ['wrong', 'partly', 'right', 'other'];   // claims sharing a span: the worst first
const phone = matchMedia('(max-width: 700px)');
let lang = D.lang, current = null, level = 0;
const esc = s => String(s).replace(/[&<>"']/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
const T = k => D.ui[lang][k];
function passes(cid){
  const c = D.claims[cid]; if (!c) return false;
  const topic = $('topic').value;
  return $('show-' + c.kind).checked && (!topic || c.topic === topic);
}
const worst = (a, b) => ORDER.indexOf(D.claims[a].kind) - ORDER.indexOf(D.claims[b].kind);
// the claims of a span that the filters let through, innermost first: the claim whose own sentence
// is the shortest around the tap (data-lens: each claim's span length), the worst first among equals
function visible(m){
  const lens = m.dataset.lens.split(' ').map(Number);
  return m.dataset.claims.split(' ').map((cid, i) => [cid, lens[i]]).filter(([cid]) => passes(cid)).map(([cid]) => cid);
}
// the claims opened at a level of nesting: level 0 the innermost sentence's claims, 1 the next wider...
function levels(m){
  const lens = Object.fromEntries(m.dataset.claims.split(' ').map((cid, i) => [cid, Number(m.dataset.lens.split(' ')[i])]));
  const ids = visible(m), out = [];
  for (const cid of ids){
    const last = out[out.length - 1];
    if (last && lens[last[0]] === lens[cid]) last.push(cid); else out.push([cid]);
  }
  return out.map(group => group.sort(worst));
}
function applyFilters(){
  for (const m of document.querySelectorAll('#doc mark')){
    const ids = visible(m);
    m.classList.toggle('off', ids.length === 0);
    const own = ids.length ? levels(m)[0][0] : null;   // the colour of the sentence's own (innermost) claim
    for (const k of ORDER) m.classList.toggle('v-' + k, own !== null && D.claims[own].kind === k);
    m.tabIndex = ids.length ? 0 : -1;
  }
  if (current && current.classList.contains('off')) closePanel();
  else if (current) show(current);
}
// the marks of one sentence: m and its neighbours, with no text between them, that carry the claim cid
function statement(m, cid){
  const run = [m];
  const joined = (x, step) => { const n = x[step]; return n && n.nodeName === 'MARK' && visible(n).includes(cid) ? n : null; };
  for (let x = joined(m, 'previousSibling'); x; x = joined(x, 'previousSibling')) run.unshift(x);
  for (let x = joined(m, 'nextSibling'); x; x = joined(x, 'nextSibling')) run.push(x);
  return run;
}
function claimBody(cid){
  const c = D.claims[cid];
  const cells = D.versions.map((v, i) => `<span class="c-${c.cells[i] && ['right','wrong','partly'].includes(c.cells[i])
    ? c.cells[i] : 'other'}" title="${esc(c.cells[i] || '')}">${esc(v)}</span>`).join('');
  const found = c.stance   // a mark of the claim finder: what this passage does with the claim
    ? `<p class="stance">${esc(T('stance_' + c.stance))} (${esc(T('confidence'))} ${esc(String(c.confidence))})</p>` : '';
  return found + `<h3>${esc(T(c.stance ? 'claim_says' : 'says'))}</h3><p class="says">${esc(c['says_' + lang])}</p>`
    + `<h3>${esc(T('truth'))}</h3><p class="truth">${esc(c['truth_' + lang])}</p>`
    + `<h3>${esc(T('source'))}</h3><p class="source">${esc(c['source_' + lang])}</p>`
    + (D.versions.length ? `<h3>${esc(T('history'))}</h3><p class="history">${esc(c['history_' + lang])}</p><p class="cells">${cells}</p>` : '')
    + `<h3>${esc(T('run'))}</h3><p><code class="command">${esc(c.command)}</code></p>`;
}
function claimHead(cid){
  const c = D.claims[cid];
  return `<span class="sw ${c.kind}"></span><b><code>${esc(cid)}</code></b> — <span class="verdict">${esc(T(c.kind))}</span>`
    + (D.torch ? ` (${esc(T('on'))} ${esc(D.torch)})` : '') + ` · ${esc(T('catalog'))}: ${esc(c['verdict_' + lang])}`;
}
function show(m){
  for (const x of document.querySelectorAll('#doc mark.current')) x.classList.remove('current');
  current = m;
  const nested = levels(m);
  level = Math.min(level, nested.length - 1);
  // opened: the claims of the tapped sentence (a second tap opens the next wider one around it),
  // outlined: that sentence (the marks next to each other that carry its first claim);
  // listed under them: every other claim of those marks, worst first
  const opened = nested[level], run = statement(m, opened[0]);
  for (const x of run) x.classList.add('current');
  const others = [...new Set(run.flatMap(visible))].filter(cid => !opened.includes(cid)).sort(worst);
  // the others first as a line of buttons under the opened claim's head (seen without scrolling the sheet), then in full
  const chips = others.map(cid => `<button class="go" data-go="${esc(cid)}"><span class="sw ${D.claims[cid].kind}"></span>`
    + `<code>${esc(cid)}</code></button>`);
  $('panel-body').innerHTML = opened.map((cid, i) => `<div class="claim opened" data-id="${esc(cid)}">${claimHead(cid)}`
    + (i === 0 && others.length ? `<p class="also-list">${esc(T('also'))}${lang === 'zh' ? '：' : ': '}${chips.join(' ')}</p>` : '')
    + `${claimBody(cid)}</div>`).join('')
    + (others.length ? `<h3 class="also">${esc(T('also'))}</h3>` : '')
    + others.map(cid => `<details class="claim" data-id="${esc(cid)}"><summary>${claimHead(cid)}</summary>${claimBody(cid)}</details>`).join('');
}
// what the reader sees of the text: below the sticky header, above the bottom sheet on a phone
function reveal(m, centre){
  const r = m.getBoundingClientRect(), top = $('head').getBoundingClientRect().bottom;
  const bottom = phone.matches && !$('panel').hidden ? $('panel').getBoundingClientRect().top : innerHeight;
  if (!centre && r.top >= top && r.bottom <= bottom) return;
  const room = bottom - top;
  scrollBy(0, r.top - top - (r.height < room ? (room - r.height) / 3 : 8));
}
function openPanel(m, centre, at){
  const wasOpen = !$('panel').hidden;
  // a tap again on the open statement opens the next wider sentence's claims around it, then the innermost again
  level = at !== undefined ? at : wasOpen && m.classList.contains('current') ? (level + 1) % levels(m).length : 0;
  show(m);
  $('panel').hidden = false; document.body.classList.add('open');
  // one history entry while the panel is open: the back button closes it
  if (wasOpen) history.replaceState({panel: true}, ''); else history.pushState({panel: true}, '');
  reveal(m, centre);
}
function hidePanel(){
  for (const x of document.querySelectorAll('#doc mark.current')) x.classList.remove('current');
  const was = current; current = null;
  $('panel').hidden = true; document.body.classList.remove('open');
  if (was && document.activeElement && $('panel').contains(document.activeElement)) was.focus({preventScroll: true});
}
function closePanel(){
  if ($('panel').hidden) return;
  hidePanel();
  if (history.state && history.state.panel) history.back();
}
// the first level of a mark whose claims include a wrong one, or -1
function wrongLevel(m){ return m.classList.contains('off') ? -1 : levels(m).findIndex(g => g.some(cid => D.claims[cid].kind === 'wrong')); }
// where "next wrong statement" stops: the first mark of each sentence that opens wrong claims, down the page
function wrongStops(){
  const all = [...document.querySelectorAll('#doc mark')], stops = new Map();
  for (const m of all){
    const at = wrongLevel(m);
    if (at < 0) continue;
    const first = statement(m, levels(m)[at][0])[0], key = all.indexOf(first) + ' ' + levels(m)[at].join(' ');
    if (!stops.has(key)) stops.set(key, [first, at]);
  }
  return [...stops.values()].sort(([a], [b]) => all.indexOf(a) - all.indexOf(b));
}
function nextWrong(){
  const stops = wrongStops();
  if (!stops.length){ $('status').textContent = T('no_wrong'); return; }
  $('status').textContent = '';
  const all = [...document.querySelectorAll('#doc mark')];
  const from = current ? all.indexOf(current) : -1;
  const [next, at] = stops.find(([m]) => all.indexOf(m) > from) || stops[0];
  next.focus({preventScroll: true}); openPanel(next, true, at);
}
function setTools(open){ $('head').classList.toggle('tools-open', open); $('tools').setAttribute('aria-expanded', String(open)); }
function translate(){
  for (const o of document.querySelectorAll('#topic option[data-en]')) o.textContent = o.dataset[lang];
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll('[data-t]')) el.textContent = T(el.dataset.t);
  for (const el of document.querySelectorAll('[data-ta]')) { el.setAttribute('aria-label', T(el.dataset.ta)); el.title = T(el.dataset.ta); }
  $('placed').textContent = T('placed').replace('{n}', D.placed);
  $('measured').textContent = D.torch ? T('measured_on').replace('{torch}', D.torch)
    + (D.why ? (D.lang === 'zh' ? '，' : ', ') + T('why_' + D.why.kind).replace('{installed}', D.why.installed) : '')
    : T('no_measure');
  if (current) show(current);
}
document.addEventListener('click', e => {
  const go = e.target.closest('#panel button.go');
  if (go){
    const d = [...document.querySelectorAll('#panel details.claim')].find(x => x.dataset.id === go.dataset.go);
    d.open = true; d.scrollIntoView({block: 'nearest'}); return;
  }
  const m = e.target.closest('#doc mark');
  if (m && !m.classList.contains('off')) openPanel(m, false);
});
document.addEventListener('keydown', e => {
  const m = e.target.closest && e.target.closest('#doc mark');
  if (m && (e.key === 'Enter' || e.key === ' ')){ e.preventDefault(); openPanel(m, false); }
  if (e.key === 'Escape'){ if ($('head').classList.contains('tools-open')) setTools(false); else closePanel(); }
});
window.addEventListener('popstate', () => { if (!(history.state && history.state.panel)) hidePanel(); });
if (history.state && history.state.panel) history.replaceState(null, '');   // a reload while the panel was open
new ResizeObserver(() => document.documentElement.style.setProperty('--head', $('head').offsetHeight + 'px')).observe($('head'));
for (const id of ['topic', 'show-wrong', 'show-partly', 'show-right', 'show-other']) $(id).addEventListener('change', applyFilters);
$('lang').addEventListener('change', () => { lang = $('lang').value; translate(); });
$('next').addEventListener('click', nextWrong);
$('close').addEventListener('click', closePanel);
$('tools').addEventListener('click', () => setTools(!$('head').classList.contains('tools-open')));
$('lang').value = lang; translate(); applyFilters();
