// cuBLAS fails on a call whose extents reach 2^31 elements of an operand (M = 2^31 - 1 with N = 1,
// say), though every argument is a valid int. The cuBLAS baseline (kernels/00_cublas.cu) and the
// runner's float64 reference (runner/problem.cu) make such a GEMM of calls on pieces, each touching
// at most 2^30 elements of an operand; every other GEMM is one piece.
#pragma once

#include <algorithm>

namespace sgemm {

inline constexpr long long kCublasPieceElements = 1ll << 30;

// One call's part of the GEMM: rows m0 .. m0 + m - 1 and columns n0 .. n0 + n - 1 of C, and
// k0 .. k0 + k - 1 of the inner dimension.
struct GemmPiece {
    long long m0, n0, k0;
    int m, n, k;
};

// Calls fn(piece) for every piece of an M x N x K GEMM, in order, and returns how many there are.
// A piece spans at most 2^30 / row_pitch rows of C (row_pitch: the largest leading dimension of
// the operands whose rows are C's rows), at most 2^30 columns, and at most 2^30 / k_pitch of K
// (k_pitch: B's leading dimension; 0 keeps K whole).
template <typename Fn>
long long for_each_gemm_piece(int M, int N, int K, long long row_pitch, long long k_pitch, Fn&& fn) {
    const long long rows = std::max(1ll, kCublasPieceElements / std::max(row_pitch, 1ll));
    const long long cols = std::min<long long>(N, kCublasPieceElements);
    const long long depth = k_pitch > 0 ? std::max(1ll, kCublasPieceElements / k_pitch) : K;
    long long pieces = 0;
    for (long long m0 = 0; m0 < M; m0 += rows)
        for (long long n0 = 0; n0 < N; n0 += cols)
            for (long long k0 = 0; k0 < K; k0 += depth, ++pieces)
                fn(GemmPiece{m0, n0, k0, static_cast<int>(std::min(rows, M - m0)),
                             static_cast<int>(std::min(cols, N - n0)), static_cast<int>(std::min(depth, K - k0))});
    return pieces;
}

}  // namespace sgemm
