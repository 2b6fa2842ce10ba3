"""The Chinese of every help page: each description, group title and option help of the commands,
keyed by its English text (errors.Parser looks them up; tests/test_help_zh.py checks that every
text of every ``--help`` is here). argparse's own texts (the group titles, ``-h``) are here too."""
HELP = {
    # argparse's own
    "positional arguments": "位置参数",
    "options": "选项",
    "show this help message and exit": "显示本帮助并退出",
    "show program's version number and exit": "显示程序版本号并退出",

    # python -m torchclaims: the commands
    "``python -m torchclaims``: the catalog, links between claims and specs, and reports.":
        "``python -m torchclaims``：论断目录、论断与用例之间的链接，以及报告。",
    "list the catalog": "列出论断目录",
    "one claim with its specs, or a topic's claims": "一条论断及其用例，或一个主题下的论断",
    "validate the catalog, its links to specs, and lint hollow specs and labels":
        "校验论断目录及其与用例的链接，并检查用例是否空洞、标签是否有误",
    "render claim reports of several torch versions as a matrix": "把多个 torch 版本的论断报告汇成一张矩阵",
    "run the specs once per planted fault and report survivors": "对每个植入的故障各运行一次用例，报告存活下来的故障",
    "render a benchmark JSON as a Markdown report and a chart": "把基准测试的 JSON 生成 Markdown 报告和图表",
    "the learner's workbook: init, status, learn, watch": "学习者的练习册：init、status、learn、watch",
    "a document with each claim marked where it is made (HTML, or --text)":
        "文档原文，每条论断在其出处标出（HTML，或 --text）",
    "propose, show and record where the documents make each claim": "提出、查看并记录各份资料在何处提出每条论断",
    "check tutorials (.md .rst .txt .ipynb .html) for statements wrong on this torch":
        "检查教程（.md .rst .txt .ipynb .html）中在当前 torch 上不成立的说法",
    "the claim finder's precision, recall and stance accuracy, measured": "实测论断查找器的精确率、召回率和立场准确率",
    "fit the claim finder's decision (weights.json) and show its reliability":
        "拟合论断查找器的决策（weights.json）并显示其可靠性",

    # claims, show, check
    "language (default: the locale's, zh when LANGUAGE, LC_ALL or LANG starts with zh)":
        "语言（默认按区域设置：LANGUAGE、LC_ALL 或 LANG 以 zh 开头时为 zh）",
    ("the catalog's label (confirmed, refuted, partly, version-dependent, gpu-only, not-checkable, pending); "
     "the scoreboard's words work too: right = confirmed, wrong = refuted; "
     "Chinese words too (错误, 属实, 部分正确...)"):
        ("论断目录中的判定标签（confirmed, refuted, partly, version-dependent, gpu-only, not-checkable, pending）；"
         "也可以用记分板的说法：right = confirmed，wrong = refuted；中文也可以（错误、属实、部分正确……）"),
    "a claim id, or a topic (its claims, one a line)": "论断编号，或主题（列出其论断，每行一条）",
    "read the spec files instead of collecting them with pytest": "直接读取用例文件，而不用 pytest 收集",

    # matrix
    "``python -m torchclaims matrix``: the claim history across torch releases, from claims reports.":
        "``python -m torchclaims matrix``：根据论断报告，整理论断在各 torch 版本上的历史。",
    ("write PATH.md and PATH.html (PATH/matrix.md and .html when PATH is an existing folder); "
     "without -o the Markdown goes to standard output and nothing is written"):
        ("写入 PATH.md 和 PATH.html（PATH 是已有文件夹时写入 PATH/matrix.md 和 .html）；"
         "不加 -o 时 Markdown 输出到标准输出，不写任何文件"),
    "replace the files -o names if they exist": "-o 指定的文件已存在时替换它们",
    ("compare two reports (OLD NEW): verdict changes, and claims measured in one only; "
     "exit 1 if a verdict change is unexpected"):
        "比较两份报告（OLD NEW）：判定的变化，以及只在其中一份里测到的论断；有意外的判定变化时退出状态为 1",
    "language of the page and the Markdown (default: the locale's)": "网页和 Markdown 的语言（默认按区域设置）",

    # mutants
    "``python -m torchclaims mutants``: run the specs once per planted fault, report score and coverage.":
        "``python -m torchclaims mutants``：对每个植入的故障各运行一次用例，报告得分与覆盖率。",
    "run only these faults": "只运行这些故障",
    "only the faults (and, for coverage, the claims) of this topic (repeatable)":
        "只处理这个主题的故障（统计覆盖率时也只算这个主题的论断；可重复）",
    "one fault per topic (the CI subset)": "每个主题一个故障（CI 用的子集）",
    "list the faults and exit": "列出故障并退出",
    "report claim coverage only, run nothing": "只报告论断的覆盖率，不运行任何用例",
    "faults run at once (default 2)": "同时运行的故障数（默认 2）",
    "seconds per fault (default 600)": "每个故障的时限，单位秒（默认 600）",
    "show the pytest tail of every fault": "显示每个故障的 pytest 输出末尾",

    # bench-report
    "Render a pytest-benchmark JSON file as a Markdown report and a PNG chart.":
        "把 pytest-benchmark 的 JSON 文件生成 Markdown 报告和 PNG 图表。",
    "the file written by pytest benchmarks/ --benchmark-json FILE (with --across: one such file per torch release)":
        "由 pytest benchmarks/ --benchmark-json FILE 写出的文件（加 --across 时：每个 torch 版本一个这样的文件）",
    ("folder for the report and report.png (default: the results file's folder, "
     "where an existing report is replaced only when -o names it)"):
        ("报告和 report.png 所在的文件夹（默认为结果文件所在的文件夹；"
         "那里已有的报告只有在 -o 指定该文件夹时才会被替换）"),
    "compare results files of several torch releases: writes DIR/across.md":
        "比较多个 torch 版本的结果文件：写入 DIR/across.md",
    "language of the report (default: the locale's): en writes report.md, zh report.zh-CN.md":
        "报告的语言（默认按区域设置）：en 写入 report.md，zh 写入 report.zh-CN.md",

    # workbook
    "the learner's workbook: write the reference code yourself, lesson by lesson":
        "学习者的练习册：一课一课地亲手写出参考代码",
    "write a workbook into DIR (existing files are kept)": "在 DIR 中写入练习册（已有的文件保留不动）",
    "show the progress of the workbook in DIR": "显示 DIR 中练习册的进度",
    "run the lessons once against DIR": "针对 DIR 把各课运行一遍",
    "rerun the lessons whenever a .py file in DIR changes": "DIR 中的 .py 文件一有改动就重新运行各课",
    "seconds between checks (default 1)": "两次检查之间的秒数（默认 1）",

    # read
    "``python -m torchclaims read DOCUMENT``: the document itself, each claim marked where it is made.":
        "``python -m torchclaims read DOCUMENT``：文档原文，每条论断在其出处标出。",
    "any tutorial (.txt .md .rst .ipynb .html), or one of ../shared/seeds/NNN_hash.txt":
        "任意教程（.txt .md .rst .ipynb .html），或 ../shared/seeds/NNN_hash.txt 之一",
    ("the page's file (FILE.html) or folder (default build/reader/); "
     "with --format json a FILE.json (default: standard output)"):
        "网页的文件（FILE.html）或文件夹（默认 build/reader/）；加 --format json 时为 FILE.json（默认：标准输出）",
    "verdicts from one claims report": "判定取自一份论断报告",
    "verdicts and release history from a folder of claims reports (default reports/claims/)":
        "判定和各版本的历史取自一个存放论断报告的文件夹（默认 reports/claims/）",
    ("with --history: the release to colour by "
     "(default the installed one where the history has it, else the newest)"):
        "与 --history 连用：着色所依据的版本（默认为当前安装的 torch，历史中没有它时取最新的版本）",
    "the page (default), the document for a terminal with the verdicts in the margin, or the marks as JSON":
        "网页（默认）、在终端阅读且判定标在页边的文档，或 JSON 格式的标注",
    "the same as --format text": "等同于 --format text",
    "also the finder's low-confidence marks and mere mentions": "连同论断查找器把握较低的标注和只是提及的地方",
    "one of the four documents marked by the finder alone, its anchors set aside":
        "用于四份资料之一：忽略其锚点，只凭论断查找器标注",
    "language of what the project wrote (default: the locale's)": "本项目所写文字的语言（默认按区域设置）",
    "--text: line width (default the terminal's)": "--text：行宽（默认为终端的宽度）",

    # anchors
    "propose, show and record the anchors of claims": "提出、查看并记录论断的锚点",
    "propose a span for a claim from its section and key terms": "根据论断所在的章节和关键词，为其提出一个片段",
    "every claim and document that has no anchor or reason yet": "所有既没有锚点、也没有记录原因的论断和资料",
    "only this document (seed file name)": "只处理这份资料（种子文件名）",
    "comma-separated terms to look for instead of the claim's own": "要查找的词（逗号分隔），代替论断自己的关键词",
    "take the N-th best sentence (default 1)": "取排名第 N 的句子（默认 1）",
    "print the proposed span in its context (never commit it)": "连同上下文打印提出的片段（这段文字切勿提交进仓库）",
    "record the proposals in claims/anchors/": "把提出的片段记录到 claims/anchors/",
    "print a claim's anchored spans in their context": "连同上下文打印论断已锚定的片段",
    "record why a claim cannot be anchored in a document": "记录一条论断为何无法在某份资料中锚定",
    "only this anchors.cited section (without the §)": "只处理 anchors.cited 中的这一节（不带 §）",
    "record a span (whole sentences) as where a document makes a claim":
        "把一个片段（由完整的句子组成）记录为资料提出该论断之处",
    "the seed file (default: the claim's first document)": "种子文件（默认：论断的第一份资料）",
    "the anchors.cited section (default: the one holding the span)":
        "anchors.cited 中的章节（默认：包含该片段的那一节）",
    "first character of the span": "片段第一个字符的位置",
    "character after the span": "片段之后那个字符的位置",
    "print the span in its context (never commit it)": "连同上下文打印该片段（这段文字切勿提交进仓库）",
    "remove a claim's anchor in a document (or one section of it)": "删除论断在某份资料中的锚点（或其中一节的锚点）",
    "how many claims are anchored, and the reasons for the rest": "有多少条论断已锚定，其余的各因何故",

    # lint
    "``python -m torchclaims lint PATH...``: tutorials checked for what they state about PyTorch.":
        "``python -m torchclaims lint PATH...``：检查教程中关于 PyTorch 的说法。",
    "documents or folders of them": "文档，或存放文档的文件夹",
    "write to FILE instead of standard output": "写入 FILE，而不是标准输出",
    "the lowest confidence reported, 0 to 1 (default 0.5)": "只报告把握不低于此值的结果，0 到 1（默认 0.5）",
    "verdicts from a folder of claims reports (default reports/claims/)":
        "判定取自一个存放论断报告的文件夹（默认 reports/claims/）",
    ("with --history: the release to judge by "
     "(default the installed one where the history has it, else the newest)"):
        "与 --history 连用：判定所依据的版本（默认为当前安装的 torch，历史中没有它时取最新的版本）",
    "language of the truths and messages (default: the locale's)": "实际情况和提示信息的语言（默认按区域设置）",
    "the lowest severity that makes the exit status 1 (default error)": "使退出状态为 1 的最低严重级别（默认 error）",
    "also the right statements (level note)": "连同正确的说法（级别 note）",
    "measure lint on a labelled set DIR (docs/ and labels.toml)":
        "在标注好的数据集 DIR（docs/ 和 labels.toml）上测量 lint 的效果",

    # finder-eval
    "``python -m torchclaims finder-eval``: how well the claim finder does, measured.":
        "``python -m torchclaims finder-eval``：实测论断查找器的表现。",
    "a labelled set (default tests/finder_set/)": "标注好的数据集（默认 tests/finder_set/）",
    "also: the four documents, anchors set aside": "另外也测那四份资料（不用其锚点）",
    "confidence shown (default 0.5)": "把握达到此值才显示（默认 0.5）",
    "list every wrong mark, miss and wrong stance": "列出每一处错标、漏标和立场错误",
    "explain one claim: cues, anchors, marks in the four documents": "解释一条论断：线索、锚点，以及在四份资料中的标注",
    "the finder's benchmark: read and lint of 100 KB, 1 MB, 10 MB":
        "论断查找器的基准测试：对 100 KB、1 MB、10 MB 的文本运行 read 和 lint",
    "the sentence cases: every claim's examples and the plain statements": "逐句测试：每条论断的例句和直白陈述句",
    "where each labelled passage of the set is lost: the first stage that lost it": "标注集中每个被漏掉的段落漏在哪一步：最先漏掉它的那个环节",
    "with --examples: write the cases that fail to FILE (TOML)": "与 --examples 连用：把未通过的句子写入 FILE（TOML）",

    # finder-fit
    "``python -m torchclaims finder-fit``: fit the finder's decision and measure its reliability.":
        "``python -m torchclaims finder-fit``：拟合论断查找器的决策，并测量其可靠性。",
    "where the weights go (default: the package's)": "权重的写入位置（默认：包内自带的权重文件）",
    "fit without the four documents (a clone without them)": "不用那四份资料进行拟合（用于没有它们的克隆）",
}
