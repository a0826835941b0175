// Step 04: 1D block tiling. A 64 x 64 block tile with a K step of 8, 512 threads,
// and each thread computes TM = 8 outputs of one column of C. Per k it reads one
// B value from shared memory into a register and reuses it for TM FMAs against
// TM A values: 1 + TM = 9 shared loads for 8 FMAs (step 03: 2 loads per FMA).
// See docs/kernels/04_blocktiling_1d.md.
#include "common/check.h"
#include "common/registry.h"
#include "common/tile.cuh"

namespace {

// kCheckEdges = false drops all edge handling: launch() picks that instantiation
// for shapes made of whole tiles.
template <int BM, int BN, int BK, int TM, bool kCheckEdges>
__global__ void __launch_bounds__((BM / TM) * BN)
    sgemm_04_blocktiling_1d(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                            float beta, float* C, int ldc) {
    // [doc:thread-grid]
    constexpr int kThreadsM = BM / TM;  // the threads form a kThreadsM x BN grid
    constexpr int kThreads = kThreadsM * BN;
    static_assert(BM % TM == 0, "the thread tiles cover the block tile exactly");
    // [/doc:thread-grid]
    static_assert(kThreads % BK == 0 && BM % (kThreads / BK) == 0,
                  "one pass of the block copies whole rows of the A tile, and the passes cover it evenly");
    static_assert(kThreads % BN == 0 && BK % (kThreads / BN) == 0,
                  "one pass of the block copies whole rows of the B tile, and the passes cover it evenly");
    constexpr int kALoads = BM * BK / kThreads;  // A elements each thread copies per k-tile
    constexpr int kBLoads = BK * BN / kThreads;  // B elements each thread copies per k-tile

    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int block_row = sgemm::tile_y() * BM;  // first row of this block's C tile
    const int block_col = blockIdx.x * BN;       // first column of this block's C tile
    // [doc:thread-ownership]
    // Thread (ty, tx) owns rows ty + i * kThreadsM of column tx of the block tile;
    // a warp is 32 consecutive columns, all with the same rows.
    const int tx = tid % BN;
    const int ty = tid / BN;
    // [/doc:thread-ownership]
    // Which elements this thread copies into shared memory (pass p adds p * kThreads / BK rows).
    // [doc:copy-mapping]
    const int a_row = tid / BK, a_col = tid % BK;
    const int b_row = tid / BN, b_col = tid % BN;

    // [doc:interior]
    // Uniform per block: interior blocks never test an index against M or N.
    const bool interior = block_row + BM <= M && block_col + BN <= N;

    // [doc:acc]
    float acc[TM] = {};

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
        // ---- registers -> shared memory: consecutive threads, consecutive words.
#pragma unroll
        for (int p = 0; p < kALoads; ++p) As[a_row + p * (kThreads / BK)][a_col] = a_ld[p];
#pragma unroll
        for (int p = 0; p < kBLoads; ++p) Bs[b_row + p * (kThreads / BN)][b_col] = b_ld[p];
        __syncthreads();

        // [doc:inner-loop]
        // ---- compute: per k, 1 + TM shared loads for TM FMAs.
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k][tx];  // cached in a register, reused TM times
#pragma unroll
            for (int i = 0; i < TM; ++i) acc[i] += As[ty + i * kThreadsM][k] * b;
        }
        // [/doc:inner-loop]
        __syncthreads();  // everyone is done with this tile before it is overwritten
    }

    // [doc:epilogue]
    // ---- epilogue: C = alpha * acc + beta * C, unchecked in interior blocks.
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = block_row + ty + i * kThreadsM;
        const int col = block_col + tx;
        // [doc:epilogue-store]
        if (!kCheckEdges || interior)
            sgemm::store_c_unchecked(C, ldc, row, col, acc[i], alpha, beta);
        else
            sgemm::store_c(C, ldc, row, col, M, N, acc[i], alpha, beta);
        // [/doc:epilogue-store]
    }
    // [/doc:epilogue]
}

constexpr int kBM = 64, kBN = 64, kBK = 8, kTM = 8;  // 512 threads, 8 outputs each

// kAlwaysCheck = true runs the checked kernel on every shape (tuning variant 104),
// so that what edge handling costs stays measurable.
// [doc:launch]
template <bool kAlwaysCheck>
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* /*workspace*/, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        // Shapes made of whole tiles run an instantiation compiled without any edge
        // handling: ptxas schedules its mainloop better than that of the checked kernel,
        // even where the checked kernel takes its fast path (docs/kernels/04_blocktiling_1d.md, "Edge
        // handling"). Other shapes run the checked kernel: interior blocks still load unpredicated.
        const bool whole_tiles = !kAlwaysCheck && sgemm::is_whole_tiles<kBM, kBN, kBK>(args);
        const auto kernel = whole_tiles ? sgemm_04_blocktiling_1d<kBM, kBN, kBK, kTM, false>
                                        : sgemm_04_blocktiling_1d<kBM, kBN, kBK, kTM, true>;
        const dim3 block((kBM / kTM) * kBN);
        const dim3 grid = sgemm::tile_grid(sgemm::ceil_div(N, kBN), sgemm::ceil_div(M, kBM));
        sgemm::launch_checked(kernel, grid, block, 0, stream, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    }

    static std::string describe(const sgemm::GemmArgs& args) {
        return std::string("64x64x8 tile, 8x1 outputs per thread") +
            (!kAlwaysCheck && sgemm::is_whole_tiles<kBM, kBN, kBK>(args) ? ", no edge checks (whole tiles)"
                                                                         : ", edge-checked");
    }

    static std::string can_implement(const sgemm::GemmArgs& a) { return sgemm::fits_int_tiles<kBM, kBN, kBK>(a); }
};

}  // namespace

static const sgemm::Registration registration{
    Gemm<false>{},
    {.number = 4,
     .name = "blocktiling_1d",
     .idea = "64x64x8 block tile, 8 outputs per thread down a column, B value cached in a register"}};
#ifdef SGEMM_TUNING
// [doc:checked-variant]
static const sgemm::Registration registration_checked{
    Gemm<true>{},
    {.number = 104,
     .name = "blocktiling_1d_checked",
     .idea = "step 04 always through its edge-checked kernel (the cost of edge handling)"}};
// [/doc:checked-variant]
#endif
