// Step 01: naive. One thread computes one element of C with a K-long dot product
// read straight from global memory. Consecutive threads of a warp take
// consecutive ROWS of C (same column): their loads of A are K floats apart, so
// a warp's 32 loads of A touch 32 different 32-byte sectors. See docs/kernels/01_naive.md.
#include "common/check.h"
#include "common/registry.h"
#include "common/tile.cuh"

namespace {

constexpr int BLOCK = 32;  // 32 x 32 = 1024 threads per block

// [doc:kernel]
__global__ void sgemm_01_naive(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                               float beta, float* C, int ldc) {
    // [doc:thread-mapping]
    // threadIdx.x varies fastest within a warp: here it picks the row.
    const int row = blockIdx.x * BLOCK + threadIdx.x;
    const int col = sgemm::tile_y() * BLOCK + threadIdx.y;  // gridDim.y, continued on gridDim.z
    // [/doc:thread-mapping]
    // [doc:bounds-check]
    if (row >= M || col >= N) return;

    // [doc:inner-loop]
    const float* a = A + static_cast<size_t>(row) * lda;  // row `row` of A: different for every lane
    const float* b = B + col;                             // column `col` of B: the same for the whole warp
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += a[k] * b[static_cast<size_t>(k) * ldb];

    // [doc:store]
    sgemm::store_c(C, ldc, row, col, M, N, acc, alpha, beta);
    // [/doc:store]
}
// [/doc:kernel]

// One configuration, so Gemm is no template.
// [doc:launch]
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* /*workspace*/, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        const dim3 block(BLOCK, BLOCK);
        const dim3 grid = sgemm::tile_grid(sgemm::ceil_div(M, BLOCK), sgemm::ceil_div(N, BLOCK));
        sgemm::launch_checked(sgemm_01_naive, grid, block, 0, stream, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    }

    static std::string describe(const sgemm::GemmArgs&) { return "32x32 threads, 1 output each"; }
    static std::string can_implement(const sgemm::GemmArgs& a) { return sgemm::fits_int_tiles<BLOCK, BLOCK, 1>(a); }
};

}  // namespace

static const sgemm::Registration registration{
    Gemm{},
    {.number = 1,
     .name = "naive",
     .idea = "one thread per C element; a warp walks down a column of C (uncoalesced)",
     .bench_cap = 2048}};
