"""The reader's page in a real browser (headless Chromium), on a phone (390x844) and a desktop
(1280x900): tap a claim, read the panel, close it, walk the wrong statements, filter, switch language.

A page built from a document of ../shared/seeds/ holds the material's text, so it is written to
tmp_path only. The screenshots (TORCHCLAIMS_SCREENSHOTS=1 saves the committed reports/reader.png
and reports/reader-phone.png) are of a page built from a short document this test writes in its
own words, never of the material. Needs Debian's chromium and chromium-driver; under CI=true
their absence is a failure.
"""
import json
import os

import pytest

from torchclaims import anchors, catalog, reader, reports as claim_reports

from tests.test_matrix_browser import viewport

pytestmark = [pytest.mark.slow, pytest.mark.e2e]  # e2e: headless Chromium
SEEDS = anchors.seeds_dir()
DOC3 = SEEDS / "003_cc3cb04f54b5f923.txt"
DOC4 = SEEDS / "004_9d58428a819b84da.txt"
HISTORY = catalog.ROOT / "reports" / "claims"
PHONE, DESKTOP = (390, 844), (1280, 900)
SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone-390x844", "desktop-1280x900"])
SCREENSHOTS = os.environ.get("TORCHCLAIMS_SCREENSHOTS") == "1"

# A short document in the project's own words (not the material's): what the screenshots show.
# Two of its sentences make two claims each, listed here milder first, so the page must reorder them.
SHARED_WRONG = "用 torch.from_numpy 得到的张量跟原来的数组共用一块内存，不过数组若是 float64 就会直接报错，得先转成 float32。"
SHARED_PARTLY = "view 只改动尺寸和步长这两项元数据，所以几乎不花时间，前提是这块内存是连续的。"
OWN_SECTIONS = [
    ("1", "1. 这一页是测试自己写的", [
        ("这份短文由阅读器的浏览器测试写出，只用来看页面在手机和电脑上的样子，内容是随手改写的几个常见说法。", [])]),
    ("2", "2. 张量和 NumPy 数组", [
        (SHARED_WRONG, ["tensors.from-numpy-shares", "tensors.from-numpy-float64-raises"]),
        (SHARED_PARTLY, ["tensors.view-changes-only-metadata", "tensors.view-needs-contiguous"]),
        ("torch.linspace 在内部其实是调用 torch.arange 算出来的。", ["tensors.linspace-uses-arange"])]),
    ("3", "3. 读数据", [
        ("DataLoader 的 num_workers 不写时是 0，数据由主进程自己来读。", ["data.num-workers-default-zero"]),
        ("Dataset 的 __getitem__ 一定要交出张量，交出别的类型就会出错。", ["data.getitem-need-not-return-tensor"]),
        ("worker 也不是越多越好，进程之间的拷贝和多占的内存早晚会把好处抵消掉。", ["data.num-workers-not-more-better"]),
        ("CIFAR-10 不大，压缩包一百七十兆左右。", ["data.cifar10-size"])]),
]
OWN_TEXT = "".join(head + "\n" + "".join(s for s, _ in sentences) + "\n" for _, head, sentences in OWN_SECTIONS)
# what the claim history measures for them on its newest release (checked, so a change says so)
OWN_KINDS = {"tensors.from-numpy-shares": "right", "tensors.from-numpy-float64-raises": "wrong",
             "tensors.view-changes-only-metadata": "right", "tensors.view-needs-contiguous": "partly",
             "tensors.linspace-uses-arange": "wrong", "data.num-workers-default-zero": "right",
             "data.getitem-need-not-return-tensor": "wrong", "data.num-workers-not-more-better": "right",
             "data.cifar10-size": "other"}


def _own_anchors():
    out = []
    for number, _, sentences in OWN_SECTIONS:
        for sentence, ids in sentences:
            start = OWN_TEXT.index(sentence)
            out += [anchors.make_anchor(cid, "own.txt", number, OWN_TEXT, start, start + len(sentence)) for cid in ids]
    return out


