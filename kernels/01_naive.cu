// Step 01: naive. One thread computes one element of C with a K-long dot product
// read straight from global memory. Consecutive threads of a warp take
// consecutive ROWS of C (same column): their loads of A are K floats apart, so
// a warp's 32 loads of A touch 32 different 32-byte sectors. See docs/kernels/01_naive.md.
#include "common/check.h"
#include "common/registry.h"
#include "common/tile.cuh"

namespace {

constexpr int BLOCK = 32;  // 32 x 32 = 1024 threads per block

__global__ void sgemm_01_naive(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                               float* C) {
    // threadIdx.x varies fastest within a warp: here it picks the row.
    const int row = blockIdx.x * BLOCK + threadIdx.x;
    const int col = blockIdx.y * BLOCK + threadIdx.y;
    if (row >= M || col >= N) return;

    const float* a = A + static_cast<size_t>(row) * K;  // row `row` of A: different for every lane
    const float* b = B + col;                           // column `col` of B: the same for the whole warp
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += a[k] * b[static_cast<size_t>(k) * N];

    sgemm::store_c(C, N, row, col, M, N, acc, alpha, beta);
}

void launch(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
            cudaStream_t stream) {
    const dim3 block(BLOCK, BLOCK);
    const dim3 grid(sgemm::ceil_div(M, BLOCK), sgemm::ceil_div(N, BLOCK));
    sgemm::launch_checked(sgemm_01_naive, grid, block, 0, stream, M, N, K, alpha, A, B, beta, C);
}

}  // namespace

static const sgemm::Registration registration{1, "naive", "one thread per C element; a warp walks down a column of C (uncoalesced)", launch};
