// The one error-checking helper of sgemm-steps: every CUDA runtime and cuBLAS
// call goes through sgemm::check(), every kernel launch through
// sgemm::launch_checked(). A failure throws sgemm::CudaError naming the call
// site, so a kernel bug surfaces as a clear message rather than a wrong number.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <source_location>
#include <stdexcept>
#include <string>

namespace sgemm {

struct CudaError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(const std::string& what, std::source_location where);

inline void check(cudaError_t status, std::source_location where = std::source_location::current()) {
    if (status != cudaSuccess)
        throw_cuda_error(std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status), where);
}

inline void check(cublasStatus_t status, std::source_location where = std::source_location::current()) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw_cuda_error(std::string("cuBLAS ") + cublasGetStatusName(status) + ": " + cublasGetStatusString(status),
                         where);
}

#ifdef __CUDACC__  // the <<<>>> launch syntax exists only in CUDA translation units
// Launches `kernel` and checks the launch itself (bad configuration, too much
// shared memory). Errors raised while the kernel runs are asynchronous: the
// runner and the tests check them with a synchronize after each checked run.
template <typename... KernelArgs, typename... Args>
void launch_checked(void (*kernel)(KernelArgs...), dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream,
                    Args&&... args) {
    kernel<<<grid, block, smem_bytes, stream>>>(std::forward<Args>(args)...);
    check(cudaGetLastError());
}
#endif

// ceil(a / b) for a >= 0, b > 0, without the overflow of (a + b - 1) / b near 2^31.
__host__ __device__ constexpr int ceil_div(int a, int b) { return a / b + (a % b != 0); }

}  // namespace sgemm
