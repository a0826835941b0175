#!/usr/bin/env python3
"""Checks the SASS of the built kernels without a GPU (run by CTest).

Each step's lesson must be visible in the machine code:
  - no sgemm_* kernel touches local memory (LDL/STL: spills or a dynamically indexed register array);
  - sgemm_06_* loads global memory with LDG.E.128 and shared memory with LDS.128;
  - sgemm_07_* .. sgemm_09_* read shared memory with LDS.128;
  - sgemm_09_* and step 10's tile kernels copy global -> shared with LDGSTS (cp.async);
  - step 11's GEMM sgemm_11_tma_warp_specialized loads through TMA (UTMALDG) and waits on mbarriers
    (SYNCS.*), with no LDGSTS left;
  - step 12's GEMM sgemm_12_3xtf32_wgmma multiplies with wgmma on tf32 operands (HGMMA.*.TF32).
(Their operand kernels, sgemm_11_..._stage and sgemm_12_..._split, are held to the local-memory rule only.)
Steps 11 and 12 are checked in their sm_90 (or sm_90a) code only: where a kernel has code for older
GPUs alone there is no TMA or wgmma to show, so its checks are skipped with a note. A kernel that a
check names but the binary lacks altogether fails the test.
cuobjdump and nvdisasm come with a full CUDA toolkit. Where the toolkit lacks them,
scripts/test installs PyPI's nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm (pinned, one
release, in scripts/requirements.txt) into a virtual environment under the build
directory and runs this script with that environment's Python. Since CUDA 13.3,
`cuobjdump -sass` runs nvdisasm, which it looks up on PATH: this script puts the nvdisasm
it finds there. A missing tool fails the test with one line saying how to get it.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig

# (kernel, instruction regex, what it shows). kernel: a step's prefix ending in '_' (sgemm_06_: every
# kernel of step 06) or one whole kernel name (sgemm_11_tma_warp_specialized: the GEMM, not its
# operand-staging helper sgemm_11_tma_warp_specialized_stage).
REQUIRED = [
    ("sgemm_06_", r"\bLDG\.E\.128\b", "16-byte global loads"),
    ("sgemm_06_", r"\bLDS\.128\b", "16-byte shared loads"),
    ("sgemm_07_", r"\bLDS\.128\b", "16-byte shared loads"),
    ("sgemm_08_", r"\bLDS\.128\b", "16-byte shared loads"),
    ("sgemm_09_", r"\bLDS\.128\b", "16-byte shared loads"),
    ("sgemm_09_", r"\bLDGSTS\b", "cp.async global->shared copies"),
    ("sgemm_10_every_shape_tile", r"\bLDS\.128\b", "16-byte shared loads"),
    ("sgemm_10_every_shape_tile", r"\bLDGSTS\b", "cp.async global->shared copies"),
    ("sgemm_11_tma_warp_specialized", r"\bUTMALDG\b", "TMA tensor loads (cp.async.bulk.tensor)"),
    ("sgemm_11_tma_warp_specialized", r"\bSYNCS\b", "mbarrier arrive/wait"),
    ("sgemm_12_3xtf32_wgmma", r"\bHGMMA\.\S*\.TF32\b", "wgmma with tf32 operands"),
]
# (kernel as in REQUIRED, instruction regex, why it must not be there)
ABSENT = [
    ("sgemm_11_tma_warp_specialized", r"\bLDGSTS\b", "cp.async copies: step 11 loads through TMA"),
]
# Checks of these prefixes apply to SASS for this SM or newer only (TMA, mbarrier tx-counts and wgmma
# are sm_90 features; a kernel compiled for sm_80 too would have a stub there).
MIN_SM = {"sgemm_11_": 90, "sgemm_12_": 90}
FORBIDDEN = [(r"\b(LDL|STL)(\.\S+)?\b", "local memory (spills)")]


HOW_TO_GET = ("run scripts/test (it installs the pinned nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm of "
              "scripts/requirements.txt into BUILD/python), or put a CUDA toolkit's cuobjdump and nvdisasm on PATH")


def find_tool(name):
    """The tool from PATH, the CUDA toolkit, or this Python's site-packages (PyPI's nvidia-cuda-*)."""
    candidates = [shutil.which(name)]
    for root in {os.environ.get("CUDA_HOME", "/usr/local/cuda"), "/usr/local/cuda"}:
        candidates.append(os.path.join(root, "bin", name))
    for site in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        candidates += sorted(glob.glob(os.path.join(site, "nvidia", "cu*", "bin", name)))
        candidates += sorted(glob.glob(os.path.join(site, "nvidia", "cuda_*", "bin", name)))
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


class CuobjdumpError(Exception):
    """cuobjdump failed: `last_line` is its last error line; `nvdisasm_missing` when it could not run nvdisasm."""

    def __init__(self, last_line, nvdisasm_missing):
        super().__init__(last_line)
        self.last_line, self.nvdisasm_missing = last_line, nvdisasm_missing


def run_cuobjdump(cuobjdump, nvdisasm, flag, binary):
    """`cuobjdump FLAG BINARY`'s output, with nvdisasm where cuobjdump looks for it (also scripts/sass_stats)."""
    env = dict(os.environ)
    if nvdisasm:
        env["PATH"] = os.path.dirname(nvdisasm) + os.pathsep + env.get("PATH", "")
        env["NVDISASM_PATH"] = nvdisasm
    proc = subprocess.run([cuobjdump, flag, binary], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        err = proc.stderr.strip().splitlines()
        raise CuobjdumpError(err[-1] if err else "exit " + str(proc.returncode), "nvdisasm" in proc.stderr)
    return proc.stdout


def kernels_sass(binary, cuobjdump, nvdisasm):
    try:
        out = run_cuobjdump(cuobjdump, nvdisasm, "-sass", binary)
    except CuobjdumpError as e:
        sys.exit(f"check_sass: FAIL: {cuobjdump} -sass failed ({e.last_line})"
                 + (f"; nvdisasm is missing: {HOW_TO_GET}" if e.nvdisasm_missing else ""))
    # {(name, arch): lines}: a build for several architectures has one copy of each kernel per arch.
    functions, name, arch = {}, None, "sm_?"
    for line in out.splitlines():
        m = re.match(r"\s*code for (sm_\w+)", line)
        if m:
            arch, name = m.group(1), None
            continue
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = m.group(1)
            functions[(name, arch)] = []
        elif name:
            functions[(name, arch)].append(line)
    return functions


def named(key, mangled):
    """Whether the kernel `mangled` is `key`: a prefix ending in '_', else a whole name, which an
    Itanium-mangled name spells as <length><identifier> (29sgemm_11_tma_warp_specialized)."""
    if key.endswith("_"):
        return key in mangled
    return mangled == key or f"{len(key)}{key}" in mangled


def sm_number(arch):
    m = re.match(r"sm_(\d+)", arch)
    return int(m.group(1)) if m else 0


def shown(pattern):
    """The regex as a reader wants it in a message: '\\bHGMMA\\.\\S*\\.TF32\\b' -> 'HGMMA.*.TF32'."""
    return pattern.replace(r"\b", "").replace(r"\S*", "*").replace("\\", "")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_sass.py BINARY")
    cuobjdump = find_tool("cuobjdump")
    if not cuobjdump:
        sys.exit(f"check_sass: FAIL: cuobjdump not found (the CUDA toolkit here has none): {HOW_TO_GET}")
    nvdisasm = find_tool("nvdisasm")
    functions = kernels_sass(sys.argv[1], cuobjdump, nvdisasm)
    # Mangled names contain the plain name, e.g. _ZN..sgemm_06_vectorized...
    ours = {key: "\n".join(body) for key, body in functions.items() if "sgemm_" in key[0]}
    if not ours:
        sys.exit("check_sass: no sgemm_* kernels found in " + sys.argv[1])
    several_archs = len({arch for _, arch in ours}) > 1
    # Every step the checks name must be in the binary (one failure per missing prefix).
    missing = [p for p in dict.fromkeys(e[0] for e in REQUIRED + ABSENT) if not any(named(p, n) for n, _ in ours)]
    failures = [f"no kernel named {p}{'*' if p.endswith('_') else ''} in the binary" for p in missing]
    notes, checked = [], len(missing)

    def label(key):
        return f"{key[0]} ({key[1]})" if several_archs else key[0]

    def matching(prefix):
        """The kernels `prefix` names, in the archs its checks apply to (a note where there are none)."""
        found = {k: sass for k, sass in ours.items() if named(prefix, k[0])}
        if not found:  # failed above
            return {}
        min_sm = max((sm for p, sm in MIN_SM.items() if prefix.startswith(p)), default=0)
        usable = {k: sass for k, sass in found.items() if sm_number(k[1]) >= min_sm}
        if not usable:
            note = f"{prefix}: no sm_{min_sm} code in this binary (built for " \
                   f"{', '.join(sorted({k[1] for k in found}))}): its sm_{min_sm} checks skipped"
            if note not in notes:
                notes.append(note)
        return usable

    for prefix, pattern, what in REQUIRED:
        for key, sass in matching(prefix).items():
            checked += 1
            if not re.search(pattern, sass):
                failures.append(f"{label(key)}: no {shown(pattern)} ({what})")
    for prefix, pattern, what in ABSENT:
        for key, sass in matching(prefix).items():
            checked += 1
            hits = re.findall(pattern, sass)
            if hits:
                failures.append(f"{label(key)}: {len(hits)} {shown(pattern)} ({what})")
    for key, sass in ours.items():
        for pattern, what in FORBIDDEN:
            checked += 1
            hits = re.findall(pattern, sass)
            if hits:
                failures.append(f"{label(key)}: {len(hits)} local-memory instructions ({what})")
    for n in notes:
        print("note:", n)
    for f in failures:
        print("FAIL:", f)
    print(f"sass_check: {checked - len(failures)} passed, {len(failures)} failed "
          f"({len({name for name, _ in ours})} sgemm kernels in {os.path.basename(sys.argv[1])})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
