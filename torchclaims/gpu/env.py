"""What the lent GPU machine has and what the run needs, found before anything compiles.

The requirements of the run (pyproject's core list and its ``bench`` and ``report`` extras), the
ones missing there, and the carried wheels that provide them, installed by unpacking (no pip
needed; never torch, nvidia or triton); the machine's facts (GPU, driver, CUDA, compiler, Python
headers, CPUs, memory, disk); its torch, asked in a subprocess; and the commit the specs come
from (``--commit``, git, or the wheel folder's COMMIT stamp with a digest of the tree).
Used by torchclaims/gpu/check.py, the run itself.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import tomllib
import zipfile

from ..errors import UsageError

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXTRAS = ("bench", "report")

WHEEL_NAME = re.compile(r"^(?P<name>[A-Za-z0-9_.]+?)-(?P<version>[^-]+)-.*\.whl$")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _req_name(req: str) -> str:
    return _canonical(re.split(r"[\[<>=!~; ]", req, maxsplit=1)[0])


def requirements(extras=EXTRAS) -> list[str]:
    """pyproject's core dependencies and the named extras, torch and self-references left out."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = list(project["dependencies"])
    for extra in extras:
        reqs += project["optional-dependencies"][extra]
    out = []
    for req in reqs:
        if _req_name(req) not in ("torch", "torchclaims") and req not in out:
            out.append(req)
    return out


def _installed(paths: list[str] | None = None) -> dict[str, str]:
    dists: dict[str, str] = {}
    for dist in importlib.metadata.distributions(path=(paths or []) + sys.path):
        dists.setdefault(_canonical(dist.metadata["Name"] or ""), dist.version)
    return dists


def missing(reqs: list[str], paths: list[str] | None = None) -> list[str]:
    """The requirements not satisfied by what is installed (on ``paths`` first, when given).
    Without ``packaging`` a requirement counts as met when its distribution is there at all
    (``packaging`` is itself a requirement, so that run is refused anyway)."""
    try:
        from packaging.requirements import Requirement
    except ImportError:
        Requirement = None
    dists = _installed(paths)
    out = []
    for req in reqs:
        have = dists.get(_req_name(req))
        if have is None or (Requirement is not None
                            and not Requirement(req).specifier.contains(have, prereleases=True)):
            out.append(req)
    return out


def _older(have: str, wheel: str) -> bool:
    """Whether the installed version ``have`` is older than the wheel's (``packaging`` where it is
    installed; else release numbers compared as integers)."""
    try:
        from packaging.version import InvalidVersion, Version
    except ImportError:
        def numbers(v):
            return tuple(int(n) for n in re.findall(r"\d+", v.split("+")[0]))
        return numbers(have) < numbers(wheel)
    try:
        return Version(have) < Version(wheel)
    except InvalidVersion:
        return False


def wheels_to_install(folder: pathlib.Path, reqs: list[str] | None = None,
                      paths: list[str] | None = None) -> list[pathlib.Path]:
    """The wheels in ``folder`` to install: of every distribution not installed here, installed at
    a version a requirement excludes, or installed older than the wheel (pip resolved the folder
    for the requirements, so a dependency older than its wheel may be too old for them; a newer
    one is kept). Never torch, Triton or NVIDIA's libraries."""
    installed = _installed(paths)
    unmet = {_req_name(r) for r in missing(reqs or [], paths)}
    chosen: dict[str, pathlib.Path] = {}
    for wheel in sorted(folder.glob("*.whl")):
        match = WHEEL_NAME.match(wheel.name)
        if not match:
            continue
        name = _canonical(match["name"])
        if name.startswith(("torch", "nvidia-", "triton")):
            continue  # torch's own: never replaced
        if name in installed and name not in unmet and not _older(installed[name], match["version"]):
            continue
        if name not in chosen or _older(WHEEL_NAME.match(chosen[name].name)["version"], match["version"]):
            chosen[name] = wheel   # a folder filled twice: its newest wheel of each
    return sorted(chosen.values())


