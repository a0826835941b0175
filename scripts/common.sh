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

# list_kernels RUNNER: prints "NUMBER NAME TUNING" for every registered kernel, TUNING 1 for a
# tuning variant (-DSGEMM_TUNING=ON builds) and 0 for a step, from `RUNNER --list --json -`.
list_kernels() {
    local out
    out="$("$1" --list --json -)" || die 2 "'$1 --list --json -' failed"
    out=$(python3 -c '
import json, sys
for k in json.load(sys.stdin)["kernels"]:
    print(k["number"], k["name"], int(k["tuning_variant"]))' <<<"$out") || die 2 "'$1 --list --json -' printed no registry JSON"
    [[ -n $out ]] || die 2 "'$1 --list --json -' listed no kernels"
    echo "$out"
}

# resolve_kernel KEY < list: prints "NUMBER NAME" for a number (7, 07), name or NN_name; returns 1 if unknown.
resolve_kernel() {
    local key=$1 number name _tuning
    while read -r number name _tuning; do
        if [[ $key =~ ^[0-9]+$ ]]; then
            ((10#$key == number)) && { echo "$number $name"; return 0; }
        elif [[ $key == "$name" || $key == "$(printf '%02d_%s' "$number" "$name")" ]]; then
            echo "$number $name"
            return 0
        fi
    done
    return 1
}

# label NUMBER NAME: 07_warptiling
label() { printf '%02d_%s' "$1" "$2"; }

# labels < list: "00_cublas 01_naive ..." for error messages
labels() {
    local number name _tuning
    while read -r number name _tuning; do printf '%s ' "$(label "$number" "$name")"; done
}
