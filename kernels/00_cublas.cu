// Step 0: the baseline. cuBLAS SGEMM in plain FP32, timed by the runner with the
// same method as every step. Not a lesson, the yardstick.
#include "common/check.h"
#include "common/registry.h"

#include <algorithm>
#include <string>

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

// cuBLAS fails on a call whose rows or columns of C times a leading dimension reach 2^31 elements
// (M = 2^31 - 1 with N = 1, say), though every argument is a valid int. Such a GEMM is made of calls
// on pieces of C's rows (and columns), each touching at most 2^30 elements of an operand; every other
// GEMM is one call.
constexpr long long kPieceElements = 1ll << 30;
long long rows_per_call(const sgemm::GemmArgs& a) {
    return std::max(1ll, kPieceElements / std::max<long long>({a.lda, a.ldc, 1}));
}
long long cols_per_call(const sgemm::GemmArgs& a) { return std::min<long long>(a.N, kPieceElements); }
long long calls(const sgemm::GemmArgs& a) {
    return sgemm::ceil_div(a.M, static_cast<int>(std::min<long long>(rows_per_call(a), a.M))) *
           static_cast<long long>(sgemm::ceil_div(a.N, static_cast<int>(cols_per_call(a))));
}

void launch(const sgemm::GemmArgs& args, void* /*workspace*/, cudaStream_t stream) {
    const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc] = args;
    cublasHandle_t h = handle();
    sgemm::check(cublasSetStream(h, stream));
    // cuBLAS is column-major. A row-major matrix read column-major is its
    // transpose, so row-major C = A*B is column-major C^T = B^T * A^T: pass B first.
    const long long rows = rows_per_call(args), cols = cols_per_call(args);
    for (long long m0 = 0; m0 < M; m0 += rows)
        for (long long n0 = 0; n0 < N; n0 += cols)
            sgemm::check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(std::min(cols, N - n0)),
                                     static_cast<int>(std::min(rows, M - m0)), K, &alpha, B + n0, ldb,
                                     A + m0 * lda, lda, &beta, C + m0 * ldc + n0, ldc));
}

std::string describe(const sgemm::GemmArgs& a) {
    const long long n = calls(a);
    return std::string("cublasSgemm, CUBLAS_DEFAULT_MATH") +
           (n > 1 ? ", " + std::to_string(n) + " calls on pieces of C (one call would reach 2^31 elements)" : "");
}

}  // namespace

static const sgemm::Registration registration{{.number = 0, .name = "cublas", .idea = "cuBLAS SGEMM in FP32 (no TF32): the baseline", .launch = launch, .describe = describe}};
