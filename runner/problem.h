// One GEMM problem on the GPU: random inputs, the float64 reference, the
// checked run of a kernel and its timing. Used by sgemm_runner and the tests.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "cli.h"
#include "common/registry.h"
#include "verify.h"

namespace sgemm {

// The problem does not fit in the free GPU memory (checked before allocating).
struct DoesNotFitError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Timing {
    double median_ms = 0, min_ms = 0;
};

struct CheckResult {
    ErrorStats stats;
    double rel_err = 0;           // ||C - R|| / ||R|| (NaN when C holds NaN/Inf)
    double max_abs_diff_base = 0; // max |C - baseline| when a baseline was kept (NaN if non-finite)
    bool pass = false;
};

class Problem {
public:
    // Throws DoesNotFitError when the buffers (and, for timing, the L2 flush
    // buffer) would not fit in the device's free memory.
    Problem(Size size, float alpha, float beta, std::uint64_t seed, bool with_reference);
    ~Problem();
    Problem(const Problem&) = delete;
    Problem& operator=(const Problem&) = delete;

    static std::size_t bytes_needed(Size size, bool with_reference);
    // Throws DoesNotFitError unless the problem fits in the free device memory.
    static void ensure_fits(Size size, bool with_reference);

    // Resets the output (NaN when beta == 0, since C must not be read; a copy
    // of the random C0 otherwise), launches `kernel` once, synchronizes and
    // checks both the launch and the asynchronous error.
    void run_once(const KernelInfo& kernel);
    // The same reset alone, for tests that launch something else.
    void reset_output();
    void synchronize_and_check();

    // Compares the current output with the float64 reference (needs with_reference).
    CheckResult verify() const;
    // Keeps the current output as the baseline (cuBLAS) for max |ours - baseline|.
    void keep_as_baseline();

    // Median and minimum over `reps` launches after `warmup`, timed with CUDA
    // events around each launch; the L2 is flushed before each unless hot_l2.
    Timing time(const KernelInfo& kernel, int warmup, int reps, bool hot_l2);

    Size size() const { return size_; }
    float alpha() const { return alpha_; }
    float beta() const { return beta_; }
    const float* A() const { return A_; }
    const float* B() const { return B_; }
    float* C() { return C_; }
    cudaStream_t stream() const { return stream_; }

private:
    void launch(const KernelInfo& kernel);

    Size size_;
    float alpha_, beta_;
    bool with_reference_;
    cudaStream_t stream_ = nullptr;
    float *A_ = nullptr, *B_ = nullptr, *C0_ = nullptr, *C_ = nullptr, *base_ = nullptr;
    double *R_ = nullptr, *Rabs_ = nullptr;
    bool have_base_ = false;
    void* flush_ = nullptr;
    std::size_t flush_bytes_ = 0;
};

}  // namespace sgemm
