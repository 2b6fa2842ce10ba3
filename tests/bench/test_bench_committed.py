"""The committed benchmark reports: rendered from the committed results, and the one source of the figures truths quote."""
import pytest

from torchclaims import catalog, commands, links
from torchclaims.bench import command, markdown, quotes, results as bench_results

from .helpers import committed_rows


def test_benchmarked_truths_quote_only_figures_the_committed_report_shows():
    """A percentage or ratio a benchmarked claim's truth attributes to a benchmark is one of the report's."""
    claims, rows = committed_rows()
    assert bench_results.committed_results(), "no committed benchmark results under reports/bench/"
    benchmarked = set(links.bench_links(catalog.ROOT / "benchmarks"))
    problems = quotes.truth_figure_mismatches(claims, rows, benchmarked)
    assert not problems, "catalog truths disagree with the committed benchmark report:\n" + "\n".join(problems)


def test_a_truth_quoting_a_figure_the_report_does_not_show_is_found():
    """The planted disagreements are the old truths: 29% where the report measures 0, +52% where it has 46%."""
    from types import SimpleNamespace as Claim
    _, rows = committed_rows()
    planted = {
        "autograd.relu-inplace-reuses-storage": Claim(
            truth="The 29% that benchmarks/bench_autograd.py reports for forward+backward comes from heap reuse.",
            truth_zh="benchmarks/bench_autograd.py 报告 0% [0, 0]。"),
        "modules.activation-checkpoint-saves-memory": Claim(
            truth="Wrapping one of four layers saves about 21%. The benchmark measures 64% less memory and +52% time.",
            truth_zh="基准测试测得时间增加 46% [41, 49]。"),
        "tensors.empty-faster-than-zeros": Claim(
            truth="bench_tensors.py measures 1.16x for 1e7 floats and over 1000x without writing; 4 x (Linear 8) is no ratio.",
            truth_zh="benchmarks/bench_tensors.py 测得约 1.3 倍。"),
    }
    problems = quotes.truth_figure_mismatches(planted, rows, set(planted))
    assert len(problems) == 3, "\n".join(problems)
    assert any("relu-inplace-reuses-storage truth: quotes '29%'" in p for p in problems), problems
    assert any("activation-checkpoint-saves-memory truth: quotes '+52%'" in p and "46.2" in p for p in problems), problems
    assert any("empty-faster-than-zeros truth_zh: quotes '1.3 倍'" in p for p in problems), problems
    assert not any("21%" in p for p in problems), "a clause that names no benchmark is the specs' figure"


BENCH = catalog.ROOT / "reports" / "bench"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_committed_report_is_what_the_command_makes_of_the_committed_results(tmp_path, monkeypatch, lang):
    """report.md and report.zh-CN.md are, byte for byte but for the date, what the documented commands
    make of cpu.json today (after a rule, string or catalog change, regenerate both:
    python -m torchclaims bench-report reports/bench/cpu.json -o reports/bench --lang en, then --lang zh)."""
    drawn = []

    def chart(rows, path, version, lang="en"):   # the chart is not compared: only the text regenerates exactly
        drawn.append(rows)
        path.write_bytes(b"not a chart")
        return True

    monkeypatch.setattr(command, "render_chart", chart)
    assert commands.main(["bench-report", str(BENCH / "cpu.json"), "-o", str(tmp_path), "--lang", lang]) == 0
    name = markdown.REPORT_NAMES[lang]
    fresh = (tmp_path / name).read_text(encoding="utf-8")
    committed = (BENCH / name).read_text(encoding="utf-8")
    assert markdown.STAMP.search(committed) and len(drawn) == 1
    assert markdown.STAMP.sub("Rendered", fresh) == markdown.STAMP.sub("Rendered", committed), (
        f"reports/bench/{name} is stale: python -m torchclaims bench-report reports/bench/cpu.json -o reports/bench "
        f"--lang {lang}")


def test_the_committed_across_releases_table_is_what_the_command_makes_of_the_release_results(tmp_path):
    """across.md, byte for byte: python -m torchclaims bench-report --across reports/bench/releases/*.json
    -o reports/bench."""
    releases = sorted(str(p) for p in (BENCH / "releases").glob("*.json"))
    assert len(releases) >= 2
    assert commands.main(["bench-report", "--across", *releases, "-o", str(tmp_path)]) == 0
    assert (tmp_path / "across.md").read_bytes() == (BENCH / "across.md").read_bytes(), (
        "reports/bench/across.md is stale: python -m torchclaims bench-report --across reports/bench/releases/*.json "
        "-o reports/bench")


def test_the_chart_and_the_report_read_the_rows_built_once(tmp_path, monkeypatch):
    """The command builds the rows once; the chart draws those very rows, never a second build."""
    built, drawn, written = [], [], []
    real_build, real_render = command.build_rows, command.render_markdown
    monkeypatch.setattr(command, "build_rows", lambda *a, **k: built.append(real_build(*a, **k)) or built[-1])
    monkeypatch.setattr(command, "render_chart", lambda rows, path, version, lang="en": drawn.append(rows) or False)
    monkeypatch.setattr(command, "render_markdown",
                        lambda *a, **k: written.append(k["rows"]) or real_render(*a, **k))
    monkeypatch.setattr(markdown, "build_rows", lambda *a, **k: pytest.fail("a second build of the rows"))
    assert commands.main(["bench-report", str(BENCH / "cpu.json"), "-o", str(tmp_path), "--lang", "en"]) == 0
    assert len(built) == 1 and drawn[0] is built[0] and written[0] is built[0]


@pytest.mark.parametrize("quantity, word", [
    ("peak memory saved by ReLU(inplace=True)", "contradicts"),          # 0 [0, 0] against 12%
    ("linspace/arange result bytes", "contradicts"),                     # exactly 1 against < 1
    ("forward time with graph / under no_grad", "holds"),                # 1.22 [1.12, 1.27], noisy
    ("eager/compiled forward time (6 tiny layers, 4x32 input)", "holds"),  # 1.4 [1.37, 1.57], noisy
    ("extra forward+backward time with checkpoint", "stronger"),         # 42% [28, 51] against 20%, noisy
    ("epoch time prefetch_factor 1 / 2 (2 workers)", "contradicts"),     # 0.96 [0.92, 1.06] against 1.18
])
def test_the_committed_rows_follow_the_one_rule(quantity, word):
    """The rows issue #24 found judged against their own rules, as the committed results give them."""
    _, rows = committed_rows()
    [row] = [r for r in rows if r.entry.get("quantity") == quantity]
    assert row.verdict.word == word, f"{quantity}: {row.figure.value} {row.figure.ci} -> {row.verdict}, expected {word}"

