// Step 03: shared-memory caching. The block walks along K in 32-wide steps; at
// each step its 1024 threads copy a 32 x 32 tile of A and one of B into shared
// memory (one element each, coalesced), synchronize, and then every thread
// reads its row of the A tile and its column of the B tile from shared memory.
// Each global element loaded is now used by 32 threads instead of one.
// See docs/kernels/03_smem_caching.md.
#include "common/check.h"
#include "common/registry.h"
#include "common/tile.cuh"

namespace {

// kCheckEdges = false drops all edge handling: launch() picks that instantiation
// for shapes made of whole tiles.
template <int BM, int BN, int BK, bool kCheckEdges>
__global__ void __launch_bounds__((BM * BN))  // parenthesized: clang-format reads BM * BN as a declaration
    sgemm_03_smem_caching(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                          float beta, float* C, int ldc) {
    constexpr int kThreads = BM * BN;  // one thread per output of the block tile
    // [doc:static-asserts]
    static_assert(kThreads <= 1024, "a block has at most 1024 threads");
    static_assert(kThreads % BK == 0 && BM % (kThreads / BK) == 0,
                  "one pass of the block copies whole rows of the A tile, and the passes cover it evenly");
    static_assert(kThreads % BN == 0 && BK % (kThreads / BN) == 0,
                  "one pass of the block copies whole rows of the B tile, and the passes cover it evenly");
    // [/doc:static-asserts]
    constexpr int kALoads = BM * BK / kThreads;  // A elements each thread copies per k-tile
    constexpr int kBLoads = BK * BN / kThreads;  // B elements each thread copies per k-tile

    // [doc:smem-tiles]
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];

    // [doc:thread-indices]
    const int tid = threadIdx.x;
    const int block_row = sgemm::tile_y() * BM;  // first row of this block's C tile
    const int block_col = blockIdx.x * BN;       // first column of this block's C tile
    // Thread (ty, tx) owns output (ty, tx) of the block tile; a warp is 32 consecutive columns of one row.
    const int tx = tid % BN;
    const int ty = tid / BN;
    // Which elements this thread copies into shared memory (pass p adds p * kThreads / BK rows).
    const int a_row = tid / BK, a_col = tid % BK;
    const int b_row = tid / BN, b_col = tid % BN;

    // [doc:interior]
    // Uniform per block: interior blocks never test an index against M or N.
    const bool interior = block_row + BM <= M && block_col + BN <= N;

    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        // [doc:tile-load]
        // ---- global -> registers. One uniform branch per k-tile: full tiles load
        // without predicates; edge tiles pad with zeros outside A and B.
        // [doc:full]
        const bool full = !kCheckEdges || (interior && k0 + BK <= K);
        // [/doc:full]
        float a_ld[kALoads], b_ld[kBLoads];
        // [doc:full-tile-loads]
        if (full) {
#pragma unroll
            for (int p = 0; p < kALoads; ++p)
                a_ld[p] = A[static_cast<size_t>(block_row + a_row + p * (kThreads / BK)) * lda + k0 + a_col];
#pragma unroll
            for (int p = 0; p < kBLoads; ++p)
                b_ld[p] = B[static_cast<size_t>(k0 + b_row + p * (kThreads / BN)) * ldb + block_col + b_col];
        // [/doc:full-tile-loads]
        // [doc:edge-tile-loads]
        } else {
#pragma unroll
            for (int p = 0; p < kALoads; ++p)
                a_ld[p] = sgemm::load_or_zero(A, lda, block_row + a_row + p * (kThreads / BK), k0 + a_col, M, K);
#pragma unroll
            for (int p = 0; p < kBLoads; ++p)
                b_ld[p] = sgemm::load_or_zero(B, ldb, k0 + b_row + p * (kThreads / BN), block_col + b_col, K, N);
        }
        // [/doc:edge-tile-loads]
        // [doc:stage]
        // ---- registers -> shared memory: consecutive threads, consecutive words.
#pragma unroll
        for (int p = 0; p < kALoads; ++p) As[a_row + p * (kThreads / BK)][a_col] = a_ld[p];
#pragma unroll
        for (int p = 0; p < kBLoads; ++p) Bs[b_row + p * (kThreads / BN)][b_col] = b_ld[p];
        __syncthreads();

        // [doc:inner-loop]
        // ---- compute: per k, 2 shared loads (a broadcast of A, consecutive B) for 1 FMA.
#pragma unroll
        for (int k = 0; k < BK; ++k) acc += As[ty][k] * Bs[k][tx];
        // [/doc:inner-loop]
        __syncthreads();  // everyone is done with this tile before it is overwritten
        // [/doc:stage]
    }

    // [doc:epilogue]
    // ---- epilogue: C = alpha * acc + beta * C, unchecked in interior blocks.
    const int row = block_row + ty;
    const int col = block_col + tx;
    if (!kCheckEdges || interior)
        sgemm::store_c_unchecked(C, ldc, row, col, acc, alpha, beta);
    else
        sgemm::store_c(C, ldc, row, col, M, N, acc, alpha, beta);
    // [/doc:epilogue]
}

constexpr int kBM = 32, kBN = 32, kBK = 32;  // 1024 threads, one output each

// kAlwaysCheck = true runs the checked kernel on every shape (tuning variant 103),
// so that what edge handling costs stays measurable.
// [doc:launch]
template <bool kAlwaysCheck>
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* /*workspace*/, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        // Shapes made of whole tiles run an instantiation compiled without any edge
        // handling: ptxas schedules its mainloop better than that of the checked kernel,
        // even where the checked kernel takes its fast path (docs/kernels/03_smem_caching.md, "Edge
        // handling"). Other shapes run the checked kernel: interior blocks still load unpredicated.
        const bool whole_tiles = !kAlwaysCheck && sgemm::is_whole_tiles<kBM, kBN, kBK>(args);
        const auto kernel =
            whole_tiles ? sgemm_03_smem_caching<kBM, kBN, kBK, false> : sgemm_03_smem_caching<kBM, kBN, kBK, true>;
        const dim3 block(kBM * kBN);
        const dim3 grid = sgemm::tile_grid(sgemm::ceil_div(N, kBN), sgemm::ceil_div(M, kBM));
        sgemm::launch_checked(kernel, grid, block, 0, stream, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    }

    static std::string describe(const sgemm::GemmArgs& args) {
        return std::string("32x32x32 tile, 1 output per thread") +
            (!kAlwaysCheck && sgemm::is_whole_tiles<kBM, kBN, kBK>(args) ? ", no edge checks (whole tiles)"
                                                                         : ", edge-checked");
    }

    static std::string can_implement(const sgemm::GemmArgs& a) { return sgemm::fits_int_tiles<kBM, kBN, kBK>(a); }
};

}  // namespace

static const sgemm::Registration registration{
    Gemm<false>{},
    {.number = 3,
     .name = "smem_caching",
     .idea = "32x32 tiles of A and B staged in shared memory, one output per thread"}};
#ifdef SGEMM_TUNING
// [doc:checked-variant]
static const sgemm::Registration registration_checked{
    Gemm<true>{},
    {.number = 103,
     .name = "smem_caching_checked",
     .idea = "step 03 always through its edge-checked kernel (the cost of edge handling)"}};
// [/doc:checked-variant]
#endif
