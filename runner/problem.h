// One GEMM problem on the GPU: random inputs, the float64 reference, the
// checked run of a kernel and its timing. Used by sgemm_runner and the tests.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "common/registry.h"
#include "device_buffer.h"
#include "distribution.h"
#include "event_timing.h"
#include "size.h"
#include "verify.h"

namespace sgemm {

// The problem does not fit in the free GPU memory (checked before allocating).
struct DoesNotFitError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// How A, B and C lie in their buffers: A stored M x K (op_a kN) or K x M (kT), B stored K x N (op_b
// kN) or N x K (kT), C M x N, each row padded by ld_pad floats (lda = K + ld_pad or M + ld_pad, ...)
// and each matrix starting `offset` floats after an aligned (cudaMalloc) allocation.
struct Layout {
    int ld_pad = 0;
    int offset = 0;
    Op op_a = Op::kN, op_b = Op::kN;
    friend bool operator==(const Layout&, const Layout&) = default;
};

// One launch of something on the problem: a registered kernel, or one of its tuning candidates.
struct Launcher {
    std::function<void(const GemmArgs&, void* workspace, cudaStream_t)> launch;
    std::size_t workspace_bytes = 0;
};
Launcher launcher_of(const KernelInfo& kernel, const GemmArgs& args);
// One of the kernel's tuning candidates (spec.candidates), launched by id: for --tune and the tests.
Launcher launcher_of(const KernelInfo& kernel, const Candidate& candidate);

// Fills the n floats at `p` (device memory) with element_value(spec, i), on `stream`: every input
// buffer of a Problem, and sgemm_ceilings' cuBLAS operands.
void fill_buffer(float* p, std::size_t n, const FillSpec& spec, cudaStream_t stream);

class Problem {
  public:
    // Inputs drawn from `init` (distribution.h). Throws DoesNotFitError when the buffers (and, for
    // timing, the L2 flush buffer and `workspace_bytes`) would not fit in the device's free memory.
    Problem(Size size, float alpha, float beta, std::uint64_t seed, bool with_reference, Layout layout = {},
            std::size_t workspace_bytes = 0, Distribution init = Distribution::kUniform);
    Problem(const Problem&) = delete;
    Problem& operator=(const Problem&) = delete;

    static std::size_t bytes_needed(Size size, bool with_reference, Layout layout, std::size_t workspace_bytes);
    // Throws DoesNotFitError unless the problem fits in the free device memory.
    static void ensure_fits(Size size, bool with_reference, Layout layout = {}, std::size_t workspace_bytes = 0);
    // The GemmArgs of a problem of this size and layout, with stand-in pointers that have the
    // alignment the real buffers will have: for can_implement / workspace_bytes before allocating.
    static GemmArgs args_for(Size size, float alpha, float beta, Layout layout);

    // The GEMM call on this problem's buffers.
    const GemmArgs& args() const { return args_; }

    // Resets the output (C's whole buffer: NaN when beta == 0, since C must not be read; a copy
    // of the random C0 otherwise), poisons the workspace (NaN), launches once, synchronizes and
    // checks both the launch and the asynchronous error.
    void run_once(const KernelInfo& kernel);
    void run_once(const Launcher& launcher);
    // As run_once, but the launch is captured into a CUDA graph on this problem's stream and the
    // graph launched: a launch that synchronizes, reads back or otherwise leaves the stream fails.
    void run_captured(const Launcher& launcher);
    // The same reset alone, for tests that launch something else.
    void reset_output();
    void synchronize_and_check();

    // Compares the current output with the float64 reference (needs with_reference), and C's
    // buffer outside the M x N view with what reset_output() wrote there.
    CheckResult verify() const;
    // Keeps the current output as the baseline (cuBLAS) for max |ours - baseline|.
    void keep_as_baseline();
    // The M x N view of C, row by row (for bitwise comparisons of two runs).
    std::vector<float> output() const;

    // Median and minimum over `reps` launches after `warmup`, timed with CUDA
    // events around each launch; the L2 is flushed before each unless hot_l2.
    Timing time(const KernelInfo& kernel, int warmup, int reps, bool hot_l2);
    Timing time(const Launcher& launcher, int warmup, int reps, bool hot_l2);
    // `count` launches back to back on the problem's stream, then one synchronize: the energy window
    // (energy.h). No L2 flush and no restore of C between them, which would add their own energy; with
    // beta != 0 each launch reads the C the one before wrote (the same work, other values).
    void run_back_to_back(const Launcher& launcher, std::int64_t count);

    Size size() const { return size_; }
    float alpha() const { return alpha_; }
    float beta() const { return beta_; }
    Distribution init() const { return init_; }
    const float* A() const { return args_.A; }
    const float* B() const { return args_.B; }
    float* C() { return args_.C; }
    cudaStream_t stream() const { return stream_; }

  private:
    void* workspace(std::size_t bytes);
    // run_once's and run_captured's start: the workspace (NaN in every byte) and C reset, queued.
    void* prepare_launch(const Launcher& launcher);  // grows the workspace buffer (outside any timed region)

    struct Stream {
        cudaStream_t s = nullptr;
        ~Stream() {
            if (s) cudaStreamDestroy(s);
        }
    };

    Size size_;
    float alpha_, beta_;
    bool with_reference_;
    Layout layout_;
    Distribution init_;
    Stream stream_holder_;
    cudaStream_t stream_ = nullptr;
    DeviceBuffer<float> A_, B_, C0_, C_, base_;  // A, B, C0, C: whole buffers (padding, offset, guard)
    DeviceBuffer<double> R_, Rabs_;              // M x N, dense
    DeviceBuffer<char> flush_, workspace_;
    GemmArgs args_;
    bool have_base_ = false;
};

}  // namespace sgemm
