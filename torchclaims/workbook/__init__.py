"""The learner's workbook (``python -m torchclaims workbook``, ``pytest specs/ --impl DIR --learn``).

- ``book``: the workbook on disk: a copy of reference_impl/ with the exercises left to write,
  the lessons of lessons.toml and their specs, checked both ways; init, status, watch;
- ``lessons``: the pytest plugin of ``--learn``: one lesson at a time, in order, and the progress.
"""
