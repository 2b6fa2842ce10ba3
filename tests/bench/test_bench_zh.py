"""The benchmark report in Chinese: the summary, the claim-by-claim table, the verdict words and each
verdict's reason are built in Chinese word order from the measurement, not translated word by word."""
import re

import pytest

from torchclaims import commands, strings
from torchclaims.bench import command, markdown, phrases, results as bench_results, rows as bench_rows, rule
from torchclaims.bench.recorded_zh import RECORDED

from .helpers import ROOT, pair, results_file, verdict_of

# Latin words a Chinese sentence of the report may carry: names of things, units, placeholders' neighbours.
NAMES = {"IQR", "CPU", "GPU", "CUDA", "NVIDIA", "GeForce", "RTX", "Instinct", "H200", "H100", "A100", "MB",
         "torch", "compile", "eager", "torchvision", "pytest", "benchmark", "json", "JSON", "TORCHCLAIMS_BENCH_ROUNDS",
         "TORCHCLAIMS_BENCH_SMOKE", "proc", "stat", "utils", "Timer", "gpu", "only", "ResNet", "bench",
         "report", "md", "zh", "CN", "lang", "python", "m", "torchclaims", "show", "cid", "x", "images", "s", "GB",
         "UTC", "ID", "RTX 3090", "V100", "MiB"}


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
    monkeypatch.setattr(command, "render_chart", lambda rows, path, version, lang="en": False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert commands.main(["bench-report", str(source), "-o", str(tmp_path / "out")]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["report.zh-CN.md"]
    assert (tmp_path / "out" / "report.zh-CN.md").read_text(encoding="utf-8").startswith("# 基准测试报告")
    assert commands.main(["bench-report", str(source), "-o", str(tmp_path / "out"), "--lang", "en"]) == 0
    assert (tmp_path / "out" / "report.md").read_text(encoding="utf-8").startswith("# Benchmark report")


# ---------------------------------------------- what the benchmarks recorded, in the Chinese report
# Committed results files whose texts a Chinese report may show: the CPU run, the GPU runs, the releases.
COMMITTED = sorted({*bench_results.committed_results(), *(ROOT / "reports" / "bench" / "releases").glob("*.json"),
                    *(ROOT / "reports" / "gpu").glob("*/bench-gpu.json")})
# Three plain English words in a row (tests/test_help_zh.py's detector): a word touching code, a path,
# an API name (a dot, a slash, a backtick, an underscore, a bracket) is not prose.
WORD = r"(?<![\w./`{,-])[a-z][a-z']+(?![\w./`(},-])"
ENGLISH_RUN = re.compile(rf"{WORD}(?: +{WORD}){{2,}}")


def english_runs(page: str) -> list[str]:
    """The runs of English prose of a Markdown page, outside code blocks and code spans."""
    bare = re.sub(r"^```.*?^```", " ", page, flags=re.S | re.M)
    return ENGLISH_RUN.findall(re.sub(r"`[^`\n]*`", " ", bare))


def _chinese_page(path, monkeypatch) -> tuple[str, set[str]]:
    """The Chinese report of a results file, and the recorded texts it had to show in English."""
    missing: set[str] = set()
    monkeypatch.setattr(phrases, "UNTRANSLATED", missing)
    data = bench_results.load_results(path)
    return markdown.render_markdown(data, path, "report.png", rows=bench_rows.build_rows(data, {}), claims={},
                                    benchmarks={}, lang="zh"), missing


def test_the_committed_results_files_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in COMMITTED}
    assert "reports/bench/cpu.json" in names and any(n.endswith("/bench-gpu.json") for n in names)
    assert any(n.startswith("reports/bench/releases/") for n in names)


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_text_a_committed_results_file_records_has_its_chinese(path, monkeypatch):
    """Quantities, scales, methods, notes, unit words and the benchmarks' own tables: each one in
    recorded_zh.RECORDED (add the missing ones there, keyed by the English exactly as recorded)."""
    page, missing = _chinese_page(path, monkeypatch)
    assert not missing, f"{len(missing)} recorded texts of {path.name} have no Chinese in recorded_zh.py: {sorted(missing)}"
    assert not english_runs(page), english_runs(page)


def test_a_planted_untranslated_text_stays_english_and_is_listed(tmp_path, monkeypatch):
    data = results_file([pair(2.0, claim="tensors.empty-faster-than-zeros", quantity="a quantity nobody translated",
                              scale="the material gives no size; MLP 64-64-64-10 with Tanh, batch 32")])
    path = tmp_path / "r.json"
    path.write_text(__import__("json").dumps(data), encoding="utf-8")
    page, missing = _chinese_page(path, monkeypatch)
    assert missing == {"a quantity nobody translated"}
    assert "| a quantity nobody translated |" in page and "资料没给规模；MLP 64-64-64-10" in page
    assert english_runs(page) == ["quantity nobody translated"] * page.count("a quantity nobody translated")


def test_a_recorded_text_keeps_its_chinese_with_a_reruns_new_figures():
    """A key's {fields} stand for the measured figures, so new medians keep the translation."""
    english = "first call in a fresh Inductor cache minus one steady-state call (one cold compile); warm 9.87 s"
    assert phrases.recorded("zh", english) == "在全新的 Inductor 缓存中首次调用的时间减去一次稳态调用的时间（一次冷编译）；热编译 9.87 s"
    assert (phrases.recorded("zh", "ResNet18-material train: cold compile latency, mode=max-autotune")
            == "ResNet18-material 训练：冷编译延迟，mode=max-autotune")
    assert phrases.recorded("en", english) == english
    for bare in ("%", "MB", "> 1", "A100", "NVIDIA H200", 1.5, None):   # no English word: as it is
        assert phrases.recorded("zh", bare) == bare


def test_every_entry_of_the_table_is_a_text_some_committed_results_file_records():
    import json
    texts = set()
    for path in COMMITTED:
        for bench in json.loads(path.read_text(encoding="utf-8"))["benchmarks"]:
            extra = bench.get("extra_info") or {}
            table = extra.get("table") or {}
            for entry in [extra, *[m for m in extra.get("more") or [] if isinstance(m, dict)]]:
                texts.update(v for v in entry.values() if isinstance(v, str))
            texts.update(c for c in [table.get("title"), table.get("note"), *table.get("columns", []),
                                     *[c for row in table.get("rows", []) for c in row]] if isinstance(c, str))
    unused = [k for k, v in RECORDED.items() if k not in texts
              and not any(p.fullmatch(t) for p, zh in phrases._templates() if zh == v for t in texts)]
    assert not unused, f"entries of recorded_zh.py no committed results file records: {unused}"


def test_the_committed_chinese_report_has_no_english_prose():
    page = (ROOT / "reports" / "bench" / "report.zh-CN.md").read_text(encoding="utf-8")
    assert page.startswith("# 基准测试报告") and "checkpoint 省掉的已保存张量字节数" in page
    assert not english_runs(page), f"English in reports/bench/report.zh-CN.md: {english_runs(page)}"


def test_the_english_detector_finds_a_planted_english_cell():
    page = (ROOT / "reports" / "bench" / "report.zh-CN.md").read_text(encoding="utf-8")
    planted = page.replace("checkpoint 省掉的已保存张量字节数", "saved-tensor bytes removed by checkpoint", 1)
    assert english_runs(planted) == ["bytes removed by checkpoint"]
    assert english_runs("`pytest benchmarks/ --benchmark-only -p no:xdist` and torch.utils.benchmark.Timer") == []
