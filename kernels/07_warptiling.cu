// Step 07: warp tiling. Step 06's block tile (128 x 128 x 8, 256 threads, 8 x 8
// outputs each, float4 loads, A transposed in shared memory), but threads are
// mapped onto it in two levels: each warp owns a compact WM x WN warp tile, the
// warp tile is split into WMITER x WNITER sub-tiles, and in every sub-tile each
// lane owns a 4 x 4 patch (its TM x TN thread tile is the union of those
// patches). Per k a warp now reads WM + WN = 96 floats of shared memory instead
// of the 16 + 128 of step 06's block-wide interleaving, and each fragment it
// loads is reused across its sub-tiles. (We predicted fewer shared-memory
// wavefronts from this; on the H200 Nsight Compute counts as many as for step 06:
// see docs/kernels/07_warptiling.md.)
#include "common/check.h"
#include "common/registry.h"
#include "common/tile.cuh"

namespace {

// kCheckEdges = false drops all edge handling (tuning variant 703).
// [doc:template-params]
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int TM, int TN, bool kCheckEdges>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32,
                                  sgemm::min_blocks_per_sm((BM / WM) * (BN / WN) * 32, TM, TN))
// [/doc:template-params]
    sgemm_07_warptiling(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                        float* C, int ldc, bool vec_ok) {
    // [doc:derived-sizes]
    constexpr int kWarpsN = BN / WN;  // the warps form a (BM / WM) x kWarpsN grid
    constexpr int kThreads = (BM / WM) * kWarpsN * 32;
    constexpr int kSubM = WM / WMITER;  // one warp sub-tile: kSubM x kSubN
    constexpr int kSubN = WN / WNITER;
    constexpr int kLaneTM = TM / WMITER;  // a lane's patch of one sub-tile: kLaneTM x kLaneTN
    constexpr int kLaneTN = TN / WNITER;
    constexpr int kLanesN = kSubN / kLaneTN;  // the lanes form a (kSubM / kLaneTM) x kLanesN grid
    constexpr int kPad = 4;  // As row padding: conflict-free transposed stores, rows stay 16-byte aligned
    static_assert(BM % WM == 0 && BN % WN == 0, "the warp tiles cover the block tile exactly");
    static_assert(WM % WMITER == 0 && WN % WNITER == 0, "a warp tile splits into WMITER x WNITER equal sub-tiles");
    static_assert(TM % WMITER == 0 && TN % WNITER == 0, "a thread tile splits into one equal patch per sub-tile");
    static_assert(kLaneTM % 4 == 0 && kLaneTN % 4 == 0, "a lane's patches are read from shared memory as float4s");
    static_assert(kSubM % kLaneTM == 0 && kSubN % kLaneTN == 0 && (kSubM / kLaneTM) * kLanesN == 32,
                  "the 32 lanes of a warp cover one sub-tile exactly");
    static_assert(BK % 4 == 0 && kThreads % (BK / 4) == 0 && BM % (kThreads / (BK / 4)) == 0,
                  "one pass of the block copies whole rows of the A tile as float4s, and the passes cover it evenly");
    static_assert(BN % 4 == 0 && kThreads % (BN / 4) == 0 && BK % (kThreads / (BN / 4)) == 0,
                  "one pass of the block copies whole rows of the B tile as float4s, and the passes cover it evenly");
    constexpr int kALoads = BM * BK / (4 * kThreads);  // A float4s each thread copies per k-tile
    constexpr int kBLoads = BK * BN / (4 * kThreads);  // B float4s each thread copies per k-tile

    __shared__ alignas(16) float As[BK][BM + kPad];  // transposed: As[k][m] = A[m][k]
    __shared__ alignas(16) float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int block_row = sgemm::tile_y() * BM;  // first row of this block's C tile
    const int block_col = blockIdx.x * BN;       // first column of this block's C tile
    // [doc:ownership]
    // Warp w owns the warp tile at (warp_row, warp_col) of the block tile. In each
    // of its WMITER x WNITER sub-tiles, lane l owns rows lane_row + {0..kLaneTM-1}
    // and columns lane_col + {0..kLaneTN-1}: the lanes of a warp read adjacent
    // 16-byte words of one compact region of shared memory.
    const int warp = tid / 32, lane = tid % 32;
    const int warp_row = warp / kWarpsN * WM, warp_col = warp % kWarpsN * WN;
    const int lane_row = lane / kLanesN * kLaneTM, lane_col = lane % kLanesN * kLaneTN;
    // [/doc:ownership]
    // Which float4 this thread copies into shared memory (pass p adds p * kThreads / (BK / 4) rows).
    const int a_row = tid / (BK / 4), a_col = tid % (BK / 4) * 4;
    const int b_row = tid / (BN / 4), b_col = tid % (BN / 4) * 4;

    // Uniform per block: interior blocks of 16-byte-aligned matrices never test an index against M or N.
    const bool interior = vec_ok && block_row + BM <= M && block_col + BN <= N;

    float acc[TM][TN] = {};
    float a_frag[TM];  // the thread's A values for one k: kLaneTM from each of the WMITER sub-tiles
    float b_frag[TN];  // the thread's B values for one k: kLaneTN from each of the WNITER sub-tiles

    for (int k0 = 0; k0 < K; k0 += BK) {
        // ---- global -> registers. One uniform branch per k-tile: full tiles load
        // float4s without predicates; edge tiles pad with zeros outside A and B.
        const bool full = !kCheckEdges || (interior && k0 + BK <= K);
        float4 a_ld[kALoads], b_ld[kBLoads];
        if (full) {
#pragma unroll
            for (int p = 0; p < kALoads; ++p)
                a_ld[p] = *reinterpret_cast<const float4*>(
                    &A[static_cast<size_t>(block_row + a_row + p * (kThreads / (BK / 4))) * lda + k0 + a_col]);
#pragma unroll
            for (int p = 0; p < kBLoads; ++p)
                b_ld[p] = *reinterpret_cast<const float4*>(
                    &B[static_cast<size_t>(k0 + b_row + p * (kThreads / (BN / 4))) * ldb + block_col + b_col]);
        } else {
#pragma unroll
            for (int p = 0; p < kALoads; ++p)
                a_ld[p] = sgemm::load4_or_zero(A, lda, block_row + a_row + p * (kThreads / (BK / 4)), k0 + a_col, M, K,
                                               vec_ok);
#pragma unroll
            for (int p = 0; p < kBLoads; ++p)
                b_ld[p] = sgemm::load4_or_zero(B, ldb, k0 + b_row + p * (kThreads / (BN / 4)), block_col + b_col, K, N,
                                               vec_ok);
        }
        // ---- registers -> shared memory. A is transposed on the way: four 4-byte
        // stores into four rows of As. B is copied as it is: one 16-byte store.
#pragma unroll
        for (int p = 0; p < kALoads; ++p) {
            const int m = a_row + p * (kThreads / (BK / 4));
            As[a_col + 0][m] = a_ld[p].x;
            As[a_col + 1][m] = a_ld[p].y;
            As[a_col + 2][m] = a_ld[p].z;
            As[a_col + 3][m] = a_ld[p].w;
        }
#pragma unroll
        for (int p = 0; p < kBLoads; ++p)
            *reinterpret_cast<float4*>(&Bs[b_row + p * (kThreads / (BN / 4))][b_col]) = b_ld[p];
        __syncthreads();

        // [doc:fragment-loads]
        // ---- compute: per k, (TM + TN) / 4 LDS.128, TM * TN FMAs (an outer product).
        // The loads walk the warp's sub-tiles: sub-tile wm supplies a_frag[wm * kLaneTM ...].
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; i += 4) {
                const float4 a = *reinterpret_cast<const float4*>(
                    // [doc:a-fragment-read]
                    &As[k][warp_row + (i / kLaneTM) * kSubM + lane_row + i % kLaneTM]);
                a_frag[i + 0] = a.x, a_frag[i + 1] = a.y, a_frag[i + 2] = a.z, a_frag[i + 3] = a.w;
                // [/doc:a-fragment-read]
            }
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                const float4 b = *reinterpret_cast<const float4*>(
                    // [doc:b-fragment-read]
                    &Bs[k][warp_col + (j / kLaneTN) * kSubN + lane_col + j % kLaneTN]);
                b_frag[j + 0] = b.x, b_frag[j + 1] = b.y, b_frag[j + 2] = b.z, b_frag[j + 3] = b.w;
                // [/doc:b-fragment-read]
            }
            // [/doc:fragment-loads]
            // [doc:fma-loop]
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
        }
        __syncthreads();  // everyone is done with this tile before it is overwritten
    }
    // [/doc:fma-loop]

    // [doc:epilogue]
    // ---- epilogue: C = alpha * acc + beta * C as float4s, unchecked in interior blocks.
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = block_row + warp_row + (i / kLaneTM) * kSubM + lane_row + i % kLaneTM;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const int col = block_col + warp_col + (j / kLaneTN) * kSubN + lane_col + j % kLaneTN;
            const float4 out = make_float4(acc[i][j + 0], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            if (!kCheckEdges || interior)
                sgemm::store_c4_unchecked(C, ldc, row, col, out, alpha, beta);
            else
                sgemm::store_c4(C, ldc, row, col, M, N, out, alpha, beta, vec_ok);
        }
    }
    // [/doc:epilogue]
}

