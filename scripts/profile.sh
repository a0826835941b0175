#!/usr/bin/env bash
# Profile one kernel at one size with Nsight Compute and print a compact summary.
set -euo pipefail

PROG=profile.sh
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() {
    cat <<EOF
usage: scripts/profile.sh [--runner PATH] [--out DIR] [--kernel-regex RE] KERNEL M,N,K [extra ncu args...]

Runs Nsight Compute (ncu) on one launch of KERNEL (number, name or NN_name; 0 = cuBLAS) at
size M,N,K through

  sgemm_runner --kernel KERNEL --size M,N,K --warmup 0 --reps 1 --no-check --no-tuned-baseline

with a fixed metric set and prints a summary: duration, DRAM throughput and bytes, achieved
occupancy, registers/thread, shared memory/block, shared-memory bank conflicts and wavefronts,
FMA pipe use, issue-slot use, global-load sectors per request and the top three warp stall
reasons (see docs/profiling.md for how to read each line).

Clocks: by default ncu locks the GPU clocks to base clock while profiling, so its durations
are not comparable with the runner's timings. We must leave the GPU clocks alone, so this
script always passes --clock-control none: durations are at whatever clock the GPU runs.

Kernel filter (--launch-count 1), from the runner's registry (--list --json): the kernel's GEMM
function where it launches pre-pass kernels before the GEMM (gemm_function), otherwise the prefix
of its __global__ functions, sgemm_NN_ (the runner launches only the one kernel asked for besides
cuBLAS, whose kernels never match). For cuBLAS (kernel 0) the filter is regex:[Gg][Ee][Mm][Mm]
instead (cuBLAS kernel names vary); --kernel-regex RE overrides any of these. The tuned cuBLASLt
baseline (99) gets the same filter, which catches cuBLAS's launch first (cuBLAS runs before it, then
its own timing launches): reach its launch with ncu's --launch-skip.

options:
  --runner PATH       sgemm_runner binary (default: build/runner/sgemm_runner)
  --out DIR           keep the raw CSV (ncu --csv --page raw), the .ncu-rep report, the ncu log
                      and the summary in DIR (default: a temporary directory, removed at exit)
  --kernel-regex RE   profile the first launch whose name matches RE instead
  -h, --help          this help
Arguments after M,N,K that are not the options above go to ncu unchanged (e.g. --set full).
ncu is looked up on PATH, then in \$CUDA_HOME/bin and /usr/local/cuda/bin.

exit status: 0 success; 1 ncu failed or profiled nothing; 2 bad arguments, unknown kernel,
ncu or the runner not found.
EOF
}