def unpack(wheel: pathlib.Path, site: pathlib.Path) -> None:
    """Install one wheel into ``site`` by unpacking it, as ``pip install --target`` does (no pip
    needed): its packages and dist-info, a ``.data/purelib`` or ``platlib`` part beside them.
    Scripts, headers and data files are left out: the steps run ``python -m``."""
    try:
        with zipfile.ZipFile(wheel) as whl:
            for info in whl.infolist():
                parts = pathlib.PurePosixPath(info.filename).parts
                if not parts or info.filename.startswith("/") or ".." in parts:
                    raise UsageError(f"{wheel.name}: refusing the path {info.filename!r} in it")
                if parts[0].endswith(".data"):
                    if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                        continue
                    parts = parts[2:]
                target = site.joinpath(*parts)
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with whl.open(info) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                mode = (info.external_attr >> 16) & 0o777
                if mode:
                    target.chmod(mode | 0o600)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UsageError(f"cannot unpack {wheel}: {exc}") from None


def install(folder: pathlib.Path, site: str, reqs: list[str] | None = None) -> list[str]:
    """Install the wheels of ``folder`` this machine lacks into ``site`` (no index, no network, no
    pip, no dependency resolution: the folder holds what they need); return their file names."""
    wheels = wheels_to_install(folder, reqs, [site])
    for wheel in wheels:
        unpack(wheel, pathlib.Path(site))
    importlib.invalidate_caches()
    return [w.name for w in wheels]


def pip_download_command(reqs: list[str], dest: str = "wheels/py312") -> list[str]:
    return ["python3", "-m", "pip", "download", "--only-binary=:all:", "--python-version", "3.12",
            "--implementation", "cp", "--abi", "cp312", "--platform", "manylinux_2_28_x86_64",
            "--platform", "manylinux_2_17_x86_64", "--platform", "manylinux2014_x86_64", "-d", dest, *reqs]


# ------------------------------------------------------------------ the machine


def _first_line(command: list[str], timeout: float = 20) -> str | None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0].strip() if done.returncode == 0 and lines else None


