// Step 0: the baseline. cuBLAS SGEMM in plain FP32, timed by the runner with the
// same method as every step. Not a lesson, the yardstick.
#include "common/check.h"
#include "common/cublas_pieces.h"
#include "common/registry.h"

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

// Pieces of rows and columns of C (cublas_pieces.h), K kept whole: each element of C is one cuBLAS
// sum, as in a call that needs no pieces. That bounds A stored M x K (NN, NT: rows of C), B stored
// N x K (NT, TT: columns of C) and C, but not an operand stored with a row per k, A transposed (TN,
// TT: K rows of lda >= M) or B as stored (NN, TN: K rows of ldb >= N): every call spans all K of its
// rows. Where that reaches 2^31 elements no piece of C helps and cuBLAS fails on the call (the run
// stops with its error); describe() says so.
sgemm::PiecePitches pitches(const sgemm::GemmArgs& a) {
    return sgemm::gemm_pitches(a.op_a, a.lda, a.op_b, a.ldb, a.ldc);
}

template <typename Fn>
long long for_each_piece(const sgemm::GemmArgs& a, Fn&& fn) {
    sgemm::PiecePitches whole_k = pitches(a);
    whole_k.k = 0;
    return sgemm::for_each_gemm_piece(a.M, a.N, a.K, whole_k, fn);
}

// One configuration, so Gemm is no template.
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* /*workspace*/, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        cublasHandle_t h = handle();
        sgemm::check(cublasSetStream(h, stream));
        // cuBLAS is column-major: row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, so
        // B goes first (cublas_pieces.h says which operation each layout takes).
        for_each_piece(args, [&](const sgemm::GemmPiece& p) {
            sgemm::check(cublasSgemm(h, sgemm::cublas_op(op_b), sgemm::cublas_op(op_a), p.n, p.m, K, &alpha,
                                     B + sgemm::b_offset(op_b, ldb, p.n0, 0), ldb,
                                     A + sgemm::a_offset(op_a, lda, p.m0, 0), lda, &beta, C + p.m0 * ldc + p.n0, ldc));
        });
    }

    static std::string describe(const sgemm::GemmArgs& a) {
        auto op = [](sgemm::Op o) { return o == sgemm::Op::kT ? "OP_T" : "OP_N"; };
        std::string out =
            std::string("cublasSgemm(") + op(a.op_b) + ", " + op(a.op_a) + ") on (B, A), CUBLAS_DEFAULT_MATH";
        // With K whole, an operand stored with a row per k (A transposed, B not) spans K of its rows in
        // every call, however C is cut: the pieces cannot bound it.
        const long long k_span = static_cast<long long>(a.K) * pitches(a).k;
        const long long n = for_each_piece(a, [](const sgemm::GemmPiece&) {});
        if (n > 1)
            out += ", " + std::to_string(n) + " calls on pieces of C" +
                (k_span <= sgemm::kCublasPieceElements ? " of at most 2^30 elements of an operand each" : "");
        if (k_span > sgemm::kCublasPieceElements) {
            const bool a_wider = a.op_a == sgemm::Op::kT && (a.op_b == sgemm::Op::kT || a.lda >= a.ldb);
            out += std::string(", K kept whole: every call spans K rows of ") + (a_wider ? "A" : "B") + ", " +
                std::to_string(k_span) + " elements" +
                (k_span >= 2 * sgemm::kCublasPieceElements ? " (cuBLAS fails from 2^31)" : "");
        }
        return out;
    }
};

}  // namespace

static const sgemm::Registration registration{
    Gemm{},
    {.number = 0, .name = "cublas", .idea = "cuBLAS SGEMM in FP32 (no TF32): the baseline", .any_layout = true}};
