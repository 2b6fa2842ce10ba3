"""The benchmark report in Chinese: the summary, the claim-by-claim table, the verdict words and each
verdict's reason are built in Chinese word order from the measurement, not translated word by word."""
import re

import pytest

from torchclaims import strings
from torchclaims.bench import command, markdown, rows as bench_rows, rule

from .helpers import pair, results_file, verdict_of

# Latin words a Chinese sentence of the report may carry: names of things, units, placeholders' neighbours.
NAMES = {"IQR", "CPU", "GPU", "CUDA", "NVIDIA", "GeForce", "RTX", "Instinct", "H200", "H100", "A100", "MB",
         "torch", "compile", "eager", "torchvision", "pytest", "benchmark", "json", "JSON", "TORCHCLAIMS_BENCH_ROUNDS",
         "TORCHCLAIMS_BENCH_SMOKE", "proc", "stat", "utils", "Timer", "gpu", "only", "ResNet", "bench",
         "report", "md", "zh", "CN", "lang", "python", "m", "torchclaims", "show", "cid", "x", "images", "s", "GB",
         "UTC", "ID", "RTX 3090", "V100"}


def _latin_words(template: str) -> set[str]:
    bare = re.sub(r"\{[^}]*\}|`[^`]*`|\]\([^)]*\)|[\w.-]+/[\w./-]+", " ", template)   # fields, code, links, paths
    return set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", bare))


def test_every_chinese_string_of_the_report_is_written_in_chinese():
    zh = {k: v for k, v in strings.STRINGS["zh"].items() if k.startswith("bench_")}
    assert len(zh) > 100
    english = [(k, sorted(_latin_words(v) - NAMES)) for k, v in zh.items() if _latin_words(v) - NAMES]
    assert not english, f"English words in the Chinese report strings: {english}"
    assert all(zh[k] != strings.STRINGS["en"][k] for k in zh if re.search(r"[a-z]{3}", strings.STRINGS["en"][k])
               and k not in ("bench_class_of", "bench_interval")), "a Chinese string left as its English original"


def test_a_reason_is_built_in_each_languages_own_order_from_the_same_measurement():
    """The planted opposite row: the interval, the side measured and the side claimed fill each
    language's own sentence (the English one puts what was measured first, then the claim)."""
    verdict = verdict_of(pair(1.22, base=1.0, cand=1.0 / 0.93))
    assert verdict.word == "contradicts"
    interval = re.search(r"\[[^\]]+\]", verdict.why).group(0)
    assert verdict.why == f"measured a slowdown (interval {interval}), the material claims a speed-up"
    assert verdict.why_in("zh") == f"实测是变慢（区间 {interval}），而资料说的是加速"
    assert verdict.word_in("zh") == "相矛盾"


@pytest.mark.parametrize("word", rule.WORDS)
def test_every_verdict_word_has_its_chinese_word(word):
    zh = rule.Verdict(word, rule.phrase("why_no_figure")).word_in("zh")
    assert zh and not re.search(r"[A-Za-z]", zh), f"{word!r} in Chinese: {zh!r}"


def test_the_chinese_summary_and_claim_table_carry_chinese_words_and_reasons(tmp_path):
    rows = [pair(2.0, claim="tensors.empty-faster-than-zeros", quantity="timed"),
            pair(1.22, base=1.0, cand=1.0 / 0.93, claim="data.prefetch-throughput-figure", quantity="planted opposite"),
            pair(1.744, base=1.744, cand=1.0, claim="compile.resnet50-compile-default-throughput", hardware="A100",
                 quantity="context row")]
    data = results_file(rows)
    built = bench_rows.build_rows(data, {})
    text = markdown.render_markdown(data, tmp_path / "r.json", None, claims={}, benchmarks={}, rows=built, lang="zh")
    summary = text.split("## 摘要")[1].split("### ")[0]
    assert "在本机（只有 CPU，没有 CUDA 设备）上判定了 2 行：相符 1 行，相矛盾 1 行；1 行仅作参照" in summary, summary
    table = text.split("### 逐条论断")[1].split("## 结论")[0]
    assert "| `data.prefetch-throughput-figure` | planted opposite | 1.22 |" in table and "**相矛盾**" in table
    verdicts = text.split("## 结论")[1].split("## 参照")[0]
    assert "| 测量的量 | 规模 | 中位数 | 95% 置信区间 |" in verdicts and "实测是变慢（区间" in verdicts
    context = text.split("## 参照：针对其他硬件的数字")[1]
    assert "资料的数字针对 A100；这一行是在本机 CPU 上测的" in context
    english = markdown.render_markdown(data, tmp_path / "r.json", None, claims={}, benchmarks={}, rows=built)
    assert "## Summary" in english and "摘要" not in english


def test_the_locale_chooses_the_chinese_report_and_its_own_file(tmp_path, monkeypatch):
    source = tmp_path / "r.json"
    source.write_text(__import__("json").dumps(results_file([pair(2.0, claim="tensors.empty-faster-than-zeros")])),
                      encoding="utf-8")
    monkeypatch.setattr(command, "render_chart", lambda rows, path, version: False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert command.main([str(source), "-o", str(tmp_path / "out")]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["report.zh-CN.md"]
    assert (tmp_path / "out" / "report.zh-CN.md").read_text(encoding="utf-8").startswith("# 基准测试报告")
    assert command.main([str(source), "-o", str(tmp_path / "out"), "--lang", "en"]) == 0
    assert (tmp_path / "out" / "report.md").read_text(encoding="utf-8").startswith("# Benchmark report")