def compiler() -> str | None:
    """The C compiler Inductor and Triton would call: $CC, else cc, gcc or clang on PATH."""
    names = [os.environ["CC"].split()[0]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    return next((found for found in map(shutil.which, names) if found), None)


def python_headers() -> str | None:
    """Python.h of this Python (Triton builds its launcher against it), if installed."""
    header = pathlib.Path(sysconfig.get_paths()["include"]) / "Python.h"
    return str(header) if header.is_file() else None


def _distribution(name: str) -> bool:
    """Whether this Python has the distribution ``name`` installed (read from its metadata)."""
    try:
        importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def machine_facts() -> dict:
    """What the run depends on, read without importing torch or compiling anything."""
    facts: dict = {"python": sys.version.split()[0], "executable": sys.executable,
                   # pip's metadata, not find_spec("pip"): that lookup makes setuptools' distutils shim
                   # step aside for the rest of the process, and a later Inductor compile then fails
                   "pip": _distribution("pip"),
                   "torch_installed": importlib.util.find_spec("torch") is not None,
                   "cpus": os.cpu_count(), "cpus_usable": len(os.sched_getaffinity(0))}
    with contextlib.suppress(OSError, ValueError, AttributeError):
        meminfo = pathlib.Path("/proc/meminfo").read_text()
        facts["memory_gb"] = round(int(re.search(r"MemTotal:\s+(\d+)", meminfo).group(1)) / 1e6, 1)
    facts["disk_free_gb"] = round(shutil.disk_usage(tempfile.gettempdir()).free / 1e9, 1)
    smi = shutil.which("nvidia-smi")
    facts["gpus"] = []
    facts["driver"] = facts["cuda_driver"] = None
    if smi:
        listed = _first_line([smi, "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"])
        if listed:
            name, driver, memory = (part.strip() for part in (listed.split(",") + ["", ""])[:3])
            facts["gpus"], facts["driver"], facts["gpu_memory"] = [name], driver, memory
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            header = subprocess.run([smi], capture_output=True, text=True, timeout=20).stdout
            cuda = re.search(r"CUDA Version:\s*([\d.]+)", header)
            facts["cuda_driver"] = cuda.group(1) if cuda else None
    facts["nvidia_smi"] = smi
    cc = compiler()
    facts["compiler"] = cc
    facts["compiler_version"] = _first_line([cc, "--version"]) if cc else None
    facts["python_headers"] = python_headers()
    return facts


def toolchain_problem(facts: dict) -> str | None:
    """Why nothing could compile here (torch.compile's Inductor and Triton), or None."""
    if not facts["compiler"]:
        wanted = f"$CC ({os.environ['CC']})" if os.environ.get("CC") else "cc, gcc or clang on PATH"
        return (f"no C compiler ({wanted}): torch.compile (Inductor, Triton) compiles C and C++; "
                "install gcc or set CC, then run again")
    if not facts["python_headers"]:
        return (f"no Python.h in {sysconfig.get_paths()['include']}: Triton builds its launcher against "
                f"this Python's headers; install them (python{sys.version_info.major}.{sys.version_info.minor}-dev)")
    return None


# torchclaims.outcomes, asked in a subprocess: it needs ``packaging``, which this process may get
# only from the wheels, and its environment() imports torch, which this process never does (no
# CUDA context held here while the steps run).
PROBE = ("import json, sys; sys.path.insert(0, sys.argv[1]); from torchclaims import reports; "
            "print(json.dumps({'environment': %s, 'commit': reports.specs_commit()}))")


def probe_torch(env: dict) -> dict:
    """The torch build as the steps will see it (reports.environment) and the specs' commit as
    git knows it (reports.specs_commit; None without .git)."""
    try:
        probe = subprocess.run([sys.executable, "-c", PROBE % "reports.environment()", str(ROOT)],
                               capture_output=True, text=True, timeout=180, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        raise UsageError("torch took over 180 s to import here: is the GPU or its driver stuck? (nvidia-smi)") from None
    if probe.returncode:
        raise UsageError("torch does not import here: " + (probe.stderr.strip().splitlines() or ["?"])[-1])
    return json.loads(probe.stdout.strip().splitlines()[-1])


def git_commit() -> str | None:
    """reports.specs_commit, without importing torch (for --prepare)."""
    done = subprocess.run([sys.executable, "-c", PROBE % "None", str(ROOT)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])["commit"] if done.returncode == 0 else None


def commit_of(given: str | None, wheels: str | None, found: str | None) -> tuple[str | None, str]:
    """The specs' commit and where it came from: --commit, git (``found``), or the COMMIT file
    --prepare wrote into the wheel folder (a copy of the tree without .git, as a lent machine gets)."""
    if given:
        return given, "--commit"
    if found:
        return found, "git"
    stamp = pathlib.Path(wheels or "", "COMMIT")
    if not (wheels and stamp.is_file()):
        return None, "unknown: no .git here, no --commit, no COMMIT in the wheel folder"
    commit, *digest = stamp.read_text(encoding="utf-8").split()
    if digest and digest[0] != tree_digest():
        return commit + "+changed", f"{stamp} (written by --prepare), but specs/, claims/ or torchclaims/ changed since"
    return commit, f"{stamp} (written by --prepare)"


def tree_digest(root: pathlib.Path = ROOT) -> str:
    """A digest of the files under specs/, claims/ and torchclaims/ as they are on disk (what the
    commit names; computed the same way by --prepare here and by the run on a copy without .git)."""
    digest = hashlib.sha256()
    for path in sorted(p for part in ("specs", "claims", "torchclaims") for p in (root / part).rglob("*")
                       if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