RUNNER=$DEFAULT_RUNNER
OUT_DIR=""
REGEX=""
KERNEL=""
SIZE=""
NCU_EXTRA=()
own_options=1
while (($#)); do
    if ((own_options)); then
        case $1 in
            -h | --help) usage; exit 0 ;;
            --runner) (($# >= 2)) || die 2 "--runner needs a path"; RUNNER=$2; shift 2; continue ;;
            --runner=*) RUNNER=${1#*=}; shift; continue ;;
            --out) (($# >= 2)) || die 2 "--out needs a directory"; OUT_DIR=$2; shift 2; continue ;;
            --out=*) OUT_DIR=${1#*=}; shift; continue ;;
            --kernel-regex) (($# >= 2)) || die 2 "--kernel-regex needs a regex"; REGEX=$2; shift 2; continue ;;
            --kernel-regex=*) REGEX=${1#*=}; shift; continue ;;
            --) own_options=0; shift; continue ;;
        esac
    fi
    if [[ -z $KERNEL ]]; then
        [[ $1 != -* ]] || die 2 "unknown option $1 before KERNEL (see --help)"
        KERNEL=$1
    elif [[ -z $SIZE ]]; then
        SIZE=$1
    else
        NCU_EXTRA+=("$1")
    fi
    shift
done
[[ -n $KERNEL && -n $SIZE ]] || { usage >&2; die 2 "KERNEL and M,N,K are required"; }
[[ $SIZE =~ ^[1-9][0-9]*,[1-9][0-9]*,[1-9][0-9]*$ ]] || die 2 "bad size '$SIZE': expected M,N,K (positive integers)"

NCU=$(find_cuda_tool ncu) || die 2 "ncu (Nsight Compute) not found on PATH, in \$CUDA_HOME/bin or /usr/local/cuda/bin"
check_runner "$RUNNER"
RUNNER=$(cd "$(dirname "$RUNNER")" && pwd)/$(basename "$RUNNER")
KLIST=$(list_kernels "$RUNNER" "$KERNEL") || exit 2
[[ $KLIST != *$'\n'* ]] || die 2 "'$KERNEL' names several kernels; profile one at a time"
read -r KNUM _ LABEL _ FUNCTIONS GEMM_FUNCTION _ <<<"$KLIST"
if [[ -z $REGEX ]]; then
    if [[ $GEMM_FUNCTION != - ]]; then
        REGEX="$GEMM_FUNCTION(\$|[^_a-z0-9])"  # the GEMM, not its pre-passes (its name goes on with '_')
    elif [[ $FUNCTIONS != - ]]; then
        REGEX=$FUNCTIONS
    else
        REGEX='[Gg][Ee][Mm][Mm]'
    fi
fi

if [[ -n $OUT_DIR ]]; then
    mkdir -p "$OUT_DIR" || die 2 "cannot create $OUT_DIR"
    WORK=$(cd "$OUT_DIR" && pwd)
else
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/sgemm-profile.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
fi
STEM="$WORK/ncu_${LABEL}_${SIZE//,/x}"
LOG="$STEM.log"
REJECTED="$WORK/.rejected-metrics.log"   # ncu's complaints about metrics, over all attempts
: >"$REJECTED"
show_log() { tail -n +2 "$LOG" | tail -n 30 >&2; }   # line 1 is the (long) command

metrics=$(python3 "$SCRIPTS_DIR/ncu_summary.py" --metrics)
APP=("$RUNNER" --kernel "$KNUM" --size "$SIZE" --warmup 0 --reps 1 --no-check --no-tuned-baseline)
echo "$PROG: profiling $LABEL at ${SIZE//,/x} with $(basename "$NCU") (clock control: none)" >&2
for attempt in 1 2 3 4 5; do
    CMD=("$NCU" --clock-control none --target-processes all --force-overwrite --export "$STEM"
         --metrics "$metrics" --kernel-name "regex:$REGEX" --launch-count 1 ${NCU_EXTRA[@]+"${NCU_EXTRA[@]}"}
         "${APP[@]}")
    printf '%q ' "${CMD[@]}" >"$LOG"
    echo >>"$LOG"
    rc=0
    "${CMD[@]}" >>"$LOG" 2>&1 || rc=$?
    ((rc != 0)) || break
    # An ncu that does not know some metric: leave those out and try again.
    grep -E '==(ERROR|WARNING)==' "$LOG" >>"$REJECTED" || true
    fewer=$(python3 "$SCRIPTS_DIR/ncu_summary.py" --metrics --drop-named-in "$REJECTED" 2>/dev/null)
    if [[ $fewer == "$metrics" || $attempt == 5 ]]; then
        show_log
        if grep -q ERR_NVGPUCTRPERM "$LOG"; then
            echo "$PROG: hint: no permission for GPU performance counters (ERR_NVGPUCTRPERM); run as root or" \
                "allow profiling for all users (NVreg_RestrictProfilingToAdminUsers=0)" >&2
        fi
        die 1 "ncu failed with exit status $rc (last lines of its log above${OUT_DIR:+; full log: $LOG})"
    fi
    echo "$PROG: warning: ncu rejected some metrics; retrying without them:" \
        "$(comm -23 <(tr , '\n' <<<"$metrics" | sort) <(tr , '\n' <<<"$fewer" | sort) | paste -sd' ')" >&2
    metrics=$fewer
done

rm -f "$REJECTED"
[[ -s "$STEM.ncu-rep" ]] || {
    show_log
    die 1 "ncu profiled no kernel: nothing matched --kernel-name regex:$REGEX (see the log above)"
}
"$NCU" --import "$STEM.ncu-rep" --csv --page raw --print-units base >"$STEM.csv" 2>>"$LOG" ||
    die 1 "ncu --import of $STEM.ncu-rep failed (see $LOG)"
python3 "$SCRIPTS_DIR/ncu_summary.py" --size "$SIZE" "$STEM.csv" | tee "$STEM.txt" ||
    die 1 "could not summarise $STEM.csv"
if [[ -n $OUT_DIR ]]; then
    echo "$PROG: kept $STEM.{csv,ncu-rep,log,txt}" >&2
fi
