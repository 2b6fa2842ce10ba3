"""One benchmark across torch releases: a change counts only beyond both intervals."""
import json

import pytest

from torchclaims import commands
from torchclaims.bench import across, statistics as st
from torchclaims.errors import UsageError

from .helpers import release


def test_across_releases_a_change_counts_only_beyond_both_intervals(tmp_path):
    text = across.render_across([(tmp_path / "b.json", release("2.14.1", 2.0)), (tmp_path / "a.json", release("2.1.2", 1.2)),
                             (tmp_path / "c.json", release("2.15.0", 2.01, seed=1))], claims={})
    header = next(line for line in text.splitlines() if line.startswith("| benchmark | quantity"))
    assert header.index("torch 2.1.2") < header.index("torch 2.14.1") < header.index("torch 2.15.0"), header
    row = next(line for line in text.splitlines() if line.startswith("| `benchmarks/bench_x.py::test_planted`"))
    assert "n=21" in row and "up from 2.1.2 to 2.14.1" in row, row
    assert "2.14.1 to 2.15.0" not in row, f"overlapping intervals called a change: {row}"
    once = [st.Figure(12.0, None, None, 1), st.Figure(6.0, None, None, 1)]
    assert across.change(once, ["2.5.1", "2.9.1"]) == "no intervals to compare (one round each)"


def test_across_releases_refuses_one_release_twice_and_a_single_file(tmp_path):
    with pytest.raises(UsageError, match="same torch release"):
        across.render_across([(tmp_path / "a.json", release("2.1.2", 1.2)), (tmp_path / "b.json", release("2.1.2", 1.3))],
                         claims={})
    one = tmp_path / "one.json"
    one.write_text(json.dumps(release("2.1.2", 1.2)), encoding="utf-8")
    assert commands.main(["bench-report", "--across", str(one), "-o", str(tmp_path)]) == 2
    assert commands.main(["bench-report", str(one), str(one)]) == 2

