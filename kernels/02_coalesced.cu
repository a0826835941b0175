// Step 02: global-memory coalescing. The same arithmetic as step 01, but
// consecutive threads of a warp take consecutive COLUMNS of C: the warp reads
// one A element (a broadcast) and 32 consecutive B elements (128 bytes, four
// sectors) per k. See docs/kernels/02_coalesced.md.
#include "common/check.h"
#include "common/registry.h"
#include "common/tile.cuh"

namespace {

constexpr int BLOCK = 32;  // 32 x 32 = 1024 threads per block

// [doc:kernel]
__global__ void sgemm_02_coalesced(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                                   float beta, float* C, int ldc) {
    // [doc:thread-mapping]
    // threadIdx.x varies fastest within a warp: here it picks the column.
    const int col = blockIdx.x * BLOCK + threadIdx.x;
    const int row = sgemm::tile_y() * BLOCK + threadIdx.y;  // gridDim.y, continued on gridDim.z
    // [/doc:thread-mapping]
    // [doc:bounds-check]
    if (row >= M || col >= N) return;

    // [doc:inner-loop]
    const float* a = A + static_cast<size_t>(row) * lda;  // row `row` of A: the same for the whole warp
    const float* b = B + col;                             // column `col` of B: consecutive across lanes
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += a[k] * b[static_cast<size_t>(k) * ldb];

    // [doc:store]
    sgemm::store_c(C, ldc, row, col, M, N, acc, alpha, beta);
    // [/doc:store]
}
// [/doc:kernel]

// One configuration, so Gemm is no template.
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* /*workspace*/, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        const dim3 block(BLOCK, BLOCK);
        // [doc:grid]
        const dim3 grid = sgemm::tile_grid(sgemm::ceil_div(N, BLOCK), sgemm::ceil_div(M, BLOCK));
        // [/doc:grid]
        sgemm::launch_checked(sgemm_02_coalesced, grid, block, 0, stream, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    }

    static std::string describe(const sgemm::GemmArgs&) { return "32x32 threads, 1 output each"; }
    static std::string can_implement(const sgemm::GemmArgs& a) { return sgemm::fits_int_tiles<BLOCK, BLOCK, 1>(a); }
};

}  // namespace

static const sgemm::Registration registration{
    Gemm{},
    {.number = 2,
     .name = "coalesced",
     .idea = "consecutive threads on consecutive columns of C: coalesced B loads, broadcast A",
     .bench_cap = 4096}};
