"""The chart: one panel per kind of quantity, drawn from the rows the report was built from."""
import pytest

from torchclaims.bench import chart, rows as bench_rows

from .helpers import pair, results_file


def test_the_chart_has_one_panel_per_kind_of_quantity_with_intervals(tmp_path):
    rows = [pair(2.0, quantity="speed"),
            dict(claim="c.mem", quantity="memory", unit="MB", material=20.0, samples=[30.0 + i for i in range(9)]),
            dict(claim="c.lat", quantity="latency", unit="s", material=1.2, samples=[2.0], hardware="A100"),
            dict(claim="c.pct", quantity="saved", unit="%", stat="saving", material=40.0, measured=60.0, exact=True)]
    data = results_file(rows)
    rows = bench_rows.build_rows(data, {})
    panels = chart.chart_points(rows)
    assert set(panels) == {"ratio", "memory", "latency", "percent"}
    [mem] = panels["memory"]
    assert mem["low"] < mem["value"] < mem["high"], "the memory row's error bar is its interval"
    assert mem["material"] == pytest.approx(20.0 * 1e6 / 2**20), "MB are drawn in MiB"
    assert panels["latency"][0]["verdict"] == "context"
    assert chart.render_chart(rows, tmp_path / "chart.png", "2.14.1")
    assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"



def test_the_chinese_chart_speaks_chinese(tmp_path):
    """The Chinese report's chart: its panels, legend and title from the string table, a recorded
    quantity in its Chinese (recorded_zh), drawn with a CJK font (CI installs fonts-noto-cjk)."""
    from torchclaims.bench.recorded_zh import RECORDED
    from torchclaims.strings import text
    quantity = next(q for q in RECORDED if "{" not in q)
    data = results_file([pair(2.0, quantity=quantity)])
    rows = bench_rows.build_rows(data, {})
    [point] = chart.chart_points(rows, "zh")["ratio"]
    assert point["label"].replace("\n", "").startswith(RECORDED[quantity].replace("\n", "")[:10])
    assert text("zh", "bench_chart_title", torch="2.14.1") != text("en", "bench_chart_title", torch="2.14.1")
    if chart.cjk_font() is None:
        pytest.skip("needs a font with CJK glyphs (fonts-noto-cjk) to draw the Chinese chart")
    assert chart.render_chart(rows, tmp_path / "chart.png", "2.14.1", "zh")
    assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
