"""The claim history, claims x torch releases (``python -m torchclaims matrix REPORT.json... -o PATH``).

Each report is one run of ``pytest specs/ --claims-report`` on one torch release and one device.
A cell is what that run measured about the material (``material`` in the report): right, wrong,
partly; or why it measured nothing: **not applicable** (the API or behaviour does not exist on
that release; the reason says what is missing), **not measurable here** (it exists, but that
runner could not measure it: no GPU, another Python needed, a spec newer than the report),
skipped (left out by the run's selection, not checkable); or a broken spec or a contradiction.

A **flip** is a change of verdict between two consecutive measured releases of one device: the
columns of a CUDA report ("2.11.0 cuda (H200)") form their own history beside the CPU columns,
and a CPU cell is never compared with a CUDA cell. Cells that measured nothing never open or
close a range. Each claim's **history** ("holds up to 2.5.1, wrong since 2.6.0") is inferred
from the first release of each stable run, the way browser compatibility tables are, with "≤"
where releases in between were not measured. Several patches of one minor release (2.0.0 and
2.0.1) are columns of their own, so "since" names the first measured release with the change.

``-o PATH`` writes PATH.md and PATH.html (PATH/matrix.md and PATH/matrix.html when PATH is an
existing folder), each whole or not at all, and refuses to replace an existing file unless
``--force`` is given; without ``-o`` the Markdown goes to standard output and nothing is written.

``--compare OLD.json NEW.json`` lists apart the claims whose verdict changed between two reports
and the claims measured in only one of them (with the reason), and exits 1 when a verdict change
is unexpected (the catalog does not expect the new verdict on the new release): the check a
maintainer runs when upgrading torch. A claim not measured in one run never decides the exit.

The data (rows, cells, flips, notes, each claim's history in words) is ``reports.history_data``'s;
this folder only renders it, one module per output:

- ``table``: the Markdown table, its summary lines and the cells' symbols;
- ``page``: the HTML page (template ``pages/history.html``, with its CSS and JavaScript);
- ``compare``: two runs compared (``matrix --compare``).
"""
