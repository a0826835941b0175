// Step 12: FP32 accuracy from TF32 tensor cores (3xTF32 on wgmma). Step 11's FFMA warps are
// replaced by two warpgroups issuing wgmma.mma_async: each instruction multiplies a 64 x 8
// tile of A by an 8 x 128 tile of B on the tensor cores, reading both from shared memory as
// step 11's producer left them there (TMA + mbarriers, unchanged). A TF32 product keeps only
// 11 significand bits of each operand, so every FP32 operand x is split into a TF32 "big" part
// and a TF32 "small" remainder, x = big + small + O(2^-22 |x|), and three products are summed:
// small*big + big*small + big*big (small*small, ~2^-22 of the result, is dropped). wgmma takes
// tf32 operands only K-major (rows of K), so B is transposed once: a split kernel writes
// A_big, A_small (M x K) and B^T_big, B^T_small (N x K) into the workspace before the GEMM.
// See docs/kernels/12_3xtf32_wgmma.md.
#include "common/check.h"
#include "common/hopper.cuh"
#include "common/registry.h"
#include "common/staging.cuh"
#include "common/tile.cuh"

#include <utility>

namespace {

// One wgmma.m64n128k8: a consumer warpgroup owns 64 rows of the block tile, all 128 columns.
constexpr int kWgM = 64, kWgN = 128, kWgK = 8;
// The split operands are K-major tiles with rows of BK = 16 floats (64 bytes), stored by TMA with
// its 64-byte swizzle: 16-byte chunks of row r are XORed with (r / 2) % 4, the pattern wgmma's
// "64B swizzle" descriptor mode reads, so that the 8 rows of a core matrix hit different banks.
constexpr int kSwizzleBytes = 64;

// Dynamic shared memory: STAGES x (A big + A small: 2 x BM x BK, B big + B small: 2 x BN x BK)
// floats (kProducts == 1: only the big halves), the mbarriers after them, and up to 1 KB to
// align the start to 1024 bytes (TMA's swizzled destinations repeat every 512 bytes).
constexpr int stage_floats(int BM, int BN, int BK, int kProducts) { return (kProducts == 3 ? 2 : 1) * BK * (BM + BN); }
constexpr int smem_bytes(int BM, int BN, int BK, int STAGES, int kProducts) {
    return 1024 + STAGES * stage_floats(BM, BN, BK, kProducts) * static_cast<int>(sizeof(float)) + 2 * STAGES * 8;
}

constexpr int kProducerThreads = 128;  // one warpgroup; one of its threads issues the copies
// As in step 11: the 4 sub-partitions each hold 2 consumer warps and 1 producer warp.
constexpr unsigned kProducerRegs = 40, kConsumerRegs = 232;

// The shared-memory matrix descriptor of a K-major, 64-byte-swizzled tile whose first row starts
// at `tile` (512-byte aligned, or advanced by a multiple of 32 bytes along K inside the row):
// start address, stride between 8-row core-matrix groups (8 x 64 bytes), swizzle mode 2 (64B).
// The leading-byte offset is unused for a swizzled K-major operand of one swizzle row (set to 1).
__device__ __forceinline__ std::uint64_t smem_descriptor(const float* tile) {
    const std::uint64_t addr = sgemm::smem_addr(tile);
    return ((addr & 0x3FFFF) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{8 * kSwizzleBytes >> 4} << 32) |
           (std::uint64_t{2} << 62);
}

// ---- the split: big = tf32(x), small = tf32(x - big), both stored as floats whose low 13
// significand bits are zero. x - big is exact in FP32 (big is x rounded to 11 bits).
// kRound rounds to nearest (cvt.rna); kTruncate drops the bits (the experiment that shows what
// that loses); kCopy leaves x as it is (an aligned copy of A for TMA, split later in the kernel).
enum class Tf32 { kCopy, kRound, kTruncate };
template <Tf32 kMode>
__device__ __forceinline__ float to_tf32(float x) {
    if constexpr (kMode == Tf32::kRound) {
        std::uint32_t r;
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
        return __uint_as_float(r);
    } else if constexpr (kMode == Tf32::kTruncate) {
        return __uint_as_float(__float_as_uint(x) & 0xFFFFE000u);
    } else {
        return x;
    }
}

// Template arguments: BM x BN x BK block tile, STAGES, GROUP_M (rasterization as in step 09),
// kProducts: 3 (3xTF32) or 1 (TF32 only: the experiment that shows why three), kPromote: k-tiles
// that the tensor cores accumulate before their partial sum is added (FADD, rounded to nearest)
// to the FP32 accumulator in registers; 0: never (the tensor cores accumulate all of K);
// kMode: how operands are split; kSplitA: A arrives unsplit and each consumer warpgroup splits its
// own rows in shared memory (false: A_big and A_small come from the split kernel, like B).
template <int BM, int BN, int BK, int STAGES, int GROUP_M, int kProducts, int kPromote, Tf32 kMode, bool kSplitA>
__global__ void __launch_bounds__((BM / kWgM) * 128 + kProducerThreads, 1)
    sgemm_12_3xtf32_wgmma(int M, int N, int K, float alpha, float beta, float* C, int ldc, bool c_vec2_ok,
                          const __grid_constant__ CUtensorMap a_big_map, const __grid_constant__ CUtensorMap a_small_map,
                          const __grid_constant__ CUtensorMap b_big_map,
                          const __grid_constant__ CUtensorMap b_small_map) {  // B^T: N rows of K
    constexpr int kConsumers = (BM / kWgM) * 128;
    constexpr int kSplit = kProducts == 3 ? 2 : 1;  // big (and small) copies of each operand
    // TMA's bytes per stage: all of it, less A_small when the consumers write that themselves.
    constexpr unsigned kStageBytes =
        (stage_floats(BM, BN, BK, kProducts) - (kSplitA && kProducts == 3 ? BM * BK : 0)) * sizeof(float);
    static_assert(kProducts == 3 || kProducts == 1, "3xTF32, or the 1xTF32 experiment");
    static_assert(BM % kWgM == 0 && BM / kWgM == 2, "two consumer warpgroups of 64 rows (the register split)");
    static_assert(BN == kWgN, "one wgmma spans the block tile's 128 columns");
    static_assert(kPromote >= 0, "kPromote k-tiles per partial sum (0: no promotion)");
    static_assert(BK * sizeof(float) == kSwizzleBytes, "a tile row of BK floats is one 64-byte swizzle row");
    static_assert(BK % kWgK == 0, "a k-tile is whole wgmma k-steps");
    static_assert(BM <= 256 && BN <= 256, "a TMA box is at most 256 rows");
    static_assert((BM * BK * sizeof(float)) % 1024 == 0, "every sub-tile starts 1024-byte aligned, as the swizzle needs");
    static_assert(STAGES >= 2, "at least one k-tile in flight while one is computed");

    extern __shared__ float4 smem_raw[];  // smem_bytes(...), opted into in launch()
    // Stage s: A_big[BM][BK], (A_small[BM][BK]), B_big[BN][BK], (B_small[BN][BK]).
    float* stages = reinterpret_cast<float*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) / 1024 * 1024);
    auto a_tile = [&](int s, int part) { return stages + s * stage_floats(BM, BN, BK, kProducts) + part * BM * BK; };
    auto b_tile = [&](int s, int part) {
        return stages + s * stage_floats(BM, BN, BK, kProducts) + kSplit * BM * BK + part * BN * BK;
    };
    auto full = reinterpret_cast<std::uint64_t*>(stages + STAGES * stage_floats(BM, BN, BK, kProducts));
    std::uint64_t* empty = full + STAGES;

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    // The tile of this block (step 09's rasterization), computed by each role after its setmaxnreg:
    // a value live across setmaxnreg would be spilled.
    auto tile_origin = [&] { return sgemm::rasterized_tile<BM, BN, GROUP_M>(M, N, blockIdx.x); };

    if (tid == 0) sgemm::init_stage_barriers(full, empty, STAGES, kConsumers);  // empty: every consumer thread arrives
    __syncthreads();

    if (warp >= kConsumers / 32) {
        // ---- producer warpgroup: step 11's, with two (four) boxes per k-tile.
        sgemm::setmaxnreg_dec<kProducerRegs>();
        if (tid == kConsumers) {
            const auto [block_row, block_col] = tile_origin();
            const int num_k_tiles = sgemm::ceil_div(K, BK);
            for (int kt = 0, s = 0, round = 0; kt < num_k_tiles; ++kt) {
                if (round > 0) sgemm::mbarrier_wait(&empty[s], (round - 1) & 1);
                sgemm::mbarrier_arrive_expect_tx(&full[s], kStageBytes);
                sgemm::tma_load_2d(a_tile(s, 0), &a_big_map, &full[s], kt * BK, block_row);
                sgemm::tma_load_2d(b_tile(s, 0), &b_big_map, &full[s], kt * BK, block_col);
                if constexpr (kProducts == 3) {
                    if constexpr (!kSplitA) sgemm::tma_load_2d(a_tile(s, 1), &a_small_map, &full[s], kt * BK, block_row);
                    sgemm::tma_load_2d(b_tile(s, 1), &b_small_map, &full[s], kt * BK, block_col);
                }
                if (++s == STAGES) s = 0, ++round;
            }
        }
        return;
    }

    // ---- consumer warpgroups: warpgroup g computes rows 64 g .. 64 g + 63 of the block tile.
    sgemm::setmaxnreg_inc<kConsumerRegs>();
    const auto [block_row, block_col] = tile_origin();
    const int num_k_tiles = sgemm::ceil_div(K, BK);
    const int wg = warp / 4;
    // The tensor cores add each product into D truncating, not rounding: over all of K that bias
    // grows with K (2.9e-5 at K = 4096 measured, 25x cuBLAS's error). So they accumulate only
    // kPromote k-tiles into `part`, which is then added to `acc` with FADD (round to nearest).
    constexpr int kRegs = kWgM * kWgN / 128;  // 64 accumulators per thread, in wgmma's fragment order
    float acc[kRegs] = {};
    float part[kRegs];
    constexpr int kChunk = kPromote > 0 ? kPromote : 1;  // k-tiles per partial sum

    int pending = -1;  // a stage whose wgmma may still be reading it: released one k-tile later
    for (int kt = 0, s = 0, phase = 0; kt < num_k_tiles; ++kt) {
        sgemm::mbarrier_wait(&full[s], phase);
        if constexpr (kSplitA) {
            // Split this warpgroup's 64 rows of A in place: big overwrites x, small goes to the
            // A_small tile at the same offset (both tiles carry the same swizzle, so an offset is
            // the same element in each). 2 float4 per thread per k-tile.
            auto x4 = reinterpret_cast<float4*>(a_tile(s, 0) + wg * kWgM * BK);
            auto small4 = reinterpret_cast<float4*>(a_tile(s, 1) + wg * kWgM * BK);
#pragma unroll
            for (int i = tid % 128; i < kWgM * BK / 4; i += 128) {
                const float4 x = x4[i];
                const float4 hi = make_float4(to_tf32<kMode>(x.x), to_tf32<kMode>(x.y), to_tf32<kMode>(x.z),
                                              to_tf32<kMode>(x.w));
                x4[i] = hi;
                if constexpr (kProducts == 3)
                    small4[i] = make_float4(to_tf32<kMode>(x.x - hi.x), to_tf32<kMode>(x.y - hi.y),
                                            to_tf32<kMode>(x.z - hi.z), to_tf32<kMode>(x.w - hi.w));
            }
            sgemm::fence_proxy_async_shared();                // st.shared -> visible to wgmma
            sgemm::named_barrier_sync(1 + wg, 128);          // ... from all 4 warps of the warpgroup
        }
        sgemm::wgmma_fence();
        // The first product of a chunk overwrites `part` (scale-d = 0) instead of adding to it.
        int accumulate = kPromote == 0 || kt % kChunk != 0;
#pragma unroll
        for (int kk = 0; kk < BK; kk += kWgK) {
            // Descriptors of this warpgroup's 64 rows of A and all BN rows of B^T, kk floats in.
            const std::uint64_t a_big = smem_descriptor(a_tile(s, 0) + wg * kWgM * BK + kk);
            const std::uint64_t b_big = smem_descriptor(b_tile(s, 0) + kk);
            float (&d)[kRegs] = kPromote == 0 ? acc : part;
            if constexpr (kProducts == 3) {
                // The two correction terms first: they are ~2^-11 of big*big, and adding them to
                // the accumulator before big*big keeps more of their bits.
                const std::uint64_t a_small = smem_descriptor(a_tile(s, 1) + wg * kWgM * BK + kk);
                const std::uint64_t b_small = smem_descriptor(b_tile(s, 1) + kk);
                sgemm::wgmma_m64n128k8_tf32(d, a_small, b_big, accumulate);
                sgemm::wgmma_m64n128k8_tf32(d, a_big, b_small, 1);
                accumulate = 1;
            }
            sgemm::wgmma_m64n128k8_tf32(d, a_big, b_big, accumulate);
            accumulate = 1;
        }
        sgemm::wgmma_commit_group();
        if (kPromote != 0 && (kt % kChunk == kChunk - 1 || kt == num_k_tiles - 1)) {
            // The chunk is complete: wait for it (its stages are then read, too) and add it up.
            sgemm::wgmma_wait_group<0>();
            if (pending >= 0) sgemm::mbarrier_arrive(&empty[pending]);
            sgemm::mbarrier_arrive(&empty[s]);
            pending = -1;
#pragma unroll
            for (int i = 0; i < kRegs; ++i) acc[i] += part[i];
        } else {
            // Keep this k-tile's group running and wait for the previous one: its stage has been
            // read by the tensor cores and goes back to the producer.
            sgemm::wgmma_wait_group<1>();
            if (pending >= 0) sgemm::mbarrier_arrive(&empty[pending]);
            pending = s;
        }
        if (++s == STAGES) s = 0, phase ^= 1;
    }
    sgemm::wgmma_wait_group<0>();

    // ---- epilogue: thread t of the warpgroup holds rows r and r + 8, r = 16 (t / 32) + (t % 32) / 4,
    // columns 8 j + 2 (t % 4) + {0, 1} for j = 0 .. 15 (wgmma's accumulator layout).
    const int t = tid % 128;
    const int row = block_row + wg * kWgM + 16 * (t / 32) + (t % 32) / 4;
