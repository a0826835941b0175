// Step 11: TMA, mbarriers and a warp-specialized producer. Step 09's math warps also issued
// the copies: per k-tile each thread computed addresses, issued 6 cp.async, waited for its
// group and met the other 255 threads at __syncthreads. Here one thread of an extra warpgroup,
// the producer, issues all copies with the Tensor Memory Accelerator (one cp.async.bulk.tensor per operand
// and k-tile: the hardware walks the box, zero-fills what lies outside the matrix and counts
// the bytes on an mbarrier). The 8 math warps (consumers) only wait on a stage's "full"
// mbarrier, run step 09's LDS + FFMA loop on it and arrive on its "empty" mbarrier: no block-
// wide barrier, no copy instructions, no edge tests in the loop. TMA cannot transpose 4-byte
// elements, so A^T is written once into the workspace by a transpose kernel before the GEMM
// (K x M floats, about 1.5 % of the time at 4096^3): the consumers then read As[k][m]
// exactly as in step 09. See docs/kernels/11_tma_warp_specialized.md.
#include "common/check.h"
#include "common/hopper.cuh"
#include "common/registry.h"
#include "common/staging.cuh"
#include "common/tile.cuh"
#include "common/trace.cuh"

namespace {

using sgemm::trace::Event;
using sgemm::trace::NoTrace;
using sgemm::trace::Role;

// [doc:smem-bytes]
// Dynamic shared memory of one block: STAGES x (As[BK][BM] + Bs[BK][BN]) floats, then the
// STAGES "full" and STAGES "empty" mbarriers (8 bytes each).
constexpr int smem_bytes(int BM, int BN, int BK, int STAGES) {
    return STAGES * (BK * (BM + BN)) * static_cast<int>(sizeof(float)) + 2 * STAGES * 8;
}

// [doc:block-threads]
template <int BM, int BN, int WM, int WN>
constexpr int kConsumerThreads = (BM / WM) * (BN / WN) * 32;
// [doc:register-split]
// The producer is a whole warpgroup (setmaxnreg works per warpgroup); one of its threads copies.
constexpr int kProducerThreads = 128;
// Registers per thread after setmaxnreg. The register file of each of the 4 SM sub-partitions
// (16K registers) holds 2 consumer warps and 1 producer warp: 2 * 32 * 232 + 32 * 40 = 16128.
// At launch every thread gets 65536 / 384 = 168 (rounded down to 8), too few for 128 accumulators.
constexpr unsigned kProducerRegs = 40, kConsumerRegs = 232;

// [doc:tma-boxes]
// The two TMA boxes of a k-tile, for the tensor maps (host) and the bytes announced per stage (device).
template <int BM, int BN, int BK>
struct Boxes {
    static constexpr sgemm::TmaBox a_t{BK, BM};  // BK rows of A^T, BM floats each
    static constexpr sgemm::TmaBox b{BK, BN};    // BK rows of B, BN floats each
};

// Template arguments as step 09's (block tile, warp tile, sub-tiles, thread tile, STAGES, GROUP_M),
// and Trace: timeline stamps (common/trace.cuh); the default stamps nothing.
// The block is the consumer warps plus one producer warp.
// [doc:grid-constant-params]
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int TM, int TN, int STAGES, int GROUP_M,
          typename Trace = NoTrace>
__global__ void __launch_bounds__(kConsumerThreads<BM, BN, WM, WN> + kProducerThreads, 1)
// [/doc:block-threads]
    sgemm_11_tma_warp_specialized(int M, int N, int K, float alpha, float beta, float* C, int ldc, bool c_vec_ok,
                                  const __grid_constant__ CUtensorMap a_t_map,  // A^T: K rows of M floats
                                  const __grid_constant__ CUtensorMap b_map,  // B: K rows of N floats
                                  Trace timeline) {
    // [/doc:grid-constant-params]
    constexpr int kWarpsN = BN / WN;  // the consumer warps form a (BM / WM) x kWarpsN grid
    constexpr int kConsumers = kConsumerThreads<BM, BN, WM, WN>;
    constexpr int kSubM = WM / WMITER;  // one warp sub-tile: kSubM x kSubN
    constexpr int kSubN = WN / WNITER;
    constexpr int kLaneTM = TM / WMITER;  // a lane's patch of one sub-tile: kLaneTM x kLaneTN
    constexpr int kLaneTN = TN / WNITER;
    constexpr int kLanesN = kSubN / kLaneTN;  // the lanes form a (kSubM / kLaneTM) x kLanesN grid
    constexpr unsigned kStageBytes = Boxes<BM, BN, BK>::a_t.bytes() + Boxes<BM, BN, BK>::b.bytes();  // per k-tile
    static_assert(BM % WM == 0 && BN % WN == 0, "the warp tiles cover the block tile exactly");
    static_assert(WM % WMITER == 0 && WN % WNITER == 0, "a warp tile splits into WMITER x WNITER equal sub-tiles");
    static_assert(TM % WMITER == 0 && TN % WNITER == 0, "a thread tile splits into one equal patch per sub-tile");
    static_assert(kLaneTM % 4 == 0 && kLaneTN % 4 == 0, "a lane's patches are read from shared memory as float4s");
    static_assert(kSubM % kLaneTM == 0 && kSubN % kLaneTN == 0 && (kSubM / kLaneTM) * kLanesN == 32,
                  "the 32 lanes of a warp cover one sub-tile exactly");
    // [doc:tma-asserts]
    static_assert(BM <= 256 && BN <= 256 && BK <= 256, "a TMA box is at most 256 elements along each dimension");
    static_assert((BM * sizeof(float)) % 128 == 0 && (BN * sizeof(float)) % 128 == 0,
                  "every stage of As and Bs starts 128-byte aligned, as TMA's destination must");
    // [/doc:tma-asserts]
    static_assert(BK >= 2, "the fragment pipeline switches stages at k = BK - 1, after reading k = BK - 1");
    static_assert(STAGES >= 2, "at least one k-tile in flight while one is computed");
    static_assert(GROUP_M >= 1, "GROUP_M tile-rows per rasterization group; 1 is plain row-major order");
    static_assert(kConsumers == 256, "the register split (kConsumerRegs) assumes 2 consumer warpgroups");

    // [doc:smem-layout]
    extern __shared__ __align__(1024) float4 smem[];  // smem_bytes(BM, BN, BK, STAGES), opted into in launch()
    auto As = reinterpret_cast<float(*)[BK][BM]>(smem);  // STAGES stages; As[s][k][m] = A[m][k] (from A^T)
    auto Bs = reinterpret_cast<float(*)[BK][BN]>(&As[STAGES][0][0]);
    auto full = reinterpret_cast<std::uint64_t*>(&Bs[STAGES][0][0]);  // stage s holds a k-tile: TMA's bytes landed
    std::uint64_t* empty = full + STAGES;                              // stage s is free: every consumer has read it

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    // [doc:tile-origin]
    // The tile of this block (step 09's rasterization), computed by each role after its setmaxnreg:
    // a value live across setmaxnreg would be spilled.
    auto tile_origin = [&] { return sgemm::rasterized_tile<BM, BN, GROUP_M>(M, N, blockIdx.x); };

    // [doc:barrier-init]
    if (tid == 0) sgemm::init_stage_barriers(full, empty, STAGES, kConsumers);  // empty: every consumer thread arrives
    __syncthreads();  // the only block-wide barrier: the mbarriers exist before anyone uses them

    // [doc:producer]
    if (warp >= kConsumers / 32) {
        // ---- producer warpgroup: it hands most of its registers to the consumers, and one
        // thread issues every copy. Round r of stage s (k-tile r * STAGES + s)
        // waits for phase r - 1 of empty[s], i.e. for the consumers to be done with k-tile
        // (r - 1) * STAGES + s; the first round finds every stage free.
        sgemm::setmaxnreg_dec<kProducerRegs>();
        if (warp == kConsumers / 32 && lane == 0) {
            const auto trace = timeline.speaker(Role::producer, true);
            const auto [block_row, block_col] = tile_origin();
            const int num_k_tiles = sgemm::ceil_div(K, BK);
            sgemm::prefetch_tensor_map(&a_t_map);
            sgemm::prefetch_tensor_map(&b_map);
            for (int kt = 0, s = 0, round = 0; kt < num_k_tiles; ++kt) {
                if (round > 0) sgemm::mbarrier_wait(&empty[s], (round - 1) & 1);
                trace.stamp(Event::issue, kt);  // stage s is free: k-tile kt's copies start
                sgemm::mbarrier_arrive_expect_tx(&full[s], kStageBytes);
                sgemm::tma_load_2d(&As[s][0][0], &a_t_map, &full[s], block_row, kt * BK);  // box BK x BM of A^T
                sgemm::tma_load_2d(&Bs[s][0][0], &b_map, &full[s], block_col, kt * BK);  // box BK x BN of B
                if (++s == STAGES) s = 0, ++round;
            }
        }
        return;  // the producer takes no part in the epilogue
    }

    // ---- consumer warps: step 09's warp and lane layout and fragment pipeline.
    sgemm::setmaxnreg_inc<kConsumerRegs>();
    const auto [block_row, block_col] = tile_origin();
    const int num_k_tiles = sgemm::ceil_div(K, BK);
    const int warp_row = warp / kWarpsN * WM, warp_col = warp % kWarpsN * WN;
    const int lane_row = lane / kLanesN * kLaneTM, lane_col = lane % kLanesN * kLaneTN;
    // Lane 0 of the first warp of each consumer warpgroup (4 warps) stamps for its warpgroup.
    const auto trace = timeline.speaker(warp < 4 ? Role::consumer0 : Role::consumer1, warp % 4 == 0 && lane == 0);

    float acc[TM][TN] = {};
    float a_frag[2][TM];  // double-buffered: the fragments of k + 1 load while those of k feed the FMAs
    float b_frag[2][TN];
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

    int read_stage = 0;
    unsigned phase = 0;  // parity of the full[read_stage] phase that holds the k-tile being read
    sgemm::mbarrier_wait(&full[0], 0);
    trace.stamp(Event::ready, 0);
    load_fragments(0, 0, 0);
    for (int kt = 0; kt < num_k_tiles; ++kt) {
        const bool has_next = kt + 1 < num_k_tiles;  // uniform across the block
        trace.stamp(Event::compute_begin, kt);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            // [doc:stage-switch]
            if (k == BK - 1 && has_next) {
                // Every fragment of this stage has been read (the last, k = BK - 1, one step ago):
                // hand the stage back to the producer (release: the reads come first), then wait
                // for the next k-tile's bytes. Each warp goes on as soon as its own data is there.
                sgemm::mbarrier_arrive(&empty[read_stage]);
                if (++read_stage == STAGES) read_stage = 0, phase ^= 1;
                sgemm::mbarrier_wait(&full[read_stage], phase);
                trace.stamp(Event::ready, kt + 1);  // k-tile kt + 1's bytes have landed (this warp's view)
            }
            // [/doc:stage-switch]
            load_fragments((k + 1) % 2, read_stage, (k + 1) % BK);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[k % 2][i] * b_frag[k % 2][j];
        }
        trace.stamp(Event::compute_end, kt);
    }

