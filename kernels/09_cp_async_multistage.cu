// Step 09: cp.async multistage pipeline. Step 08 moved the next k-tile global ->
// registers -> shared memory and so had one k-tile in flight, in registers.
// Here cp.async (LDGSTS, sm_80+) copies global memory straight into shared
// memory: no staging registers, no STS, and STAGES - 1 k-tiles in flight while
// one is computed (as CUTLASS's multistage mainloop): a prologue starts STAGES - 1
// k-tiles, then each k-tile waits for its own copy group, is computed, and its
// stage is refilled with the k-tile STAGES - 1 ahead. cp.async cannot transpose a
// float4, so A moves one float per copy into its transposed place (as CUTLASS's
// SIMT multistage does for a row-major A) and the FMA loop is step 08's: LDS.128
// for A and B. The freed registers pay for a 128 x 256 tile (64 x 64 warp tiles,
// 16 x 8 outputs per thread, 1 block per SM), and the blocks are rasterized in
// groups of GROUP_M tile-rows for L2 reuse. See docs/kernels/09_cp_async_multistage.md.
#include "common/check.h"
#include "common/registry.h"
#include "common/tile.cuh"
#include "common/trace.cuh"

namespace {

using sgemm::trace::Event;
using sgemm::trace::NoTrace;
using sgemm::trace::Role;

// [doc:kpad]
constexpr int kPad = 4;  // As row padding: conflict-free transposed copies, rows stay 16-byte aligned

// [doc:smem-bytes]
// Dynamic shared memory of one block: STAGES x (As[BK][BM + kPad] + Bs[BK][BN]) floats.
constexpr int smem_bytes(int BM, int BN, int BK, int STAGES) {
    return STAGES * (BK * (BM + kPad) + BK * BN) * static_cast<int>(sizeof(float));
}

// [doc:template-params]
// kCheckEdges = false drops all edge handling (tuning variants 909 and 913). Trace: timeline stamps
// (common/trace.cuh); the default stamps nothing.
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int TM, int TN, int STAGES, int GROUP_M,
          bool kCheckEdges, typename Trace = NoTrace>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32,
                                  sgemm::min_blocks_per_sm((BM / WM) * (BN / WN) * 32, TM, TN))
    sgemm_09_cp_async_multistage(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                                 float beta, float* C, int ldc, bool vec_ok, Trace timeline) {
    // [/doc:template-params]
    constexpr int kWarpsN = BN / WN;  // the warps form a (BM / WM) x kWarpsN grid
    constexpr int kThreads = (BM / WM) * kWarpsN * 32;
    constexpr int kSubM = WM / WMITER;  // one warp sub-tile: kSubM x kSubN
    constexpr int kSubN = WN / WNITER;
    constexpr int kLaneTM = TM / WMITER;  // a lane's patch of one sub-tile: kLaneTM x kLaneTN
    constexpr int kLaneTN = TN / WNITER;
    constexpr int kLanesN = kSubN / kLaneTN;  // the lanes form a (kSubM / kLaneTM) x kLanesN grid
    constexpr int kARows = kThreads / 8;      // A rows copied per pass: 8 lanes per row, one float each
    static_assert(BM % WM == 0 && BN % WN == 0, "the warp tiles cover the block tile exactly");
    static_assert(WM % WMITER == 0 && WN % WNITER == 0, "a warp tile splits into WMITER x WNITER equal sub-tiles");
    static_assert(TM % WMITER == 0 && TN % WNITER == 0, "a thread tile splits into one equal patch per sub-tile");
    static_assert(kLaneTM % 4 == 0 && kLaneTN % 4 == 0, "a lane's patches are read from shared memory as float4s");
    static_assert(kSubM % kLaneTM == 0 && kSubN % kLaneTN == 0 && (kSubM / kLaneTM) * kLanesN == 32,
                  "the 32 lanes of a warp cover one sub-tile exactly");
    // [doc:static-asserts]
    static_assert(BK % 8 == 0 && BM % kARows == 0,
                  "A is copied in 8-float row pieces (one 32-byte sector per 8 lanes; with kPad = 4 their "
                  "transposed stores hit 32 different banks), and the passes cover the A tile evenly");
    static_assert(BN % 4 == 0 && kThreads % (BN / 4) == 0 && BK % (kThreads / (BN / 4)) == 0,
                  "one pass of the block copies whole rows of the B tile as float4s, and the passes cover it evenly");
    static_assert(BK >= 2, "the fragment pipeline switches stages at k = BK - 1, after reading k = BK - 1");
    static_assert(STAGES >= 3,
                  "STAGES - 1 >= 2 k-tiles in flight; with 2 stages step 08's register staging does as well");
    static_assert(GROUP_M >= 1, "GROUP_M tile-rows per rasterization group; 1 is plain row-major order");
    // [/doc:static-asserts]
    constexpr int kBLoads = BK * BN / (4 * kThreads);  // B float4s each thread copies per k-tile

    // [doc:dynamic-smem]
    extern __shared__ float4 smem[];  // smem_bytes(BM, BN, BK, STAGES), opted into in launch()
    auto As = reinterpret_cast<float(*)[BK][BM + kPad]>(smem);  // STAGES stages; transposed: As[s][k][m] = A[m][k]
    auto Bs = reinterpret_cast<float(*)[BK][BN]>(&As[STAGES][0][0]);

    const int tid = threadIdx.x;
    // [doc:rasterization]
    // Threadblock rasterization: the 1D grid walks groups of GROUP_M tile-rows, column by
    // column inside a group, so the blocks resident at one time share A rows and B columns
    // in L2 (a square-ish patch of C instead of whole tile-rows). GROUP_M = 1: row-major order.
    const auto [block_row, block_col] = sgemm::rasterized_tile<BM, BN, GROUP_M>(M, N, blockIdx.x);  // C tile's origin
    // [/doc:rasterization]
    // Warp w owns the warp tile at (warp_row, warp_col) of the block tile. In each
    // of its WMITER x WNITER sub-tiles, lane l owns rows lane_row + {0..kLaneTM-1}
    // and columns lane_col + {0..kLaneTN-1}: the lanes of a warp read adjacent
    // 16-byte words of one compact region of shared memory.
    const int warp = tid / 32, lane = tid % 32;
    const int warp_row = warp / kWarpsN * WM, warp_col = warp % kWarpsN * WN;
    const int lane_row = lane / kLanesN * kLaneTM, lane_col = lane % kLanesN * kLaneTN;
    // [doc:copy-mapping]
    // What this thread copies into shared memory: the floats (a_row + p * kARows, a_col + 8 * q) of
    // the A tile, one by one, and the float4s (b_row + p * kThreads / (BN / 4), b_col .. b_col + 3) of the B tile.
    const int a_row = tid / 8, a_col = tid % 8;
    const int b_row = tid / (BN / 4), b_col = tid % (BN / 4) * 4;

    // [doc:interior]
    // Uniform per block: interior blocks of 16-byte-aligned matrices never test an index against M or N.
    const bool interior = vec_ok && block_row + BM <= M && block_col + BN <= N;
    const auto trace = timeline.speaker(Role::all, tid == 0);  // thread 0 stamps for the block

    float acc[TM][TN] = {};
    float a_frag[2][TM];  // double-buffered: the fragments of k + 1 load while those of k feed the FMAs
    float b_frag[2][TN];

    // [doc:load-tile-async]
    // ---- global -> shared memory, asynchronously (cp.async: LDGSTS). One uniform branch per
    // k-tile: full tiles copy without predicates; edge tiles copy 0 source bytes (zero-fill)
    // outside A and B, and B rows that are not 16-byte aligned in 4-byte pieces.
    auto load_tile_async = [&](int stage, int k0) {
        trace.stamp(Event::issue, k0 / BK);
        // [doc:full]
        const bool full = !kCheckEdges || (interior && k0 + BK <= K);
        // [/doc:full]
        // [doc:full-tile-copies]
        if (full) {
            // One 64-bit base per operand and k-tile; the copies add row offsets (multiples of K, N) to it.
            const float* a_src = &A[static_cast<size_t>(block_row + a_row) * lda + k0 + a_col];
            const float* b_src = &B[static_cast<size_t>(k0 + b_row) * ldb + block_col + b_col];
#pragma unroll
            for (int p = 0; p < BM / kARows; ++p)
#pragma unroll
                for (int q = 0; q < BK / 8; ++q)
                    sgemm::cp_async4(&As[stage][a_col + 8 * q][a_row + p * kARows],
                                     a_src + static_cast<size_t>(p * kARows) * lda + 8 * q, 4);
#pragma unroll
            for (int p = 0; p < kBLoads; ++p)
                sgemm::cp_async16(&Bs[stage][b_row + p * (kThreads / (BN / 4))][b_col],
                                  b_src + static_cast<size_t>(p * (kThreads / (BN / 4))) * ldb, 16);
            // [/doc:full-tile-copies]
            // [doc:edge-tile-copies]
        } else {
#pragma unroll
            for (int p = 0; p < BM / kARows; ++p)
#pragma unroll
                for (int q = 0; q < BK / 8; ++q) {
                    const int m = block_row + a_row + p * kARows, k = k0 + a_col + 8 * q;
                    const bool in = m < M && k < K;  // outside A: copy nothing, the 4 bytes are zero-filled
                    sgemm::cp_async4(&As[stage][a_col + 8 * q][a_row + p * kARows],
                                     in ? &A[static_cast<size_t>(m) * lda + k] : A, in ? 4 : 0);
                }
#pragma unroll
            for (int p = 0; p < kBLoads; ++p) {
                const int k = k0 + b_row + p * (kThreads / (BN / 4)), n = block_col + b_col;
                float* dst = &Bs[stage][b_row + p * (kThreads / (BN / 4))][b_col];
                if (vec_ok) {  // N % 4 == 0: the four floats are all inside B or all outside
                    const bool in = k < K && n < N;
                    sgemm::cp_async16(dst, in ? &B[static_cast<size_t>(k) * ldb + n] : B, in ? 16 : 0);
                } else {
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        const bool in = k < K && n + j < N;
                        sgemm::cp_async4(dst + j, in ? &B[static_cast<size_t>(k) * ldb + n + j] : B, in ? 4 : 0);
                    }
                }
            }
        }
        // [/doc:edge-tile-copies]
    };
    // [/doc:load-tile-async]
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
    // ---- prologue: start k-tiles 0 .. STAGES - 2, one commit group each (committed even when
    // empty, so that group g always belongs to k-tile g and the wait counts below hold for any K).
    const int num_k_tiles = sgemm::ceil_div(K, BK);
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < num_k_tiles) load_tile_async(s, s * BK);
        sgemm::cp_async_commit();
    }
    sgemm::cp_async_wait<STAGES - 2>();  // at most STAGES - 2 groups pending: k-tile 0 has landed
    __syncthreads();  // ... for every thread's copies
    trace.stamp(Event::ready, 0);
    load_fragments(0, 0, 0);

    // [doc:mainloop]
    // ---- mainloop: compute k-tile kt from stage `read_stage` while k-tiles kt + 1 ..
    // kt + STAGES - 1 are in flight.
    int read_stage = 0, write_stage = STAGES - 1;
    for (int kt = 0; kt < num_k_tiles; ++kt) {
        const bool has_next = kt + 1 < num_k_tiles;  // uniform across the block
        // [doc:refill]
        // Refill the stage computed on during k-tile kt - 1 (every thread has passed the barrier
        // behind its last read) with k-tile kt + STAGES - 1. Group kt + STAGES - 1, maybe empty.
        if (kt + STAGES - 1 < num_k_tiles) load_tile_async(write_stage, (kt + STAGES - 1) * BK);
        sgemm::cp_async_commit();
        write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
        // [/doc:refill]
        trace.stamp(Event::compute_begin, kt);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            // [doc:stage-switch]
            if (k == BK - 1 && has_next) {
                // Every fragment of this stage has been read (the last, k = BK - 1, one step ago).
                // kt + STAGES groups are committed; waiting until at most STAGES - 2 are pending
                // means groups 0 .. kt + 1 are complete: k-tile kt + 1 has landed. The barrier
                // makes it visible to all threads and frees this stage for the refill at kt + 1.
                sgemm::cp_async_wait<STAGES - 2>();
                __syncthreads();
                trace.stamp(Event::ready, kt + 1);  // k-tile kt + 1 is in shared memory for every warp
                read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
            }
            // [/doc:stage-switch]
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

// [doc:vec-ok]
// float4 copies need B's and C's row starts 16-byte aligned (A is copied one float at a
// time anyway), and N a multiple of 4: an edge tile copies a row's last float4 of B whole, which
// must not run past column N into the padding of a strided view. Otherwise 4-byte copies and
// scalar stores.
bool is_vec_ok(const sgemm::GemmArgs& a) {
    return sgemm::rows_are_16b_aligned(a.B, a.ldb) && sgemm::rows_are_16b_aligned(a.C, a.ldc) && a.N % 4 == 0;
}

// Template arguments, in order: BM, BN, BK (block tile), WM, WN (warp tile), WMITER, WNITER
// (sub-tiles per warp tile), TM, TN (thread tile), STAGES, GROUP_M (rasterization), kCheckEdges, Trace.
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int TM, int TN, int STAGES, int GROUP_M,
          bool kCheckEdges, typename Trace = NoTrace>
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* workspace, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        auto* kernel = sgemm_09_cp_async_multistage<BM, BN, BK, WM, WN, WMITER, WNITER, TM, TN, STAGES, GROUP_M,
                                                    kCheckEdges, Trace>;
        // [doc:smem-opt-in]
        constexpr int smem = smem_bytes(BM, BN, BK, STAGES);
        sgemm::allow_dynamic_smem(kernel, smem);  // more than 48 KB needs an opt-in per kernel and device
        // [/doc:smem-opt-in]
        const bool vec_ok = is_vec_ok(args);
        const dim3 block((BM / WM) * (BN / WN) * 32);
        const dim3 grid(sgemm::tile_count(M, N, BM, BN));  // 1-D: rasterized in the kernel
        sgemm::launch_checked(kernel, grid, block, smem, stream, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, vec_ok,
                              Trace::at(workspace));
    }

    // Workspace: a recording Trace's timeline; none without one.
    static std::size_t workspace_bytes(const sgemm::GemmArgs&) { return Trace::workspace_bytes; }

    static std::string describe(const sgemm::GemmArgs& args) {
        const std::string pipeline = ", " + std::to_string(STAGES) + " stages, group " + std::to_string(GROUP_M);
        return sgemm::describe_warp_tiles(BM, BN, BK, WM, WN, TM, TN, pipeline, kCheckEdges, is_vec_ok(args));
    }

    // Without edge handling (kCheckEdges = false): whole, 16-byte aligned tiles only.
    static std::string can_implement(const sgemm::GemmArgs& a) {
        if constexpr (kCheckEdges)
            return sgemm::fits_int_tiles<BM, BN, BK, true>(a);
        else
            return sgemm::whole_aligned_tiles_only<BM, BN, BK>(a);
    }
};

}  // namespace