#pragma unroll
    for (int j = 0; j < kWgN / 8; ++j) {
        const int col = block_col + 8 * j + 2 * (t % 4);
        sgemm::store_c2(C, ldc, row, col, M, N, make_float2(acc[4 * j], acc[4 * j + 1]), alpha, beta, c_vec2_ok);
        sgemm::store_c2(C, ldc, row + 8, col, M, N, make_float2(acc[4 * j + 2], acc[4 * j + 3]), alpha, beta,
                        c_vec2_ok);
    }
}

// src rows x cols (ld_src) -> big, small: the same (kTranspose = false) or transposed, pitch ld_dst
// (a multiple of 4: TMA's 16-byte row pitch). small == nullptr: big only.
template <bool kTranspose, Tf32 kMode>
__global__ void __launch_bounds__(sgemm::kStageTile * sgemm::kStageRows)
    sgemm_12_3xtf32_wgmma_split(int rows, int cols, const float* src, int ld_src, float* big, float* small,
                                int ld_dst) {
    sgemm::stage_tiles<kTranspose>(rows, cols, src, ld_src, [&](int row, int col, float x) {
        const float hi = to_tf32<kMode>(x);
        const size_t at = static_cast<size_t>(row) * ld_dst + col;
        big[at] = hi;
        if (small) small[at] = to_tf32<kMode>(x - hi);
    });
}