    // [doc:epilogue]
    // ---- epilogue: step 09's, C = alpha * acc + beta * C as float4s, unchecked in interior blocks.
    const bool interior = c_vec_ok && block_row + BM <= M && block_col + BN <= N;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = block_row + warp_row + (i / kLaneTM) * kSubM + lane_row + i % kLaneTM;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const int col = block_col + warp_col + (j / kLaneTN) * kSubN + lane_col + j % kLaneTN;
            const float4 out = make_float4(acc[i][j + 0], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            if (interior)
                sgemm::store_c4_unchecked(C, ldc, row, col, out, alpha, beta);
            else
                sgemm::store_c4(C, ldc, row, col, M, N, out, alpha, beta, c_vec_ok);
        }
    }
}

// [doc:stage-kernel]
// Operand staging before the GEMM: dst = src (kTranspose = false) or dst = src^T, src rows x cols
// with leading dimension ld_src, dst with ld_dst (a multiple of 4: TMA's 16-byte row pitch).
template <bool kTranspose>
__global__ void __launch_bounds__(sgemm::kStageTile* sgemm::kStageRows)
    sgemm_11_tma_warp_specialized_stage(int rows, int cols, const float* src, int ld_src, float* dst, int ld_dst) {
    sgemm::stage_tiles<kTranspose>(
        rows, cols, src, ld_src, [&](int row, int col, float x) { dst[static_cast<size_t>(row) * ld_dst + col] = x; });
}

