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

import functools
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
        "catalog_broken": "the claim catalog is broken: {why}",
        "no_command": "this command is not available in this version of torchclaims",
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
        "wb_edited": "edited, not run yet",
        "wb_still_list": " (still to write: {functions})",
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
        "learn_passed": "✓ {label} passes: {title}",
        "learn_sides": "your implementation ({mine}) gives {mine_value}; torch ({theirs}) gives {torch_value}",
        "learn_sides_call": "your implementation ({mine}) gives {mine_value}; torch gives {torch_value}",
        "learn_stub": "{message}  ({path}, line {line})",
        "learn_none": "no lesson spec was collected: run pytest specs/ --impl DIR --learn",
        "learn_stop": "{label} fails: make it pass to unlock the next lesson",
        "learn_trace": "in your code",
        "learn_no_trace": "(no frame in your files: the spec's own check failed, here)",
        "learn_in_spec": "raised in the spec, by what your code returned (no frame in your files)",
        "learn_syntax": "your file does not compile",
        "learn_head": "Lesson {number:02d}/{total} ({name}): {title}",
        "learn_more": "{n} {n:lesson passes|lessons pass}: run again for {label} (workbook learn and watch do it by themselves)",
        # ------------------------------------------------ topics (the catalog's ids, named)
        "topic:tensors": "tensors", "topic:autograd": "autograd", "topic:modules": "modules",
        "topic:numerics": "numerics", "topic:data": "data", "topic:devices": "devices", "topic:compile": "compile",
        # ------------------------------------------------ read: the document, fact-checked (reader.py)
        "read:title": "The material, fact-checked", "read:legend": "Legend", "read:wrong": "wrong",
        "read:partly": "partly right", "read:right": "right", "read:other": "not measured here", "read:topic": "topic",
        "read:all": "all", "read:verdict": "show", "read:next": "next wrong statement", "read:lang": "language",
        "read:says": "The material says", "read:truth": "What is true", "read:source": "Source",
        "read:history": "History across torch releases", "read:run": "Run its specs", "read:close": "close",
        "read:catalog": "catalog verdict", "read:on": "on torch",
        "read:missing": "Claims that could not be placed in this copy",
        "read:none_missing": "every anchored claim was placed", "read:placed": "claims marked in the text: {n}",
        "read:no_wrong": "no wrong statement shown", "read:measured_on": "measured on torch {torch}",
        "read:no_measure": "no claims report: catalog verdicts",
        "read:also": "This passage also claims (worst first)", "read:tools": "filters and language",
        "read:missing_line": "{claim}: not placed in this copy ({where}{why})", "read:section": "§{section}: ",
        "read:why_short": "too short to fingerprint",
        "read:why_edited": "edited: {best} of {n} fingerprints found, the span differs",
        "read:why_absent": "its text is not in this copy",
        "read:wrote": "{placed} {placed:claim|claims} placed, {missing} not placed; wrote {path}",
        "read:none_found": "no claim of the catalog was found in this copy: is it one of the four documents?",
        "read:no_history_dir": "{path}: no such folder of claims reports",
        "read:no_history_json": "{path}: no claims report (*.json) in it",
        "read:no_release": "--torch {torch}: not among the reports' releases ({releases})",
        "read:torch_report": "--torch chooses a release of --history; a --report has one release",
        "read:claim_says": "The claim, as the catalog words it",
        "read:stance_asserts": "This passage states it", "read:stance_denies": "This passage states the opposite",
        "read:stance_mentions": "This passage only mentions it", "read:confidence": "the finder's confidence",
        "read:found_wrote": "{n} {n:statement|statements} found by the claim finder; wrote {path}",
        "read:found_hidden": "{n} more below confidence {shown} or mere mentions: add --all to see them",
        "read:found_none": "the claim finder found no statement of the catalog in this document",
        "read:json_wrote": "{n} {n:mark|marks}; wrote {path}",
        "read:is_a_file": "{path}: is a file, not a folder",
        "read:json_taken": "{path}: exists and was not written by this command; choose another -o",
        "read:o_suffix": "-o {path}: a {suffix} file for --format {fmt}; name a {wanted} file or a folder",
        "read:o_text": "-o is for the page or the JSON; --text prints to the terminal",
        "read:text_format": "--text and --format {fmt}: choose one",
        "read:progress": "reading {size:.1f} M characters: {percent}%",
        "doc:binary": "{path}: is a binary file, not a text document",
        "doc:empty": "{path}: is empty; give a document with text in it",
        "doc:utf16": "{path}: decoded as UTF-16 (not UTF-8)",
        "doc:bad_utf16": "{path}: starts like UTF-16 but does not decode as it",
        "doc:no_encoding": "{path}: is not text in any encoding this tool knows (a binary file?)",
        "doc:bad_encoding": "{path}: looks like {encoding} but does not decode as it",
        "doc:decoded": "{path}: decoded as {encoding} (not UTF-8); offsets are into the decoded text",
        "doc:notebook": "{path}: not a readable notebook ({why})",
        "doc:folder": "{path}: is a folder; give a document file ({formats})",
        "doc:extension": "{path}: {kind} is not a document this tool reads; give .txt, .md, .rst, .ipynb or .html",
        "doc:missing": "{path}: no such document",
        "doc:unreadable": "{path}: cannot be read ({why})",
        "lint:no_path": "{path}: no such file or folder",
        "lint:confidence": "--min-confidence {value}: give a number from 0 to 1",
        "lint:no_document": "no document (.md .rst .txt .ipynb .html) under {paths}",
        "lint:summary": "{n} {n:document|documents}, {found} {found:statement|statements} found, {wrong} wrong on torch {torch}",
        # ------------------------------------------------ a claim's history across releases (matrix.history)
        "h:right": "holds", "h:wrong": "wrong", "h:partly": "partly right",
        "h:every": "{verdict} on every release", "h:every_measured": "{verdict} on every release measured ({n} of {total})",
        "h:first": "{verdict} up to {end}", "h:last": "{verdict} since {since}", "h:last_near": "{verdict} since ≤{since}",
        "h:middle": "{verdict} from {since} to {end}", "h:middle_near": "{verdict} from ≤{since} to {end}",
        "h:middle_one": "{verdict} from {since} to {since}", "h:join": ", ", "h:device": "{device}: {history}", "h:device_join": "; ",
        "h:never": "never measured ({kinds})", "h:kind": "{n} {state}",
        "state:not-applicable": "not applicable", "state:not-measurable": "not measurable here", "state:skipped": "skipped",
        "state:broken": "broken spec", "state:contradiction": "contradiction", "state:none": "not in the report",
        # ------------------------------------------------ matrix: the claim history (matrix.py)
        "mx:title": "The claim history: what the material gets right on each torch release",
        "mx:page_title": "torchclaims: the claim history",
        "mx:runs": "{rows} claims over {n} torch runs ({devices}; {first} to {last}).",
        "mx:on_device": "{n} on {axis}", "mx:list_join": ", ",
        "mx:s_right": "- the material holds on every release where it was measured: {n} {n:claim|claims}",
        "mx:s_wrong": "- wrong on every release where it was measured: {wrong}; partly right throughout: {partly}",
        "mx:s_changed": "- changed between releases: {claims} {claims:claim|claims}, {flips} {flips:flip|flips} (listed below)",
        "mx:s_never": "- never measured (not checkable, GPU only, not applicable everywhere, ...): {n}",
        "mx:s_unexpected": ("- cells where the catalog expects another verdict: {unexpected}; cells with a broken spec "
                            "or a contradiction: {broken}"),
        "mx:s_states": ("- cells not applicable (the API does not exist on that release): {na}; not measurable here "
                        "(it exists, the runner could not measure it): {nm}; skipped by the run's selection: {skipped}"),
        "mx:flips": "Flips", "mx:flips_n": "Flips ({n})", "mx:none": "none",
        "mx:flips_head": "| claim | from | to | since | (last measured before) |",
        "mx:flips_note": ("Each flip is between two releases measured on one device; where the two are not consecutive "
                          "releases, the change landed in one of the releases between them that no report measured."),
        "mx:no_flips": "No claim changed its verdict between the releases measured.",
        "mx:flip_item": "{claim}: {before} → {after} since {since} (after {previous}, on {device})",
        "mx:table": "The table", "mx:notes": "Notes",
        "mx:legend": ("✓ the material holds on this release, ✗ it is wrong, ◐ partly right, n/a not applicable: the API "
                      "or behaviour it is about does not exist on that release (the note says what is missing), "
                      "⊘ not measurable here: it exists there, but that runner could not measure it (no GPU, another "
                      "Python, a spec newer than the report: the note says which), s skipped by the run's selection "
                      "(the note says why), ! a spec broke (fix the spec), ⚠ the specs contradict each other, ▣ a figure "
                      "claim, scored by the benchmark report and by no spec, — not in that report. Only ✓ ✗ ◐ open "
                      "or close a range. **▲ bold** marks a flip: the verdict differs from "
                      "the previous release measured on the same device; ≠ marks a cell where the catalog expects "
                      "another verdict."),
        "mx:col_runs": "runs", "mx:col_claim": "claim", "mx:col_verdict": "verdict", "mx:col_history": "history",
        "mx:row_accelerator": "accelerator", "mx:row_torchvision": "torchvision", "mx:row_python": "python",
        "mx:row_device": "device", "mx:row_commit": "commit", "mx:row_specs": "specs run", "mx:row_none": "none",
        "mx:sel_full": "all (--full)", "mx:sel_m": "quick + -m '{expr}'", "mx:sel_quick": "quick run",
        "mx:m_right": "holds", "mx:m_wrong": "wrong", "mx:m_partly": "partly right",
        "mx:f_topic": "topic", "mx:f_verdict": "catalog verdict", "mx:f_all": "all", "mx:f_changed": "only claims that changed",
        "mx:f_state": "with a cell", "mx:f_any": "of any kind", "mx:f_lang": "language",
        "mx:more": "more", "mx:shown": "{n} of {total} claims shown",
        "mx:wrote": "{rows} claims x {runs} runs; {flips} flips; wrote {md} and {html}",
        "mx:nothing_written": "(nothing written: -o PATH writes PATH.md and PATH.html)",
        "mx:newer": "not measured: the spec is newer than this report ({specs})",
        "mx:no_spec": "no spec selected in this run",
        # ------------------------------------------------ matrix --compare
        "cmp:unexpected": "UNEXPECTED", "cmp:expected": "expected", "cmp:absent": "absent",
        "cmp:change": "{tag}  {id}: {before} on {old} -> {after} on {new}{why}", "cmp:why": ": {reason}",
        "cmp:one_side": "  {id}: {measured} on {where}, {state} on {other} ({reason})",
        "cmp:not_in": "the claim is not in that report", "cmp:no_reason": "no reason given",
        "cmp:head": "Verdict changes from torch {old} to {new}: {n}",
        "cmp:one_head": "Measured in one run only (not verdict changes): {n}",
        "cmp:summary": ("{n} verdict {n:change|changes}, {u} unexpected; {k} {k:claim|claims} measured in one run only; "
                        "{tail}"),
        "cmp:tail_bad": "update the catalog or fix the specs", "cmp:tail_ok": "all verdict changes as the catalog expects",
        "cmp:d_specs": "specs run: {old} / {new}", "cmp:d_device": "device: {old} / {new}",
        "cmp:d_vision": "torchvision: {old} / {new}",
        "cmp:note": ("note: the two runs differ ({what}), so some claims are measured in one only; "
                     "compare runs made alike (the README's upgrade recipe)"),
        "mx:no_file": "{path}: no such report file", "mx:is_dir": "{path}: is a directory, not a report file",
        "mx:not_json": "{path}: not JSON ({why})", "mx:no_report": "give at least one report file",
        "mx:two_reports": "two reports for torch {name}: {first} and {second} (give one of them)",
        "mx:no_folder": "-o {output}: no folder {folder} to write into",
        "mx:compare_two": "--compare takes exactly two reports: OLD.json NEW.json",
        "mx:compare_no_o": "--compare prints its result and writes nothing: leave out -o",
        "mx:exists": "{paths} exist: pass --force to replace them, or choose another -o",
        "partial_report": ("warning: {path} is an interrupted run's partial report (\"interrupted\": true): "
                           "the claims it did not reach count as not run"),
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
        "unknown_verdict": "--verdict {word}：不是判定；目录中的判定有 {zh}（英文标签 {labels}），记分板的说法 正确、错误、部分正确 也可以",
        "topic_head": "{topic} 是一个主题，共 {n} 条论断（查看其中一条：python -m torchclaims show ID）",
        "topic_line": "{id}  {verdict}",
        "error_line": "错误：{message}",
        "catalog_broken": "论断目录已损坏：{why}",
        "no_command": "这个版本的 torchclaims 没有这条命令",
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
        "wb_edited": "已编辑，尚未运行",
        "wb_still_list": "（还需编写：{functions}）",
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
        "learn_passed": "✓ {label}通过：{title}",
        "learn_sides": "你的实现（{mine}）给出 {mine_value}，torch（{theirs}）给出 {torch_value}",
        "learn_sides_call": "你的实现（{mine}）给出 {mine_value}，torch 给出 {torch_value}",
        "learn_stub": "{message}（{path} 第 {line} 行）",
        "learn_none": "没有收集到任何课程用例：请运行 pytest specs/ --impl DIR --learn --lang zh",
        "learn_stop": "{label} 未通过：让它通过才能进入下一课",
        "learn_trace": "出错位置（你的代码）",
        "learn_no_trace": "（你的文件中没有出错的帧：是用例本身的检查失败，位置如下）",
        "learn_in_spec": "异常在用例中抛出，起因是你的代码返回的结果（你的文件中没有出错的帧）",
        "learn_syntax": "你的文件无法编译",
        "learn_head": "第 {number:02d}/{total} 课（{name}）：{title}",
        "learn_more": "已通过 {n} 课：再运行一次即可进入 {label}（workbook learn 与 watch 会自动继续）",
        "topic:tensors": "张量", "topic:autograd": "自动求导", "topic:modules": "模块",
        "topic:numerics": "数值计算", "topic:data": "数据", "topic:devices": "设备", "topic:compile": "编译",
        "read:title": "资料原文与事实核查", "read:legend": "图例", "read:wrong": "错误",
        "read:partly": "部分正确", "read:right": "正确", "read:other": "此处未测", "read:topic": "主题",
        "read:all": "全部", "read:verdict": "显示", "read:next": "下一处错误说法", "read:lang": "语言",
        "read:says": "资料的说法", "read:truth": "实际情况", "read:source": "出处",
        "read:history": "各 torch 版本上的结论", "read:run": "运行它的用例", "read:close": "关闭",
        "read:catalog": "目录中的判定", "read:on": "torch 版本",
        "read:missing": "在此副本中无法定位的论断",
        "read:none_missing": "所有已锚定的论断都已定位", "read:placed": "文中标出 {n} 条论断",
        "read:no_wrong": "当前显示的内容中没有错误说法", "read:measured_on": "在 torch {torch} 上测得",
        "read:no_measure": "没有测试报告：使用目录中的判定",
        "read:also": "这段文字涉及的其他论断（最严重的在前）", "read:tools": "筛选与语言",
        "read:missing_line": "{claim}：在此副本中未能定位（{where}{why}）", "read:section": "§{section}：",
        "read:why_short": "文字太短，无法生成指纹",
        "read:why_edited": "内容被改动过：{n} 个指纹中找到 {best} 个，这段文字不一致",
        "read:why_absent": "这份副本中没有这段文字",
        "read:wrote": "定位了 {placed} 条论断，{missing} 条未能定位；已写入 {path}",
        "read:none_found": "这份副本中没有找到目录里的任何论断：它是那四份资料之一吗？",
        "read:no_history_dir": "{path}：没有这个存放论断报告的文件夹",
        "read:no_history_json": "{path}：其中没有论断报告（*.json）",
        "read:no_release": "--torch {torch}：报告中没有这个版本（有 {releases}）",
        "read:torch_report": "--torch 用来在 --history 中选择版本；--report 只有一个版本",
        "read:claim_says": "目录中这条论断的说法",
        "read:stance_asserts": "这段文字主张此论断", "read:stance_denies": "这段文字的说法与此论断相反",
        "read:stance_mentions": "这段文字只是提到它", "read:confidence": "查找器的把握",
        "read:found_wrote": "论断查找器找到 {n} 处说法；已写入 {path}",
        "read:found_hidden": "另有 {n} 处把握低于 {shown} 或只是提及：加 --all 才显示",
        "read:found_none": "论断查找器在这份文档里没有找到目录中的任何说法",
        "read:json_wrote": "共 {n} 处标注；已写入 {path}",
        "read:is_a_file": "{path}：这是一个文件，不是文件夹",
        "read:json_taken": "{path}：文件已存在且不是本命令写的；请换一个 -o",
        "read:o_suffix": "-o {path}：--format {fmt} 不能写成 {suffix} 文件；请给一个 {wanted} 文件或文件夹",
        "read:o_text": "-o 用于网页或 JSON；--text 直接打印到终端",
        "read:text_format": "--text 与 --format {fmt} 只能选一个",
        "read:progress": "正在读取 {size:.1f} M 个字符：{percent}%",
        "doc:binary": "{path}：这是二进制文件，不是文本文档",
        "doc:empty": "{path}：文件是空的；请给一份有文字的文档",
        "doc:utf16": "{path}：按 UTF-16（而不是 UTF-8）解码",
        "doc:bad_utf16": "{path}：开头像 UTF-16，却无法按它解码",
        "doc:no_encoding": "{path}：不是本工具认识的任何编码的文本（是二进制文件吗？）",
        "doc:bad_encoding": "{path}：看起来是 {encoding} 编码，却无法按它解码",
        "doc:decoded": "{path}：按 {encoding}（而不是 UTF-8）解码；位置下标指向解码后的文本",
        "doc:notebook": "{path}：无法读取的 notebook（{why}）",
        "doc:folder": "{path}：这是文件夹；请给一个文档文件（{formats}）",
        "doc:extension": "{path}：{kind}不是本工具能读的文档；请给 .txt、.md、.rst、.ipynb 或 .html",
        "doc:missing": "{path}：没有这个文档",
        "doc:unreadable": "{path}：无法读取（{why}）",
        "lint:no_path": "{path}：没有这个文件或文件夹",
        "lint:confidence": "--min-confidence {value}：请给 0 到 1 之间的数",
        "lint:no_document": "{paths} 下没有文档（.md .rst .txt .ipynb .html）",
        "lint:summary": "{n} 份文档，找到 {found} 处说法，其中 {wrong} 处在 torch {torch} 上是错的",
        "h:right": "成立", "h:wrong": "错误", "h:partly": "部分正确",
        "h:every": "在所有版本上{verdict}", "h:every_measured": "在测过的 {n} 个版本上{verdict}（共 {total} 个）",
        "h:first": "{end} 及以前{verdict}", "h:last": "自 {since} 起{verdict}", "h:last_near": "最迟自 {since} 起{verdict}",
        "h:middle": "{since} 至 {end} 间{verdict}", "h:middle_near": "最迟自 {since} 起至 {end} 间{verdict}",
        "h:middle_one": "在 {since} 上{verdict}", "h:join": "，", "h:device": "{device} 上{history}", "h:device_join": "；",
        "h:never": "从未测过（{kinds}）", "h:kind": "{n} 个{state}",
        "state:not-applicable": "不适用", "state:not-measurable": "本机无法测量", "state:skipped": "跳过",
        "state:broken": "用例损坏", "state:contradiction": "自相矛盾", "state:none": "不在报告中",
        "mx:title": "论断的历史：资料在每个 torch 版本上说对了什么",
        "mx:page_title": "torchclaims：论断的历史",
        "mx:runs": "{rows} 条论断，{n} 次 torch 运行（{devices}；从 {first} 到 {last}）。",
        "mx:on_device": "{axis} 上 {n} 次", "mx:list_join": "，",
        "mx:s_right": "- 在每个测过的版本上资料都成立：{n} 条",
        "mx:s_wrong": "- 在每个测过的版本上都错误：{wrong} 条；始终部分正确：{partly} 条",
        "mx:s_changed": "- 在不同版本之间有变化：{claims} 条，共翻转 {flips} 次（见下文）",
        "mx:s_never": "- 从未测过（无法检验、仅GPU、处处不适用等）：{n} 条",
        "mx:s_unexpected": "- 与目录预期判定不符的格子：{unexpected} 个；用例损坏或自相矛盾的格子：{broken} 个",
        "mx:s_states": ("- 不适用的格子（该版本没有这个 API）：{na} 个；本机无法测量的格子（API 存在，但运行环境测不了）："
                        "{nm} 个；因运行时的选择而跳过：{skipped} 个"),
        "mx:flips": "结论翻转", "mx:flips_n": "结论翻转（{n}）", "mx:none": "无",
        "mx:flips_head": "| 论断 | 原结论 | 新结论 | 自 | （此前最后测过的版本） |",
        "mx:flips_note": "每次翻转都发生在同一设备上测过的两个版本之间；如果这两个版本不相邻，变化出现在二者之间某个没有报告的版本中。",
        "mx:no_flips": "在测过的版本之间，没有任何论断改变判定。",
        "mx:flip_item": "{claim}：自 {since} 起由{before}变为{after}（此前 {previous}，{device}）",
        "mx:table": "总表", "mx:notes": "注释",
        "mx:legend": ("✓ 资料在该版本上成立，✗ 错误，◐ 部分正确；n/a 不适用：该版本上还没有所涉及的 API 或行为（注释说明缺什么）；"
                      "⊘ 本机无法测量：该版本有这个功能，但那次运行测不了（没有 GPU、需要别的 Python、用例比报告新：注释说明原因）；"
                      "s 因运行时的选择而跳过（注释说明原因）；! 用例损坏（需修正用例）；⚠ 用例之间互相矛盾；"
                      "▣ 数字论断，由基准测试报告判定，不由任何用例判定；— 不在那份报告中。"
                      "只有 ✓ ✗ ◐ 会开始或结束一段区间。**▲ 粗体** 表示翻转：判定与同一设备上前一个测过的版本不同；"
                      "≠ 表示目录预期的是另一个判定。"),
        "mx:col_runs": "运行", "mx:col_claim": "论断", "mx:col_verdict": "判定", "mx:col_history": "历史",
        "mx:row_accelerator": "加速器", "mx:row_torchvision": "torchvision", "mx:row_python": "python",
        "mx:row_device": "设备", "mx:row_commit": "提交", "mx:row_specs": "运行的用例", "mx:row_none": "无",
        "mx:sel_full": "全部（--full）", "mx:sel_m": "快速模式 + -m '{expr}'", "mx:sel_quick": "快速模式",
        "mx:m_right": "成立", "mx:m_wrong": "错误", "mx:m_partly": "部分正确",
        "mx:f_topic": "主题", "mx:f_verdict": "目录中的判定", "mx:f_all": "全部", "mx:f_changed": "只看有变化的论断",
        "mx:f_state": "含有这种格子", "mx:f_any": "任意", "mx:f_lang": "语言",
        "mx:more": "详情", "mx:shown": "显示 {n} / {total} 条论断",
        "mx:wrote": "{rows} 条论断 × {runs} 次运行；翻转 {flips} 次；已写入 {md} 和 {html}",
        "mx:nothing_written": "（没有写入文件：-o PATH 会写入 PATH.md 和 PATH.html）",
        "mx:newer": "未测：用例比这份报告新（{specs}）",
        "mx:no_spec": "这次运行没有选中任何用例",
        "cmp:unexpected": "意外", "cmp:expected": "预期之中", "cmp:absent": "缺失",
        "cmp:change": "{tag}  {id}：在 {old} 上{before}，在 {new} 上{after}{why}", "cmp:why": "：{reason}",
        "cmp:one_side": "  {id}：在 {where} 上{measured}，在 {other} 上{state}（{reason}）",
        "cmp:not_in": "那份报告中没有这条论断", "cmp:no_reason": "没有给出原因",
        "cmp:head": "从 torch {old} 到 {new} 的判定变化：{n} 条",
        "cmp:one_head": "只在一次运行中测到（不算判定变化）：{n} 条",
        "cmp:summary": "判定变化 {n} 条，其中意外 {u} 条；只在一次运行中测到的论断 {k} 条；{tail}",
        "cmp:tail_bad": "请更新目录或修正用例", "cmp:tail_ok": "所有判定变化都在目录预期之中",
        "cmp:d_specs": "运行的用例：{old} / {new}", "cmp:d_device": "设备：{old} / {new}",
        "cmp:d_vision": "torchvision：{old} / {new}",
        "cmp:note": "注意：两次运行的条件不同（{what}），所以有些论断只在其中一次测到；请比较条件相同的两次运行（见 docs/history.md 的升级步骤）",
        "mx:no_file": "{path}：没有这个报告文件", "mx:is_dir": "{path}：这是一个文件夹，不是报告文件",
        "mx:not_json": "{path}：不是 JSON（{why}）", "mx:no_report": "请至少给出一个报告文件",
        "mx:two_reports": "torch {name} 有两份报告：{first} 和 {second}（只给其中一份）",
        "mx:no_folder": "-o {output}：没有可以写入的文件夹 {folder}",
        "mx:compare_two": "--compare 需要正好两份报告：OLD.json NEW.json",
        "mx:compare_no_o": "--compare 只打印结果、不写文件：请去掉 -o",
        "mx:exists": "{paths} 已存在：加 --force 替换，或换一个 -o",
        "partial_report": "注意：{path} 是一次中断运行留下的不完整报告（\"interrupted\": true），没有跑到的论断按未运行计",
    },
}