// ---- host side

using sgemm::align256;
using sgemm::round_up4;

// Workspace, each row K floats padded to 4: B^T_big, B^T_small (N rows), then A_big, A_small
// (M rows) when the split kernel splits A too; when the kernel splits A itself, only a copy of A
// with 16-byte aligned rows, and only if A's rows are not (TMA reads A directly otherwise).
std::size_t part_bytes(const sgemm::GemmArgs& a, int rows) {
    return align256(static_cast<std::size_t>(rows) * round_up4(a.K) * sizeof(float));
}
bool a_needs_copy(const sgemm::GemmArgs& a) { return !sgemm::rows_are_16b_aligned(a.A, a.lda); }
template <int kProducts, bool kSplitA>
std::size_t workspace_bytes(const sgemm::GemmArgs& a) {
    const int parts = kProducts == 3 ? 2 : 1;
    const std::size_t a_bytes = kSplitA ? (a_needs_copy(a) ? part_bytes(a, a.M) : 0) : parts * part_bytes(a, a.M);
    return parts * part_bytes(a, a.N) + a_bytes;
}

template <bool kTranspose, Tf32 kMode>
void split(int rows, int cols, const float* src, int ld_src, float* big, float* small, int ld_dst,
           cudaStream_t stream) {
    sgemm::launch_checked(sgemm_12_3xtf32_wgmma_split<kTranspose, kMode>, sgemm::stage_grid(rows, cols),
                          dim3(sgemm::kStageTile, sgemm::kStageRows), 0, stream, rows, cols, src, ld_src, big, small,
                          ld_dst);
}

