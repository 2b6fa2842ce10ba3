"""The claim finder: where any text makes a claim of the catalog, with its stance and a confidence.

One module a stage, in the order a text goes through them:
- ``words``: the language words as data (``lang/en.toml``, ``lang/zh.toml``);
- ``normal``: the one normal form of text and cue phrases;
- ``units``: what a unit is before matching: prose that says something, or code, output, settings, a
  link, a table's header, a title, a step's label;
- ``structure``: each unit's context (lead-in, table header, previous sentence, heading) from a
  Markdown parser; URLs blanked;
- ``cues``: a claim's cues compiled (``concepts.toml`` for shared phrases) and what they find;
- ``stance``: negation scope, reported beliefs, falsity markers;
- ``similar``: character n-gram TF-IDF against each claim's texts and examples;
- ``features`` and ``decide``: the named features and the fitted decision (``weights.json``);
- ``finder``: the pipeline, one pass, and the marks;
- ``marks``: a document's marks for the reader and lint (anchors on the four documents, the
  finder elsewhere), each with the verdict it is shown with;
- ``fit``: the decision fitted and its reliability (``finder-fit``);
- ``evaluate``: precision, recall, stance on a labelled set (``finder-eval``).
"""
from .finder import SHOWN, Finder, Mark, resolve, verdict
from .normal import normal, phrase_pattern

__all__ = ["SHOWN", "Finder", "Mark", "normal", "phrase_pattern", "resolve", "verdict"]
