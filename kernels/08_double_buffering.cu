// Step 08: double buffering. Step 07's tiles and warp tiling, software-pipelined
// on two levels (as CUTLASS's pipelined SIMT mainloop): shared memory holds two
// k-tiles (stages), and while the block computes on one, the next k-tile travels
// global -> registers (its loads are issued at the start of the k-tile) and is
// stored into the other stage once this k-tile's last fragments have been read.
// Inside a k-tile the A and B fragments of k + 1 are read from shared memory
// while the FMAs of k run. One __syncthreads per k-tile instead of two.
// See docs/kernels/08_double_buffering.md.
#include "common/check.h"
#include "common/registry.h"
#include "common/tile.cuh"
#include "common/trace.cuh"

namespace {

using sgemm::trace::Event;
using sgemm::trace::NoTrace;
using sgemm::trace::Role;

// kCheckEdges = false drops all edge handling (tuning variant 803). Trace: timeline stamps
// (common/trace.cuh); the default stamps nothing.
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int TM, int TN, bool kCheckEdges,
          typename Trace = NoTrace>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32,
                                  sgemm::min_blocks_per_sm((BM / WM) * (BN / WN) * 32, TM, TN))
    sgemm_08_double_buffering(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                              float beta, float* C, int ldc, bool vec_ok, Trace timeline) {
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
    // [doc:bk-assert]
    static_assert(BK >= 2, "the fragment pipeline switches stages at k = BK - 1, after reading k = BK - 1");
    // [/doc:bk-assert]
    constexpr int kALoads = BM * BK / (4 * kThreads);  // A float4s each thread copies per k-tile
    constexpr int kBLoads = BK * BN / (4 * kThreads);  // B float4s each thread copies per k-tile

    // [doc:smem-stages]
    __shared__ alignas(16) float As[2][BK][BM + kPad];  // two stages; transposed: As[s][k][m] = A[m][k]
    __shared__ alignas(16) float Bs[2][BK][BN];

    const int tid = threadIdx.x;
    const int block_row = sgemm::tile_y() * BM;  // first row of this block's C tile
    const int block_col = blockIdx.x * BN;       // first column of this block's C tile
    // Warp w owns the warp tile at (warp_row, warp_col) of the block tile. In each
    // of its WMITER x WNITER sub-tiles, lane l owns rows lane_row + {0..kLaneTM-1}
    // and columns lane_col + {0..kLaneTN-1}: the lanes of a warp read adjacent
    // 16-byte words of one compact region of shared memory.
    const int warp = tid / 32, lane = tid % 32;
    const int warp_row = warp / kWarpsN * WM, warp_col = warp % kWarpsN * WN;
    const int lane_row = lane / kLanesN * kLaneTM, lane_col = lane % kLanesN * kLaneTN;
    // Which float4 this thread copies into shared memory (pass p adds p * kThreads / (BK / 4) rows).
    const int a_row = tid / (BK / 4), a_col = tid % (BK / 4) * 4;
    const int b_row = tid / (BN / 4), b_col = tid % (BN / 4) * 4;

    // Uniform per block: interior blocks of 16-byte-aligned matrices never test an index against M or N.
    const bool interior = vec_ok && block_row + BM <= M && block_col + BN <= N;
    const auto trace = timeline.speaker(Role::all, tid == 0);  // thread 0 stamps for the block

    float acc[TM][TN] = {};
    // [doc:fragments]
    float a_frag[2][TM];  // double-buffered: the fragments of k + 1 load while those of k feed the FMAs
    float b_frag[2][TN];
    float4 a_ld[kALoads], b_ld[kBLoads];  // the next k-tile, on its way from global to shared memory

    // [doc:load-tile-to-registers]
    // ---- global -> registers. One uniform branch per k-tile: full tiles load
    // float4s without predicates; edge tiles pad with zeros outside A and B.
    auto load_tile_to_registers = [&](int k0) {
        const bool full = !kCheckEdges || (interior && k0 + BK <= K);
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
    };
    // [/doc:load-tile-to-registers]
    // [doc:store-tile-to-shared]
    // ---- registers -> shared memory. A is transposed on the way: four 4-byte
    // stores into four rows of As. B is copied as it is: one 16-byte store.
    auto store_tile_to_shared = [&](int stage) {
#pragma unroll
        for (int p = 0; p < kALoads; ++p) {
            const int m = a_row + p * (kThreads / (BK / 4));
            As[stage][a_col + 0][m] = a_ld[p].x;
            As[stage][a_col + 1][m] = a_ld[p].y;
            As[stage][a_col + 2][m] = a_ld[p].z;
            As[stage][a_col + 3][m] = a_ld[p].w;
        }
#pragma unroll
        for (int p = 0; p < kBLoads; ++p)
            *reinterpret_cast<float4*>(&Bs[stage][b_row + p * (kThreads / (BN / 4))][b_col]) = b_ld[p];
    };
    // [/doc:store-tile-to-shared]
    // [doc:load-fragments]
    // ---- shared memory -> registers: the thread's fragments for one k, (TM + TN) / 4 LDS.128.
    // The loads walk the warp's sub-tiles: sub-tile wm supplies a_frag[buf][wm * kLaneTM ...].
    auto load_fragments = [&](int buf, int stage, int k) {
#pragma unroll
        for (int i = 0; i < TM; i += 4) {
            const float4 a = *reinterpret_cast<const float4*>(
                &As[stage][k][warp_row + (i / kLaneTM) * kSubM + lane_row + i % kLaneTM]);
            a_frag[buf][i + 0] = a.x, a_frag[buf][i + 1] = a.y, a_frag[buf][i + 2] = a.z, a_frag[buf][i + 3] = a.w;
        }
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const float4 b = *reinterpret_cast<const float4*>(
                &Bs[stage][k][warp_col + (j / kLaneTN) * kSubN + lane_col + j % kLaneTN]);
            b_frag[buf][j + 0] = b.x, b_frag[buf][j + 1] = b.y, b_frag[buf][j + 2] = b.z, b_frag[buf][j + 3] = b.w;
        }
    };

    // [doc:prologue]
    // ---- prologue: k-tile 0 into stage 0, the fragments of its k = 0 into registers.
    const int num_k_tiles = sgemm::ceil_div(K, BK);
    trace.stamp(Event::issue, 0);
    load_tile_to_registers(0);
    store_tile_to_shared(0);
    __syncthreads();
    trace.stamp(Event::ready, 0);  // k-tile 0 is in shared memory for every warp
    load_fragments(0, 0, 0);

    // [doc:mainloop]
    // ---- mainloop: compute k-tile kt from stage `read_stage` while k-tile kt + 1
    // travels global -> registers -> the other stage.
    int read_stage = 0;
    for (int kt = 0; kt < num_k_tiles; ++kt) {
        const bool has_next = kt + 1 < num_k_tiles;  // uniform across the block
        if (has_next) trace.stamp(Event::issue, kt + 1);  // not for the reload of the last k-tile
        // [doc:reload-last-tile]
        // The next k-tile's global loads are in flight during this k-tile's FMAs. The last
        // k-tile loads itself again instead of branching around the loads: the loop body
        // stays straight-line, which keeps ptxas within 128 registers (2 blocks per SM).
        load_tile_to_registers(has_next ? (kt + 1) * BK : kt * BK);
        // [/doc:reload-last-tile]
        trace.stamp(Event::compute_begin, kt);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k == BK - 1 && has_next) {
                // Every fragment of this stage has been read (the last, k = BK - 1, one step
                // ago): store the next k-tile into the other stage, which everyone finished
                // reading before the previous barrier, and make it visible.
                store_tile_to_shared(read_stage ^ 1);
                __syncthreads();
                trace.stamp(Event::ready, kt + 1);  // k-tile kt + 1 is in the other stage for every warp
                read_stage ^= 1;
            }
            // Fragments of k + 1 (of the next k-tile's k = 0 at the end) while the FMAs of k run.
            load_fragments((k + 1) % 2, read_stage, (k + 1) % BK);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[k % 2][i] * b_frag[k % 2][j];
        }
        trace.stamp(Event::compute_end, kt);
    }

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
}

