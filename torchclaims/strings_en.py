"""The English half of the project's one string table (torchclaims/strings.py puts the halves
together, checks that both have every key and fills them): each message, label and sentence
the project writes, by key; ``BENCH`` holds the benchmark report's, under ``bench_`` keys."""

EN = {
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
        "found_in_tutorials": "found in {n} {n:tutorial|tutorials}",
        "as_written": "this spec encodes the material's statement, which is wrong",
        "versions": "the material holds on torch", "refs": "ref", "specs": "specs", "specs_none": "specs: none",
        "spec_as_written": "as written: expected to fail",
        "clauses": "what is true, clause by clause", "clause_specs": "asserted by", "clause_ref": "context, see",
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
        "next_full": "the slow, compile, distributed and worker-process specs too",
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
        "skip_two_gpus": "needs CUDA: two devices",
        "skip_heavy": "{heavy} spec: skipped by the quick run (use --full or -m {heavy})",
        "skip_na": "not applicable on torch {torch}: needs torch{range} ({why})",
        "skip_nm": "not measurable here on torch {torch}: the spec needs torch{range} ({why})",
        "skip_optional": "needs {dist} (pip install {pip}; torchclaims' extra \"{extra}\" has it)",
        "skip_import": "could not import '{module}': No module named '{name}'",
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
        "os:ENOENT": "no such file or folder", "os:ENOTDIR": "a part of the path is not a folder",
        "os:EACCES": "permission denied", "os:EROFS": "read-only file system", "os:ENOSPC": "no space left on the disk",
        "os:EISDIR": "is a folder", "os:EEXIST": "already exists", "os:ENAMETOOLONG": "name too long",
        "out_folder": "{path}: cannot create the output folder: {why}", "cannot_write": "{path}: cannot write: {why}",
        "read:o_is_file": "-o {path}: is a file; -o names the folder the page goes to",
        "setup_installed": "installed torch {torch} {build}", "setup_cuda_build": "(the CUDA {cuda} build)",
        "setup_cpu_build": "(the CPU-only build)",
        "setup_no_gpu": "no GPU here: make setup TORCH_INDEX=https://download.pytorch.org/whl/cpu on a fresh clone "
                        "(or after rm -rf {venv}) installs the CPU-only build, a few hundred MB",
        "setup_venv_size": "{venv}/ takes {size}",
        "setup_next": "torchclaims is set up in {venv}/. Next: . {venv}/bin/activate && pytest specs/   "
                      "(中文: LANG=zh_CN.UTF-8 pytest specs/, or add --lang zh)",
        "check_summary": "{n} {n:claim|claims}: {counts}; {p} {p:problem|problems}",
        "wrote_report": "wrote {path}", "wrote_report_chart": "wrote {path} and {chart}",
        "wrote_report_no_chart": "wrote {path} (no chart: no numeric figure)",
        "report_cmd_one_file": "give one results file (or --across with one file per torch release)",
        "report_cmd_exists": "{path} exists: pass -o {folder} to replace it, or -o another folder",
        "report_cmd_across_two": "--across needs the results files of at least two torch releases",
        "no_venv": "torchclaims needs its dependencies ({module} is missing): activate the project's venv "
                   "with `source {venv}/bin/activate` (or run `make setup` first)",
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
        # the heads of the notes a failing lesson spec carries (specs/hypothesis_helpers.py, hypothesis)
        "learn_reproduce": "Reproduce with:", "learn_failing_case": "Failing test case:",
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
        "read:why_installed": "the installed torch",
        "read:why_newest": "the newest measured; the installed torch {installed} is not in the history",
        "read:why_chosen": "the release asked for",
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
        "doc:too_deep": ("{path}: its elements nest {depth} deep; pages nested more than {limit} deep are not read "
                         "(the HTML parser's time grows with the square of the depth)"),
        "doc:notebook": "{path}: not a readable notebook ({why})",
        "doc:folder": "{path}: is a folder; give a document file ({formats})",
        "doc:extension": "{path}: {kind} is not a document this tool reads; give .txt, .md, .rst, .ipynb or .html",
        "doc:missing": "{path}: no such document",
        "doc:unreadable": "{path}: cannot be read ({why})",
        "lint:no_path": "{path}: no such file or folder",
        "lint:confidence": "--min-confidence {value}: give a number from 0 to 1",
        "lint:no_document": "no document (.md .rst .txt .ipynb .html) under {paths}",
        "lint:summary": ("{n} {n:document|documents}: {errors} {errors:error|errors}, "
                         "{warnings} {warnings:warning|warnings}, judged by torch {torch} ({why})"),
        "lint:why_installed": "the installed torch",
        "lint:why_newest": "the newest release measured; the installed torch {installed} is not in the history",
        "lint:why_chosen": "the release asked for",
        "lint:says": "the text says {says}; on torch {torch}: {truth}",
        "lint:denies": "the text denies that {says}; on torch {torch}: {truth}",
        # ------------------------------------------------ a claim's history across releases (matrix.history)
        "h:right": "holds", "h:wrong": "wrong", "h:partly": "partly right",
        "h:every": "{verdict} on every release", "h:every_measured": "{verdict} on every release measured ({n} of {total})",
        "h:first": "{verdict} up to {end}", "h:last": "{verdict} since {since}", "h:last_near": "{verdict} since ≤{since}",
        "h:middle": "{verdict} from {since} to {end}", "h:middle_near": "{verdict} from ≤{since} to {end}",
        "h:middle_one": "{verdict} from {since} to {since}", "h:join": ", ", "h:device": "{device}: {history}", "h:device_join": "; ",
        "h:never": "never measured ({kinds})", "h:kind": "{n} {state}",
        "state:not-applicable": "not applicable", "state:not-measurable": "not measurable here", "state:skipped": "skipped",
        "state:broken": "broken spec", "state:contradiction": "contradiction", "state:none": "not in the report",
        # ------------------------------------------------ matrix: the claim history (history/, reports.py)
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
    }

BENCH = {
        "exact": "exact", "ci_none": "none (too few rounds)", "noisy_mark": "(noisy)", "one_exact": "1 (exact)",
        "not_measured": "not measured",
        # the chart (bench/chart.py): its panels, axes, legend and title
        "chart_ratio": "Ratios: speed-ups and size ratios", "chart_ratio_axis": "x (1 = no difference)",
        "chart_percent": "Savings and overheads", "chart_percent_axis": "% (0 = no difference)",
        "chart_memory": "Memory", "chart_memory_axis": "MiB (log scale)",
        "chart_latency": "Latency", "chart_latency_axis": "seconds (log scale)",
        "chart_measured": "measured: {word} (95% CI)", "chart_material": "material's figure",
        "chart_bound": "material's bound (> or <)", "chart_context": "context",
        "chart_title": "Measured here (median, 95% CI) vs the material (torch {torch}; blue = other hardware, context only)",
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
    }