// float4 access needs every row start of A, B and C 16-byte aligned; otherwise scalar loads and stores.
bool is_vec_ok(const sgemm::GemmArgs& a) { return sgemm::all_rows_16b_aligned(a); }

// [doc:launch]
// Template arguments, in order: BM, BN, BK (block tile), WM, WN (warp tile), WMITER, WNITER
// (sub-tiles per warp tile), TM, TN (thread tile), kCheckEdges.
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int TM, int TN, bool kCheckEdges>
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* /*workspace*/, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        const bool vec_ok = is_vec_ok(args);
        const dim3 block((BM / WM) * (BN / WN) * 32);
        const dim3 grid = sgemm::tile_grid(sgemm::ceil_div(N, BN), sgemm::ceil_div(M, BM));
        sgemm::launch_checked(sgemm_07_warptiling<BM, BN, BK, WM, WN, WMITER, WNITER, TM, TN, kCheckEdges>, grid, block,
                              0, stream, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, vec_ok);
    }

    static std::string describe(const sgemm::GemmArgs& args) {
        return sgemm::describe_warp_tiles(BM, BN, BK, WM, WN, TM, TN, "", kCheckEdges, is_vec_ok(args));
    }

    // Without edge handling (kCheckEdges = false): whole, 16-byte aligned tiles only.
    static std::string can_implement(const sgemm::GemmArgs& a) {
        if constexpr (kCheckEdges)
            return sgemm::fits_int_tiles<BM, BN, BK>(a);
        else
            return sgemm::whole_aligned_tiles_only<BM, BN, BK>(a);
    }
};

}  // namespace

