// Step 05: 2D block tiling. A 128 x 128 block tile, 256 threads, and each thread
// computes a TM x TN = 8 x 8 register tile of C. Per k it loads a column of TM A
// values and a row of TN B values from shared memory into registers and forms
// their outer product: TM + TN = 16 shared loads feed TM * TN = 64 FMAs (step 04:
// 9 loads for 8 FMAs). A thread's rows and columns are interleaved with the
// stride of the thread grid, so every shared load of a warp is conflict-free.
// See docs/kernels/05_blocktiling_2d.md.
#include "common/check.h"
#include "common/registry.h"
#include "common/tile.cuh"

namespace {

// kCheckEdges = false drops all edge handling (used by tuning variant 105).
template <int BM, int BN, int BK, int TM, int TN, bool kCheckEdges>
// [doc:launch-bounds]
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
// [/doc:launch-bounds]
    sgemm_05_blocktiling_2d(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                            float beta, float* C, int ldc) {
    // [doc:thread-grid]
    constexpr int kThreadsM = BM / TM;  // the threads form a kThreadsM x kThreadsN grid
    constexpr int kThreadsN = BN / TN;
    constexpr int kThreads = kThreadsM * kThreadsN;
    // [/doc:thread-grid]
    static_assert(BM % TM == 0 && BN % TN == 0, "the thread tiles cover the block tile exactly");
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
    // Thread (ty, tx) owns rows ty + i * kThreadsM and columns tx + j * kThreadsN of
    // the block tile: interleaved, so that lanes read consecutive shared words.
    const int tx = tid % kThreadsN;
    const int ty = tid / kThreadsN;
    // [/doc:thread-ownership]
    // [doc:copy-mapping]
    // Which elements this thread copies into shared memory (pass p adds p * kThreads / BK rows).
    const int a_row = tid / BK, a_col = tid % BK;
    const int b_row = tid / BN, b_col = tid % BN;

    // [doc:interior]
    // Uniform per block: interior blocks never test an index against M or N.
    const bool interior = block_row + BM <= M && block_col + BN <= N;

    // [doc:fragments]
    float acc[TM][TN] = {};
    float a_frag[TM];  // a column of the A tile: TM values, each reused TN times
    float b_frag[TN];  // a row of the B tile: TN values, each reused TM times

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
        // ---- compute: per k, TM + TN shared loads, TM * TN FMAs (an outer product).
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a_frag[i] = As[ty + i * kThreadsM][k];
#pragma unroll
            for (int j = 0; j < TN; ++j) b_frag[j] = Bs[k][tx + j * kThreadsN];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
        }
        // [/doc:inner-loop]
        __syncthreads();  // everyone is done with this tile before it is overwritten
    }

    // [doc:epilogue]
    // ---- epilogue: C = alpha * acc + beta * C, unchecked in interior blocks.
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = block_row + ty + i * kThreadsM;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int col = block_col + tx + j * kThreadsN;
            // [doc:epilogue-store]
            if (!kCheckEdges || interior)
                sgemm::store_c_unchecked(C, ldc, row, col, acc[i][j], alpha, beta);
            else
                sgemm::store_c(C, ldc, row, col, M, N, acc[i][j], alpha, beta);
            // [/doc:epilogue-store]
        }
    }
    // [/doc:epilogue]
}

constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;  // 256 threads, 8 x 8 outputs each

// [doc:launch]
// Unlike steps 03, 04 and 06, step 05 runs its checked kernel on every shape:
// here the instantiation without edge handling is not faster (2% slower at 4096^3,
// docs/kernels/05_blocktiling_2d.md, "Edge handling"). kUseUnchecked = true (tuning
// variant 105) runs it for shapes made of whole tiles, so that stays measurable.
template <bool kUseUnchecked>
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* /*workspace*/, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        const bool whole_tiles = kUseUnchecked && sgemm::is_whole_tiles<kBM, kBN, kBK>(args);
        const auto kernel = whole_tiles ? sgemm_05_blocktiling_2d<kBM, kBN, kBK, kTM, kTN, false>
                                        : sgemm_05_blocktiling_2d<kBM, kBN, kBK, kTM, kTN, true>;
        const dim3 block((kBM / kTM) * (kBN / kTN));
        const dim3 grid = sgemm::tile_grid(sgemm::ceil_div(N, kBN), sgemm::ceil_div(M, kBM));
        sgemm::launch_checked(kernel, grid, block, 0, stream, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    }

    static std::string describe(const sgemm::GemmArgs& args) {
        return std::string("128x128x8 tile, 8x8 outputs per thread") +
            (kUseUnchecked && sgemm::is_whole_tiles<kBM, kBN, kBK>(args) ? ", no edge checks (whole tiles)"
                                                                         : ", edge-checked");
    }

    static std::string can_implement(const sgemm::GemmArgs& a) { return sgemm::fits_int_tiles<kBM, kBN, kBK>(a); }
};

}  // namespace

static const sgemm::Registration registration{
    Gemm<false>{},
    {.number = 5,
     .name = "blocktiling_2d",
     .idea = "128x128x8 block tile, 8x8 outputs per thread from register outer products"}};
#ifdef SGEMM_TUNING
// [doc:unchecked-variant]
static const sgemm::Registration registration_unchecked{
    Gemm<true>{},
    {.number = 105,
     .name = "blocktiling_2d_unchecked",
     .idea = "step 05 through its kernel without edge handling on whole-tile shapes"}};
// [/doc:unchecked-variant]
#endif
