"""The survey of real tutorials (claims/survey/, issue #41): its data holds together, and a broken
entry is reported, naming the file and the statement."""
from torchclaims import catalog, survey

GOOD = '''
[[tutorial]]
address = "https://example.org/a"
lang = "en"
about = "a blog post on schedulers"

[[tutorial]]
address = "https://example.org/b"
lang = "zh"
about = "course notes"

[[statement]]
says = "view shares memory"
says_zh = "view 共享内存"
claim = "tensors.view-changes-only-metadata"
sources = ["https://example.org/a §Views", "https://example.org/b"]

[[statement]]
says = "an opinion"
says_zh = "一个看法"
why_not = "advice, nothing to check"
sources = ["https://example.org/b §2"]
'''


def test_the_committed_survey_has_no_problems():
    data = survey.load()
    assert data.problems == (), "\n".join(data.problems)


def test_coverage_counts_each_statement_once_per_tutorial_that_makes_it(tmp_path):
    (tmp_path / "tensors.toml").write_text(GOOD, encoding="utf-8")
    cov = survey.coverage(survey.load(tmp_path, catalog.load()))
    assert (cov.statements, cov.covered, cov.mentions, cov.mentions_covered, cov.tutorials) == (2, 1, 3, 2, 2)
    assert cov.by_lang == {"zh": 1, "en": 1} and round(cov.share, 3) == 0.667


def test_a_broken_statement_is_reported(tmp_path):
    bad = GOOD.replace('claim = "tensors.view-changes-only-metadata"', 'claim = "tensors.no-such-claim"') \
              .replace('why_not = "advice, nothing to check"\n', "") \
              .replace('"https://example.org/b §2"', '"https://example.org/c §2"') \
              .replace('lang = "zh"', 'lang = "fr"')
    (tmp_path / "tensors.toml").write_text(bad, encoding="utf-8")
    problems = "\n".join(survey.load(tmp_path, catalog.load()).problems)
    for fragment in ("'tensors.no-such-claim' is not in the catalog", "why_not does not say why",
                     "cites https://example.org/c, which no [[tutorial]] lists", "lang 'fr'"):
        assert fragment in problems, problems


def test_the_survey_page_quotes_the_coverage_the_data_gives():
    """docs/tutorial-survey.md's figures are the ones survey.coverage computes from claims/survey/."""
    cov = survey.coverage(survey.load())
    page = (catalog.ROOT / "docs" / "tutorial-survey.md").read_text(encoding="utf-8")
    assert f"| tutorials read | {cov.tutorials} ({cov.by_lang['zh']} Chinese, {cov.by_lang['en']} English)" in page
    assert f"| {cov.statements}, of which {cov.covered} are checked" in page
    assert f"| {cov.mentions}, of which {cov.mentions_covered} are covered: **{cov.share:.2f}**" in page
