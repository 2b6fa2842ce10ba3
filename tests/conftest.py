import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def english_locale(monkeypatch):
    """Every --lang defaults to the locale's language (LANG=zh_CN.UTF-8 gives Chinese), and
    the tooling tests assert English output: each starts in an English locale, whatever the
    caller's; a test of the Chinese default sets its own."""
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