def table(lang: str) -> dict[str, str]:
    """The whole string table of ``lang`` ("en" or "zh")."""
    return STRINGS[lang]


def section(lang: str, prefix: str) -> dict[str, str]:
    """The strings of ``lang`` whose keys start with ``prefix`` ("read:"), under their short names."""
    return {k[len(prefix):]: v for k, v in STRINGS[lang].items() if k.startswith(prefix)}


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
# command, its words and its option values stay on one line (``python -m torchclaims show ID --lang zh``)
_GLUE = ("python", "python3", "pytest", "torchclaims", "make", "nox", "pip", "specs/",
         "show", "claims", "workbook", "read", "matrix", "init", "learn", "watch", "status", "ID", "DIR")


def _glued(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The pieces' spans, a command word or an option joined with what follows one space after it."""
    out: list[tuple[int, int]] = []
    for s, e in spans:
        if out and text[out[-1][1]:s] == " " and cell_width(text[s]) == 1:
            last = text[out[-1][0]:out[-1][1]].split()[-1]
            if last.startswith("-") or last in _GLUE:
                out[-1] = (out[-1][0], e)
                continue
        out.append((s, e))
    return out


def wrap_spans(text: str, width: int, indent: int = 0) -> list[tuple[int, int]]:
    """(start, end) in ``text`` of each line of ``wrap`` (lines after the first are ``indent``
    columns narrower): what a renderer that keeps styles (rich) slices by."""
    width = max(width, indent + 2)
    lines: list[tuple[int, int]] = []
    offset = 0
    for paragraph in text.split("\n"):
        spans = [(offset + m.start(), offset + m.end()) for m in _PIECES.finditer(paragraph)
                 if not m.group(0).isspace()]
        queue = _glued(text, spans)
        start = end = None
        opening = True   # the paragraph's first line keeps its leading spaces (a label's indent)
        used, room = 0, width - (indent if lines else 0)
        while queue:
            s, e = queue.pop(0)
            piece = text[s:e]
            if " " in piece and cell_width(piece) > width - indent:   # a glued command longer than a line
                queue[:0] = [(s + m.start(), s + m.end()) for m in re.finditer(r"\S+", piece)]
                continue
            if start is not None and used + cell_width(text[end:e]) > room:
                lines.append((start, end))
                start, used, room = None, 0, width - indent
            if start is None:
                while cell_width(text[s:e]) > room and e - s > 1:   # longer than a whole line: cut, as a last resort
                    cut = s + 1
                    while cut < e and cell_width(text[s:cut + 1]) <= room:
                        cut += 1
                    lines.append((s, cut))
                    s, room = cut, width - indent
                if opening and cell_width(text[offset:e]) <= room:
                    s = offset
                start, used, opening = s, cell_width(text[s:e]), False
            else:
                used += cell_width(text[end:e])
            end = e
        lines.append((start, end) if start is not None else (offset, offset))
        offset += len(paragraph) + 1
    return lines


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` display columns (CJK counts two), each line after
    the first starting with ``indent``. A line breaks at a space or next to a wide character,
    never inside a run of narrow characters (an identifier, a path, a command), which moves
    whole to the next line; only a run longer than a whole line is cut. A command and its
    options stay together where they fit; Chinese punctuation stays with its neighbour. A
    newline in ``text`` starts a new line."""
    spans = wrap_spans(text, width, cell_width(indent))
    return [(indent if i and e > s else "") + text[s:e] for i, (s, e) in enumerate(spans)]


# the messages the tooling records in English and shows in the learner's language
TRANSLATED = ("skip_gpu", "skip_heavy", "skip_na", "skip_not_checkable", "stub",
              "read:no_history_dir", "read:no_history_json", "read:no_release", "read:torch_report",
              "read:why_short", "read:why_edited", "read:why_absent", "mx:newer", "mx:no_spec",
              "mx:no_file", "mx:is_dir", "mx:not_json", "mx:no_report", "mx:two_reports", "mx:no_folder",
              "mx:compare_two", "mx:compare_no_o", "mx:exists",
              "catalog_broken", "no_command",
              "read:text_format", "read:o_text", "read:is_a_file", "read:json_taken", "read:o_suffix",
              "doc:binary", "doc:empty", "doc:utf16", "doc:bad_utf16", "doc:no_encoding", "doc:bad_encoding",
              "doc:decoded", "doc:notebook", "doc:folder", "doc:extension", "doc:missing", "doc:unreadable",
              "lint:no_path", "lint:confidence", "lint:no_document")


def _pattern(template: str) -> re.Pattern:
    parts, seen = [], set()
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field:
            parts.append(f"(?P={field})" if field in seen else f"(?P<{field}>.+?)")
            seen.add(field)
    return re.compile("".join(parts) + r"\Z")


@functools.cache
def _patterns() -> dict[str, re.Pattern]:
    """The English messages translate() recognises, compiled when a message is first translated."""
    return {key: _pattern(STRINGS["en"][key]) for key in TRANSLATED}


def translate(lang: str, message: str) -> str:
    """``message`` in ``lang`` when it is one the tooling recorded in English (a skip reason,
    a stub's message; each its key of TRANSLATED), else unchanged (a spec's own reason)."""
    if lang == "en":
        return message
    for key, pattern in _patterns().items():
        found = pattern.match(message)
        if found:
            fields = found.groupdict()
            if key == "stub" and (label := re.fullmatch(r"Lesson (\d+) \((.+)\)", fields["label"])):
                fields["label"] = text(lang, "lesson_label", number=label[1], name=label[2])
            return text(lang, key, **fields)
    return message


# ------------------------------------------------ the benchmark report (torchclaims/bench/): keys bench_*
# Each language's own sentences, filled with the figures (torchclaims.bench.phrases renders them).
_BENCH = {
    "en": {
        "exact": "exact", "ci_none": "none (too few rounds)", "noisy_mark": "(noisy)", "one_exact": "1 (exact)",
        "not_measured": "not measured",
        "word_agrees": "agrees", "word_weaker": "weaker", "word_stronger": "stronger", "word_holds": "holds",
        "word_contradicts": "contradicts", "word_inconclusive": "inconclusive", "word_higher": "higher",
        "word_lower": "lower", "word_differs": "differs", "word_measured": "measured",
        "word_not_measured": "not measured", "word_compare_by_hand": "compare by hand",
        "why_not_measured": "no numeric measurement in the results",
        "why_no_figure": "the material gives no figure",
        "why_by_hand": "the material's figure {material} is neither a number nor a bound",
        "why_no_interval": "no interval: too few rounds (at least 6 are needed)",
        "why_no_interval_n": "no interval: {n} {n:round|rounds} (at least 6 are needed)",
        "interval": "[{low}, {high}]", "exactly": "exactly {value}",
        "whole_interval": "the whole interval", "whole_exact": "the exact value",
        "noisy_note": "; noisy: relative IQR {rel} > {limit}, a flag only, the interval already carries the spread",
        "side_speedup": "a speed-up", "side_slowdown": "a slowdown", "side_saving": "a saving",
        "side_increase": "an increase", "side_overhead": "an overhead", "side_gain": "a gain",
        "side_above": "a value above {threshold}", "side_below": "a value below {threshold}",
        "what_figure": "the figure is", "what_fraction_left": "the fraction left is",
        "what_time_ratio": "the time ratio is", "what_effect": "the effect is",
        "why_no_effect": "{interval}: no effect, the material claims {claimed}{noisy}",
        "why_other_side_to_none": ("the interval {interval} reaches {threshold} (no effect) only from the other side: "
                                   "at best no effect, the material claims {claimed}{noisy}"),
        "why_opposite": "measured {here} (interval {interval}), the material claims {claimed}{noisy}",
        "why_rules_out": ("the interval {interval} contains {threshold} (no effect) and rules out the material's "
                          "{target}: at its far end {what} {factor} x the material's{noisy}"),
        "why_contains_both": ("the interval {interval} contains both {threshold} (no effect) and the material's "
                              "{target} (within {tolerance}){noisy}"),
        "why_contains_none": "the interval {interval} contains {threshold}, where there is no effect either way{noisy}",
        "why_holds": "{whole} {span} is {material}{noisy}",
        "why_weaker": ("same direction, but short of the material's: {what} {factor} x the material's ({whole} "
                       "outside ±{tolerance}){noisy}"),
        "why_stronger": ("same direction, beyond the material's: {what} {factor} x the material's ({whole} outside "
                         "±{tolerance}){noisy}"),
        "why_agrees": "same direction, {what} {factor} x the material's (the interval reaches ±{tolerance} of it){noisy}",
        "why_zero_inside": "the material says 0; the interval {interval} reaches ±{band}{noisy}",
        "why_zero_outside": "the material says 0; the interval {interval} stays outside ±{band}{noisy}",
        "why_lower": "{ratio} x the material's figure ({whole} below ±{tolerance}){noisy}",
        "why_higher": "{ratio} x the material's figure ({whole} above ±{tolerance}){noisy}",
        "why_magnitude_agrees": "{ratio} x the material's figure (the interval reaches ±{tolerance} of it){noisy}",
        "class_of": "{vendor} {kind}", "class_unknown": "a GPU of no known class",
        "class_datacentre": "data-centre training GPU", "class_geforce": "consumer GeForce GPU",
        "class_instinct": "Instinct data-centre GPU",
        "ctx_cpu": "the figure is for {hardware}; measured on this CPU, which can neither confirm nor refute it",
        "ctx_absolute": ("an absolute figure of the {hardware} (at a batch the material does not give); measured on "
                         "{device}, which can neither confirm nor refute it"),
        "ctx_not_comparable": ("the figure is for {hardware} ({theirs}); measured on {device} ({ours}), not "
                               "comparable hardware"),
        "ctx_gpu_only": "the claim needs a GPU (catalog: gpu-only); this row was measured on the CPU",
        "on_device": "on {device}: ", "on_their_device": "on {device}, the material's {hardware}: ",
        "on_comparable": "on {device} against the material's {hardware} (both {vendor} {kind}s): ",
        "title": "# Benchmark report", "results_line": "Results: `{name}`, run {when}.",
        "unknown_time": "at an unknown time", "h_machine": "machine", "h_cpu": "CPU",
        "h_cores": ", {n} logical cores", "unknown": "unknown", "unknown_cpu": "unknown CPU",
        "not_installed": "not installed", "absent": "absent", "h_threads": "torch threads",
        "h_wall": "suite wall time (collection to JSON)", "minutes": "{m} min",
        "h_load_before": "load average (1, 5, 15 min) before the run",
        "h_load_end": "load average (1, 5, 15 min) at the end of the run (still holding the run's own process)",
        "h_load_after": "load average (1, 5, 15 min) after the run{settled}",
        "h_settled": " ({s} s after the end, once the run's own load had decayed)",
        "h_others": "CPU used by other processes during the run (/proc/stat minus this run's own)",
        "cores_on_average": "{n} cores on average",
        "h_rounds": "interleaved rounds per comparison (TORCHCLAIMS_BENCH_ROUNDS)",
        "rounds_value": "{n} (data loaders at most 15, resident memory at most 9)", "h_command": "command",
        "warn_no_load": "> **Warning:** the load average was not recorded; the noise of this run is unknown.",
        "warn_busy": ("> **Warning: the machine was busy** (1-minute load average {worst} >= {limit} before or after "
                      "the run). Other processes share the CPU, so timings are slower and noisier than on a quiet "
                      "machine; rows that competed with other processes are marked †. Rerun on a quiet machine "
                      "before drawing conclusions."),
        "warn_others": ("> **Warning: other processes used the CPU during the run** ({others} cores on average, >= "
                        "{limit}). They competed with the benchmarks even if the load was low at both ends; rerun on "
                        "a quiet machine before drawing conclusions."),
        "warn_smoke": ("> **Warning: smoke run** (TORCHCLAIMS_BENCH_SMOKE=1): few rounds and reduced sizes, to prove "
                       "the benchmarks work. Its verdicts are not results."),
        "method_title": "## Method",
        "method_rounds": ("Each benchmark measures the quantity the material states, at the material's scale where it "
                          "gives one (or the largest this machine allows; the *scale* of each row says which). The two "
                          "sides of a comparison are measured in **interleaved rounds** (rotating order, so a slow "
                          "phase of the machine hits both), each round a `torch.utils.benchmark.Timer` (or a fresh "
                          "subprocess, for resident memory). A ratio is the **ratio of the two medians**, never a mean "
                          "of ratios. torch.compile benchmarks check the compiled output against eager before timing, "
                          "warm up explicitly, and report compile latency apart from steady state."),
        "method_figures": ("Per row: the **median**, its **{confidence} confidence interval** (one quantity: the "
                           "distribution-free interval between two order statistics of the rounds, from the binomial "
                           "distribution; a ratio of medians: a paired percentile bootstrap over rounds), the **relative "
                           "IQR** (interquartile range / median of the rounds; the worse side of a pair) and the number of "
                           "**rounds**. Byte counts are *exact* (deterministic), their interval is the value."),
        "rule_intro": ("**The verdict rule**: a verdict says what the 95% interval rules out; the relative IQR never "
                       "decides one. For a figure with a direction (a speed-up, a saving, an overhead, a bound such as "
                       "\"< 1\"), with *no effect* at 1x or 0%:"),
        "rule_contradicts": ("- **contradicts**: the interval rules out any effect the way the material claims: it lies "
                             "at no effect (exactly 0% measured against a claimed 12% saving: a precise no-effect) or "
                             "beyond it the other way (a slowdown against a claimed speed-up), whatever the tolerance; "
                             "or it contains no effect and rules out the material's figure (the whole interval short of "
                             "the ±{tolerance} band around it);"),
        "rule_inconclusive": ("- **inconclusive**: the interval contains no effect and does not rule out the material's "
                              "figure (or the material gives only a direction), or there is no interval (fewer than 6 "
                              "rounds, one cold compile);"),
        "rule_agrees": ("- the interval excludes no effect, the material's way: a bound **holds**; a figure **agrees** "
                        "when the interval reaches ±{tolerance} of the material's figure, and is **weaker** / "
                        "**stronger** when the whole interval lies short of / beyond that band. A figure is compared "
                        "both as itself and as the effect it stands for, and the farther of the two counts: a "
                        "percentage also as the ratio it stands for (a 98% saving leaves 1/50 of the memory, an 80% one "
                        "1/5), a ratio also as its distance from 1 (1.06x is a third of the 18% gain of 1.18x)."),
        "rule_magnitude": ("A plain magnitude (MB) **agrees** when its interval reaches the band, else it is **higher** / "
                           "**lower**. A relative IQR above {noisy} marks a row **noisy** (as `torch.utils.benchmark` "
                           "warns), a flag beside the verdict, never a verdict: the interval already carries the spread."),
        "rule_hardware": ("**Hardware**: a row records the device it ran on. A figure the material gives for other "
                          "hardware is judged only on comparable hardware, named in the row: a relative figure (a "
                          "speed-up, a memory ratio, a saving, a compile latency) on a GPU of the same vendor and class "
                          "(an H200 or H100 for the material's A100: NVIDIA data-centre training GPUs; a GeForce RTX for "
                          "its RTX 3090), an absolute one (images/s or GB at a batch the material does not give) only on "
                          "the very hardware it names. Everything else, and every row measured on a CPU against a GPU's "
                          "figure, is listed under *Context*, with the reason."),
        "summary_title": "## Summary",
        "summary": ("{n} {n:row|rows} judged on {where}{counts}; {context} context rows (figures for hardware not "
                    "comparable with the one measured); {noisy} rows with a relative IQR above {limit}."),
        "summary_colon": ": ", "count_item": "{n} {word}", "list_sep": ", ", "list_sep_long": "; ",
        "bare": ("> **{n} judged {n:row has|rows have} no interval**: fewer than 6 rounds were recorded, or the results "
                 "come from a benchmark version that recorded no raw rounds. Such a row is *inconclusive*, never a "
                 "verdict."),
        "skipped_head": "{n} {n:benchmark|benchmarks} skipped in this run:", "no_reason": "no reason given",
        "by_claim_title": "### What the material got right and wrong about speed and memory, claim by claim",
        "by_claim_columns": "claim | quantity | material's figure | measured (95% CI) | unit | verdict",
        "by_claim_after": ("The reason for each verdict is in the claim's table below; {n} {n:row|rows} for other "
                           "hardware {n:is|are} context, without a verdict."),
        "chart_alt": "![measured medians with 95% intervals next to the material's figures]({chart})",
        "verdicts_title": "## Verdicts: {n} {n:claim|claims}, measured on {where}",
        "verdicts_none": "No row could be judged on {where}.",
        "where_cuda": "this machine (its CPU and its {cuda})", "where_cpu": "this machine (its CPU; no CUDA device)",
        "claim_catalog": " (catalog: {verdict}; {source})", "claim_material": "> Material: {says}",
        "claim_show": "Claim and specs: `python -m torchclaims show {cid}`",
        "verdict_columns": "quantity | scale | median | 95% CI | rel. IQR | rounds | material | unit | verdict | why | method",
        "not_stated": "not stated",
        "context_columns": ("quantity | measured here (median) | 95% CI | rel. IQR | rounds | material's figure | unit | "
                            "why it cannot confirm the figure | scale and method"),
        "context_title": "## Context: figures for other hardware",
        "context_intro": ("These rows set a figure the material gives for other hardware next to what was measured "
                          "here. They carry no verdict: a speed-up, a latency or a memory figure depends on the "
                          "balance of compute, memory bandwidth and per-call overhead of the device it was measured "
                          "on, so a measurement on hardware of another kind (a CPU, another class of GPU) can neither "
                          "confirm nor refute an A100's or an RTX 3090's figure; each row says why it is here."),
        "context_cpu": (" The ResNet-50 rows measured on the CPU are the **CPU counterpart of the material's A100 "
                        "table** (000 §5.3): the same model and modes, on this CPU, at a small batch; the other compile "
                        "rows time the material's small models the same way. A cold compile is measured once (one "
                        "round: no interval); each costs tens of seconds on a small CPU."),
        "context_gpu": ("To measure the GPU figures themselves on a machine with CUDA (the gpu-marked benchmarks "
                        "skip with a reason elsewhere; rows measured on a comparable GPU become verdicts):"),
        "context_none": "No context rows in this run.",
        "missing_title": "## Claims with a benchmark that did not run here",
        "missing_columns": "claim | catalog | benchmark | why",
        "needs_cuda": "needs CUDA", "not_in_results": "not in this results file",
        "all_title": "## All benchmarks (pytest-benchmark statistics of the timed step)",
        "all_columns": "benchmark | median | IQR | min | rounds | load before, after | others' CPU (cores) | claims",
        "footer": ("{n} benchmarks; † = other processes took at least {others} cores while it ran (in older results "
                   "without that figure: the 1-minute load average was >= {load}); time inside pytest-benchmark's "
                   "timed rounds: {total} s. Rendered {date} UTC by `python -m torchclaims bench-report`."),
        "figure_context_only": "no verdict yet: every row is for hardware not comparable with the material's (context)",
        "figure_reason": "measured by the benchmark report, not by a spec (python -m torchclaims show ID)",
        "figures_none": ("{n} figure {n:claim is|claims are} measured by the benchmark report, not by specs; none has a "
                         "verdict from comparable hardware yet (reports/bench/report.md)"),
        "figures_some": "Figure claims, measured by the benchmark report ({n} with a verdict of {total}):",
        "figure_history": "measured by the benchmark report, not by specs: {verdict}",
    },
    "zh": {
        "exact": "精确值", "ci_none": "无（轮数太少）", "noisy_mark": "（噪声大）", "one_exact": "1（精确值）",
        "not_measured": "未测得",
        "word_agrees": "相符", "word_weaker": "偏弱", "word_stronger": "偏强", "word_holds": "成立",
        "word_contradicts": "相矛盾", "word_inconclusive": "无法判定", "word_higher": "偏高",
        "word_lower": "偏低", "word_differs": "不同", "word_measured": "已测量",
        "word_not_measured": "未测得", "word_compare_by_hand": "需人工比较",
        "why_not_measured": "结果里没有数值测量",
        "why_no_figure": "资料没有给出数字",
        "why_by_hand": "资料的数字 {material} 既不是数值，也不是上下界",
        "why_no_interval": "没有置信区间：轮数太少（至少要 6 轮）",
        "why_no_interval_n": "没有置信区间：只测了 {n} 轮（至少要 6 轮）",
        "interval": "[{low}, {high}]", "exactly": "恰好为 {value}",
        "whole_interval": "整个区间", "whole_exact": "精确值",
        "noisy_note": "；噪声大：相对 IQR 为 {rel}，超过 {limit}，这只是一个标记，区间本身已经体现了离散程度",
        "side_speedup": "加速", "side_slowdown": "变慢", "side_saving": "节省",
        "side_increase": "增加", "side_overhead": "额外开销", "side_gain": "时间减少",
        "side_above": "高于 {threshold}", "side_below": "低于 {threshold}",
        "what_figure": "数值", "what_fraction_left": "剩余比例",
        "what_time_ratio": "时间比", "what_effect": "效应",
        "why_no_effect": "实测{interval}，即没有效应，而资料说的是{claimed}{noisy}",
        "why_other_side_to_none": "区间 {interval} 只从另一侧碰到 {threshold}（无效应）：最多算没有效应，而资料说的是{claimed}{noisy}",
        "why_opposite": "实测是{here}（区间 {interval}），而资料说的是{claimed}{noisy}",
        "why_rules_out": "区间 {interval} 含有 {threshold}（无效应），又排除了资料的 {target}：即便取区间远端，{what}也只有资料的 {factor} 倍{noisy}",
        "why_contains_both": "区间 {interval} 既含有 {threshold}（无效应），也含有资料的 {target}（误差 {tolerance} 以内）{noisy}",
        "why_contains_none": "区间 {interval} 含有 {threshold}，在这一点上哪个方向都没有效应{noisy}",
        "why_holds": "{whole} {span} 满足 {material}{noisy}",
        "why_weaker": "方向与资料一致，但达不到资料的数字：{what}是资料的 {factor} 倍（{whole}都落在 ±{tolerance} 以外）{noisy}",
        "why_stronger": "方向与资料一致，而且超过资料的数字：{what}是资料的 {factor} 倍（{whole}都落在 ±{tolerance} 以外）{noisy}",
        "why_agrees": "方向与资料一致，{what}是资料的 {factor} 倍（区间进入资料数字 ±{tolerance} 的范围）{noisy}",
        "why_zero_inside": "资料说是 0；区间 {interval} 进入了 ±{band} 的范围{noisy}",
        "why_zero_outside": "资料说是 0；区间 {interval} 始终在 ±{band} 以外{noisy}",
        "why_lower": "实测是资料数字的 {ratio} 倍（{whole}都低于 ±{tolerance} 的范围）{noisy}",
        "why_higher": "实测是资料数字的 {ratio} 倍（{whole}都高于 ±{tolerance} 的范围）{noisy}",
        "why_magnitude_agrees": "实测是资料数字的 {ratio} 倍（区间进入它 ±{tolerance} 的范围）{noisy}",
        "class_of": "{vendor} {kind}", "class_unknown": "级别不明的 GPU",
        "class_datacentre": "数据中心训练 GPU", "class_geforce": "消费级 GeForce GPU",
        "class_instinct": "Instinct 数据中心 GPU",
        "ctx_cpu": "资料的数字针对 {hardware}；这一行是在本机 CPU 上测的，既不能证实也不能否定它",
        "ctx_absolute": "这是 {hardware} 上的绝对数字（资料没说批大小）；这一行是在 {device} 上测的，既不能证实也不能否定它",
        "ctx_not_comparable": "资料的数字针对 {hardware}（{theirs}）；这一行是在 {device}（{ours}）上测的，两者硬件不可比",
        "ctx_gpu_only": "这条论断需要 GPU（目录标为 gpu-only）；这一行却是在 CPU 上测的",
        "on_device": "在 {device} 上：", "on_their_device": "在 {device} 上，也就是资料用的 {hardware}：",
        "on_comparable": "在 {device} 上，对照资料用的 {hardware}（两者都是 {vendor} {kind}）：",
        "title": "# 基准测试报告", "results_line": "结果文件：`{name}`，运行时间 {when}。",
        "unknown_time": "不详", "h_machine": "机器", "h_cpu": "CPU",
        "h_cores": "，{n} 个逻辑核心", "unknown": "不详", "unknown_cpu": "不详的 CPU",
        "not_installed": "未安装", "absent": "无", "h_threads": "torch 线程数",
        "h_wall": "整套基准的墙钟时间（从收集到写出 JSON）", "minutes": "{m} 分钟",
        "h_load_before": "运行前的平均负载（1、5、15 分钟）",
        "h_load_end": "运行结束时的平均负载（1、5、15 分钟，仍算上本次运行自己的进程）",
        "h_load_after": "运行后的平均负载（1、5、15 分钟）{settled}",
        "h_settled": "（结束 {s} 秒之后，本次运行自己的负载已经消退）",
        "h_others": "运行期间其他进程用掉的 CPU（/proc/stat 减去本次运行自己的）",
        "cores_on_average": "平均 {n} 个核心",
        "h_rounds": "每项比较的交错轮数（TORCHCLAIMS_BENCH_ROUNDS）",
        "rounds_value": "{n}（数据加载器最多 15 轮，常驻内存最多 9 轮）", "h_command": "命令",
        "warn_no_load": "> **警告：**没有记录平均负载，这次运行的噪声有多大无从得知。",
        "warn_busy": ("> **警告：机器当时很忙**（运行前或运行后的 1 分钟平均负载为 {worst}，不低于 {limit}）。"
                      "其他进程在和基准争用 CPU，计时会比空闲机器上更慢、更不稳定；与其他进程争用过的行标有 †。"
                      "下结论之前，请在空闲的机器上重跑。"),
        "warn_others": ("> **警告：运行期间有其他进程占用 CPU**（平均 {others} 个核心，不低于 {limit}）。"
                        "即使首尾的负载都不高，它们也和基准争用过 CPU；下结论之前，请在空闲的机器上重跑。"),
        "warn_smoke": ("> **警告：这是冒烟运行**（TORCHCLAIMS_BENCH_SMOKE=1）：轮数少、规模小，只用来证明基准能跑通，"
                       "其中的结论不算结果。"),
        "method_title": "## 方法",
        "method_rounds": ("每个基准测量资料所说的那个量；资料给了规模就按资料的规模，否则取本机能承受的最大规模（每行的“规模”一栏写明）。"
                          "一次比较的两方按**交错轮次**测量（顺序轮换，机器变慢的时段会同时落到两方头上），"
                          "每一轮是一次 `torch.utils.benchmark.Timer`（常驻内存则是一个新的子进程）。"
                          "比值一律是**两个中位数之比**，从不对逐轮比值取平均。torch.compile 的基准在计时前先核对编译结果与 eager 一致，"
                          "显式预热，并把编译延迟和稳定状态分开报告。"),
        "method_figures": ("每行给出：**中位数**；它的 **{confidence} 置信区间**（单个量：由二项分布确定的两个顺序统计量之间的区间，"
                           "不依赖分布；中位数之比：按轮次配对的百分位自助法）；**相对 IQR**（各轮的四分位距除以中位数，"
                           "成对比较取较差的一方）；以及**轮数**。字节数是*精确值*（确定性的），区间就是它本身。"),
        "rule_intro": ("**判定规则**：结论只说 95% 置信区间排除了什么；相对 IQR 从不决定结论。"
                       "对有方向的数字（加速、节省、额外开销，或“< 1”这样的界限），以 1 倍或 0% 为*无效应*："),
        "rule_contradicts": ("- **相矛盾**：区间排除了资料所说方向上的任何效应——它正好落在无效应上（资料说节省 12%，实测恰好 0%："
                             "确切的无效应），或落在另一侧（资料说加速，实测变慢），与容差无关；"
                             "或者区间含有无效应，同时又排除了资料的数字（整个区间都达不到资料数字 ±{tolerance} 的范围）；"),
        "rule_inconclusive": ("- **无法判定**：区间含有无效应，却排除不了资料的数字（或资料只给了方向），"
                              "或者根本没有区间（不足 6 轮，例如只冷编译一次）；"),
        "rule_agrees": ("- 区间按资料的方向排除了无效应：界限**成立**；区间进入资料数字 ±{tolerance} 的范围时，数字**相符**，"
                        "整个区间都没到或都超过这个范围时，分别是**偏弱**或**偏强**。一个数字既按它本身比较，"
                        "也按它代表的效应比较，取相差更远的那个：百分比也按它代表的比值比较（节省 98% 剩下 1/50 的内存，"
                        "节省 80% 剩下 1/5），比值也按它离 1 的距离比较（1.06 倍的收益只有 1.18 倍的三分之一）。"),
        "rule_magnitude": ("单纯的量（MB）在区间进入该范围时**相符**，否则**偏高**或**偏低**。相对 IQR 超过 {noisy} 的行标为"
                           "**噪声大**（与 `torch.utils.benchmark` 的警告相同），这只是结论旁边的标记，不是结论：区间已经体现了离散程度。"),
        "rule_hardware": ("**硬件**：每行记录它运行的设备。资料针对其他硬件给出的数字，只在行中写明的可比硬件上判定："
                          "相对的数字（加速比、内存比、节省、编译延迟）在同一厂商、同一级别的 GPU 上判定"
                          "（资料用 A100 时，H200 或 H100 都是 NVIDIA 数据中心训练 GPU；资料用 RTX 3090 时，用 GeForce RTX）；"
                          "绝对的数字（资料没说批大小的 images/s 或 GB）只在它所写的那款硬件上判定。"
                          "其余各行，以及所有在 CPU 上对照 GPU 数字测得的行，都列在*参照*一节，并写明原因。"),
        "summary_title": "## 摘要",
        "summary": ("在{where}上判定了 {n} 行{counts}；{context} 行仅作参照（资料的数字针对的硬件与实测硬件不可比）；"
                    "{noisy} 行的相对 IQR 超过 {limit}。"),
        "summary_colon": "：", "count_item": "{word} {n} 行", "list_sep": "，", "list_sep_long": "；",
        "bare": ("> **判定的行中有 {n} 行没有置信区间**：记录的轮数不足 6 轮，或者结果来自不记录原始轮次的旧版基准。"
                 "这样的行只能算*无法判定*，不是结论。"),
        "skipped_head": "本次运行跳过了 {n} 个基准：", "no_reason": "没有给出原因",
        "by_claim_title": "### 逐条论断：资料关于速度和内存的说法，哪里对、哪里错",
        "by_claim_columns": "论断 | 测量的量 | 资料的数字 | 实测（95% 置信区间） | 单位 | 结论",
        "by_claim_after": "每个结论的理由写在下面该论断的表格里；另有 {n} 行针对其他硬件，只作参照，不下结论。",
        "chart_alt": "![实测中位数及其 95% 置信区间，旁边是资料的数字]({chart})",
        "verdicts_title": "## 结论：{n} 条论断，在{where}上测量",
        "verdicts_none": "在{where}上没有一行可以判定。",
        "where_cuda": "本机（CPU 与 {cuda}）", "where_cpu": "本机（只有 CPU，没有 CUDA 设备）",
        "claim_catalog": "（目录：{verdict}；{source}）", "claim_material": "> 资料：{says}",
        "claim_show": "论断与用例：`python -m torchclaims show {cid}`",
        "verdict_columns": "测量的量 | 规模 | 中位数 | 95% 置信区间 | 相对 IQR | 轮数 | 资料 | 单位 | 结论 | 理由 | 方法",
        "not_stated": "未说明",
        "context_columns": "测量的量 | 本机实测（中位数） | 95% 置信区间 | 相对 IQR | 轮数 | 资料的数字 | 单位 | 为什么不能证实这个数字 | 规模与方法",
        "context_title": "## 参照：针对其他硬件的数字",
        "context_intro": ("这些行把资料针对其他硬件给出的数字和本机的实测放在一起，但不下结论：加速比、延迟和内存数字取决于"
                          "测量设备在算力、内存带宽和每次调用开销之间的平衡，所以在另一类硬件（CPU，或另一级别的 GPU）上测得的结果，"
                          "既不能证实也不能否定 A100 或 RTX 3090 上的数字；每行都写明它为什么在这里。"),
        "context_cpu": ("在 CPU 上测的 ResNet-50 各行是**资料 A100 表格在 CPU 上的对应版本**（000 §5.3）：同样的模型和模式，"
                        "在本机 CPU 上以小批量运行；其余编译相关的行也用同样的方式为资料里的小模型计时。"
                        "冷编译只测一次（一轮，没有区间）；在小型 CPU 上每次要几十秒。"),
        "context_gpu": "要在有 CUDA 的机器上测量这些 GPU 数字本身（别处 gpu 标记的基准会带着原因跳过；在可比 GPU 上测得的行会成为结论）：",
        "context_none": "这次运行没有参照行。",
        "missing_title": "## 有基准、但这次没有运行的论断",
        "missing_columns": "论断 | 目录 | 基准 | 原因",
        "needs_cuda": "需要 CUDA", "not_in_results": "不在这个结果文件里",
        "all_title": "## 全部基准（pytest-benchmark 对计时步骤的统计）",
        "all_columns": "基准 | 中位数 | IQR | 最小值 | 轮数 | 前后负载 | 其他进程的 CPU（核心） | 论断",
        "footer": ("共 {n} 个基准；† 表示它运行时其他进程至少占用了 {others} 个核心（在没有这项数据的旧结果中，表示 1 分钟平均负载"
                   "不低于 {load}）；pytest-benchmark 计时轮次内的总时间为 {total} 秒。生成于 {date} UTC，"
                   "命令 `python -m torchclaims bench-report --lang zh`。"),
        "figure_context_only": "还没有结论：各行都是在与资料不可比的硬件上测的，只作参照",
        "figure_reason": "由基准测试报告测量，不由用例判定（python -m torchclaims show ID）",
        "figures_none": "{n} 条数字论断由基准测试报告测量，不由用例判定；目前还没有一条在可比硬件上得到结论（reports/bench/report.zh-CN.md）",
        "figures_some": "数字论断由基准测试报告测量（{total} 条中 {n} 条已有结论）：",
        "figure_history": "由基准测试报告测量，不由用例判定：{verdict}",
    },
}
for _lang in LANGS:
    STRINGS[_lang].update({"bench_" + key: value for key, value in _BENCH[_lang].items()})
STRINGS["en"]["m:measured"] = STRINGS["en"]["state:measured"] = "measured by the benchmark report"
STRINGS["zh"]["m:measured"] = STRINGS["zh"]["state:measured"] = "由基准测试报告测量"
