"""Every sentence torchclaims shows a learner, in English and Chinese: one table, one place.

``text(lang, key, **fields)`` returns one string (``str.format`` fields filled in, and
``{n:claim|claims}`` picks the word for the count ``n``: see ``fill``); ``table(lang)`` the
whole language's table; ``default_lang()`` the language the locale asks for (the default of
every ``--lang``); ``translate(lang, message)`` a message the tooling recorded in English
(a skip reason, a workbook stub's message) in ``lang``.  Both languages have the same keys
(tests/test_strings.py checks it), so a key missing in Chinese is a test failure, not a
``KeyError`` in front of a learner.  Command lines shown to the learner use the README's
form: ``pytest ...`` and ``python -m torchclaims ...`` with the project's venv activated.
"""
from __future__ import annotations

import os
import re
import string
import unicodedata

LANGS = ("en", "zh")
LOCALE_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")  # gettext's order

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # ------------------------------------------------ catalog words
        "confirmed": "confirmed", "refuted": "refuted", "partly": "partly",
        "version-dependent": "version-dep", "gpu-only": "gpu-only",
        "not-checkable": "not-checkable", "pending": "pending",
        # the material's verdict measured on this torch (outcomes.MATERIAL)
        "m:right": "right", "m:wrong": "wrong", "m:partly": "partly", "m:contradiction": "contradiction",
        "m:broken": "broken spec", "m:not-applicable": "n/a", "m:not-measurable": "not measurable",
        "m:skipped": "not run",
        # outcomes (outcomes.OUTCOMES)
        "reproduced": "reproduced", "changed": "CHANGED", "broken": "BROKEN", "not-applicable": "n/a",
        "skipped": "skipped",
        # ------------------------------------------------ claim texts
        "says": "the material says", "truth": "what is true", "source": "source",
        "as_written": "this spec encodes the material's statement, which is wrong",
        "versions": "the material holds on torch", "refs": "ref", "specs": "specs", "specs_none": "specs: none",
        "spec_as_written": "as written: expected to fail",
        "verdict": "verdict",
        # ------------------------------------------------ scoreboard
        "title": "torchclaims scoreboard: the material's claims on torch {torch}",
        "legend_head": "How to read it: each number counts claims of the material, by topic.",
        "legend_verdict": "right / wrong / partly: the material's verdict, measured on this torch",
        "legend_marks": "✓ as catalogued  ✗ changed: torch differs from the catalog  ! broken spec",
        "legend_marks2": "n/a needs another torch  s not run here (why: below)  ? not verified yet",
        "col_topic": "topic", "col_claims": "claims", "col_right": "right", "col_wrong": "wrong",
        "col_partly": "partly", "total": "total",
        "mistakes": ("The material's mistakes: {wrong} wrong and {partly} partly right, "
                     "of {checked} {checked:claim|claims} run here"),
        "mistakes_none": "The material's mistakes: none among the {checked} {checked:claim|claims} run here",
        "mistakes_by_topic": "most of them in {topics}",
        "skipped_title": "Not run here: {n} {n:claim|claims}, by reason",
        "skipped_more": ("  ... and {n} {n:claim|claims} for {k} other {k:reason|reasons} "
                         "(pytest specs/ -v lists each claim)"),
        "gaps": "Claims pending, not verified yet (? above): {n}",
        "sources_title": "Sources: the documents the claims come from",
        "next_title": "Next:",
        "next_step": "{what}: {command}",
        "next_as_written": "run the material's wrong statements",
        "next_verbose": "one line per claim (add --claims-detail for says and truth)",
        "next_show": "one claim with its source and specs",
        "next_workbook": "start the workbook",
        "next_full": "the slow, compile and distributed specs too",
        "broken_title": "BROKEN SPECS: these failed for a reason other than the one they state; fix the spec",
        "changed_title": "CHANGED VERDICTS on torch {torch}: the installed torch no longer behaves as catalogued",
        "claims_title": "claims: mark (legend below), id, the material's verdict, source",
        "next_zh": "the scoreboard, lessons and claims in Chinese (中文)",
        "interrupted_run": "INTERRUPTED: the run stopped early, so this scoreboard counts only the specs that ran",
        "report_wrote": "claim report written to {path}",
        "report_partial": ("the run was interrupted: the partial report went to {path} (marked \"interrupted\"), "
                           "{kept} was left as it was"),
        "report_partial_new": "the run was interrupted: the partial report went to {path} (marked \"interrupted\")",
        # skip reasons the plugin records (the report keeps them in English; the scoreboard translates)
        "skip_gpu": "needs CUDA: no GPU on this machine",
        "skip_heavy": "{heavy} spec: skipped by the quick run (use --full or -m {heavy})",
        "skip_na": "not applicable on torch {torch}: needs torch{range} ({why})",
        "skip_not_checkable": "not checkable (the catalog's truth says why: python -m torchclaims show ID)",
        # ------------------------------------------------ command line
        "claims_count": "{n} {n:claim|claims}",
        "col_id": "id", "lang_hint": "in Chinese: add --lang zh (中文)",
        "unknown_claim": "unknown claim id {name!r}{hint}",
        "unknown_topic": "unknown topic {name!r}{hint}; the topics: {topics}",
        "did_you_mean": " (did you mean {best}?{more})", "also_close": " also close: {names}",
        "claim_option": "--claim {name}: no such claim id or topic{hint}; see python -m torchclaims claims",
        "verdict_alias": "the scoreboard's words work too: right = confirmed, wrong = refuted",
        "unknown_verdict": "--verdict {word}: not a verdict; the catalog's: {labels} (or the scoreboard's right, wrong, partly; in Chinese {zh})",
        "topic_head": "{topic}: a topic, {n} {n:claim|claims} (python -m torchclaims show ID shows one of them)",
        "topic_line": "{id}  {verdict}",
        "error_line": "error: {message}",
        "usage_choice": "{prog}: {arg}: {value} is not one of {choices}",
        "usage_one": "{prog}: {arg} needs a value",
        "usage_required": "{prog}: missing {args}",
        "usage_unknown": "{prog}: unrecognized arguments: {args}",
        "usage_bad_value": "{prog}: {arg}: {value} is not a {type}",
        "report_is_dir": "--claims-report {path}: is a folder; give a file name, e.g. {path}/claims.json",
        "report_no_dir": "--claims-report {path}: the folder {parent} does not exist",
        "report_not_writable": "--claims-report {path}: cannot write there ({reason})",
        # ------------------------------------------------ workbook
        "lessons": "lessons",
        "wb_done": "passes", "wb_not_started": "not started", "wb_fails": "fails",
        "wb_edited": "edited, not run yet", "wb_still": "still to write",
        "wb_progress": "progress", "wb_last_run": "last run",
        "wb_created": "workbook {root}: {n} {n:lesson|lessons}, {k} {k:function|functions} to write",
        "wb_wrote": "  wrote {n} {n:file|files}: {files}",
        "wb_kept": "  kept {n} existing {n:file|files} untouched (your work): {files}",
        "wb_next": "next: python -m torchclaims workbook learn {dir}   (or watch {dir}: again on every save)",
        "wb_missing": "no workbook at {dir}: create one with python -m torchclaims workbook init {dir}",
        "wb_not_workbook": ("{dir} is not a workbook (it has none of the workbook's files); create one in a new "
                            "folder with python -m torchclaims workbook init DIR"),
        "wb_incomplete": ("{dir}: the workbook lacks {files}; python -m torchclaims workbook init {dir} "
                          "writes what is missing and keeps your files"),
        "wb_chain": "[{label} is next: running it]",
        "wb_not_folder": "{dir} exists and is not a folder",
        "wb_is_reference": "{dir} is reference_impl/ itself, not a workbook",
        "wb_no_command": "workbook: give a command: init DIR, status DIR, learn DIR or watch DIR",
        "learn_needs_impl": ("--learn needs a workbook: add --impl DIR (or set TORCHCLAIMS_IMPL); "
                             "create one with python -m torchclaims workbook init DIR"),
        "learn_not_reference": ("--learn runs against a workbook, not reference_impl/ itself; "
                                "create one with python -m torchclaims workbook init DIR"),
        "learn_no_xdist": "--learn runs the lessons in order: drop -n",
        "stub": "{label}: write {function}",
        "lesson_label": "Lesson {number} ({name})",
        "wb_progress_bad": "{path}: not a progress file ({why}); delete it, the next run writes a new one",
        "wb_watching": "[watching {root} for changes to *.py; Ctrl-C stops]",
        "wb_rerun": "[change seen: rerunning]",
        "wb_stopped": "stopped watching {root} (Ctrl-C)",
        "wb_stopped_run": "stopped the lesson run (Ctrl-C)",
        "interrupted": "interrupted (Ctrl-C)",
        # ------------------------------------------------ --learn
        "learn_hint": "hint", "learn_claims": "the claims it teaches", "learn_spec": "failing spec",
        "learn_of": "{k} of this lesson's {n} {n:spec|specs} {k:fails|fail}", "learn_write": "write",
        "learn_done": "All {n} {n:lesson passes|lessons pass}: the workbook is complete.",
        "learn_none": "no lesson spec was collected: run pytest specs/ --impl DIR --learn",
        "learn_stop": "{label} fails: make it pass to unlock the next lesson",
        "learn_trace": "in your code",
        "learn_no_trace": "(no frame in your files: the spec's own check failed, here)",
        "learn_in_spec": "raised in the spec, by what your code returned (no frame in your files)",
        "learn_syntax": "your file does not compile",
        "learn_head": "Lesson {number:02d}/{total} ({name}): {title}",
        "learn_more": "{n} {n:lesson passes|lessons pass}: run again for {label} (workbook learn and watch do it by themselves)",
    },
    "zh": {
        "confirmed": "属实", "refuted": "错误", "partly": "部分属实",
        "version-dependent": "随版本", "gpu-only": "仅GPU",
        "not-checkable": "无法检验", "pending": "待核实",
        "m:right": "正确", "m:wrong": "错误", "m:partly": "部分正确", "m:contradiction": "自相矛盾",
        "m:broken": "用例损坏", "m:not-applicable": "不适用", "m:not-measurable": "无法测量", "m:skipped": "未运行",
        "reproduced": "已复现", "changed": "已改变", "broken": "用例损坏", "not-applicable": "不适用",
        "skipped": "跳过",
        "says": "资料的说法", "truth": "实际情况", "source": "出处",
        "as_written": "此用例按资料原意编写，而资料的说法有误",
        "versions": "资料成立的版本", "refs": "参考", "specs": "用例", "specs_none": "用例：无",
        "spec_as_written": "按原文编写：预期失败",
        "verdict": "判定",
        "title": "torchclaims 记分板：资料的论断在 torch {torch} 上的检验结果",
        "legend_head": "读法：每个数字都是资料中论断的条数，按主题分行。",
        "legend_verdict": "正确 / 错误 / 部分正确：在当前 torch 上测得的资料的判定",
        "legend_marks": "✓ 与目录一致  ✗ 已改变：torch 与目录记录不符  ! 用例损坏",
        "legend_marks2": "n/a 需要其他版本的 torch  s 本机未运行（原因见下）  ? 待核实",
        "col_topic": "主题", "col_claims": "论断", "col_right": "正确", "col_wrong": "错误",
        "col_partly": "部分正确", "total": "合计",
        "mistakes": "资料的错误：{wrong} 条错误，{partly} 条部分正确（本机运行了 {checked} 条）",
        "mistakes_none": "资料的错误：本机运行的 {checked} 条论断中没有发现错误",
        "mistakes_by_topic": "主要集中在：{topics}",
        "skipped_title": "本机未运行：{n} 条论断，按原因",
        "skipped_more": "  …… 另有 {n} 条，涉及 {k} 种其他原因（pytest specs/ -v --lang zh 逐条列出）",
        "gaps": "待核实：{n} 条论断（上表的 ?）",
        "sources_title": "出处：论断取自以下资料",
        "next_title": "下一步：",
        "next_step": "{what}：{command}",
        "next_as_written": "运行资料中错误的说法",
        "next_verbose": "每条论断一行（加 --claims-detail 显示说法与实际情况）",
        "next_show": "查看单条论断及其出处和用例",
        "next_workbook": "开始练习册",
        "next_full": "连同慢速、编译和分布式用例",
        "broken_title": "用例损坏：以下用例失败的原因不是其声明的原因，需要修正用例本身",
        "changed_title": "torch {torch} 上判定已改变：当前 torch 的行为与目录记录不符",
        "claims_title": "论断列表：标记（图例见下）、编号、资料的判定、出处",
        "next_zh": "记分板、课程与论断的中文版",
        "interrupted_run": "运行已中断：提前停止，本记分板只统计已运行的用例",
        "report_wrote": "论断报告已写入 {path}",
        "report_partial": "运行已中断：不完整的报告写入了 {path}（标记为 \"interrupted\"），{kept} 保持原样",
        "report_partial_new": "运行已中断：不完整的报告写入了 {path}（标记为 \"interrupted\"）",
        "skip_gpu": "需要 CUDA：本机没有 GPU",
        "skip_heavy": "{heavy} 用例：快速模式下跳过（加 --full 或 -m {heavy} 运行）",
        "skip_na": "在 torch {torch} 上不适用：需要 torch{range}（{why}）",
        "skip_not_checkable": "无法检验（原因见目录中的实际情况：python -m torchclaims show ID --lang zh）",
        "claims_count": "共 {n} 条论断",
        "col_id": "编号", "lang_hint": "中文：加 --lang zh",
        "unknown_claim": "没有这条论断 {name!r}{hint}",
        "unknown_topic": "没有这个主题 {name!r}{hint}；可用的主题：{topics}",
        "did_you_mean": "（你是不是要找 {best}？{more}）", "also_close": "相近的还有：{names}",
        "claim_option": "--claim {name}：没有这条论断或主题{hint}；参见 python -m torchclaims claims --lang zh",
        "verdict_alias": "也可以用记分板的说法：right = confirmed（正确），wrong = refuted（错误）",
        "unknown_verdict": "--verdict {word}：不是判定；目录中的判定有 {zh}（英文 {labels}，或记分板的 正确、错误、部分正确）",
        "topic_head": "{topic} 是一个主题，共 {n} 条论断（查看其中一条：python -m torchclaims show ID）",
        "topic_line": "{id}  {verdict}",
        "error_line": "错误：{message}",
        "usage_choice": "{prog}：{arg} 的取值 {value} 无效，可选：{choices}",
        "usage_one": "{prog}：{arg} 后面需要一个值",
        "usage_required": "{prog}：缺少参数 {args}",
        "usage_unknown": "{prog}：无法识别的参数：{args}",
        "usage_bad_value": "{prog}：{arg} 的取值 {value} 不是有效的 {type}",
        "report_is_dir": "--claims-report {path}：这是一个文件夹；请给出文件名，例如 {path}/claims.json",
        "report_no_dir": "--claims-report {path}：文件夹 {parent} 不存在",
        "report_not_writable": "--claims-report {path}：无法写入（{reason}）",
        "lessons": "课",
        "wb_done": "通过", "wb_not_started": "未开始", "wb_fails": "未通过",
        "wb_edited": "已编辑，尚未运行", "wb_still": "还需",
        "wb_progress": "进度", "wb_last_run": "上次运行",
        "wb_created": "练习册 {root}：{n} 课，需要编写 {k} 个函数",
        "wb_wrote": "  写入 {n} 个文件：{files}",
        "wb_kept": "  保留 {n} 个已有文件（你的作业）不变：{files}",
        "wb_next": "下一步：python -m torchclaims workbook learn {dir} --lang zh   （或 watch {dir} --lang zh：每次保存后自动重跑）",
        "wb_missing": "{dir} 下没有练习册：请用 python -m torchclaims workbook init {dir} --lang zh 创建",
        "wb_not_workbook": "{dir} 不是练习册（其中没有练习册的任何文件）；请在新文件夹中用 python -m torchclaims workbook init DIR --lang zh 创建",
        "wb_incomplete": "{dir}：练习册缺少 {files}；python -m torchclaims workbook init {dir} --lang zh 会补上缺少的文件，并保留你的文件",
        "wb_chain": "[接下来是 {label}：开始运行]",
        "wb_not_folder": "{dir} 已存在，但不是文件夹",
        "wb_is_reference": "{dir} 是 reference_impl/ 本身，不是练习册",
        "wb_no_command": "workbook：请给出命令：init DIR、status DIR、learn DIR 或 watch DIR",
        "learn_needs_impl": ("--learn 需要一个练习册：加 --impl DIR（或设置 TORCHCLAIMS_IMPL）；"
                             "用 python -m torchclaims workbook init DIR --lang zh 创建"),
        "learn_not_reference": ("--learn 针对练习册运行，而不是 reference_impl/ 本身；"
                                "用 python -m torchclaims workbook init DIR --lang zh 创建"),
        "learn_no_xdist": "--learn 按顺序运行各课：请去掉 -n",
        "stub": "{label}：请编写 {function}",
        "lesson_label": "第 {number} 课（{name}）",
        "wb_progress_bad": "{path}：不是进度文件（{why}）；删除它即可，下次运行会重新生成",
        "wb_watching": "[正在监视 {root} 中 *.py 的改动；按 Ctrl-C 停止]",
        "wb_rerun": "[发现改动：重新运行]",
        "wb_stopped": "已停止监视 {root}（Ctrl-C）",
        "wb_stopped_run": "已停止本次课程运行（Ctrl-C）",
        "interrupted": "已中断（Ctrl-C）",
        "learn_hint": "提示", "learn_claims": "本课讲解的论断", "learn_spec": "未通过的用例",
        "learn_of": "本课 {n} 个用例中有 {k} 个未通过", "learn_write": "需要编写",
        "learn_done": "全部 {n} 课均已通过：练习册完成。",
        "learn_none": "没有收集到任何课程用例：请运行 pytest specs/ --impl DIR --learn --lang zh",
        "learn_stop": "{label} 未通过：让它通过才能进入下一课",
        "learn_trace": "出错位置（你的代码）",
        "learn_no_trace": "（你的文件中没有出错的帧：是用例本身的检查失败，位置如下）",
        "learn_in_spec": "异常在用例中抛出，起因是你的代码返回的结果（你的文件中没有出错的帧）",
        "learn_syntax": "你的文件无法编译",
        "learn_head": "第 {number:02d}/{total} 课（{name}）：{title}",
        "learn_more": "已通过 {n} 课：再运行一次即可进入 {label}（workbook learn 与 watch 会自动继续）",
    },
}