template <int BM, int BN, int BK, int STAGES, int GROUP_M, int kProducts, int kPromote, Tf32 kMode, bool kSplitA>
void launch(const sgemm::GemmArgs& args, void* workspace, cudaStream_t stream) {
    const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc] = args;
    auto* kernel = sgemm_12_3xtf32_wgmma<BM, BN, BK, STAGES, GROUP_M, kProducts, kPromote, kMode, kSplitA>;
    constexpr int smem = smem_bytes(BM, BN, BK, STAGES, kProducts);
    static const cudaError_t opt_in = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    sgemm::check(opt_in);

    char* ws = static_cast<char*>(workspace);
    const auto take = [&](std::size_t bytes) { return reinterpret_cast<float*>(std::exchange(ws, ws + bytes)); };
    const long long ld = round_up4(K);
    float* b_big = take(part_bytes(args, N));
    float* b_small = kProducts == 3 ? take(part_bytes(args, N)) : nullptr;
    split<true, kMode>(K, N, B, ldb, b_big, b_small, static_cast<int>(ld), stream);
    const float* a_big = A;  // kSplitA with aligned rows: TMA reads A as it is
    const float* a_small = nullptr;
    long long a_ld = lda;
    if (!kSplitA || a_needs_copy(args)) {
        float* big = take(part_bytes(args, M));
        float* small = !kSplitA && kProducts == 3 ? take(part_bytes(args, M)) : nullptr;
        if (kSplitA)
            split<false, Tf32::kCopy>(M, K, A, lda, big, nullptr, static_cast<int>(ld), stream);
        else
            split<false, kMode>(M, K, A, lda, big, small, static_cast<int>(ld), stream);
        a_big = big, a_small = small, a_ld = ld;
    }

    auto map = [&](const float* p, int rows, long long pitch, int box_rows) {
        return sgemm::make_tensor_map_2d(p ? p : b_big, rows, K, p ? pitch : ld, box_rows, BK, CU_TENSOR_MAP_SWIZZLE_64B);
    };
    const CUtensorMap a_big_map = map(a_big, M, a_ld, BM), a_small_map = map(a_small, M, ld, BM);
    const CUtensorMap b_big_map = map(b_big, N, ld, BN), b_small_map = map(b_small, N, ld, BN);
    const bool c_vec2_ok = reinterpret_cast<std::uintptr_t>(C) % 8 == 0 && ldc % 2 == 0;
    const dim3 block((BM / kWgM) * 128 + kProducerThreads);
    const dim3 grid(sgemm::tile_count(M, N, BM, BN));  // 1-D: rasterized in the kernel
    sgemm::launch_checked(kernel, grid, block, smem, stream, M, N, K, alpha, beta, C, ldc, c_vec2_ok, a_big_map,
                          a_small_map, b_big_map, b_small_map);
}

