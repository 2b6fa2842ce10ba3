"""Fixtures shared by the tooling tests, and the rule that keeps the unit tests quick.

Three kinds of test live under tests/ (CONTRIBUTING.md, "Tests of the tooling"):
- unit tests: in-process, a few hundred milliseconds at most; `make quick` runs them;
- end-to-end tests, marked ``e2e`` (on the test or the module): they start a process (python -m
  pytest, the command line, git, a browser) or run a command over real documents; `make test` runs them;
- tests/content/: checks of the project's own content (the catalog's links, the committed reports).
A test that starts a process without the ``e2e`` marker fails at once (``unit_tests_start_no_process``).
"""
import os
import shutil
import subprocess

import pytest

# All of rich the project uses, imported once for the whole run: pytester's in-process runs drop
# the modules a run imported first, and a rich half re-imported mixes two Style classes (a table
# then fails with "'Style' object has no attribute 'strip'", in whichever test runs after).
import rich.box
import rich.console
import rich.markup
import rich.style
import rich.table
import rich.text  # noqa: F401  (kept in sys.modules for the in-process runs, see above)

from torchclaims import forked

from .test_plugin import CATALOG, ENGLISH, SPECS, set_locale

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def english_locale(monkeypatch):
    """Every --lang defaults to the locale's language (LANG=zh_CN.UTF-8 gives Chinese), and
    the tooling tests assert English output: each starts in an English locale, whatever the
    caller's; a test of the Chinese default sets its own."""
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


@pytest.fixture(autouse=True)
def unit_tests_start_no_process(request, monkeypatch):
    """A test without the ``e2e`` marker that starts a process fails, naming the marker: `make
    quick` leaves e2e tests out, and an unmarked one would make the quick loop slow again."""
    if request.node.get_closest_marker("e2e"):
        return

    def refuse(self, args, *rest, **kwargs):
        pytest.fail(f"{request.node.nodeid} starts a process ({args!r:.80}): mark it @pytest.mark.e2e "
                    f"(or its module: pytestmark = pytest.mark.e2e)", pytrace=False)

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    monkeypatch.setattr(forked, "run", lambda args, **kwargs: refuse(None, args))


@pytest.fixture
def scratch(pytester, monkeypatch):
    """A pytester folder with tests/test_plugin.py's tiny catalog and spec file."""
    set_locale(monkeypatch, ENGLISH)  # the English assertions hold whatever the caller's locale
    claims = pytester.mkdir("claims")
    (claims / "tensors.toml").write_text(CATALOG, encoding="utf-8")
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(claims))
    pytester.makepyfile(test_specs=SPECS)
    return pytester


CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")


@pytest.fixture(scope="session")
def chromium(tmp_path_factory):
    """One headless Chromium per test worker (Debian's chromium and chromium-driver; ``.ci/run``
    installs them): a skip where they are absent, a failure under CI=true. Starting it costs
    about four seconds of the 2-core machine, so the browser tests share it (``browser``)."""
    if not (CHROMIUM and DRIVER):
        reason = "needs chromium and chromedriver (apt-get install chromium chromium-driver)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason + ": CI installs them, so their absence is a failure here")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1400,900", f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def browser(chromium):
    """The worker's Chromium as a fresh one would be: a blank page in a fresh tab (its own history),
    the 1400x900 window, no device or touch emulation left by an earlier test."""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    first = chromium.current_window_handle
    chromium.switch_to.new_window("tab")
    chromium.switch_to.window(first)
    chromium.close()
    chromium.switch_to.window(chromium.window_handles[0])
    chromium.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    chromium.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    chromium.set_window_size(1400, 900)
    ActionBuilder(chromium).clear_actions()  # an earlier test's pointers (touch or mouse) released
    yield chromium
