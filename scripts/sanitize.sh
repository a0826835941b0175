#!/usr/bin/env bash
# Run compute-sanitizer (memcheck for every kernel, racecheck and synccheck for ours, not the cuBLAS and cuBLASLt
# baselines) on odd shapes.
set -uo pipefail

PROG=sanitize.sh
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Odd shapes; deep-K ones (split-K configurations and their reduction; at 64 x 64 x 32772 step 12's
# fused kernel) and a matrix-vector one.
MEMCHECK_SHAPES=('257,255,263' '33,4097,17' '1,1,1' '64,64,8192' '64,64,32772' '1000,1,3000')
# racecheck is slow: small, odd; deep (split-K; the fused kernel); K below 16
RACE_SHAPES=('129,131,67' '64,64,4099' '64,64,32772' '77,300,9')

usage() {
    cat <<EOF
usage: scripts/sanitize.sh [--runner PATH] [--kernels LIST] [--log-dir DIR] [--timeout S] [--dry-run]

Runs compute-sanitizer on every registered kernel (from 'sgemm_runner --list --json -', the cuBLAS
and tuned cuBLASLt baselines included; tuning variants only when named in --kernels), one runner
invocation per tool, kernel and shape, each as

  compute-sanitizer --tool TOOL --error-exitcode 9 sgemm_runner --kernel N --size M,N,K --layout all --warmup 0 --reps 1 --no-tuned-baseline

(--no-tuned-baseline: the tuned baseline runs only in its own runs, where --kernel names it; cuBLAS
runs in every one)

  memcheck             all kernels, shapes ${MEMCHECK_SHAPES[*]}
  racecheck, synccheck every kernel but the baselines (no functions of ours), shapes ${RACE_SHAPES[*]}, instrumenting only the
                       kernel under test (--kernel-name kns=PREFIX, the sgemm_NN_ prefix of its
                       __global__ functions in the registry; one run per prefix for a kernel that
                       launches other steps' kernels: launched_functions)

The runner's own correctness check stays on, so a wrong result fails the run too.
Prints one line per run (tool, kernel, shape, OK/FAIL, or N/A where the runner did not launch the
kernel: kernels that need sm_90a run on compute capability 9.0 only) and finally
'sanitize: N passed, M failed' (', K not launched (N/A)' where some were not).

options:
  --runner PATH   sgemm_runner binary (default: build/runner/sgemm_runner)
  --kernels LIST  a subset, as the runner's --kernel takes it (numbers, names, comma lists)
  --log-dir DIR   keep every run's log in DIR (default: a temporary directory, kept only on failure)
  --timeout S     give up on one run after S seconds (default 900; needs coreutils timeout)
  --dry-run       print the runs (tool, kernel, shape, command) without running them: needs no GPU
                  and no compute-sanitizer
  -h, --help      this help
compute-sanitizer is looked up on PATH, then in \$CUDA_HOME/bin and /usr/local/cuda/bin.

exit status: 0 every run passed; 1 some run failed; 2 bad arguments, unknown kernel,
compute-sanitizer or the runner not found.
EOF
}

RUNNER=$DEFAULT_RUNNER
KERNELS=""
LOG_DIR=""
TIMEOUT=900
DRY_RUN=0
while (($#)); do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --runner) (($# >= 2)) || die 2 "--runner needs a path"; RUNNER=$2; shift 2 ;;
        --runner=*) RUNNER=${1#*=}; shift ;;
        --kernels) (($# >= 2)) || die 2 "--kernels needs a list"; KERNELS=$2; shift 2 ;;
        --kernels=*) KERNELS=${1#*=}; shift ;;
        --log-dir) (($# >= 2)) || die 2 "--log-dir needs a directory"; LOG_DIR=$2; shift 2 ;;
        --log-dir=*) LOG_DIR=${1#*=}; shift ;;
        --timeout) (($# >= 2)) || die 2 "--timeout needs seconds"; TIMEOUT=$2; shift 2 ;;
        --timeout=*) TIMEOUT=${1#*=}; shift ;;
        --dry-run) DRY_RUN=1; shift ;;
        *) usage >&2; die 2 "unknown argument '$1'" ;;
    esac
done
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die 2 "bad --timeout '$TIMEOUT': expected a positive number of seconds"

SAN=$(find_cuda_tool compute-sanitizer) || ((DRY_RUN)) ||
    die 2 "compute-sanitizer not found on PATH, in \$CUDA_HOME/bin or /usr/local/cuda/bin"
SAN=${SAN:-compute-sanitizer}
check_runner "$RUNNER"
if [[ -z $KERNELS ]]; then
    KLIST=$(list_kernels "$RUNNER") || exit 2
    variants=$(awk '$4 == 1 {printf "%s ", $3}' <<<"$KLIST")
    if [[ -n $variants ]]; then
        echo "$PROG: skipping tuning variants $variants(some are correct only on tile multiples;" \
            "name them in --kernels to include them)" >&2
        KLIST=$(awk '$4 != 1' <<<"$KLIST")
    fi
else
    KLIST=$(list_kernels "$RUNNER" "$KERNELS") || exit 2
fi

if ((DRY_RUN)); then
    :  # writes no logs
elif [[ -n $LOG_DIR ]]; then
    mkdir -p "$LOG_DIR" || die 2 "cannot create $LOG_DIR"
    KEEP_LOGS=1
else
    LOG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sgemm-sanitize.XXXXXX")
    KEEP_LOGS=0
fi
TIMEOUT_CMD=()
if command -v timeout >/dev/null 2>&1; then TIMEOUT_CMD=(timeout --kill-after=30 "$TIMEOUT"); fi

passed=0
failed=0
not_run=0
failures=()
# run_one TOOL NUMBER NAME LABEL SHAPE [extra compute-sanitizer args...]
run_one() {
    local tool=$1 number=$2 name=$3 lbl=$4 shape=$5
    shift 5
    local log rc verdict
    log="$LOG_DIR/${tool}_${lbl}_${shape//,/x}.log"
    local cmd=("$SAN" --tool "$tool" --error-exitcode 9 "$@"
               "$RUNNER" --kernel "$number" --size "$shape" --layout all --warmup 0 --reps 1 --no-tuned-baseline)
    if ((DRY_RUN)); then
        printf '%-10s %-24s %-12s ' "$tool" "$lbl" "${shape//,/x}"
        printf '%q ' "${cmd[@]}"
        echo
        return
    fi
    {
        printf '%q ' "${cmd[@]}"
        echo
    } >"$log"
    rc=0
    ${TIMEOUT_CMD[@]+"${TIMEOUT_CMD[@]}"} "${cmd[@]}" >>"$log" 2>&1 </dev/null || rc=$?
    case $rc in
        0) verdict=OK ;;
        9) verdict="FAIL (compute-sanitizer found errors)" ;;
        1) verdict="FAIL (runner: result check failed)" ;;
        124 | 137) verdict="FAIL (timed out after ${TIMEOUT} s)" ;;
        *) verdict="FAIL (exit status $rc)" ;;
    esac
    # Belt and braces: an error summary with errors is a failure whatever the exit status.
    if [[ $verdict == OK ]] && grep -Eq 'ERROR SUMMARY: [1-9]' "$log"; then
        verdict="FAIL (compute-sanitizer found errors)"
    fi
    # A kernel the runner did not launch (N/A: one that needs sm_90a on a GPU of compute capability
    # other than 9.0, a shape its can_implement refuses) was not checked: say so rather than OK. Every
    # layout runs (a kernel that takes only NN is N/A in the others, which is no reason to say N/A).
    local reason
    reason=$(sed -nE "s/^ *$number +$name .* N\/A \((.*)\) *\$/\1/p" "$log" | grep -v '^NN only$' | head -1)
    if [[ $verdict == OK && -n $reason ]]; then
        verdict="N/A (not launched: $reason)"
    fi
    printf '%-10s %-24s %-12s %s\n' "$tool" "$lbl" "${shape//,/x}" "$verdict"
    if [[ $verdict == OK ]]; then
        passed=$((passed + 1))
    elif [[ $verdict == N/A* ]]; then
        not_run=$((not_run + 1))
    else
        failed=$((failed + 1))
        failures+=("$log")
    fi
}