static const sgemm::Registration registration{Gemm<128, 128, 8, 32, 64, 2, 2, 8, 8, true>{},
                                              {.number = 7,
                                               .name = "warptiling",
                                               .idea = "each warp owns a compact 32 x 64 warp tile of 2 x 2 sub-tiles: "
                                                       "96 floats of shared memory per warp and k instead of 144",
                                               .sass = {.required = {"LDS.128"}}}};
#ifdef SGEMM_TUNING
// [doc:variants]
static const sgemm::Registration registration_w64x32{
    Gemm<128, 128, 8, 64, 32, 2, 2, 8, 8, true>{},
    {.number = 700,
     .name = "warptiling_128x128x8_w64x32_t8x8",
     .idea = "step 07 with 64 x 32 warp tiles (lanes 8 x 4 per sub-tile)"}};
static const sgemm::Registration registration_w64x64{
    Gemm<128, 128, 8, 64, 64, 4, 2, 16, 8, true>{},
    {.number = 701,
     .name = "warptiling_128x128x8_w64x64_t16x8",
     .idea = "step 07 with 4 warps of 64 x 64, 16 x 8 outputs per thread (128 threads)"}};
static const sgemm::Registration registration_128x256{
    Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, true>{},
    {.number = 702,
     .name = "warptiling_128x256x8_w64x64_t16x8",
     .idea = "step 07 with step 09's tiles: 128 x 256 block, 8 warps of 64 x 64, 16 x 8 per thread"}};
static const sgemm::Registration registration_noedge{
    Gemm<128, 128, 8, 32, 64, 2, 2, 8, 8, false>{},
    {.number = 703,
     .name = "warptiling_noedge",
     .idea = "step 07 without edge handling (M, N multiples of 128, K of 8; aligned)"}};
// [/doc:variants]
#endif