// Step 09 changes three things against step 08; sub-steps 9a and 9b add them one at a time, as three
// instantiations of this one kernel. Their functions are step 09's, whose SASS checks cover them.
// [doc:registration-9a]
// 9a, the pipeline alone, on step 08's tile: 256 threads of at most 128 registers, 2 blocks per SM.
// STAGES = 4: a copy has 2 7/8 k-tiles of FMAs to land (~5,900 clocks with 2 blocks per SM; step 08:
// 7/8 of one). 4 x 8,320 B = 33,280 B per block: the 2 blocks that the registers allow take 65 KB of
// the 228 KB, so the stages cost no block (14 would).
static const sgemm::Registration registration_9a{
    Gemm<128, 128, 8, 32, 64, 2, 2, 8, 8, 4, 1, true>{},
    {.number = 9,
     .part = 'a',
     .name = "cp_async_pipeline",
     .idea = "cp.async copies into a 4-stage shared-memory pipeline on step 08's 128 x 128 tile: no staging "
             "registers, 3 k-tiles in flight",
     .requirements = {.min_cc = 80}}};
// [/doc:registration-9a]
// [doc:registration-9b]
// 9b, the tile that the freed staging registers pay for: 16 x 8 outputs per thread, 1 block per SM.
// STAGES = 5: 5 x 12,416 B = 62,080 B (with 3 or 4 stages ptxas schedules the loop worse: appendix).
static const sgemm::Registration registration_9b{
    Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 5, 1, true>{},
    {.number = 9,
     .part = 'b',
     .name = "larger_tile",
     .idea = "9a's pipeline with 5 stages on a 128 x 256 tile: 64 x 64 warp tiles, 16 x 8 outputs per thread",
     .requirements = {.min_cc = 80}}};
