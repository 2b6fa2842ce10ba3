"""Two runs compared (``matrix --compare OLD NEW``): the claims whose verdict changed, the claims
measured in one run only, and a warning when the runs are not alike. The reports are
``reports.load_reports``' and ``reports.rederive``'s, handed down by the command."""
from __future__ import annotations

from ..outcomes import MEASURED
from ..strings import cell_width, state_word, text, translate
from .table import selection


def compare(old: dict, new: dict, lang: str = "en") -> tuple[list[str], list[str], int]:
    """Two lists of lines and a count: the claims whose verdict changed between two reports (a
    measured verdict on both sides, a broken spec, or an outcome the catalog does not expect in
    the new one), the claims measured in only one of the two (with the reason: these are not
    verdict changes), and how many verdict changes are unexpected."""
    def say(key, **fields):
        return text(lang, "cmp:" + key, **fields)

    def verdict(value):
        return value if lang == "en" or value not in MEASURED else text(lang, "h:" + value)
    changes, one_side, unexpected = [], [], 0
    tags = {flag: say("unexpected" if flag else "expected") for flag in (True, False)}
    tag_width = max(cell_width(tag) for tag in tags.values())
    for cid, entry in new["claims"].items():
        prior = old["claims"].get(cid) or {}
        before, after = prior.get("material"), entry["material"]
        bad = entry["outcome"] in ("changed", "broken")
        if before in MEASURED and after in MEASURED or bad:
            if before == after and not bad:
                continue
            unexpected += bad
            tag = " " * (tag_width - cell_width(tags[bad])) + tags[bad]
            why = say("why", reason=entry["reason"]) if bad and entry.get("reason") else ""
            changes.append(say("change", tag=tag, id=cid, before=verdict(before) if before else say("absent"),
                               old=old["torch"], after=verdict(after), new=new["torch"], why=why))
        elif (before in MEASURED) != (after in MEASURED):
            side, missing = (new, entry) if before in MEASURED else (old, prior)
            state = state_word(missing.get("material"), lang)
            reason = translate(lang, missing.get("reason") or "") or say("not_in" if not missing else "no_reason")
            measured = before if before in MEASURED else after
            one_side.append(say("one_side", id=cid, measured=verdict(measured),
                                where=(old if before in MEASURED else new)["torch"], state=state,
                                other=side["torch"], reason=reason))
    return changes, one_side, unexpected


def selection_note(old: dict, new: dict, lang: str = "en") -> str | None:
    """A warning when the two runs are not alike: other specs selected, another device."""
    differ = []
    if selection(old) != selection(new):
        differ.append(text(lang, "cmp:d_specs", old=selection(old, lang), new=selection(new, lang)))
    if old["accelerator"] != new["accelerator"]:   # set by reports.load_reports, old schemas too
        differ.append(text(lang, "cmp:d_device", old=old["accelerator"], new=new["accelerator"]))
    if bool(old.get("torchvision")) != bool(new.get("torchvision")):
        none = text(lang, "mx:row_none")
        differ.append(text(lang, "cmp:d_vision", old=old.get("torchvision") or none, new=new.get("torchvision") or none))
    if not differ:
        return None
    return text(lang, "cmp:note", what=text(lang, "h:device_join").join(differ))
