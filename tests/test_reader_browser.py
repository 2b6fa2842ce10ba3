"""The reader's page in a real browser (headless Chromium): click a claim, filter, switch language.

The page built from a document of ../shared/seeds/ holds the material's text, so it is written
to tmp_path only. The screenshot (TORCHCLAIMS_SCREENSHOT=reports/reader.png saves the committed
one) is of a page built from a short document this test writes in its own words, never of the
material. Needs Debian's chromium and chromium-driver; under CI=true their absence is a failure.
"""
import os

import pytest

from torchclaims import anchors, catalog, reader
from tests.test_matrix_browser import browser  # noqa: F401  (the headless Chromium fixture)

pytestmark = pytest.mark.slow
DOC3 = anchors.seeds_dir() / "003_cc3cb04f54b5f923.txt"
HISTORY = catalog.ROOT / "reports" / "claims"


def _page(tmp_path, text, name, found_anchors, lang="en"):
    claims = catalog.load()
    measured = reader.verdicts(None, str(HISTORY), None, claims)
    placed = anchors.place(text, found_anchors)
    return reader.write_page(tmp_path, name, reader.render_html(text, name, placed, claims, measured, lang))


def _on_marks(driver):
    from selenium.webdriver.common.by import By
    return [m for m in driver.find_elements(By.CSS_SELECTOR, "#doc mark") if "off" not in m.get_attribute("class")]


@pytest.mark.skipif(not DOC3.is_file(), reason=f"needs {DOC3} (../shared/seeds/)")
def test_a_click_opens_the_truth_and_filters_and_language_apply(tmp_path, browser):  # noqa: F811
    """Material: 003 with its anchors.  True: clicking a wrong span shows that claim's truth, the
    topic filter leaves only spans of that topic, "next wrong statement" lands on a wrong span,
    and the Chinese switch shows the Chinese truth."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    text = DOC3.read_text(encoding="utf-8")
    path = _page(tmp_path, text, "003.html", anchors.load().by_document(DOC3.name))
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
    truths = [p.text for p in panel.find_elements(By.CSS_SELECTOR, ".claim .truth")]
    assert claims[first].truth in truths, f"panel shows {truths}, expected the truth of {first}"
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
    cid = [p.get_attribute("data-id") for p in panel.find_elements(By.CSS_SELECTOR, ".claim")][0]
    assert panel.find_element(By.CSS_SELECTOR, ".claim .truth").text == claims[cid].truth_zh
    assert browser.find_element(By.ID, "next").text == reader.UI["zh"]["next"]


# A short document in the project's own words (not the material's), for the screenshot.
OWN_TEXT = (
    "1. 示例文档（本项目自己写的几句话，用来演示阅读器）\n"
    "张量的 view 要求内存连续，否则会报错。reshape 在必要时才会复制数据。"
    "torch.empty 比 torch.zeros 快三倍。\n"
    "2. 自动求导\n"
    "调用 backward 时，引擎按深度优先遍历整张图，全部由 Python 对象驱动。"
    "在 no_grad 块里登记的钩子一次也不会被调用。\n"
)
OWN_ANCHORS = {
    "tensors.view-needs-contiguous": "张量的 view 要求内存连续，否则会报错。",
    "tensors.reshape-copies-when-needed": "reshape 在必要时才会复制数据。",
    "tensors.empty-faster-than-zeros": "torch.empty 比 torch.zeros 快三倍。",
    "autograd.engine-dfs-in-python": "调用 backward 时，引擎按深度优先遍历整张图，全部由 Python 对象驱动。",
    "autograd.no-grad-silences-hooks": "在 no_grad 块里登记的钩子一次也不会被调用。",
}


def test_the_screenshot_shows_a_page_of_our_own_words(tmp_path, browser):  # noqa: F811
    """Material: none (our own short document).  True: each of its five sentences is a
    highlighted span; a click opens the claim; the screenshot shows only this text."""
    from selenium.webdriver.common.by import By
    own = [anchors.make_anchor(cid, "own.txt", "1", OWN_TEXT, OWN_TEXT.index(s), OWN_TEXT.index(s) + len(s))
           for cid, s in OWN_ANCHORS.items()]
    path = _page(tmp_path, OWN_TEXT, "own.html", own)
    browser.set_window_size(1200, 640)
    browser.get(path.as_uri())
    marks = _on_marks(browser)
    assert sorted(m.get_attribute("data-claims") for m in marks) == sorted(OWN_ANCHORS)
    target = next(m for m in marks if m.get_attribute("data-claims") == "autograd.engine-dfs-in-python")
    target.click()
    assert catalog.load()["autograd.engine-dfs-in-python"].truth in browser.find_element(By.ID, "panel").text
    browser.save_screenshot(os.environ.get("TORCHCLAIMS_SCREENSHOT") or str(tmp_path / "reader.png"))