def _page(tmp_path, text, name, found_anchors, lang="en"):
    claims = catalog.load()
    measured = claim_reports.verdicts(None, str(HISTORY), None, claims)
    placed = anchors.place(text, found_anchors)
    return reader.write_page(tmp_path, name, reader.render_html(text, name, placed, claims, measured, lang))


@pytest.fixture
def own_page(tmp_path):
    claims = catalog.load()
    measured = claim_reports.verdicts(None, str(HISTORY), None, claims)
    kinds = {cid: reader.kind(measured, cid) for cid in OWN_KINDS}
    assert kinds == OWN_KINDS, f"the history's verdicts of the test document's claims changed: {kinds}"
    return _page(tmp_path, OWN_TEXT, "own.html", _own_anchors())


def _seed_page(tmp_path, document):
    if not document.is_file():
        pytest.skip(f"needs {document} (../shared/seeds/)")
    return _page(tmp_path, document.read_text(encoding="utf-8"), document.stem[:3] + ".html",
                 anchors.load().by_document(document.name))


def _on_marks(driver):
    from selenium.webdriver.common.by import By
    return [m for m in driver.find_elements(By.CSS_SELECTOR, "#doc mark") if "off" not in m.get_attribute("class")]


def _mark_of(driver, cid):
    from selenium.webdriver.common.by import By
    return next(m for m in driver.find_elements(By.CSS_SELECTOR, "#doc mark") if cid in m.get_attribute("data-claims").split())


def _tap(driver, element, size):
    """A finger's tap (a WebDriver touch pointer) on a phone, a mouse click on a desktop."""
    x, y = driver.execute_script(
        "const el = arguments[0]; if (!el.closest('#panel')) el.scrollIntoView({block: 'center'});"
        "const r = el.getClientRects()[0]; return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)]", element)
    _tap_at(driver, x, y, size)


def _tap_at(driver, x, y, size):
    """A tap at (x, y) of the viewport, as it is scrolled now."""
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput
    kind = interaction.POINTER_TOUCH if size == PHONE else interaction.POINTER_MOUSE
    pointer = PointerInput(kind, kind)  # one input source per kind: the session's Chromium keeps them
    actions = ActionBuilder(driver, mouse=pointer)
    actions.pointer_action.move_to_location(x, y).pointer_down().pause(0.05).pointer_up()
    actions.perform()


def _panel(driver):
    """What the open panel shows: the claim it opened on and the others listed under it, in order."""
    return driver.execute_script("""
        const p = document.getElementById('panel');
        if (p.hidden) return null;
        const opened = p.querySelector('.claim.opened');
        return {opened: opened.dataset.id, truth: opened.querySelector('.truth').textContent,
                all_opened: [...p.querySelectorAll('.claim.opened')].map(d => d.dataset.id),
                others: [...p.querySelectorAll('details.claim')].map(d => d.dataset.id)};""")


def _geometry(driver):
    return driver.execute_script("""
        const box = el => { const r = (typeof el === 'string' ? document.getElementById(el) : el).getBoundingClientRect();
                            return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height}; };
        const close = document.getElementById('close'), c = close.getBoundingClientRect();
        const hit = document.elementFromPoint(c.left + c.width / 2, c.top + c.height / 2);
        const cur = document.querySelector('#doc mark.current');
        return {page: document.documentElement.scrollHeight, inner: [innerWidth, innerHeight],
                doc: box('doc'), head: box('head'), panel: box('panel'), row: document.querySelector('header .row').offsetHeight,
                position: getComputedStyle(document.getElementById('panel')).position,
                close_reachable: close.contains(hit) && c.top >= 0 && c.bottom <= innerHeight,
                current: cur && box(cur)};""")