template <int BM, int BN, int BK, int STAGES, int GROUP_M, int kProducts, int kPromote, Tf32 kMode, bool kSplitA>
std::string describe(const sgemm::GemmArgs& args) {
    const char* a_split = kSplitA ? (a_needs_copy(args) ? "A copied, split in smem" : "A split in smem")
                                  : "A split in a pre-pass";
    return std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + " tile, 2 warpgroups of wgmma " +
           "m64n128k8, " + std::to_string(kProducts) + "xTF32 (" +
           (kMode == Tf32::kRound ? "rounded" : "truncated") + " split, " + a_split + "), " +
           (kPromote ? "FADD every " + std::to_string(kPromote * BK) + " k" : std::string("no promotion")) + ", " +
           std::to_string(STAGES) + " TMA stages, group " + std::to_string(GROUP_M);
}

// The split copies' pitch K rounded up to 4 is an int.
template <int BM, int BN, int BK>
std::string can_implement(const sgemm::GemmArgs& a) {
    if (round_up4(a.K) > INT_MAX) return "K at most 2^31 - 4 (split copies)";
    return sgemm::fits_int_tiles<BM, BN, BK, true>(a);
}

}  // namespace

static const sgemm::Registration registration{{.number = 12, .name = "3xtf32_wgmma", .idea = "FP32 from TF32 tensor cores: operands split into big + small, 3 wgmma products per k-step, fed by step 11's TMA producer", .launch = launch<128, 128, 16, 4, 8, 3, 2, Tf32::kRound, false>, .describe = describe<128, 128, 16, 4, 8, 3, 2, Tf32::kRound, false>, .can_implement = can_implement<128, 128, 16>, .workspace_bytes = workspace_bytes<3, false>, .requirements = {.min_cc = 90, .needs_sm90a = true}, .precision = sgemm::Precision::kFp32ViaTensorCores}};
#ifdef SGEMM_TUNING
static const sgemm::Registration registration_1200{{.number = 1200, .name = "3xtf32_wgmma_1xtf32", .idea = "step 12 with one product (big * big): TF32 speed and TF32 error", .launch = launch<128, 128, 16, 4, 8, 1, 2, Tf32::kRound, false>, .describe = describe<128, 128, 16, 4, 8, 1, 2, Tf32::kRound, false>, .can_implement = can_implement<128, 128, 16>, .workspace_bytes = workspace_bytes<1, false>, .requirements = {.min_cc = 90, .needs_sm90a = true}, .precision = sgemm::Precision::kTf32}};
static const sgemm::Registration registration_1201{{.number = 1201, .name = "3xtf32_wgmma_truncated_split", .idea = "step 12 with the split truncated instead of rounded", .launch = launch<128, 128, 16, 4, 8, 3, 2, Tf32::kTruncate, false>, .describe = describe<128, 128, 16, 4, 8, 3, 2, Tf32::kTruncate, false>, .can_implement = can_implement<128, 128, 16>, .workspace_bytes = workspace_bytes<3, false>, .requirements = {.min_cc = 90, .needs_sm90a = true}, .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1202{{.number = 1202, .name = "3xtf32_wgmma_no_promotion", .idea = "step 12 with the tensor cores accumulating all of K (no FADD of partial sums)", .launch = launch<128, 128, 16, 4, 8, 3, 0, Tf32::kRound, false>, .describe = describe<128, 128, 16, 4, 8, 3, 0, Tf32::kRound, false>, .can_implement = can_implement<128, 128, 16>, .workspace_bytes = workspace_bytes<3, false>, .requirements = {.min_cc = 90, .needs_sm90a = true}, .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1203{{.number = 1203, .name = "3xtf32_wgmma_promote16", .idea = "step 12 adding the partial sums every 16 k instead of 32", .launch = launch<128, 128, 16, 4, 8, 3, 1, Tf32::kRound, false>, .describe = describe<128, 128, 16, 4, 8, 3, 1, Tf32::kRound, false>, .can_implement = can_implement<128, 128, 16>, .workspace_bytes = workspace_bytes<3, false>, .requirements = {.min_cc = 90, .needs_sm90a = true}, .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1204{{.number = 1204, .name = "3xtf32_wgmma_promote64", .idea = "step 12 adding the partial sums every 64 k", .launch = launch<128, 128, 16, 4, 8, 3, 4, Tf32::kRound, false>, .describe = describe<128, 128, 16, 4, 8, 3, 4, Tf32::kRound, false>, .can_implement = can_implement<128, 128, 16>, .workspace_bytes = workspace_bytes<3, false>, .requirements = {.min_cc = 90, .needs_sm90a = true}, .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1205{{.number = 1205, .name = "3xtf32_wgmma_split_a_in_smem", .idea = "step 12 with A split by the consumer warpgroups in shared memory instead of the pre-pass", .launch = launch<128, 128, 16, 4, 8, 3, 2, Tf32::kRound, true>, .describe = describe<128, 128, 16, 4, 8, 3, 2, Tf32::kRound, true>, .can_implement = can_implement<128, 128, 16>, .workspace_bytes = workspace_bytes<3, true>, .requirements = {.min_cc = 90, .needs_sm90a = true}, .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1206{{.number = 1206, .name = "3xtf32_wgmma_s7", .idea = "step 12 with 7 stages", .launch = launch<128, 128, 16, 7, 8, 3, 2, Tf32::kRound, false>, .describe = describe<128, 128, 16, 7, 8, 3, 2, Tf32::kRound, false>, .can_implement = can_implement<128, 128, 16>, .workspace_bytes = workspace_bytes<3, false>, .requirements = {.min_cc = 90, .needs_sm90a = true}, .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1207{{.number = 1207, .name = "3xtf32_wgmma_s6", .idea = "step 12 with 6 stages", .launch = launch<128, 128, 16, 6, 8, 3, 2, Tf32::kRound, false>, .describe = describe<128, 128, 16, 6, 8, 3, 2, Tf32::kRound, false>, .can_implement = can_implement<128, 128, 16>, .workspace_bytes = workspace_bytes<3, false>, .requirements = {.min_cc = 90, .needs_sm90a = true}, .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1208{{.number = 1208, .name = "3xtf32_wgmma_s3", .idea = "step 12 with 3 stages", .launch = launch<128, 128, 16, 3, 8, 3, 2, Tf32::kRound, false>, .describe = describe<128, 128, 16, 3, 8, 3, 2, Tf32::kRound, false>, .can_implement = can_implement<128, 128, 16>, .workspace_bytes = workspace_bytes<3, false>, .requirements = {.min_cc = 90, .needs_sm90a = true}, .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1209{{.number = 1209, .name = "3xtf32_wgmma_s5", .idea = "step 12 with 5 stages", .launch = launch<128, 128, 16, 5, 8, 3, 2, Tf32::kRound, false>, .describe = describe<128, 128, 16, 5, 8, 3, 2, Tf32::kRound, false>, .can_implement = can_implement<128, 128, 16>, .workspace_bytes = workspace_bytes<3, false>, .requirements = {.min_cc = 90, .needs_sm90a = true}, .precision = sgemm::Precision::kFp32ViaTensorCores}};
#endif
