// Step 0: the baseline. cuBLAS SGEMM in plain FP32, timed by the runner with the
// same method as every step. Not a lesson, the yardstick.
#include "common/check.h"
#include "common/registry.h"

namespace {

cublasHandle_t handle() {
    // Created once and never destroyed: destroying it from a static destructor
    // would race the CUDA runtime's own teardown at exit.
    static cublasHandle_t h = [] {
        cublasHandle_t created;
        sgemm::check(cublasCreate(&created));
        // Explicitly FP32: CUBLAS_DEFAULT_MATH never uses TF32 for SGEMM (unlike
        // CUBLAS_TF32_TENSOR_OP_MATH). The runner refuses to run when
        // NVIDIA_TF32_OVERRIDE=1 would silently change that.
        sgemm::check(cublasSetMathMode(created, CUBLAS_DEFAULT_MATH));
        return created;
    }();
    return h;
}

void launch(const sgemm::GemmArgs& args, void* /*workspace*/, cudaStream_t stream) {
    const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc] = args;
    cublasHandle_t h = handle();
    sgemm::check(cublasSetStream(h, stream));
    // cuBLAS is column-major. A row-major matrix read column-major is its
    // transpose, so row-major C = A*B is column-major C^T = B^T * A^T: pass B first.
    sgemm::check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, ldb, A, lda, &beta, C, ldc));
}

std::string describe(const sgemm::GemmArgs&) { return "cublasSgemm, CUBLAS_DEFAULT_MATH"; }

}  // namespace

static const sgemm::Registration registration{{.number = 0, .name = "cublas", .idea = "cuBLAS SGEMM in FP32 (no TF32): the baseline", .launch = launch, .describe = describe}};