@SIZES
def test_a_tap_opens_every_claim_of_a_shared_sentence_the_worst_first(own_page, browser, size):
    """Material: a sentence that makes a right and a wrong claim, the right one anchored first.
    True: the span is red, a tap opens both claims, the wrong one first with its truth; a
    partly+right sentence opens the partly claim first."""
    from selenium.webdriver.common.by import By
    claims = catalog.load()
    viewport(browser, *size)
    browser.get(own_page.as_uri())
    mark = _mark_of(browser, "tensors.from-numpy-float64-raises")
    assert "v-wrong" in mark.get_attribute("class"), mark.get_attribute("class")
    _tap(browser, mark, size)
    shown = _panel(browser)
    assert shown is not None, "the panel did not open on a tap"
    assert shown["opened"] == "tensors.from-numpy-float64-raises", shown
    assert shown["truth"] == claims["tensors.from-numpy-float64-raises"].truth
    assert (shown["all_opened"], shown["others"]) == (
        ["tensors.from-numpy-float64-raises", "tensors.from-numpy-shares"], []), shown
    second = browser.find_elements(By.CSS_SELECTOR, "#panel .claim.opened .truth")[1]
    assert second.text == claims["tensors.from-numpy-shares"].truth, second.text

    _tap(browser, _mark_of(browser, "tensors.view-needs-contiguous"), size)
    shown = _panel(browser)
    assert shown["all_opened"] == ["tensors.view-needs-contiguous", "tensors.view-changes-only-metadata"], shown
    assert "v-partly" in _mark_of(browser, "tensors.view-needs-contiguous").get_attribute("class")


@SIZES
def test_the_panel_leaves_the_text_its_width_and_keeps_its_close_button_in_reach(own_page, browser, size):
    """Material: none (the page's layout).  True: opening a claim changes neither the text's width
    nor, beyond one screen, the page's height; on a phone the panel is a sheet over the bottom of
    the text, the header is one line and the tapped sentence stays visible between them; the
    close button is on screen and not covered."""
    viewport(browser, *size)
    browser.get(own_page.as_uri())
    before = _geometry(browser)
    _tap(browser, _mark_of(browser, "data.getitem-need-not-return-tensor"), size)
    after = _geometry(browser)
    width, height = after["inner"]
    assert abs(after["doc"]["width"] - before["doc"]["width"]) < 1, (before["doc"], after["doc"])
    assert after["page"] <= before["page"] + height, f"page height {before['page']} -> {after['page']} px"
    assert after["close_reachable"], f"the close button is off screen or covered: {after['panel']}, header {after['head']}"
    if size == PHONE:
        assert after["position"] == "fixed" and after["panel"]["width"] == width, after["panel"]
        assert abs(after["panel"]["bottom"] - height) < 1 and after["panel"]["height"] <= 0.6 * height, after["panel"]
        assert after["head"]["height"] < 52, f"the header is {after['head']['height']} px tall on a phone"
        assert after["head"]["bottom"] <= after["current"]["top"] and after["current"]["bottom"] <= after["panel"]["top"], (
            f"the tapped sentence {after['current']} is hidden by the header {after['head']} or the panel {after['panel']}")
    else:
        assert after["position"] == "sticky" and after["panel"]["left"] >= after["doc"]["right"], (after["doc"], after["panel"])
        browser.execute_script("scrollTo(0, document.documentElement.scrollHeight)")
        assert _geometry(browser)["close_reachable"], "the close button scrolled away or under the sticky header"


