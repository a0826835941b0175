# shellcheck shell=bash
# Shared by scripts/profile.sh and scripts/sanitize.sh (sourced, not run).
# The sourcing script sets PROG (its name, for messages) first.

SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPTS_DIR/.." && pwd)"
# shellcheck disable=SC2034  # used by the sourcing scripts
DEFAULT_RUNNER="$REPO_ROOT/build/runner/sgemm_runner"

die() {  # die EXIT_CODE MESSAGE...
    local code=$1
    shift
    echo "$PROG: error: $*" >&2
    exit "$code"
}

# find_cuda_tool NAME: prints the path of a CUDA tool (ncu, compute-sanitizer) found on PATH,
# in $CUDA_HOME/bin or in /usr/local/cuda/bin; returns 1 when there is none.
find_cuda_tool() {
    local name=$1 dir
    if command -v "$name" >/dev/null 2>&1; then
        command -v "$name"
        return 0
    fi
    for dir in ${CUDA_HOME:+"$CUDA_HOME/bin"} /usr/local/cuda/bin; do
        if [[ -x "$dir/$name" ]]; then
            echo "$dir/$name"
            return 0
        fi
    done
    return 1
}

# check_runner PATH: exits 2 unless PATH is an executable file.
check_runner() {
    [[ -f "$1" && -x "$1" ]] || die 2 "runner not found or not executable: $1 (build it first, or pass --runner PATH)"
}

# list_kernels RUNNER [KEYS]: one line "NUMBER NAME LABEL TUNING FUNCTIONS GEMM_FUNCTION LAUNCHED" per kernel
# that KEYS (--kernel's grammar: numbers, names, NN_name, comma lists, all; default all) selects,
# in registry order, from the runner's own resolver: `RUNNER --list --kernel KEYS --json -`.
# TUNING: 1 for a tuning variant (-DSGEMM_TUNING=ON builds), else 0. FUNCTIONS: the sgemm_NN_ prefix of
# the kernel's __global__ functions; GEMM_FUNCTION: the one that computes the product, for a kernel
# that launches pre-pass kernels first; LAUNCHED: FUNCTIONS and the prefixes of the steps it composes,
# comma-separated; '-' for none (cuBLAS has no functions of ours). Exits 2 where
# the runner refuses KEYS (its message, with the valid kernels, is on stderr) or lists nothing.
list_kernels() {
    local runner=$1 keys=${2-all} out rc=0
    out=$("$runner" --list --kernel "$keys" --json -) || rc=$?
    ((rc != 2)) || die 2 "the runner refused --kernel '$keys' (its message above)"
    ((rc == 0)) || die 2 "'$runner --list --kernel $keys --json -' failed with exit status $rc"
    out=$(python3 -c '
import json, sys
for k in json.load(sys.stdin)["kernels"]:
    print(k["number"], k["name"], k["label"], int(k["tuning_variant"]), k["functions"] or "-",
          k["gemm_function"] or "-", ",".join(k["launched_functions"]) or "-")' <<<"$out") ||
        die 2 "'$runner --list --kernel $keys --json -' printed no registry JSON this script can read"
    [[ -n $out ]] || die 2 "'$runner --list --kernel $keys --json -' listed no kernels"
    echo "$out"
}
