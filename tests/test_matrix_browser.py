"""The HTML claim matrix in a real browser (headless Chromium): filters and details work.

Needs Debian's chromium and chromium-driver (``.ci/run`` installs them); elsewhere the test
skips with that reason, except under CI=true, where a missing browser is a failure.
Set TORCHCLAIMS_SCREENSHOTS=1 to save the screenshot committed next to the matrix (reports/matrix.png).
"""
import json
import os

import pytest

from torchclaims import catalog, reports as claim_reports
from torchclaims.history import page as history_page

pytestmark = [pytest.mark.slow, pytest.mark.e2e]  # e2e: headless Chromium


def _entry(cid, material, expected, reason=""):
    outcome = "skipped" if material == "not-measurable" else "reproduced" if material == expected else "changed"
    return {"topic": cid.split(".")[0], "verdict": "version-dependent" if cid.startswith("modules") else "confirmed",
            "source": [], "material": material, "expected": expected, "outcome": outcome, "reason": reason, "tests": []}


@pytest.fixture
def page(tmp_path):
    """A matrix of three releases: one claim flips on 2.6.0, two hold throughout (one of them not
    measurable on 2.5.1)."""
    reports = []
    for version in ("2.5.1", "2.6.0", "2.14.1"):
        flipped = "right" if version == "2.5.1" else "wrong"
        reports.append({"schema_version": claim_reports.SCHEMA_VERSION, "torch": version, "torchvision": None,
                        "python": "3.11.7", "platform": "Linux", "cuda": None, "device": "cpu", "claims": {
                            "modules.whole-model-torch-load": _entry("modules.whole-model-torch-load", flipped, flipped),
                            "tensors.view-shares-storage": _entry("tensors.view-shares-storage", "right", "right"),
                            "autograd.detach-shares-storage": _entry(
                                "autograd.detach-shares-storage", "not-measurable" if version == "2.5.1" else "right",
                                "right", "needs CUDA: no GPU on this machine"),
                        }})
    path = tmp_path / "matrix.html"
    path.write_text(history_page.render_html(reports, claim_reports.history_data(reports), catalog.load()), encoding="utf-8")
    return path


def viewport(driver, width, height, scale=1):
    """The page's viewport exactly ``width`` x ``height`` CSS pixels; under 700 px wide a phone's
    (the page's viewport meta applies, touch events on)."""
    phone = width < 700
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": phone})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": phone, "maxTouchPoints": 5})


def _shown(driver):
    from selenium.webdriver.common.by import By
    return [row.get_attribute("data-id") for row in driver.find_elements(By.CSS_SELECTOR, "tr.claim")]


