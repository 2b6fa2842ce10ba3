"""The benchmark report, one module per concern (``python -m torchclaims bench-report``).

- ``statistics``: medians, distribution-free intervals, the paired bootstrap, a row's ``Figure``;
- ``rule``: the one verdict rule (``judge``) and its statement in the report's method;
- ``hardware``: which hardware a figure may be judged on, and why a row is context;
- ``results``: reading a pytest-benchmark JSON file and its machine's load;
- ``rows``: every claim row of a results file with its figure and verdict, built once;
- ``phrases``: the report's sentences as data, rendered in English or Chinese (strings.py);
- ``recorded_zh``: the Chinese of what the benchmarks record in English (quantities, scales,
  methods, notes, their tables), keyed by the English text; ``phrases.recorded`` looks it up;
- ``cells``: numbers and Markdown cells; ``markdown``: the report; ``chart``: its PNG;
- ``across``: one benchmark across torch releases; ``quotes``: truths quote the report's figures;
- ``verdicts``: the report's verdict of a figure claim, for the scoreboard and the matrix;
- ``command``: the command line.

Benchmarks talk to the report only through ``benchmark.extra_info`` (CONTRIBUTING.md, "A
benchmark"). A *row* is a dict with ``claim``, ``quantity``, ``unit``, ``material``, ``method``,
``scale`` and the raw measurements, in one of three shapes:

- ``baseline=[...]`` and ``candidate=[...]``: per-round values of two interleaved sides, with
  ``stat`` one of ``speedup`` (median(baseline) / median(candidate): > 1 means the candidate is
  faster), ``ratio`` (median(candidate) / median(baseline)), ``saving`` (percent less:
  100 * (1 - ratio)) or ``overhead`` (percent more: 100 * (ratio - 1));
- ``samples=[...]``: per-round values of one quantity (its median is the figure);
- ``measured=x`` with ``exact=True``: a deterministic count (bytes of a file, of saved tensors),
  for which the interval is the value itself.

``material`` is a number or a bound such as ``"< 1"``; ``threshold`` overrides the no-effect
value (1 for ratios, 0 for percentages); ``hardware`` names the hardware the material's figure
is for ("A100"), ``device`` the GPU a row ran on; ``tolerance`` (default 0.25) is the relative
band within which a figure of the same direction *agrees*; ``more`` holds further rows; any
other key is shown as a detail.
"""