((DRY_RUN)) || echo "$PROG: $(basename "$SAN"), runner $RUNNER, logs in $LOG_DIR" >&2
while read -r number name lbl _ functions _ launched; do
    for shape in "${MEMCHECK_SHAPES[@]}"; do
        run_one memcheck "$number" "$name" "$lbl" "$shape"
    done
    # Ours only (the baselines have no functions of ours), instrumenting only the kernel under test: its
    # __global__ functions, a tuning variant's being its step's, and those of the steps it composes,
    # one prefix per run (a kernel-name filter takes one substring).
    [[ $functions != - ]] || continue
    for prefix in ${launched//,/ }; do
        # A composed step's run is labelled with its prefix (own log, own line).
        tag=$lbl
        [[ $prefix == "$functions" ]] || tag="$lbl+${prefix%_}"
        for tool in racecheck synccheck; do
            for shape in "${RACE_SHAPES[@]}"; do
                run_one "$tool" "$number" "$name" "$tag" "$shape" --kernel-name "kns=$prefix"
            done
        done
    done
done <<<"$KLIST"

((!DRY_RUN)) || exit 0
if ((failed)); then
    echo "$PROG: logs of the failed runs:" >&2
    printf '  %s\n' "${failures[@]}" >&2
elif ((!KEEP_LOGS)); then
    rm -rf "$LOG_DIR"
fi
echo "sanitize: $passed passed, $failed failed$( ((not_run)) && echo ", $not_run not launched (N/A)")"
((failed == 0))