def table(lang: str) -> dict[str, str]:
    """The whole string table of ``lang`` ("en" or "zh")."""
    return STRINGS[lang]


class _Formatter(string.Formatter):
    """``str.format`` plus counted words: ``{n:file|files}`` is "file" when n is 1, else "files"."""

    def format_field(self, value, format_spec):
        if "|" in format_spec and isinstance(value, int):
            one, many = format_spec.split("|", 1)
            return one if value == 1 else many
        return super().format_field(value, format_spec)


_FORMATTER = _Formatter()


def fill(template: str, **fields) -> str:
    """``template`` with its fields filled in (``{n:word|words}`` agrees with the count n)."""
    return _FORMATTER.format(template, **fields)


def text(lang: str, key: str, **fields) -> str:
    """One string of ``lang``, its ``{fields}`` filled in."""
    template = STRINGS[lang][key]
    return fill(template, **fields) if fields else template


def default_lang(environ=None) -> str:
    """"zh" when the locale asks for Chinese, else "en": the first of LANGUAGE, LC_ALL,
    LC_MESSAGES and LANG that is set (the order gettext reads them) decides, so
    ``LANG=zh_CN.UTF-8`` gives Chinese and ``LC_ALL=C`` English."""
    env = os.environ if environ is None else environ
    for var in LOCALE_VARS:
        value = env.get(var, "").split(":")[0].strip()
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


