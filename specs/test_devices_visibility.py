"""Devices, visibility: CUDA_VISIBLE_DEVICES renumbers the GPUs and is read when CUDA starts (issue #41).

Each check starts a fresh interpreter with the variable set (in its environment, or in its
os.environ after ``import torch``) and asks it which GPUs it sees, by UUID, so that a renumbered
GPU can be told from the one that had its number.  What a CPU-only machine can say (hiding
every GPU gives is_available() False and device_count() 0) is checked in test_devices_cuda.py;
these specs need GPUs and skip with their reason elsewhere.
"""
import json
import os
import subprocess
import sys

import pytest
import torch

_LIST_GPUS = """
import json, os, sys, torch
if sys.argv[1] == "after-import":
    os.environ["CUDA_VISIBLE_DEVICES"] = sys.argv[2]
elif sys.argv[1] == "after-init":
    torch.cuda.init()
    os.environ["CUDA_VISIBLE_DEVICES"] = sys.argv[2]
count = torch.cuda.device_count()
print(json.dumps({"available": torch.cuda.is_available(), "count": count,
                  "uuids": [str(torch.cuda.get_device_properties(i).uuid) for i in range(count)]}))
"""


def _gpus_seen(mode="env", visible=None):
    """Start python with CUDA_VISIBLE_DEVICES removed from its environment, then: mode 'env' sets it
    there to ``visible`` (None: left unset), 'after-import' sets os.environ after import torch,
    'after-init' after torch.cuda.init(). Returns what the child's torch.cuda saw."""
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    if mode == "env" and visible is not None:
        env["CUDA_VISIBLE_DEVICES"] = visible
    done = subprocess.run([sys.executable, "-c", _LIST_GPUS, mode, visible or ""], env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"the GPU listing ({mode}, {visible!r}) failed:\n{done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.gpu
@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs CUDA: two devices")
@pytest.mark.claim("devices.cuda-visible-devices-renumbers")
def test_visible_devices_keeps_the_listed_gpus_and_numbers_them_from_zero():
    """Tutorials: CUDA_VISIBLE_DEVICES=0,2 leaves two GPUs, renumbered from 0.
    True (needs two GPUs): the listed GPUs alone are seen, cuda:0 being the first listed, in the
    variable's order ('0,2' with three GPUs or more, else '1,0'); '' hides them all."""
    everything = _gpus_seen()
    physical = [0, 2] if everything["count"] >= 3 else [1, 0]
    listed = ",".join(map(str, physical))
    seen = _gpus_seen("env", listed)
    assert seen["count"] == 2, f"CUDA_VISIBLE_DEVICES={listed} left {seen['count']} GPUs visible, expected 2"
    assert seen["uuids"] == [everything["uuids"][i] for i in physical], (
        f"with CUDA_VISIBLE_DEVICES={listed}, cuda:0 and cuda:1 are {seen['uuids']}; the machine's GPUs "
        f"are {everything['uuids']}")
    hidden = _gpus_seen("env", "")
    assert (hidden["available"], hidden["count"]) == (False, 0), f"CUDA_VISIBLE_DEVICES='' left {hidden}"


@pytest.mark.gpu
@pytest.mark.claim("devices.cuda-visible-devices-set-before-init")
def test_os_environ_counts_before_cuda_starts_and_not_after():
    """Tutorials: set CUDA_VISIBLE_DEVICES through os.environ before CUDA initialises.
    True (needs CUDA): set after import torch it still hides the GPUs (device_count() 0); set after
    torch.cuda.init() it changes nothing."""
    everything = _gpus_seen()
    assert everything["count"] >= 1, f"no GPU seen by a fresh process: {everything}"
    hidden = _gpus_seen("after-import", "")
    assert (hidden["available"], hidden["count"]) == (False, 0), (
        f"CUDA_VISIBLE_DEVICES='' set after import torch gave {hidden}, expected no GPU")
    first = _gpus_seen("after-import", "0")
    assert first["uuids"] == everything["uuids"][:1], f"'0' set after import: {first['uuids']}"
    late = _gpus_seen("after-init", "")
    assert late["count"] == everything["count"] and late["uuids"] == everything["uuids"], (
        f"CUDA_VISIBLE_DEVICES='' set after torch.cuda.init() changed what is seen: {late} vs {everything}")


_COUNT_ALL = """
import json, torch
try:
    machine = torch.cuda._raw_device_count_nvml()   # NVML: every GPU, CUDA_VISIBLE_DEVICES ignored
except OSError:                                     # no libnvidia-ml
    machine = -1
print(json.dumps([torch.cuda.device_count(), machine]))
"""


@pytest.mark.gpu
@pytest.mark.claim("devices.every-gpu-visible-by-default")
def test_without_the_variable_every_gpu_of_the_machine_is_visible():
    """Tutorials: by default PyTorch can use every GPU of the machine.
    True (needs CUDA): without CUDA_VISIBLE_DEVICES, device_count() equals the GPUs NVML counts."""
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    done = subprocess.run([sys.executable, "-c", _COUNT_ALL], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"the count failed:\n{done.stderr}"
    visible, machine = json.loads(done.stdout.strip().splitlines()[-1])
    if machine < 0:
        pytest.skip("needs NVML to count the machine's GPUs apart from CUDA")
    assert visible == machine and visible >= 1, (
        f"without CUDA_VISIBLE_DEVICES torch.cuda.device_count() is {visible}; NVML counts {machine} GPUs")
