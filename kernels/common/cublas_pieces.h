// cuBLAS fails on a call whose extents reach 2^31 elements of an operand (M = 2^31 - 1 with N = 1,
// say), though every argument is a valid int. The cuBLAS baseline (kernels/00_cublas.cu) and the
// runner's float64 reference (runner/problem.cu) make such a GEMM of calls on pieces, each touching
// at most 2^30 elements of an operand; every other GEMM is one piece.
#pragma once

#include <cublas_v2.h>

#include <algorithm>

#include "sgemm/sgemm.h"  // Op

namespace sgemm {

inline constexpr long long kCublasPieceElements = 1ll << 30;

// One call's part of the GEMM: rows m0 .. m0 + m - 1 and columns n0 .. n0 + n - 1 of C, and
// k0 .. k0 + k - 1 of the inner dimension.
struct GemmPiece {
    long long m0, n0, k0;
    int m, n, k;
};

// What one row of C, one column of C and one k add to the largest operand they span (its leading
// dimension), as cuBLAS sees the row-major call: C^T = op(B)^T op(A)^T, each operand a column-major
// matrix whose columns are the rows it is stored in. 0: no operand's extent grows with it.
struct PiecePitches {
    long long rows = 0, cols = 0, k = 0;
};

// The pitches of a row-major GEMM with these layouts and leading dimensions (ldc: C's, or the
// reference's dense M x N output). A stored M x K (kN) has a row per row of C; stored K x M (kT), a
// row per k. B stored K x N (kN) has a row per k; stored N x K (kT), a row per column of C.
inline PiecePitches gemm_pitches(Op op_a, long long lda, Op op_b, long long ldb, long long ldc) {
    return {.rows = op_a == Op::kN ? std::max(lda, ldc) : ldc,
            .cols = op_b == Op::kT ? ldb : 0,
            .k = std::max(op_a == Op::kT ? lda : 0, op_b == Op::kN ? ldb : 0)};
}

// The offset of element (outer, k) of an operand, outer being its row of C (A) or its column of C
// (B): k is contiguous in A stored M x K (kN) and in B stored N x K (kT), outer in the other two.
inline long long operand_offset(bool k_contiguous, long long ld, long long outer, long long k) {
    return k_contiguous ? outer * ld + k : k * ld + outer;
}
inline long long a_offset(Op op_a, long long lda, long long m, long long k) {
    return operand_offset(op_a == Op::kN, lda, m, k);
}
inline long long b_offset(Op op_b, long long ldb, long long n, long long k) {
    return operand_offset(op_b == Op::kT, ldb, n, k);
}

// The operation cuBLAS applies to an operand stored as op says: a row-major matrix read column-major
// is its transpose, so row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, B first,
// and an operand stored transposed (kT) is read transposed again (CUBLAS_OP_T).
inline cublasOperation_t cublas_op(Op op) { return op == Op::kT ? CUBLAS_OP_T : CUBLAS_OP_N; }

// Calls fn(piece) for every piece of an M x N x K GEMM, in order, and returns how many there are.
// A piece spans at most 2^30 / pitches.rows rows of C, at most 2^30 / pitches.cols columns (2^30
// with no pitch), and at most 2^30 / pitches.k of K (0 keeps K whole).
template <typename Fn>
long long for_each_gemm_piece(int M, int N, int K, PiecePitches pitches, Fn&& fn) {
    const long long rows = std::max(1ll, kCublasPieceElements / std::max(pitches.rows, 1ll));
    const long long cols = std::min<long long>(N, std::max(1ll, kCublasPieceElements / std::max(pitches.cols, 1ll)));
    const long long depth = pitches.k > 0 ? std::max(1ll, kCublasPieceElements / pitches.k) : K;
    long long pieces = 0;
    for (long long m0 = 0; m0 < M; m0 += rows)
        for (long long n0 = 0; n0 < N; n0 += cols)
            for (long long k0 = 0; k0 < K; k0 += depth, ++pieces)
                fn(GemmPiece{m0, n0, k0, static_cast<int>(std::min(rows, M - m0)),
                             static_cast<int>(std::min(cols, N - n0)), static_cast<int>(std::min(depth, K - k0))});
    return pieces;
}

}  // namespace sgemm