VERDICT_KEYS = ("confirmed", "refuted", "partly", "version-dependent", "gpu-only", "not-checkable", "pending")
# the scoreboard's words for the material's verdict, and the catalog labels they stand for
MATERIAL_VERDICT = {"m:right": "confirmed", "m:wrong": "refuted", "m:partly": "partly"}


def verdict_from_word(word: str) -> str | None:
    """The catalog's label for a verdict typed in either language, or None: the label itself
    (``refuted``), its short or Chinese form (``version-dep``, ``错误``), or the scoreboard's
    word for the material's verdict (``wrong``, ``部分正确``)."""
    word = word.strip().lower()
    for lang in LANGS:
        for key in VERDICT_KEYS:
            if word in (key, STRINGS[lang][key].lower()):
                return key
        for key, label in MATERIAL_VERDICT.items():
            if word == STRINGS[lang][key].lower():
                return label
    return None


# argparse's own error lines (errors.Parser prefixes the program), in the learner's language
_ARGPARSE = (
    (re.compile(r"(?P<prog>.+?): argument (?P<arg>\S+?): invalid choice: (?P<value>.+) \(choose from (?P<choices>.+)\)\Z"),
     "usage_choice"),
    (re.compile(r"(?P<prog>.+?): argument (?P<arg>\S+?): expected one argument\Z"), "usage_one"),
    (re.compile(r"(?P<prog>.+?): the following arguments are required: (?P<args>.+)\Z"), "usage_required"),
    (re.compile(r"(?P<prog>.+?): unrecognized arguments: (?P<args>.+)\Z"), "usage_unknown"),
    (re.compile(r"(?P<prog>.+?): argument (?P<arg>\S+?): invalid (?P<type>\w+) value: (?P<value>.+)\Z"), "usage_bad_value"),
)


