// Self-registration of kernels. Each kernels/NN_name.cu ends with one line
//
//   static const sgemm::Registration registration{NN, "name", "one-line idea", launch_fn};
//
// and is then picked up by sgemm_runner, the tests and the benchmark scripts.
// There is no central list to edit. The kernel objects are linked as a CMake
// OBJECT library, so the linker cannot drop an "unused" registration.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <string_view>
#include <vector>

namespace sgemm {

// Row-major C = alpha * A * B + beta * C with A M x K (ld K), B K x N (ld N),
// C M x N (ld N). With beta == 0, C is write-only (BLAS semantics: NaN in C is ignored).
using LaunchFn = void (*)(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                          cudaStream_t stream);

// Flags for tuning-only variants (built with -DSGEMM_TUNING=ON, numbered 100 and up).
enum KernelFlags : unsigned {
    kNone = 0,
    // Correct only when M, N, K are multiples of its tiles: a variant that drops
    // edge handling, kept to measure what edge handling costs. Tests skip it.
    kTileMultiplesOnly = 1u << 0,
};

struct KernelInfo {
    int number;        // 0 is cuBLAS; steps are 1, 2, 3, ...; tuning variants 100+
    std::string name;  // e.g. "naive"; the __global__ function is sgemm_NN_<name>
    std::string idea;  // one line for --list and the docs
    LaunchFn launch;
    unsigned flags = kNone;
    std::string label() const;  // "01_naive"
};

// All registered kernels, sorted by number.
const std::vector<KernelInfo>& registry();

// Looks a kernel up by number ("7", "07") or name ("warptiling", "07_warptiling").
// Returns nullptr when nothing matches.
const KernelInfo* find_kernel(std::string_view key);

struct Registration {
    // Throws std::logic_error (at start-up) on a duplicate number or name.
    Registration(int number, const char* name, const char* idea, LaunchFn launch, unsigned flags = kNone);
};

}  // namespace sgemm