// ---- host side

using sgemm::align256;
using sgemm::round_up4;

// [doc:b-copy]
// B goes to TMA as it is when its rows start 16-byte aligned; otherwise it is first copied
// into the workspace with a 16-byte row pitch.
bool b_needs_copy(const sgemm::GemmArgs& a) { return !sgemm::rows_are_16b_aligned(a.B, a.ldb); }

// The workspace starts with A^T: K rows, pitch M rounded up to 4 floats (B's copy follows it).
std::size_t a_t_bytes(const sgemm::GemmArgs& a) { return align256(a.K * round_up4(a.M) * sizeof(float)); }
// [/doc:b-copy]

void stage_operand(bool transpose, int rows, int cols, const float* src, int ld_src, float* dst, int ld_dst,
                   cudaStream_t stream) {
    auto* kernel = transpose ? sgemm_11_tma_warp_specialized_stage<true> : sgemm_11_tma_warp_specialized_stage<false>;
    sgemm::launch_checked(kernel, sgemm::stage_grid(rows, cols), dim3(sgemm::kStageTile, sgemm::kStageRows), 0, stream,
                          rows, cols, src, ld_src, dst, ld_dst);
}

// Template arguments as sgemm_11_tma_warp_specialized's.
// [doc:launch]
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int TM, int TN, int STAGES, int GROUP_M,
          typename Trace = NoTrace>
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* workspace, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        auto* kernel =
            sgemm_11_tma_warp_specialized<BM, BN, BK, WM, WN, WMITER, WNITER, TM, TN, STAGES, GROUP_M, Trace>;
        constexpr int smem = smem_bytes(BM, BN, BK, STAGES);
        sgemm::allow_dynamic_smem(kernel, smem);

        const Trace timeline = Trace::at(workspace);  // a recording Trace's timeline comes first
        workspace = static_cast<char*>(workspace) + Trace::workspace_bytes;
        auto* a_t = static_cast<float*>(workspace);
        const long long ld_a_t = round_up4(M);
        stage_operand(true, M, K, A, lda, a_t, static_cast<int>(ld_a_t), stream);
        const float* b = B;
        long long ld_b = ldb;
        if (b_needs_copy(args)) {
            auto* b_copy = reinterpret_cast<float*>(static_cast<char*>(workspace) + a_t_bytes(args));
            ld_b = round_up4(N);
            stage_operand(false, K, N, B, ldb, b_copy, static_cast<int>(ld_b), stream);
            b = b_copy;
        }
        // [doc:tensor-maps]
        using Box = Boxes<BM, BN, BK>;
        const CUtensorMap a_t_map = sgemm::make_tensor_map_2d(a_t, K, M, ld_a_t, Box::a_t, CU_TENSOR_MAP_SWIZZLE_NONE);
        const CUtensorMap b_map = sgemm::make_tensor_map_2d(b, K, N, ld_b, Box::b, CU_TENSOR_MAP_SWIZZLE_NONE);
        // [/doc:tensor-maps]
        const bool c_vec_ok = sgemm::rows_are_16b_aligned(C, ldc) && N % 4 == 0;
        const dim3 block(kConsumerThreads<BM, BN, WM, WN> + kProducerThreads);
        const dim3 grid(sgemm::tile_count(M, N, BM, BN));  // 1-D: rasterized in the kernel
        sgemm::launch_checked(kernel, grid, block, smem, stream, M, N, K, alpha, beta, C, ldc, c_vec_ok, a_t_map, b_map,
                              timeline);
    }
    // [/doc:launch]

    static std::string describe(const sgemm::GemmArgs& args) {
        const std::string pipeline = ", " + std::to_string(STAGES) + " TMA stages, 1 producer warpgroup, group " +
            std::to_string(GROUP_M) + ", A^T staged" + (b_needs_copy(args) ? ", B copied" : "");
        return sgemm::describe_warp_tiles(BM, BN, BK, WM, WN, TM, TN, pipeline, true,
                                          sgemm::rows_are_16b_aligned(args.C, args.ldc) && args.N % 4 == 0);
    }

    // The staged copies use ld = M (N) rounded up to 4 as an int.
    static std::string can_implement(const sgemm::GemmArgs& a) {
        if (round_up4(a.M) > INT_MAX || round_up4(a.N) > INT_MAX) return "M, N at most 2^31 - 4 (staged copies)";
        return sgemm::fits_int_tiles<BM, BN, BK, true>(a);
    }

    // Workspace: a recording Trace's timeline, A^T, then B's aligned copy if needed.
    static std::size_t workspace_bytes(const sgemm::GemmArgs& a) {
        return Trace::workspace_bytes + a_t_bytes(a) +
            (b_needs_copy(a) ? align256(a.K * round_up4(a.N) * sizeof(float)) : 0);
    }
};

}  // namespace

// [doc:registration]
static const sgemm::Registration registration{
    Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 6, 8>{},
    {.number = 11,
     .name = "tma_warp_specialized",
     .idea =
         "a producer warp feeds a 6-stage ring with TMA, mbarriers replace __syncthreads; step 09's FFMA loop on A^T",
     .requirements = {.min_cc = 90, .needs_sm90a = true},
     .gemm_function = "sgemm_11_tma_warp_specialized",
     .sass = {.required = {"UTMALDG", "SYNCS"}, .absent = {"LDGSTS"}}}};
#ifdef SGEMM_TUNING
static const sgemm::Registration registration_timeline{
    Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 6, 8, sgemm::trace::RecordTrace>{},
    {.number = 1100,
     .name = "tma_warp_specialized_timeline",
     .idea = "step 11 with clock64() stamps per k-tile: producer and one thread per consumer warpgroup (timeline)"}};
#endif