def usage_line(lang: str, message: str) -> str:
    """A usage error's one line in ``lang``: argparse's English sentences rebuilt from their
    parts (program, option, value, choices); any other message as ``translate`` gives it."""
    if lang == "en":
        return message
    for pattern, key in _ARGPARSE:
        found = pattern.match(message)
        if found:
            fields = found.groupdict()
            if "choices" in fields:
                fields["choices"] = "、".join(c.strip() for c in fields["choices"].split(","))
            return text(lang, key, **fields)
    return translate(lang, message)


# ---------------------------------------------------------------- wrapping by display width

def cell_width(s: str) -> int:
    """Terminal columns of ``s``: a wide (CJK) character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)


# The pieces a line is never broken inside: a run of narrow non-space characters (an
# identifier, a path, a command word, a number with its unit), or one wide character; each
# with the opening punctuation before it and the closing punctuation after it; and runs of spaces.
_WIDE = "\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6"
_CLOSE = "，。；：、）》」』！？”’…"
_PIECES = re.compile(rf"\s+|[（《「『“‘]*[{_WIDE}][{_CLOSE}]*|[^\s{_WIDE}]+[{_CLOSE}]*")


# a space after these (or after an option, ``-x`` / ``--name``) does not break a line: a
# command and its option values stay on one line (``--lang zh``, ``python -m torchclaims``)
_GLUE = ("python", "python3", "pytest", "torchclaims", "make", "nox", "pip")


def _glued(pieces: list[str]) -> list[str]:
    out: list[str] = []
    for piece in pieces:
        last = out[-2].split()[-1] if len(out) >= 2 and out[-1] == " " else ""
        if last and not piece.isspace() and cell_width(piece[0]) == 1 and (last.startswith("-") or last in _GLUE):
            out[-2:] = [out[-2] + " " + piece]
        else:
            out.append(piece)
    return out


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` display columns (CJK counts two), each line after
    the first starting with ``indent``. A line breaks at a space or next to a wide character,
    never inside a run of narrow characters (an identifier, a path, a command), which moves
    whole to the next line; only a run longer than a whole line is cut. Chinese closing
    punctuation stays with the character before it. A newline in ``text`` starts a new line."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line, used = "", 0
        pieces = _glued(_PIECES.findall(paragraph))
        while pieces:
            piece = pieces.pop(0)
            if " " in piece.strip() and cell_width(piece) > width - cell_width(indent):
                pieces[:0] = re.split(r"( )", piece)   # a glued command longer than a line: break at its spaces
                continue
            if piece.isspace():
                if line.strip():
                    line, used = line + " ", used + 1
                continue
            w = cell_width(piece)
            if used + w > width and line.strip():
                lines.append(line.rstrip())
                line, used = indent, cell_width(indent)
            while used + w > width and len(piece) > 1:   # longer than a whole line: cut, as a last resort
                cut = 1
                while cut < len(piece) and used + cell_width(piece[:cut + 1]) <= width:
                    cut += 1
                lines.append(line + piece[:cut])
                piece, line, used = piece[cut:], indent, cell_width(indent)
                w = cell_width(piece)
            line, used = line + piece, used + w
        lines.append(line.rstrip())
    return lines


# the messages the tooling records in English and shows in the learner's language
TRANSLATED = ("skip_gpu", "skip_heavy", "skip_na", "skip_not_checkable", "stub")


def _pattern(template: str) -> re.Pattern:
    parts, seen = [], set()
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field:
            parts.append(f"(?P={field})" if field in seen else f"(?P<{field}>.+?)")
            seen.add(field)
    return re.compile("".join(parts) + r"\Z")


_PATTERNS = {key: _pattern(STRINGS["en"][key]) for key in TRANSLATED}


def translate(lang: str, message: str) -> str:
    """``message`` in ``lang`` when it is one the tooling recorded in English (a skip reason,
    a stub's message; each its key of TRANSLATED), else unchanged (a spec's own reason)."""
    if lang == "en":
        return message
    for key, pattern in _PATTERNS.items():
        found = pattern.match(message)
        if found:
            fields = found.groupdict()
            if key == "stub" and (label := re.fullmatch(r"Lesson (\d+) \((.+)\)", fields["label"])):
                fields["label"] = text(lang, "lesson_label", number=label[1], name=label[2])
            return text(lang, key, **fields)
    return message
