#!/usr/bin/env bash
# Everything that needs a GPU, in one go, from an existing build: the GPU test
# suite, the runner's CLI test, compute-sanitizer, the benchmark sweep and an
# Nsight Compute summary of every step at 4096^3. Logs and JSON go to OUTDIR.
#
#   scripts/device-check.sh OUTDIR [phase ...]   phases: tests sanitize bench profile (default: all)
#
# Exits non-zero if any phase failed; prints one summary line per phase last.
set -uo pipefail
PROG=device-check.sh
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/device-check.sh OUTDIR [tests|sanitize|bench|profile ...]}
shift
phases=${*:-tests sanitize bench profile}
build=${BUILD_DIR:-build}
runner=$build/runner/sgemm_runner
mkdir -p "$out"
summary=()
status=0
record() {  # record PHASE RC LINE
    summary+=("$1: $3 (exit $2)")
    [[ $2 -eq 0 ]] || status=1
}
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,driver_version,power.limit \
      --format=csv; } >"$out/device.txt" 2>&1

for phase in $phases; do
    case $phase in
    tests)
        "$build/tests/sgemm_tests" >"$out/gtest.log" 2>&1
        rc=$?
        record gtest $rc "$(grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' "$out/gtest.log" | tr '\n' ' ')"
        bash tests/test_runner_cli.sh "$runner" >"$out/runner_cli.log" 2>&1
        record runner_cli $? "$(tail -1 "$out/runner_cli.log")"
        ;;
    sanitize)
        scripts/sanitize.sh --runner "$runner" --log-dir "$out/sanitize" >"$out/sanitize.log" 2>&1
        record sanitize $? "$(tail -1 "$out/sanitize.log")"
        ;;
    bench)
        scripts/bench --runner "$runner" --out "$out/bench.json" >"$out/bench.log" 2>&1
        record bench $? "$(tail -1 "$out/bench.log")"
        ;;
    profile)
        rc_all=0
        : >"$out/profile.log"
        # Every step (no cuBLAS, no tuning variants), from the runner's registry (common.sh). profile.sh
        # picks the launch to profile from the registry too (a kernel's GEMM function, not its pre-passes).
        kernels=$(list_kernels "$runner" 2>>"$out/profile.log") || {
            record profile 2 "could not list the kernels (see profile.log)"
            continue
        }
        while read -r k _ _ tuning functions _; do
            [[ $functions != - && $tuning == 0 ]] || continue
            echo "=== kernel $k" >>"$out/profile.log"
            scripts/profile.sh --runner "$runner" "$k" 4096,4096,4096 >>"$out/profile.log" 2>&1 </dev/null || rc_all=1
        done <<<"$kernels"
        record profile $rc_all "$(grep -c '^=== kernel' "$out/profile.log") kernels profiled"
        ;;
    *) echo "unknown phase '$phase'" >&2; exit 2 ;;
    esac
done
printf '%s\n' "${summary[@]}"
exit $status