// [/doc:registration-9b]
// [doc:registration]
// Step 09: 9b with the blocks rasterized in groups of GROUP_M = 8 tile-rows for L2 reuse.
static const sgemm::Registration registration{
    Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 5, 8, true>{},
    {.number = 9,
     .name = "cp_async_multistage",
     .idea = "9b with threadblock rasterization: blocks walk groups of 8 tile-rows, so that those resident at "
             "one time share A and B in L2",
     .requirements = {.min_cc = 80},
     .sass = {.required = {"LDS.128", "LDGSTS"}}}};
// [/doc:registration]
#ifdef SGEMM_TUNING
// [doc:variants]
static const sgemm::Registration registration_s3{Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 3, 8, true>{},
                                                 {.number = 900,
                                                  .name = "cp_async_multistage_128x256x8_w64x64_t16x8_s3",
                                                  .idea = "step 09 with 3 stages (37 KB of shared memory)"}};
static const sgemm::Registration registration_s4{Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 4, 8, true>{},
                                                 {.number = 901,
                                                  .name = "cp_async_multistage_128x256x8_w64x64_t16x8_s4",
                                                  .idea = "step 09 with 4 stages (50 KB of shared memory)"}};
static const sgemm::Registration registration_noswizzle{
    Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 4, 1, true>{},
    {.number = 902,
     .name = "cp_async_multistage_128x256x8_w64x64_t16x8_s4_noswizzle",
     .idea = "step 09 without rasterization: row-major block order (GROUP_M = 1)"}};