@pytest.mark.parametrize("document", [DOC4, DOC3], ids=["004", "003"])
@SIZES
def test_the_material_page_keeps_its_height_when_a_claim_opens(tmp_path, browser, size, document):
    """Material: a seed document's page (tmp_path only).  True: opening a claim in the middle of
    the page leaves the text its width and the page its height, within one screen (a 26em panel
    beside the text once squeezed 004 into a column one character wide: 8,685 -> 184,555 px)."""
    path = _seed_page(tmp_path, document)
    viewport(browser, *size)
    browser.get(path.as_uri())
    before = _geometry(browser)
    marks = _on_marks(browser)
    _tap(browser, marks[len(marks) // 2], size)
    after = _geometry(browser)
    assert after["panel"]["height"] > 0, "the panel did not open"
    assert abs(after["doc"]["width"] - before["doc"]["width"]) < 1, (before["doc"], after["doc"])
    assert after["page"] <= before["page"] + after["inner"][1], f"page height {before['page']} -> {after['page']} px"
    assert after["close_reachable"]


@SIZES
def test_the_panel_closes_by_its_button_by_escape_and_by_the_back_button(own_page, browser, size):
    """Material: none (the page's controls).  True: each of the close button, the Esc key and
    the browser's back button closes the panel, stays on the page, and leaves no history entry
    behind (one more back would leave the page)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
    viewport(browser, *size)
    browser.get(own_page.as_uri())
    browser.execute_script("window.stillHere = true")
    ways = {"button": lambda: _tap(browser, browser.find_element(By.ID, "close"), size),
            "Esc": lambda: browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE),
            "back": browser.back}
    for way, close in ways.items():
        _tap(browser, _mark_of(browser, "tensors.linspace-uses-arange"), size)
        assert _panel(browser) is not None, f"the panel did not open (before closing it by {way})"
        assert browser.execute_script("return history.state") == {"panel": True}
        close()
        WebDriverWait(browser, 5).until(lambda d: _panel(d) is None, f"{way} did not close the panel")
        state = browser.execute_script("return [window.stillHere === true, history.state, location.href,"
                                       " document.querySelectorAll('#doc mark.current').length]")
        assert state == [True, None, own_page.as_uri(), 0], f"after closing by {way}: {state}"


@pytest.mark.parametrize("document", ["own", "000_9a03721c87560f23.txt", "002_015987172f286748.txt", DOC3.name, DOC4.name])
def test_next_wrong_statement_lands_on_wrong_claims_only(tmp_path, own_page, browser, document):
    """Material: each document's page, walked with "next wrong statement" until it comes round.
    True: every stop opens a claim measured wrong, the stops go down the page, and together they
    show every wrong claim of the page (opened, or listed under it), also one whose sentence
    holds shorter ones."""
    from selenium.webdriver.common.by import By
    path = own_page if document == "own" else _seed_page(tmp_path, SEEDS / document)
    viewport(browser, *DESKTOP)
    browser.get(path.as_uri())
    data = json.loads(browser.find_element(By.ID, "data").get_attribute("textContent"))
    wrong = {cid for cid, c in data["claims"].items() if c["kind"] == "wrong"}
    if not wrong:
        pytest.skip(f"{document}: no claim measured wrong on this page")
    stops, seen = [], set()
    for _ in range(len(data["claims"]) + 2):
        browser.find_element(By.ID, "next").click()
        where = browser.execute_script("const all = [...document.querySelectorAll('#doc mark')];"
                                       "return all.indexOf(document.querySelector('#doc mark.current'))")
        if stops and where == stops[0]:
            break
        shown = _panel(browser)
        kind = data["claims"][shown["opened"]]["kind"]
        assert kind == "wrong", f"stop {len(stops) + 1} of {document} opens {shown['opened']}, measured {kind}"
        stops.append(where)
        seen |= {*shown["all_opened"], *shown["others"]}
    else:
        pytest.fail(f"{document}: next wrong statement never came back to its first stop: {stops}")
    assert stops == sorted(stops), f"the stops do not go down the page: {stops}"
    assert wrong <= seen, f"{document}: never shown by next wrong statement: {sorted(wrong - seen)}"


@SIZES
def test_the_screenshots_show_a_page_of_our_own_words(own_page, browser, size):
    """Material: none (our own short document).  True: each of its sentences that makes a claim
    is a highlighted span; a tap opens the worst claim; the screenshot shows only this text."""
    viewport(browser, *size, scale=2 if size == PHONE else 1)
    browser.get(own_page.as_uri())
    expected = sorted(" ".join(sorted(ids, key=lambda cid: reader.SEVERITY.index(OWN_KINDS[cid])))
                      for _, _, sentences in OWN_SECTIONS for _, ids in sentences if ids)
    assert sorted(m.get_attribute("data-claims") for m in _on_marks(browser)) == expected
    _tap(browser, _mark_of(browser, "tensors.from-numpy-float64-raises"), size)
    assert _panel(browser)["opened"] == "tensors.from-numpy-float64-raises"
    browser.execute_script("scrollTo(0, 0)")
    name = "reader-phone.png" if size == PHONE else "reader.png"
    target = catalog.ROOT / "reports" / name if SCREENSHOTS else own_page.parent / name
    assert browser.save_screenshot(str(target)), target


def test_a_click_opens_the_truth_and_filters_and_language_apply(tmp_path, browser):
    """Material: 003 with its anchors.  True: clicking a wrong span shows that claim's truth, the
    topic filter leaves only spans of that topic, "next wrong statement" lands on a wrong span,
    and the Chinese switch shows the Chinese truth."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    path = _seed_page(tmp_path, DOC3)
    viewport(browser, *DESKTOP)
    browser.get(path.as_uri())
    claims = catalog.load()
    marks = _on_marks(browser)
    assert len(marks) > 50, f"{len(marks)} highlighted spans on 003"

    wrong = browser.find_element(By.CSS_SELECTOR, "#doc mark.v-wrong")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", wrong)
    wrong.click()
    first = wrong.get_attribute("data-claims").split()[0]
    panel = browser.find_element(By.ID, "panel")
    assert panel.is_displayed(), "the panel did not open on a click"
    assert _panel(browser)["opened"] == first and _panel(browser)["truth"] == claims[first].truth
    command = panel.find_element(By.CSS_SELECTOR, ".command").text
    assert command.startswith("pytest specs/ --claim ")

    Select(browser.find_element(By.ID, "topic")).select_by_visible_text("tensors")
    shown = _on_marks(browser)
    assert shown and len(shown) < len(marks)
    for m in shown:
        topics = {claims[c].topic for c in m.get_attribute("data-claims").split()}
        assert "tensors" in topics, f"a span of {topics} stays highlighted under the tensors filter"
    Select(browser.find_element(By.ID, "topic")).select_by_index(0)
    browser.find_element(By.ID, "show-right").click()
    assert all("v-right" not in m.get_attribute("class") for m in _on_marks(browser)), "right spans still shown"

    browser.find_element(By.ID, "next").click()
    current = browser.find_element(By.CSS_SELECTOR, "#doc mark.current")
    assert "v-wrong" in current.get_attribute("class"), current.get_attribute("class")

    Select(browser.find_element(By.ID, "lang")).select_by_value("zh")
    cid = _panel(browser)["opened"]
    assert panel.find_element(By.CSS_SELECTOR, ".claim .truth").text == claims[cid].truth_zh
    ui = json.loads(browser.find_element(By.ID, "data").get_attribute("textContent"))["ui"]
    assert browser.find_element(By.ID, "next").text == ui["zh"]["next"]


def _tap_in_view(driver, element, size):
    """A tap where the element is seen: scrolled to the middle of the text above the sheet first."""
    driver.execute_script("""
        const el = arguments[0], r = el.getClientRects()[0], p = document.getElementById('panel');
        const top = document.getElementById('head').getBoundingClientRect().bottom;
        const bottom = p.hidden || getComputedStyle(p).position !== 'fixed' ? innerHeight : p.getBoundingClientRect().top;
        if (r.top < top || r.bottom > bottom) scrollBy(0, r.top - (top + bottom) / 2);""", element)
    x, y = driver.execute_script("const r = arguments[0].getClientRects()[0];"
                                 "return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)]", element)
    hit = driver.execute_script("return document.elementFromPoint(arguments[0], arguments[1]) === arguments[2]", x, y, element)
    assert hit, "the mark to tap is hidden under something"
    _tap_at(driver, x, y, size)


# Every claim's tap, in the page itself: the point a finger would touch is hit-tested by the browser
# (elementFromPoint, as a real tap is) and the element hit gets the click a tap ends in. One script a
# page instead of half a dozen WebDriver round trips a claim (50 s a page -> a few seconds); the real
# taps (touch on the phone, mouse on the desktop) then run for a sample that holds every nested claim.
# The page's history entries are left out of the scripted taps: Chromium ignores history calls past
# about a hundred a second or so (its flood protection), and the Back button has tests of its own.
_EVERY_TAP = """
const where = arguments[0], done = arguments[arguments.length - 1];
const marks = [...document.querySelectorAll('#doc mark')], failed = [], panel = document.getElementById('panel');
const tick = () => new Promise(r => setTimeout(r, 0));
const saved = [history.pushState, history.replaceState];
history.pushState = history.replaceState = function () {};
(async () => {
  for (const [cid, [index, depth]] of Object.entries(where).sort()) {
    closePanel();
    let hidden = false;
    for (let k = 0; k <= depth && !hidden; k++) {
      const el = marks[index], r = el.getClientRects()[0];
      const top = document.getElementById('head').getBoundingClientRect().bottom;
      const bottom = panel.hidden || getComputedStyle(panel).position !== 'fixed' ? innerHeight : panel.getBoundingClientRect().top;
      if (r.top < top || r.bottom > bottom) { scrollBy(0, r.top - (top + bottom) / 2); await tick(); }
      const q = el.getClientRects()[0], x = Math.round(q.left + q.width / 2), y = Math.round(q.top + q.height / 2);
      const hit = document.elementFromPoint(x, y);
      if (hit !== el) { hidden = true; break; }
      hit.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true, view: window, clientX: x, clientY: y}));
      await tick();
    }
    const opened = panel.hidden ? null : [...panel.querySelectorAll('.claim.opened')].map(d => d.dataset.id);
    if (hidden || !opened || !opened.includes(cid)) failed.push([cid, depth, hidden ? 'hidden under something' : opened]);
  }
  closePanel();
  return failed;
})().catch(e => [['the script itself', String(e)]]).then(failed => {
  [history.pushState, history.replaceState] = saved;
  done(failed);
});"""


@pytest.mark.parametrize("document", ["000_9a03721c87560f23.txt", "002_015987172f286748.txt", DOC3.name, DOC4.name])
@SIZES
def test_a_tap_on_each_claims_own_sentence_opens_it(tmp_path, browser, document, size):
    """Material: every placed claim of the four documents' pages.
    True: a tap on the claim's own sentence (the mark where its span is the innermost around the
    finger, or where it is least deep) opens it, after one more tap per wider sentence inside it."""
    from selenium.webdriver.common.by import By
    path = _seed_page(tmp_path, SEEDS / document)
    viewport(browser, *size)
    browser.get(path.as_uri())
    where = browser.execute_script("""
        const best = {};
        [...document.querySelectorAll('#doc mark')].forEach((m, i) => {
          levels(m).forEach((group, depth) => group.forEach(cid => {
            if (!(cid in best) || depth < best[cid][1]) best[cid] = [i, depth];
          }));
        });
        return best;""")
    data = json.loads(browser.find_element(By.ID, "data").get_attribute("textContent"))
    assert set(where) == set(data["claims"]), "a placed claim has no mark"
    browser.set_script_timeout(20)
    failed = browser.execute_async_script(_EVERY_TAP, where)
    assert not failed, f"{len(failed)} of {len(where)} claims did not open on their own sentence: {failed[:5]}"
    # the real taps: every claim behind a wider sentence, and every tenth of the others
    ordered = sorted(where.items())
    sample = [item for n, item in enumerate(ordered) if item[1][1] > 0 or n % 10 == 0]
    marks = browser.find_elements(By.CSS_SELECTOR, "#doc mark")
    failed = []
    for cid, (index, depth) in sample:
        # closed, and its history entry gone (Back is asynchronous: its popstate must not close the next one)
        browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "if (document.getElementById('panel').hidden) return done();"
            "addEventListener('popstate', () => setTimeout(done, 0), {once: true}); closePanel();")
        for _ in range(depth + 1):
            _tap_in_view(browser, marks[index], size)
        shown = _panel(browser)
        if shown is None or cid not in shown["all_opened"]:
            failed.append((cid, depth, shown and shown["all_opened"]))
    assert not failed, f"{len(failed)} of {len(sample)} claims did not open on a real tap of their own sentence: {failed[:5]}"