def test_filters_narrow_the_table_and_details_open_in_both_languages(page, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    browser.get(page.as_uri())
    assert sorted(_shown(browser)) == ["autograd.detach-shares-storage", "modules.whole-model-torch-load",
                                       "tensors.view-shares-storage"]
    assert browser.find_element(By.ID, "count").text == "3 of 3 claims shown"

    Select(browser.find_element(By.ID, "topic")).select_by_visible_text("tensors")
    assert _shown(browser) == ["tensors.view-shares-storage"]
    Select(browser.find_element(By.ID, "topic")).select_by_index(0)

    Select(browser.find_element(By.ID, "state")).select_by_value("not-measurable")
    assert _shown(browser) == ["autograd.detach-shares-storage"]
    cell = browser.find_element(By.CSS_SELECTOR, "td.not-measurable")
    assert cell.text == "⊘1" and cell.get_attribute("title") == "needs CUDA: no GPU on this machine", cell.text
    Select(browser.find_element(By.ID, "state")).select_by_index(0)

    browser.find_element(By.ID, "changed").click()
    assert _shown(browser) == ["modules.whole-model-torch-load"]
    flip = browser.find_elements(By.CSS_SELECTOR, "td.flip")
    assert [cell.text for cell in flip] == ["✗"], "the 2.6.0 cell is the one flip"

    claim = catalog.load()["modules.whole-model-torch-load"]
    browser.find_element(By.CSS_SELECTOR, "button.more").click()
    detail = browser.find_element(By.CSS_SELECTOR, "tr.detail")
    assert detail.is_displayed() and claim.truth[:40] in detail.text

    Select(browser.find_element(By.ID, "lang")).select_by_value("zh")
    browser.find_element(By.CSS_SELECTOR, "button.more").click()
    assert claim.truth_zh[:20] in browser.find_element(By.CSS_SELECTOR, "tr.detail").text
    assert browser.find_element(By.ID, "count").text == "显示 1 / 3 条论断"


def test_the_committed_matrix_loads_and_filters(browser, tmp_path):
    """The real page: every claim of the committed reports is a row; the changed filter keeps
    exactly the claims with a flip."""
    from selenium.webdriver.common.by import By
    committed = catalog.ROOT / "reports" / "matrix.html"
    browser.get(committed.as_uri())
    data = json.loads(browser.find_element(By.ID, "data").get_attribute("textContent"))
    assert len(_shown(browser)) == len(data["rows"]) > 300
    browser.find_element(By.ID, "changed").click()
    assert sorted(_shown(browser)) == sorted(row["id"] for row in data["rows"] if row["flips"])
    target = committed.parent / "matrix.png" if os.environ.get("TORCHCLAIMS_SCREENSHOTS") == "1" else tmp_path / "matrix.png"
    browser.save_screenshot(str(target))


@pytest.mark.parametrize("size", [(1280, 900), (390, 844)], ids=["desktop-1280x900", "phone-390x844"])
def test_the_table_fits_1280_and_scrolls_sideways_on_a_phone_under_a_fixed_claim_column(browser, tmp_path, size):
    """The page of the committed claim history (every release as a column), rendered now: at
    1280 px the table fits without scrolling sideways; on a phone the page keeps the phone's width
    (its viewport) and only the table scrolls, its claim column and header row staying in place."""
    claims = catalog.load()
    paths = sorted(str(p) for p in (catalog.ROOT / "reports" / "claims").glob("*.json"))
    reports = [claim_reports.rederive(r, claims) for r in claim_reports.load_reports(paths)]
    page = tmp_path / "history.html"
    page.write_text(history_page.render_html(reports, claim_reports.history_data(reports), claims), encoding="utf-8")
    viewport(browser, *size)
    browser.get(page.as_uri())
    measure = """
        const w = document.getElementById('table'), box = el => el.getBoundingClientRect();
        const row = w.querySelector('tr.claim'), head = w.querySelector('thead th');
        return {viewport: innerWidth, width: document.documentElement.clientWidth, page: document.documentElement.scrollWidth,
                scroll: w.scrollWidth, client: w.clientWidth, wrap: box(w).left, wrap_top: box(w).top,
                claim: box(row.children[0]).left, verdict: box(row.children[1]).left, head: box(head).top,
                columns: head.parentElement.children.length};"""
    at = browser.execute_script(measure)
    assert at["columns"] == 3 + len(reports) > 15, at
    assert at["viewport"] == size[0] and at["page"] <= at["width"], f"the page is {at['page']} px wide in a {size[0]} px window"
    if size[0] >= 1280:
        assert at["scroll"] <= at["client"], f"the table needs {at['scroll']} px, has {at['client']}"
        return
    assert at["scroll"] > at["client"], f"the table ({at['scroll']} px) should scroll inside {at['client']} px"
    browser.execute_script("const w = document.getElementById('table'); w.scrollLeft = w.scrollWidth; w.scrollTop = 600")
    moved = browser.execute_script(measure)
    assert moved["verdict"] < at["verdict"] - 100, "the table did not scroll sideways"
    assert abs(moved["claim"] - at["claim"]) < 1, f"the claim column moved from {at['claim']} to {moved['claim']}"
    assert abs(moved["head"] - moved["wrap_top"]) < 2, f"the header row left the top of the table: {moved}"