static const sgemm::Registration registration_group16{Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 4, 16, true>{},
                                                      {.number = 903,
                                                       .name = "cp_async_multistage_128x256x8_w64x64_t16x8_s4_group16",
                                                       .idea = "step 09 rasterized in groups of 16 tile-rows"}};
static const sgemm::Registration registration_t8x16{
    Gemm<128, 256, 8, 64, 64, 2, 4, 8, 16, 4, 8, true>{},
    {.number = 904,
     .name = "cp_async_multistage_128x256x8_w64x64_t8x16_s4",
     .idea = "step 09 with 8 x 16 thread tiles (2 x 4 sub-tiles of 32 x 16, lanes 8 x 4)"}};
static const sgemm::Registration registration_256x128{Gemm<256, 128, 8, 64, 64, 4, 2, 16, 8, 4, 8, true>{},
                                                      {.number = 905,
                                                       .name = "cp_async_multistage_256x128x8_w64x64_t16x8_s4",
                                                       .idea = "step 09 with a 256 x 128 block tile (4 x 2 warps)"}};
static const sgemm::Registration registration_bk16{
    Gemm<128, 256, 16, 64, 64, 4, 2, 16, 8, 3, 8, true>{},
    {.number = 906,
     .name = "cp_async_multistage_128x256x16_w64x64_t16x8_s3",
     .idea = "step 09 with BK = 16, 3 stages (74 KB): half the barriers per FMA"}};