// float4 access needs every row start of A, B and C 16-byte aligned; otherwise scalar loads and stores.
bool is_vec_ok(const sgemm::GemmArgs& a) { return sgemm::all_rows_16b_aligned(a); }

// Template arguments, in order: BM, BN, BK (block tile), WM, WN (warp tile), WMITER, WNITER
// (sub-tiles per warp tile), TM, TN (thread tile), kCheckEdges, Trace.
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int TM, int TN, bool kCheckEdges,
          typename Trace = NoTrace>
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* workspace, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        const bool vec_ok = is_vec_ok(args);
        const dim3 block((BM / WM) * (BN / WN) * 32);
        const dim3 grid = sgemm::tile_grid(sgemm::ceil_div(N, BN), sgemm::ceil_div(M, BM));
        sgemm::launch_checked(sgemm_08_double_buffering<BM, BN, BK, WM, WN, WMITER, WNITER, TM, TN, kCheckEdges, Trace>,
                              grid, block, 0, stream, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, vec_ok,
                              Trace::at(workspace));
    }

    // Workspace: a recording Trace's timeline; none without one.
    static std::size_t workspace_bytes(const sgemm::GemmArgs&) { return Trace::workspace_bytes; }

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

static const sgemm::Registration registration{
    Gemm<128, 128, 8, 32, 64, 2, 2, 8, 8, true>{},
    {.number = 8,
     .name = "double_buffering",
     .idea = "two shared-memory stages and double-buffered fragments: the next k-tile loads during this one's FMAs",
     .sass = {.required = {"LDS.128"}}}};
// [doc:variants]
#ifdef SGEMM_TUNING
static const sgemm::Registration registration_w64x64{
    Gemm<128, 128, 8, 64, 64, 4, 2, 16, 8, true>{},
    {.number = 800,
     .name = "double_buffering_128x128x8_w64x64_t16x8",
     .idea = "step 08 with 4 warps of 64 x 64, 16 x 8 outputs per thread (128 threads)"}};
static const sgemm::Registration registration_128x256{
    Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, true>{},
    {.number = 801,
     .name = "double_buffering_128x256x8_w64x64_t16x8",
     .idea = "step 08 with step 09's tiles: 128 x 256 block, 8 warps of 64 x 64, 16 x 8 per thread"}};
static const sgemm::Registration registration_bk16{
    Gemm<128, 128, 16, 32, 64, 2, 2, 8, 8, true>{},
    {.number = 802,
     .name = "double_buffering_128x128x16_w32x64_t8x8",
     .idea = "step 08 with BK = 16: half the barriers and stage switches per FMA"}};
static const sgemm::Registration registration_noedge{
    Gemm<128, 128, 8, 32, 64, 2, 2, 8, 8, false>{},
    {.number = 803,
     .name = "double_buffering_noedge",
     .idea = "step 08 without edge handling (M, N multiples of 128, K of 8; aligned)"}};
static const sgemm::Registration registration_timeline{
    Gemm<128, 128, 8, 32, 64, 2, 2, 8, 8, true, sgemm::trace::RecordTrace>{},
    {.number = 804,
     .name = "double_buffering_timeline",
     .idea = "step 08 with clock64() stamps per k-tile (timeline; sgemm_timeline reads them)"}};
#endif
