#!/usr/bin/env python3
"""Checks the SASS of the built kernels without a GPU (run by CTest).

Each step's lesson must be visible in the machine code:
  - no sgemm_* kernel touches local memory (LDL/STL: spills or a dynamically indexed register array);
  - sgemm_06_* loads global memory with LDG.E.128 and shared memory with LDS.128;
  - sgemm_07_* .. sgemm_09_* read shared memory with LDS.128;
  - sgemm_09_* copies global -> shared with LDGSTS (cp.async).
cuobjdump comes with the CUDA toolkit; where the toolkit lacks it, PyPI's
nvidia-cuda-cuobjdump provides it (.ci/run installs it).
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
]
FORBIDDEN = [(r"\b(LDL|STL)(\.\S+)?\b", "local memory (spills)")]


def find_cuobjdump():
    candidates = [shutil.which("cuobjdump")]
    for root in {os.environ.get("CUDA_HOME", "/usr/local/cuda"), "/usr/local/cuda"}:
        candidates.append(os.path.join(root, "bin", "cuobjdump"))
    for site in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        candidates += glob.glob(os.path.join(site, "nvidia", "cu*", "bin", "cuobjdump"))
        candidates += glob.glob(os.path.join(site, "nvidia", "cuda_cuobjdump", "bin", "cuobjdump"))
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    return None


def kernels_sass(binary, cuobjdump):
    out = subprocess.run([cuobjdump, "-sass", binary], check=True, capture_output=True, text=True).stdout
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
    cuobjdump = find_cuobjdump()
    if not cuobjdump:
        sys.exit("check_sass: cuobjdump not found (not in the CUDA toolkit here): "
                 "python3 -m pip install nvidia-cuda-cuobjdump")
    functions = kernels_sass(sys.argv[1], cuobjdump)
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