static const sgemm::Registration registration_128x128{
    Gemm<128, 128, 8, 32, 64, 2, 2, 8, 8, 4, 8, true>{},
    {.number = 907,
     .name = "cp_async_multistage_128x128x8_w32x64_t8x8_s4",
     .idea = "step 09 on step 08's tiles (128 x 128, 32 x 64 warps, 8 x 8 per thread, 2 blocks/SM)"}};
static const sgemm::Registration registration_128x128_w64{
    Gemm<128, 128, 8, 64, 64, 4, 2, 16, 8, 4, 8, true>{},
    {.number = 908,
     .name = "cp_async_multistage_128x128x8_w64x64_t16x8_s4",
     .idea = "step 09 with 4 warps of 64 x 64 (128 threads, 2 blocks/SM)"}};
static const sgemm::Registration registration_noedge{
    Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 4, 8, false>{},
    {.number = 909,
     .name = "cp_async_multistage_s4_noedge",
     .idea = "step 09 with 4 stages, without edge handling (M multiple of 128, N of 256, K of 8; aligned)"}};
static const sgemm::Registration registration_s6{Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 6, 8, true>{},
                                                 {.number = 910,
                                                  .name = "cp_async_multistage_128x256x8_w64x64_t16x8_s6",
                                                  .idea = "step 09 with 6 stages (74 KB of shared memory)"}};
static const sgemm::Registration registration_s8{Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 8, 8, true>{},
                                                 {.number = 911,
                                                  .name = "cp_async_multistage_128x256x8_w64x64_t16x8_s8",
                                                  .idea = "step 09 with 8 stages (99 KB of shared memory)"}};
static const sgemm::Registration registration_s5_noswizzle{
    Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 5, 1, true>{},
    {.number = 912,
     .name = "cp_async_multistage_128x256x8_w64x64_t16x8_s5_noswizzle",
     .idea = "step 09 with 5 stages, no rasterization"}};
static const sgemm::Registration registration_s5_noedge{
    Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 5, 8, false>{},
    {.number = 913, .name = "cp_async_multistage_s5_noedge", .idea = "step 09 with 5 stages, without edge handling"}};
// [/doc:variants]
static const sgemm::Registration registration_timeline{
    Gemm<128, 128, 8, 32, 64, 2, 2, 8, 8, 4, 1, true, sgemm::trace::RecordTrace>{},
    {.number = 914,
     .name = "cp_async_multistage_timeline",
     .idea = "sub-step 9a (step 09's kernel on step 08's tile, 4 stages) with clock64() stamps per k-tile (timeline)"}};
#endif
