"""Which hardware a figure may be judged on, and why a row that cannot be is context.

A row names the device it ran on (``device``, a GPU's name; absent: the CPU) and, when the
material's figure is for other hardware, that hardware (``hardware``). A relative figure (a
speed-up, a memory ratio, a saving, a compile latency) carries over within a vendor's class of
GPU (a data-centre training GPU for an A100's figure, a consumer GeForce for an RTX 3090's); an
absolute one (images/s, GB at a batch the material does not give) only to the very hardware it
names (``same_hardware`` on the row).
"""
from __future__ import annotations

import re

from .phrases import Phrase, phrase

HARDWARE_CLASSES = (   # (pattern, vendor, the class's key in strings.py: bench_class_<key>)
    (r"\b(?:V100|A100|A800|H100|H800|H200|H20|GH200|B100|B200|GB200)\b", "NVIDIA", "datacentre"),
    (r"\bRTX\s*[2-5]0[5-9]0(?:\s*Ti)?\b", "NVIDIA", "geforce"),
    (r"\bMI\s*[1-3]\d\d[A-Z]?\b", "AMD", "instinct"),
)


def hardware_class(name: str | None) -> tuple[str, str] | None:
    """(vendor, class key) of a GPU name ("NVIDIA H200", "A100", "RTX 3090"), or None when unknown."""
    for pattern, vendor, kind in HARDWARE_CLASSES:
        if name and re.search(pattern, str(name), re.IGNORECASE):
            return vendor, kind
    return None


def same_hardware(hardware: str, device: str) -> bool:
    def squeeze(text):
        return re.sub(r"[\s_-]+", "", str(text).lower())
    return squeeze(hardware) in squeeze(device)


def _class_name(cls: tuple[str, str] | None) -> Phrase:
    return phrase("class_of", vendor=cls[0], kind=phrase("class_" + cls[1])) if cls else phrase("class_unknown")


def context_reason(row: dict, claim) -> Phrase | None:
    """Why this row cannot be judged where it was measured, or None when it can."""
    hardware, device = row.get("hardware"), row.get("device")
    if hardware:
        if not device:
            return phrase("ctx_cpu", hardware=hardware)
        if same_hardware(hardware, device):
            return None
        if row.get("same_hardware"):
            return phrase("ctx_absolute", hardware=hardware, device=device)
        theirs, ours = hardware_class(hardware), hardware_class(device)
        if theirs is None or theirs != ours:
            return phrase("ctx_not_comparable", hardware=hardware, theirs=_class_name(theirs), device=device,
                          ours=_class_name(ours))
        return None
    if claim is not None and claim.verdict == "gpu-only" and not device:
        return phrase("ctx_gpu_only")
    return None


def hardware_note(row: dict) -> Phrase | None:
    """How the hardware of a judged GPU row compares with the material's (None on a CPU row)."""
    hardware, device = row.get("hardware"), row.get("device")
    if not device:
        return None
    if not hardware:
        return phrase("on_device", device=device)
    if same_hardware(hardware, device):
        return phrase("on_their_device", device=device, hardware=hardware)
    vendor, kind = hardware_class(device)
    return phrase("on_comparable", device=device, hardware=hardware, vendor=vendor, kind=phrase("class_" + kind))
