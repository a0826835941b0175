#!/usr/bin/env python3
"""Checks the SASS of the built kernels without a GPU (run by CTest).

Each step's lesson must be visible in the machine code:
  - no sgemm_* kernel touches local memory (LDL/STL: spills or a dynamically indexed register array);
  - sgemm_06_* loads global memory with LDG.E.128 and shared memory with LDS.128;
  - sgemm_07_* .. sgemm_09_* read shared memory with LDS.128;
  - sgemm_09_* and step 10's tile kernels copy global -> shared with LDGSTS (cp.async).
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

# (kernel-name prefix, instruction regex, what it shows)
REQUIRED = [
    ("sgemm_06_", r"\bLDG\.E\.128\b", "16-byte global loads"),
    ("sgemm_06_", r"\bLDS\.128\b", "16-byte shared loads"),
    ("sgemm_07_", r"\bLDS\.128\b", "16-byte shared loads"),
    ("sgemm_08_", r"\bLDS\.128\b", "16-byte shared loads"),
    ("sgemm_09_", r"\bLDS\.128\b", "16-byte shared loads"),
    ("sgemm_09_", r"\bLDGSTS\b", "cp.async global->shared copies"),
    ("sgemm_10_every_shape_tile", r"\bLDS\.128\b", "16-byte shared loads"),
    ("sgemm_10_every_shape_tile", r"\bLDGSTS\b", "cp.async global->shared copies"),
]
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
    functions, name = {}, None
    for line in out.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = m.group(1)
            functions[name] = []
        elif name:
            functions[name].append(line)
    return functions


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_sass.py BINARY")
    cuobjdump = find_tool("cuobjdump")
    if not cuobjdump:
        sys.exit(f"check_sass: FAIL: cuobjdump not found (the CUDA toolkit here has none): {HOW_TO_GET}")
    nvdisasm = find_tool("nvdisasm")
    functions = kernels_sass(sys.argv[1], cuobjdump, nvdisasm)
    # Mangled names contain the plain name, e.g. _ZN..sgemm_06_vectorized...
    ours = {n: "\n".join(body) for n, body in functions.items() if "sgemm_" in n}
    if not ours:
        sys.exit("check_sass: no sgemm_* kernels found in " + sys.argv[1])
    failures, checked = [], 0

    def matching(prefix):
        return {n: sass for n, sass in ours.items() if prefix in n}

    for prefix, pattern, what in REQUIRED:
        found = matching(prefix)
        if not found:  # every step the checks name must be in the binary
            failures.append(f"no kernel named {prefix}* in the binary")
        for n, sass in found.items():
            checked += 1
            if not re.search(pattern, sass):
                failures.append(f"{n}: no {pattern.strip(chr(92) + 'b')} ({what})")
    for n, sass in ours.items():
        for pattern, what in FORBIDDEN:
            checked += 1
            hits = re.findall(pattern, sass)
            if hits:
                failures.append(f"{n}: {len(hits)} local-memory instructions ({what})")
    for f in failures:
        print("FAIL:", f)
    print(f"sass_check: {checked - len(failures)} passed, {len(failures)} failed "
          f"({len(ours)} sgemm kernels in {os.path.basename(sys.argv[1])})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
