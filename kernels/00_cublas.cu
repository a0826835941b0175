// Step 0: the baseline. cuBLAS SGEMM in plain FP32, timed by the runner with the
// same method as every step. Not a lesson, the yardstick.
#include "common/check.h"
#include "common/cublas_pieces.h"
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

// C's rows span A's and C's rows: their larger leading dimension bounds a piece's rows (K stays
// whole; see cublas_pieces.h).
template <typename Fn>
long long for_each_piece(const sgemm::GemmArgs& a, Fn&& fn) {
    return sgemm::for_each_gemm_piece(a.M, a.N, a.K, std::max(a.lda, a.ldc), 0, fn);
}

// One configuration, so Gemm is no template.
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* /*workspace*/, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc] = args;
        cublasHandle_t h = handle();
        sgemm::check(cublasSetStream(h, stream));
        // cuBLAS is column-major. A row-major matrix read column-major is its
        // transpose, so row-major C = A*B is column-major C^T = B^T * A^T: pass B first.
        for_each_piece(args, [&](const sgemm::GemmPiece& p) {
            sgemm::check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, K, &alpha, B + p.n0, ldb, A + p.m0 * lda,
                                     lda, &beta, C + p.m0 * ldc + p.n0, ldc));
        });
    }

    static std::string describe(const sgemm::GemmArgs& a) {
        const long long n = for_each_piece(a, [](const sgemm::GemmPiece&) {});
        return std::string("cublasSgemm, CUBLAS_DEFAULT_MATH") +
            (n > 1 ? ", " + std::to_string(n) + " calls on pieces of C of at most 2^30 elements of an operand each"
                   : "");
    }
};

}  // namespace

static const sgemm::Registration registration{
    Gemm{}, {.number = 0, .name = "cublas", .idea = "cuBLAS SGEMM in FP32 (no TF32): the baseline"}};
