// Step 12: FP32 accuracy from TF32 tensor cores (3xTF32 on wgmma). Step 11's FFMA warps are
// replaced by two warpgroups issuing wgmma.mma_async: each instruction multiplies a 64 x 8
// tile of A by an 8 x 128 tile of B on the tensor cores, reading both from shared memory as
// step 11's producer left them there (TMA + mbarriers, unchanged). A TF32 product keeps only
// 11 significand bits of each operand, so every FP32 operand x is split into a TF32 "big" part
// and a TF32 "small" remainder, x = big + small + O(2^-22 |x|), and three products are summed:
// small*big + big*small + big*big (small*small, ~2^-22 of the result, is dropped). wgmma takes
// tf32 operands only K-major (rows of K), so B is transposed once: a split kernel writes
// A_big, A_small (M x K) and B^T_big, B^T_small (N x K) into the workspace before the GEMM. (The
// same pass serves every layout: it transposes what is not K-major already, A in TN and TT, B in NN
// and TN, and copies the rest.)
// Held to the FP32 bound on every input: a scan first finds each row of A's and each column of B's
// largest magnitude, and the split scales them by powers of two (exact) so that the small halves
// stay in FP32's normal range; the epilogue scales back. Below kMinTensorK the split's own error
// would exceed the FP32 bound, and an FFMA kernel computes the (store-bound) product instead; the
// same kernel takes over where rows or columns span too much for any scaling.
// Few tiles and deep K split K across blocks with a fixed-order reduction (deterministic). Where
// the pre-pass would cost more than it saves (few tiles, deep K, small problems), a fused kernel reads
// A and B as stored and splits them in shared memory; a k-tile holding an element outside the band
// is scaled into it there (or computed by FFMA where no power of two can), so nothing runs behind it.
// See docs/kernels/12_3xtf32_wgmma.md.
#include "common/check.h"
#include "common/gpu_rates.h"
#include "common/hopper.cuh"
#include "common/registry.h"
#include "common/staging.cuh"
#include "common/step_entries.h"
#include "common/tile.cuh"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <utility>

namespace {

// One wgmma.m64n128k8: a consumer warpgroup owns 64 rows of the block tile, all 128 columns.
constexpr int kWgM = 64, kWgN = 128, kWgK = 8;
// The split operands are K-major tiles with rows of BK = 16 floats (64 bytes), stored by TMA with
// its 64-byte swizzle: 16-byte chunks of row r are XORed with (r / 2) % 4, the pattern wgmma's
// "64B swizzle" descriptor mode reads, so that the 8 rows of a core matrix hit different banks.
constexpr int kSwizzleBytes = 64;

// Named barrier of the fused kernel's consumers where they rescale a marked k-tile together.
constexpr unsigned kRescaleBarrier = 4;
// The fused kernel's per-warp magnitudes of a marked k-tile (see rescale_k_tile): 8 warps x 4 words;
// then the block's split index, which the epilogue reads back (held in a register across the mainloop,
// ptxas would spill it).
constexpr int kRescaleWords = 8 * 4 + 1;
// Dynamic shared memory: STAGES x (A big + A small: 2 x BM x BK, B big + B small: 2 x BN x BK)
// floats (kProducts == 1: only the big halves), with kFused STAGES x the raw tiles of A and B
// (BK x (BM + BN) floats) that TMA copies from the caller's matrices, the mbarriers after them
// (full, empty, and with kFused ready, then a word per stage that marks a k-tile and the words of its
// rescaling), the scale exponents of the tile's BM rows and BN columns, and up to 1 KB to align the
// start to 1024 bytes (TMA's swizzled destinations repeat every 512 bytes).
constexpr int stage_floats(int BM, int BN, int BK, int kProducts) { return (kProducts == 3 ? 2 : 1) * BK * (BM + BN); }
constexpr int raw_floats(int BM, int BN, int BK) { return BK * (BM + BN); }
constexpr int smem_bytes(int BM, int BN, int BK, int STAGES, int kProducts, bool kFused = false) {
    return 1024 +
        STAGES * (stage_floats(BM, BN, BK, kProducts) + (kFused ? raw_floats(BM, BN, BK) : 0)) *
        static_cast<int>(sizeof(float)) +
        (kFused ? 3 : 2) * STAGES * 8 + (kFused ? (STAGES + kRescaleWords) * 4 : 0) +
        (BM + BN) * static_cast<int>(sizeof(int));
}
// The most dynamic shared memory a block may opt into on sm_90, the only target of these kernels
// (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KB on the H100 and H200).
constexpr int kSm90SmemPerBlock = 227 * 1024;
static_assert(smem_bytes(128, 128, 16, 7, 3) <= kSm90SmemPerBlock, "the pre-pass GEMM fits with up to 7 stages");
// Named barrier of the hand-over of the scale exponents (0 is __syncthreads'; 1 and 2 belong to the
// warpgroups of the variant that splits A in shared memory).
constexpr unsigned kExponentBarrier = 3;

// The TMA boxes of a k-tile, for the tensor maps (host) and the bytes each stage announces (device):
// BM (BN) rows of A (B^T), BK floats each; the small halves come in boxes of the same shape.
template <int BM, int BN, int BK>
struct Boxes {
    static constexpr sgemm::TmaBox a{BM, BK};
    static constexpr sgemm::TmaBox b{BN, BK};
};

constexpr int kProducerThreads = 128;  // one warpgroup; one of its threads issues the copies
// As in step 11: the 4 sub-partitions each hold 2 consumer warps and 1 producer warp.
constexpr unsigned kProducerRegs = 40, kConsumerRegs = 232;

// [doc:smem-descriptor]
// The shared-memory matrix descriptor of a K-major, 64-byte-swizzled tile whose first row starts
// at `tile` (512-byte aligned, or advanced by a multiple of 32 bytes along K inside the row):
// start address, stride between 8-row core-matrix groups (8 x 64 bytes), swizzle mode 2 (64B).
// The leading-byte offset is unused for a swizzled K-major operand of one swizzle row (set to 1).
__device__ __forceinline__ std::uint64_t smem_descriptor(const float* tile) {
    const std::uint64_t addr = sgemm::smem_addr(tile);
    return ((addr & 0x3FFFF) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{8 * kSwizzleBytes >> 4} << 32) |
        (std::uint64_t{2} << 62);
}

// [doc:to-tf32]
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

// [doc:exact-scaling]
// ---- exact power-of-two scaling. The scan records, per row of A and per column of B, the bits of
// the largest finite magnitude (non-negative floats order like their bits; NaN is skipped, Inf
// kept). Its exponent e is the scale: x * 2^-e puts the row's largest element in [1, 2), so every
// element within 2^104 of it keeps a normal small half (|small| >= 2^-22 |x|). A row of zeros or
// one holding Inf is not scaled (Inf must stay Inf: its product row is non-finite either way).
__device__ __forceinline__ int scale_exponent(const unsigned* max_bits, int i) {
    if (max_bits == nullptr) return 0;
    const unsigned bits = max_bits[i];
    return bits == 0 || bits >= 0x7f800000u ? 0 : sgemm::float_exponent(bits);
}
// [doc:band]
// Elements whose magnitudes lie in [kBandBottom, kBandTop) (or are 0) need no scaling: the products of two
// such elements lie in [2^-104, 2^126), so the small halves' products (2^-22 of them) stay normal
// and no product or short sum overflows. Real data lie there; the scan and the scaled split run
// only when some element does not.
constexpr float kBandBottom = 0x1p-52f, kBandTop = 0x1p63f;

// Scaling back and forth: x * 2^e, exact unless the result leaves the normal range (kernels/common/
// tile.cuh; the scale exponents' sums lie in [-298, 254], and below -252 every |x| < 2^100 gives 0
// either way).
using sgemm::mul_pow2;
// [/doc:exact-scaling]

// [doc:split-ahead]
// ---- the fused kernel (kFused): TMA copies the caller's A and B tiles as they are into raw
// stages; each consumer warpgroup splits its 64 rows of A and 64 of B^T's BN rows into the stage's
// big and small tiles, in the swizzled K-major layout wgmma reads (chunk c of row r at chunk
// c ^ (r / 2) % 4), while the tensor cores multiply the k-tile before it. A raw tile is K-major,
// rows of BK floats (kMnMajor false), or MN-major, BK rows of R floats (B in NN, A in TN and TT:
// transposed here; consecutive threads read consecutive rows, so neither form conflicts on banks). The
// layout is a template argument: straight-line code, whose loads the compiler issues together.
// `lo` and `hi` collect the smallest nonzero and the largest magnitude as bits, as the pre-pass does
// (|x| - 1 wraps zero to the top). Inside the band, rounding the bits half away from zero is
// cvt.rna.tf32's result in two integer instructions (the conversion also checks for Inf and NaN,
// which lie outside the band). A thread that finds one of its elements outside the band (or not
// finite) stores its elements again as they are (kAsStored: big = x, small = 0) and marks the k-tile,
// which the consumers then scale into the band together before its products (or, where no scaling
// can, compute by FFMA: ffma_k_tile).
constexpr int kSplitAhead = 1;  // k-tiles split ahead of the one the tensor cores multiply (2: no faster)
__device__ __forceinline__ float tf32_in_band(float x) {
    return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u);
}
__device__ __forceinline__ void track_band(float x, unsigned& lo, unsigned& hi) {
    const unsigned m = __float_as_uint(x) & 0x7fffffffu;
    lo = min(lo, m - 1u), hi = max(hi, m);
}
__device__ __forceinline__ bool outside_band(unsigned lo, unsigned hi) {
    return lo < __float_as_uint(kBandBottom) - 1u || hi >= __float_as_uint(kBandTop);
}
// Shared-memory accesses by address: the stage pointers are generic (computed through an integer to
// align them), and the compiler would emit generic loads and stores for them.
__device__ __forceinline__ float lds(std::uint32_t addr) {
    float x;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(x) : "r"(addr) : "memory");
    return x;
}
__device__ __forceinline__ float4 lds4(std::uint32_t addr) {
    float4 x;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(x.x), "=f"(x.y), "=f"(x.z), "=f"(x.w)
                 : "r"(addr)
                 : "memory");
    return x;
}
__device__ __forceinline__ unsigned lds_u32(std::uint32_t addr) {
    unsigned x;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(addr) : "memory");
    return x;
}
__device__ __forceinline__ void sts_u32(std::uint32_t addr, unsigned x) {
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(x) : "memory");
}
__device__ __forceinline__ void sts4(std::uint32_t addr, float4 x) {
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "f"(x.x), "f"(x.y), "f"(x.z), "f"(x.w)
                 : "memory");
}
// The byte offset of chunk c (4 floats) of row r in a swizzled K-major tile (see kSwizzleBytes).
template <int BK>
__device__ __forceinline__ std::uint32_t swizzled_at(int r, int c) {
    return 4 * (r * BK + 4 * (c ^ ((r >> 1) & 3)));
}
template <int BK, Tf32 kMode, bool kMnMajor, bool kAsStored = false>
__device__ __forceinline__ void split_raw_rows(const float* raw, int R, int row0, float* big, float* small, int t,
                                               unsigned& lo, unsigned& hi) {
    // kRound: cvt.rna's result wherever it matters (outside the band the elements are stored again as they are).
    const auto tf32 = [](float v) {
        return kAsStored ? v : kMode == Tf32::kRound ? tf32_in_band(v) : to_tf32<kMode>(v);
    };
    static_assert(BK * sizeof(float) == kSwizzleBytes, "a row is one 64-byte swizzle row of 4 chunks");
    constexpr int kChunks = BK / 4;
    const std::uint32_t src = sgemm::smem_addr(raw), hi_at = sgemm::smem_addr(big), lo_at = sgemm::smem_addr(small);
#pragma unroll
    for (int u = t; u < kWgM * kChunks; u += 128) {  // 64 rows x 4 chunks, 2 per thread
        int r, c;
        float4 x;
        if constexpr (kMnMajor) {
            r = row0 + u % kWgM, c = u / kWgM;
            const std::uint32_t at = src + 4 * (4 * c * R + r);
            x = make_float4(lds(at), lds(at + 4 * R), lds(at + 8 * R), lds(at + 12 * R));
        } else {
            r = row0 + u / kChunks, c = u % kChunks;
            x = lds4(src + 16 * (r * kChunks + c));
        }
        if constexpr (!kAsStored)
            track_band(x.x, lo, hi), track_band(x.y, lo, hi), track_band(x.z, lo, hi), track_band(x.w, lo, hi);
        const float4 b = make_float4(tf32(x.x), tf32(x.y), tf32(x.z), tf32(x.w));
        const std::uint32_t at = swizzled_at<BK>(r, c);
        sts4(hi_at + at, b);
        sts4(lo_at + at,
             kAsStored ? make_float4(0.0f, 0.0f, 0.0f, 0.0f)
                       : make_float4(tf32(x.x - b.x), tf32(x.y - b.y), tf32(x.z - b.z), tf32(x.w - b.w)));
    }
}
// A thread that found an element outside the band stores its elements of both operands as they are
// (big = x, small = 0). Not inlined: its registers stay out of the mainloop's.
template <int BM, int BN, int BK, Tf32 kMode, bool kAMn, bool kBMn>
__device__ __noinline__ void store_as_stored(const float* raw_a, const float* raw_b, float* a_big, float* a_small,
                                             float* b_big, float* b_small, int row0, int t) {
    unsigned lo = ~0u, hi = 0;  // unused: kAsStored tracks nothing
    split_raw_rows<BK, kMode, kAMn, true>(raw_a, BM, row0, a_big, a_small, t, lo, hi);
    split_raw_rows<BK, kMode, kBMn, true>(raw_b, BN, row0, b_big, b_small, t, lo, hi);
}
// [/doc:split-ahead]

// [doc:ffma-k-tile]
// A marked k-tile that no scaling brings into the band (Inf, NaN, or magnitudes spanning more than
// 2^52 in a slice): this warpgroup's 64 x 128 products by FFMA from the stage's tiles, k in order, a
// call per 2 x 2 of the accumulators' fragment (rows r and r + 8, r = 16 (t / 32) + (t % 32) / 4;
// columns n and n + 1, n = 8 j + 2 (t % 4)): a function of its own, whose registers do not add to
// the mainloop's. An operand is big + small: x itself where its thread stored x and 0, within
// 2^-22 |x| (exactly representable: 22 bits) where the split stands, as in the tensor cores' products.
// The stage's tiles as split_stage leaves them, from the stage's shared-memory address: A_big, A_small
// (BM x BK each), B^T_big, B^T_small (BN x BK each).
template <int BM, int BN, int BK>
struct StageTiles {
    std::uint32_t a_big, a_small, b_big, b_small;
    __device__ explicit StageTiles(std::uint32_t stage)
        : a_big(stage),
          a_small(stage + 4 * BM * BK),
          b_big(stage + 8 * BM * BK),
          b_small(stage + 8 * BM * BK + 4 * BN * BK) {}
};
template <int BM, int BN, int BK>
__device__ __noinline__ float4 ffma_2x2(std::uint32_t stage, int r, int n) {
    const StageTiles<BM, BN, BK> st(stage);
    const auto sum = [](float4 x, float4 y) { return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); };
    float4 d = make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // (r, n), (r, n + 1), (r + 8, n), (r + 8, n + 1)
    const auto dot = [](float x, float4 a, float4 b) {
        return fmaf(a.w, b.w, fmaf(a.z, b.z, fmaf(a.y, b.y, fmaf(a.x, b.x, x))));
    };
#pragma unroll
    for (int c = 0; c < BK / 4; ++c) {  // 4 k a chunk
        const auto at = [&](std::uint32_t tile, int row) { return lds4(tile + swizzled_at<BK>(row, c)); };
        const float4 a0 = sum(at(st.a_big, r), at(st.a_small, r)), a1 = sum(at(st.a_big, r + 8), at(st.a_small, r + 8));
        const float4 b0 = sum(at(st.b_big, n), at(st.b_small, n)), b1 = sum(at(st.b_big, n + 1), at(st.b_small, n + 1));
        d = make_float4(dot(d.x, a0, b0), dot(d.y, a0, b1), dot(d.z, a1, b0), dot(d.w, a1, b1));
    }
    return d;
}
template <int BM, int BN, int BK, int kRegs>
__device__ __forceinline__ void ffma_k_tile(float (&d)[kRegs], std::uint32_t stage, int row0, int t) {
    static_assert(kRegs == kWgN / 2, "2 rows x kWgN / 4 columns per thread");
    const int r = row0 + 16 * (t / 32) + (t % 32) / 4;
#pragma unroll
    for (int j = 0; j < kWgN / 8; ++j) {
        const float4 v = ffma_2x2<BM, BN, BK>(stage, r, 8 * j + 2 * (t % 4));
        d[4 * j] = v.x, d[4 * j + 1] = v.y, d[4 * j + 2] = v.z, d[4 * j + 3] = v.w;
    }
}
// [/doc:ffma-k-tile]

// [doc:rescale]
// A marked k-tile goes through the tensor cores after all where one power of two for this warpgroup's
// 64 rows of A and one for B^T's 128 rows bring every element into the band: each consumer thread
// reads its chunks back (x = big + small: x itself where it was stored as is), the warps' smallest
// nonzero and largest magnitudes meet in shared memory, and if neither slice holds Inf or NaN or
// spans more than 2^52 (1 / kBandBottom), every element is scaled by 2^-e, e its slice's largest
// exponent (exact: the results are normal), and split again in place. Returns e_A + e_B, which the
// products are scaled back by, or kByFfma. Called by all 256 consumer threads (threads 0 .. 255 of the
// block); `stats`: the shared-memory address of kRescaleWords words. Not inlined: its registers stay
// out of the mainloop's.
constexpr int kByFfma = INT_MIN;
constexpr int kBandSpan = 52;
static_assert(kBandBottom * 0x1p52f == 1.0f, "kBandSpan: the band's bottom below a largest element in [1, 2)");
template <int BM, int BN, int BK, Tf32 kMode>
__device__ __noinline__ int rescale_k_tile(std::uint32_t stage, std::uint32_t stats) {
    const StageTiles<BM, BN, BK> st(stage);
    const int t = threadIdx.x % 128, wg = threadIdx.x / 128, warp = threadIdx.x / 32;  // consumers: 0 .. 255
    const auto tf32 = [](float v) { return kMode == Tf32::kRound ? tf32_in_band(v) : to_tf32<kMode>(v); };
    constexpr int kChunks = BK / 4;
    // This thread's chunks, as split_raw_rows stored them: rows wg * 64 + u / kChunks, u = t, t + 128,
    // of A (i = 0, 1) and of B^T (i = 2, 3); read twice rather than held across the barrier (registers).
    const auto chunk = [&](int i, std::uint32_t& big, std::uint32_t& small) {
        const int u = t + 128 * (i % 2);
        const std::uint32_t at = swizzled_at<BK>(wg * kWgM + u / kChunks, u % kChunks);
        big = (i < 2 ? st.a_big : st.b_big) + at;
        small = (i < 2 ? st.a_small : st.b_small) + at;
        const float4 b = lds4(big), s = lds4(small);
        return make_float4(b.x + s.x, b.y + s.y, b.z + s.z, b.w + s.w);
    };
    unsigned lo[2] = {~0u, ~0u}, hi[2] = {0, 0};  // A, B
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        std::uint32_t big, small;
        const float4 x = chunk(i, big, small);
        track_band(x.x, lo[i / 2], hi[i / 2]), track_band(x.y, lo[i / 2], hi[i / 2]);
        track_band(x.z, lo[i / 2], hi[i / 2]), track_band(x.w, lo[i / 2], hi[i / 2]);
    }
#pragma unroll
    for (int i = 0; i < 2; ++i) lo[i] = __reduce_min_sync(~0u, lo[i]), hi[i] = __reduce_max_sync(~0u, hi[i]);
    if (t % 32 == 0)
#pragma unroll
        for (int i = 0; i < 2; ++i)
            sts_u32(stats + 16 * warp + 8 * i, lo[i]), sts_u32(stats + 16 * warp + 8 * i + 4, hi[i]);
    sgemm::named_barrier_sync(kRescaleBarrier, 256);
    // Each warpgroup's slice of A, all of B; |x| - 1 wrapped zero to the top of lo.
    unsigned a_lo[2] = {~0u, ~0u}, a_hi[2] = {0, 0}, b_lo = ~0u, b_hi = 0;
#pragma unroll
    for (int w = 0; w < 8; ++w) {
        a_lo[w / 4] = min(a_lo[w / 4], lds_u32(stats + 16 * w)),
                 a_hi[w / 4] = max(a_hi[w / 4], lds_u32(stats + 16 * w + 4));
        b_lo = min(b_lo, lds_u32(stats + 16 * w + 8)), b_hi = max(b_hi, lds_u32(stats + 16 * w + 12));
    }
    const auto fits = [](unsigned l, unsigned h) {
        return h == 0 || (h < 0x7f800000u && sgemm::float_exponent(h) - sgemm::float_exponent(l + 1) <= kBandSpan);
    };
    if (!(fits(a_lo[0], a_hi[0]) && fits(a_lo[1], a_hi[1]) && fits(b_lo, b_hi))) return kByFfma;
    const unsigned own_hi = wg == 0 ? a_hi[0] : a_hi[1];  // (a constant index keeps a_hi in registers)
    const int e[2] = {own_hi ? sgemm::float_exponent(own_hi) : 0, b_hi ? sgemm::float_exponent(b_hi) : 0};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        std::uint32_t big, small;
        const float4 x = chunk(i, big, small);
        const float4 y = make_float4(mul_pow2(x.x, -e[i / 2]), mul_pow2(x.y, -e[i / 2]), mul_pow2(x.z, -e[i / 2]),
                                     mul_pow2(x.w, -e[i / 2]));
        const float4 b = make_float4(tf32(y.x), tf32(y.y), tf32(y.z), tf32(y.w));
        sts4(big, b);
        sts4(small, make_float4(tf32(y.x - b.x), tf32(y.y - b.y), tf32(y.z - b.z), tf32(y.w - b.w)));
    }
    sgemm::fence_proxy_async_shared();  // st.shared -> visible to wgmma
    sgemm::named_barrier_sync(kRescaleBarrier, 256);  // both halves of B^T rewritten
    return e[0] + e[1];
}
// [/doc:rescale]

// Template arguments: BM x BN x BK block tile, STAGES, GROUP_M (rasterization as in step 09),
// kProducts: 3 (3xTF32) or 1 (TF32 only: the experiment that shows why three), kPromote: k-tiles
// that the tensor cores accumulate before their partial sum is added (FADD, rounded to nearest)
// to the FP32 accumulator in registers; 0: never (the tensor cores accumulate all of K);
// kMode: how operands are split; kSplitA: A arrives unsplit and each consumer warpgroup splits its
// own rows in shared memory (false: A_big and A_small come from the split kernel, like B); kFused:
// both arrive as the caller stores them (a_big_map, b_big_map; kAMn, kBMn: MN-major) and are split
// one k-tile ahead (see split_raw_rows); flag, row_max and col_max are then unused (nullptr).
template <int BM, int BN, int BK, int STAGES, int GROUP_M, int kProducts, int kPromote, Tf32 kMode, bool kSplitA,
          bool kFused = false, bool kAMn = false, bool kBMn = false>
__global__ void __launch_bounds__((BM / kWgM) * 128 + kProducerThreads, 1)
    sgemm_12_3xtf32_wgmma(int M, int N, int K, float alpha, float beta, float* C, int ldc, bool c_vec2_ok,
                          const unsigned* flag, const unsigned* row_max, const unsigned* col_max, int k_tiles_per_split,
                          float* partials, const __grid_constant__ CUtensorMap a_big_map,
                          const __grid_constant__ CUtensorMap a_small_map,
                          const __grid_constant__ CUtensorMap b_big_map,
                          const __grid_constant__ CUtensorMap b_small_map) {  // B^T: N rows of K
    constexpr int kConsumers = (BM / kWgM) * 128;
    constexpr int kSplit = kProducts == 3 ? 2 : 1;  // big (and small) copies of each operand
    // TMA's bytes per stage, from the boxes the host builds the tensor maps with: the big halves,
    // and the small ones unless the consumers write A_small themselves.
    using Box = Boxes<BM, BN, BK>;
    constexpr unsigned kStageBytes = Box::a.bytes() + Box::b.bytes() +
        (kProducts == 3 && !kFused ? (kSplitA ? 0u : Box::a.bytes()) + Box::b.bytes() : 0u);
    static_assert(kStageBytes <= stage_floats(BM, BN, BK, kProducts) * sizeof(float), "the boxes fit in a stage");
    static_assert(!kFused || kStageBytes == raw_floats(BM, BN, BK) * sizeof(float), "the raw boxes fill a raw stage");
    static_assert(!kFused || (kProducts == 3 && !kSplitA), "the fused kernel splits both operands, 3 products");
    static_assert(!kFused || kPromote > 0, "a marked k-tile's products go to `part` alone, then scaled to `acc`");
    static_assert(!kFused || STAGES >= kSplitAhead + 2,
                  "k-tile kt + kSplitAhead is split into the stage of k-tile kt + kSplitAhead - STAGES, whose wgmma "
                  "group must be done (at most k-tiles kt and kt - 1 are running)");
    static_assert(kProducts == 3 || kProducts == 1, "3xTF32, or the 1xTF32 experiment");
    static_assert(BM % kWgM == 0 && BM / kWgM == 2, "two consumer warpgroups of 64 rows (the register split)");
    static_assert(BN == kWgN, "one wgmma spans the block tile's 128 columns");
    static_assert(kPromote >= 0, "kPromote k-tiles per partial sum (0: no promotion)");
    static_assert(BK * sizeof(float) == kSwizzleBytes, "a tile row of BK floats is one 64-byte swizzle row");
    static_assert(BK % kWgK == 0, "a k-tile is whole wgmma k-steps");
    static_assert(BM <= 256 && BN <= 256, "a TMA box is at most 256 rows");
    static_assert((BM * BK * sizeof(float)) % 1024 == 0,
                  "every sub-tile starts 1024-byte aligned, as the swizzle needs");
    static_assert(STAGES >= 2, "at least one k-tile in flight while one is computed");

    extern __shared__ float4 smem_raw[];  // smem_bytes(...), opted into in launch()
    // Stage s: A_big[BM][BK], (A_small[BM][BK]), B_big[BN][BK], (B_small[BN][BK]).
    float* stages = reinterpret_cast<float*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) / 1024 * 1024);
    auto a_tile = [&](int s, int part) { return stages + s * stage_floats(BM, BN, BK, kProducts) + part * BM * BK; };
    auto b_tile = [&](int s, int part) {
        return stages + s * stage_floats(BM, BN, BK, kProducts) + kSplit * BM * BK + part * BN * BK;
    };
    // kFused: raw stage s: A as stored (BM x BK or BK x BM), then B (BN x BK or BK x BN).
    float* raws = stages + STAGES * stage_floats(BM, BN, BK, kProducts);
    auto raw_a = [&](int s) { return raws + s * raw_floats(BM, BN, BK); };
    auto raw_b = [&](int s) { return raws + s * raw_floats(BM, BN, BK) + BM * BK; };
    auto full = reinterpret_cast<std::uint64_t*>(raws + (kFused ? STAGES * raw_floats(BM, BN, BK) : 0));
    std::uint64_t* empty = full + STAGES;
    std::uint64_t* ready = empty + STAGES;  // kFused: stage s split by every consumer thread
    // kFused: k-tile j (from the split's first) in stage s is marked (an element outside the band) if
    // word s of `marks` holds j + 1 (no reset needed: a stage's next k-tile is split only after every
    // consumer has read its mark); `stats`: the words rescale_k_tile's warps meet in.
    const std::uint32_t marks = sgemm::smem_addr(ready + (kFused ? STAGES : 0));  // shared-memory addresses
    // kFused: a marked k-tile's smallest nonzero and largest magnitudes (bits) of A and B, per warp, and
    // the block's split index (see kRescaleWords).
    const std::uint32_t stats = marks + 4 * STAGES;
    int* exponents = reinterpret_cast<int*>(ready + (kFused ? STAGES : 0)) +
        (kFused ? STAGES + kRescaleWords : 0);  // BM rows', then BN columns'

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    // Split-K: block b computes tile b % tiles over k-tiles [split * k_tiles_per_split, ...) of
    // split b / tiles. The tile (step 09's rasterization) is computed by each role after its
    // setmaxnreg: a value live across setmaxnreg would be spilled.
    const int tiles = sgemm::ceil_div(M, BM) * sgemm::ceil_div(N, BN);
    const int split = blockIdx.x / tiles;
    auto tile_origin = [&] { return sgemm::rasterized_tile<BM, BN, GROUP_M>(M, N, blockIdx.x % tiles); };
    const int kt_begin = split * k_tiles_per_split;                                 // this split's first k-tile
    const int num_k_tiles = min(sgemm::ceil_div(K, BK) - kt_begin, k_tiles_per_split);  // and how many

    if (tid == 0) {
        if constexpr (kFused)
            for (int s = 0; s < STAGES; ++s) sgemm::mbarrier_init(&ready[s], kConsumers), sts_u32(marks + 4 * s, 0);
        if constexpr (kFused) sts_u32(stats + 4 * 32, split);
        sgemm::init_stage_barriers(full, empty, STAGES, kConsumers);  // empty: every consumer thread arrives
    }
    // Launched while the split still runs: the setup above overlaps it; the operands, the flag and
    // C are touched only after it has finished.
    sgemm::wait_prior_grid();
    sgemm::allow_next_grid();
    // Whether the pre-pass scaled the operands (some element lay outside the band): only then does
    // the epilogue scale back, with the exponents the producer's spare warps put in shared memory.
    // Read by each role after its setmaxnreg, like the tile.
    auto is_scaled = [&] {
        if constexpr (kFused)
            return false;
        else
            return partials == nullptr && *flag != 0;
    };
    __syncthreads();

    // [doc:producer]
    if (warp >= kConsumers / 32) {
        // ---- producer warpgroup: step 11's, with two (four) boxes per k-tile.
        sgemm::setmaxnreg_dec<kProducerRegs>();
        const auto [block_row, block_col] = tile_origin();
        if (tid == kConsumers) {
            for (int kt = kt_begin, s = 0, round = 0; kt < kt_begin + num_k_tiles; ++kt) {
                if (round > 0) sgemm::mbarrier_wait(&empty[s], (round - 1) & 1);
                sgemm::mbarrier_arrive_expect_tx(&full[s], kStageBytes);
                if constexpr (kFused) {  // the caller's tiles, MN-major ones at (column, k)
                    sgemm::tma_load_2d(raw_a(s), &a_big_map, &full[s], kAMn ? block_row : kt * BK,
                                       kAMn ? kt * BK : block_row);
                    sgemm::tma_load_2d(raw_b(s), &b_big_map, &full[s], kBMn ? block_col : kt * BK,
                                       kBMn ? kt * BK : block_col);
                    if (++s == STAGES) s = 0, ++round;
                    continue;
                }
                sgemm::tma_load_2d(a_tile(s, 0), &a_big_map, &full[s], kt * BK, block_row);
                sgemm::tma_load_2d(b_tile(s, 0), &b_big_map, &full[s], kt * BK, block_col);
                if constexpr (kProducts == 3) {
                    if constexpr (!kSplitA)
                        sgemm::tma_load_2d(a_tile(s, 1), &a_small_map, &full[s], kt * BK, block_row);
                    sgemm::tma_load_2d(b_tile(s, 1), &b_small_map, &full[s], kt * BK, block_col);
                }
                if (++s == STAGES) s = 0, ++round;
            }
            // The flag is read only after the copies are issued: its load must not delay them.
            if (is_scaled()) sgemm::named_barrier_arrive(kExponentBarrier, kConsumers + kProducerThreads);
        } else if (is_scaled()) {
            // The exponents of the tile's rows and columns, read by the producer's other three
            // warps (not by the copying thread's, where a branch would delay the copies) while the
            // mainloop runs, so that the epilogue finds them in shared memory.
            for (int i = tid - kConsumers - 32; tid >= kConsumers + 32 && i < BM + BN; i += kProducerThreads - 32) {
                const int row = block_row + i, col = block_col + i - BM;
                exponents[i] = i < BM ? (row < M ? scale_exponent(row_max, row) : 0)
                                      : (col < N ? scale_exponent(col_max, col) : 0);
            }
            sgemm::named_barrier_arrive(kExponentBarrier, kConsumers + kProducerThreads);
        }
        return;
    }

    // ---- consumer warpgroups: warpgroup g computes rows 64 g .. 64 g + 63 of the block tile.
    sgemm::setmaxnreg_inc<kConsumerRegs>();
    const auto [block_row, block_col] = tile_origin();
    const bool scaled = is_scaled();
    // Set when the FFMA kernel computes C instead (see the split): then nothing is stored. Read now,
    // used at the end: its load costs the tile nothing.
    const bool fallback = !kFused && flag[1] != 0;
    const int wg = warp / 4;
    // The tensor cores add each product into D truncating, not rounding: over all of K that bias
    // grows with K (2.9e-5 at K = 4096 measured, 25x cuBLAS's error). So they accumulate only
    // kPromote k-tiles into `part`, which is then added to `acc` with FADD (round to nearest).
    constexpr int kRegs = kWgM * kWgN / 128;  // 64 accumulators per thread, in wgmma's fragment order
    float acc[kRegs] = {};
    float part[kRegs];
    constexpr int kChunk = kPromote > 0 ? kPromote : 1;  // k-tiles per partial sum

    int pending = -1;  // a stage whose wgmma may still be reading it: released one k-tile later
    // kFused: split raw stage s (its copy's phase `ph`, k-tile j) into stage s, then release the raw
    // stage to the producer and tell both warpgroups (each reads all of B^T) that this thread's part
    // is there, and whether it marked the k-tile.
    auto split_stage = [&](int s, int ph, int j) {
        sgemm::mbarrier_wait(&full[s], ph);
        unsigned lo = ~0u, hi = 0;
        split_raw_rows<BK, kMode, kAMn>(raw_a(s), BM, wg * kWgM, a_tile(s, 0), a_tile(s, 1), tid % 128, lo, hi);
        split_raw_rows<BK, kMode, kBMn>(raw_b(s), BN, wg * kWgM, b_tile(s, 0), b_tile(s, 1), tid % 128, lo, hi);
        if (outside_band(lo, hi)) {
            store_as_stored<BM, BN, BK, kMode, kAMn, kBMn>(raw_a(s), raw_b(s), a_tile(s, 0), a_tile(s, 1), b_tile(s, 0),
                                                           b_tile(s, 1), wg * kWgM, tid % 128);
            sts_u32(marks + 4 * s, j + 1);
        }
        sgemm::fence_proxy_async_shared();  // st.shared -> visible to wgmma
        sgemm::mbarrier_arrive(&empty[s]);
        sgemm::mbarrier_arrive(&ready[s]);
    };
    if constexpr (kFused)
        for (int i = 0; i < kSplitAhead && i < num_k_tiles; ++i) split_stage(i, 0, i);
    // [doc:consumer]
    for (int kt = 0, s = 0, phase = 0; kt < num_k_tiles; ++kt) {  // k-tiles counted from the split's first
        sgemm::mbarrier_wait(kFused ? &ready[s] : &full[s], phase);
        // [doc:split-a-in-smem]
        if constexpr (kSplitA) {
            // Split this warpgroup's 64 rows of A in place: big overwrites x, small goes to the
            // A_small tile at the same offset (both tiles carry the same swizzle, so an offset is
            // the same element in each). 2 float4 per thread per k-tile.
            auto x4 = reinterpret_cast<float4*>(a_tile(s, 0) + wg * kWgM * BK);
            auto small4 = reinterpret_cast<float4*>(a_tile(s, 1) + wg * kWgM * BK);
#pragma unroll
            for (int i = tid % 128; i < kWgM * BK / 4; i += 128) {
                const float4 x = x4[i];
                const float4 hi =
                    make_float4(to_tf32<kMode>(x.x), to_tf32<kMode>(x.y), to_tf32<kMode>(x.z), to_tf32<kMode>(x.w));
                x4[i] = hi;
                if constexpr (kProducts == 3)
                    small4[i] = make_float4(to_tf32<kMode>(x.x - hi.x), to_tf32<kMode>(x.y - hi.y),
                                            to_tf32<kMode>(x.z - hi.z), to_tf32<kMode>(x.w - hi.w));
            }
            sgemm::fence_proxy_async_shared();  // st.shared -> visible to wgmma
            sgemm::named_barrier_sync(1 + wg, 128);  // ... from all 4 warps of the warpgroup
        }
        // [/doc:split-a-in-smem]
        // [doc:k-tile-products]
        // The first product of a chunk overwrites `part` (scale-d = 0) instead of adding to it.
        int accumulate = kPromote == 0 || kt % kChunk != 0;
        float(&d)[kRegs] = kPromote == 0 ? acc : part;
        const auto products = [&](int accumulate) {
            sgemm::wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK; kk += kWgK) {
                // Descriptors of this warpgroup's 64 rows of A and all BN rows of B^T, kk floats in.
                const std::uint64_t a_big = smem_descriptor(a_tile(s, 0) + wg * kWgM * BK + kk);
                const std::uint64_t b_big = smem_descriptor(b_tile(s, 0) + kk);
                if constexpr (kProducts == 3) {
                    // [doc:products]
                    // The two correction terms first: they are ~2^-11 of big*big, and adding them to
                    // the accumulator before big*big keeps more of their bits.
                    const std::uint64_t a_small = smem_descriptor(a_tile(s, 1) + wg * kWgM * BK + kk);
                    const std::uint64_t b_small = smem_descriptor(b_tile(s, 1) + kk);
                    sgemm::wgmma_m64n128k8_tf32(d, a_small, b_big, accumulate);
                    sgemm::wgmma_m64n128k8_tf32(d, a_big, b_small, 1);
                    accumulate = 1;
                }
                sgemm::wgmma_m64n128k8_tf32(d, a_big, b_big, accumulate);
                // [/doc:products]
                accumulate = 1;
            }
            sgemm::wgmma_commit_group();
        };
        // [/doc:k-tile-products]
        // [doc:marked-k-tile]
        // kFused, a marked k-tile: `part` takes it alone (what it held is added to `acc` first),
        // rescaled into the band (or by FFMA), scaled back into `acc` at once, and left zero for the
        // chunk's k-tiles after it to accumulate on.
        const bool marked = kFused && lds_u32(marks + 4 * s) == kt + 1;
        int unscale = 0;
        if (marked) {
            sgemm::wgmma_wait_group<0>();  // the k-tiles before it are done with `part`
            if (accumulate)  // the chunk's k-tiles before it (zeros after a marked k-tile)
#pragma unroll
                for (int i = 0; i < kRegs; ++i) acc[i] += part[i];
            accumulate = 0;
            unscale = rescale_k_tile<BM, BN, BK, kMode>(sgemm::smem_addr(a_tile(s, 0)), stats);
            if (unscale == kByFfma) ffma_k_tile<BM, BN, BK>(part, sgemm::smem_addr(a_tile(s, 0)), wg * kWgM, tid % 128);
        }
        if (!marked || unscale != kByFfma) products(accumulate);
        if (marked) {
            sgemm::wgmma_wait_group<0>();
            const int e = unscale == kByFfma ? 0 : max(unscale, -252);  // below -252 every product rounds to 0
#pragma unroll
            for (int i = 0; i < kRegs; ++i) acc[i] += mul_pow2(part[i], e), part[i] = 0.0f;
        }
        // [/doc:marked-k-tile]
        // kFused: a later k-tile's split while the tensor cores work on this one.
        if constexpr (kFused)
            if (kt + kSplitAhead < num_k_tiles) {
                const int ahead = s + kSplitAhead;
                split_stage(ahead % STAGES, ahead >= STAGES ? phase ^ 1 : phase, kt + kSplitAhead);
            }
        // [doc:promotion]
        if (kPromote != 0 && (kt % kChunk == kChunk - 1 || kt == num_k_tiles - 1)) {
            // The chunk is complete: wait for it (its stages are then read, too) and add it up.
            sgemm::wgmma_wait_group<0>();
            if (!kFused && pending >= 0) sgemm::mbarrier_arrive(&empty[pending]);
            if (!kFused) sgemm::mbarrier_arrive(&empty[s]);  // kFused: the raw stage went back after its split
            pending = -1;
#pragma unroll
            for (int i = 0; i < kRegs; ++i) acc[i] += part[i];
        } else {
            // Keep this k-tile's group running and wait for the previous one: its stage has been
            // read by the tensor cores and goes back to the producer.
            sgemm::wgmma_wait_group<1>();
            if (!kFused && pending >= 0) sgemm::mbarrier_arrive(&empty[pending]);
            pending = s;
        }
        // [/doc:promotion]
        if (++s == STAGES) s = 0, phase ^= 1;
    }
    // [/doc:consumer]
    sgemm::wgmma_wait_group<0>();

    // [doc:epilogue]
    // ---- epilogue: thread t of the warpgroup holds rows r and r + 8, r = 16 (t / 32) + (t % 32) / 4,
    // columns 8 j + 2 (t % 4) + {0, 1} for j = 0 .. 15 (wgmma's accumulator layout).
    const int t = tid % 128;
    const int row = block_row + wg * kWgM + 16 * (t / 32) + (t % 32) / 4;
    if (partials != nullptr) {
        if (fallback) return;
        // Split-K: this k-range's sums, still scaled, to the workspace (M x N per split); the
        // reduction adds the splits in order and finishes the epilogue.
        float* p = partials + static_cast<std::size_t>(kFused ? lds_u32(stats + 4 * 32) : split) * M * N;
#pragma unroll
        for (int j = 0; j < kWgN / 8; ++j) {
            const int col = block_col + 8 * j + 2 * (t % 4);
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = row + 8 * h;
                if (r >= M) continue;
                float* q = p + static_cast<std::size_t>(r) * N + col;
                if (col >= N) continue;
                // One 8-byte store per pair where it is aligned (every pair for an even N, every other
                // row for an odd one): half the store instructions, which the epilogue waits on.
                if (col + 1 < N && reinterpret_cast<std::uintptr_t>(q) % 8 == 0) {
                    *reinterpret_cast<float2*>(q) = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
                } else {
                    q[0] = acc[4 * j + 2 * h];
                    if (col + 1 < N) q[1] = acc[4 * j + 2 * h + 1];
                }
            }
        }
        return;
    }
    if (!scaled) {
        if (fallback) return;
#pragma unroll
        for (int j = 0; j < kWgN / 8; ++j) {
            const int col = block_col + 8 * j + 2 * (t % 4);
            sgemm::store_c2(C, ldc, row, col, M, N, make_float2(acc[4 * j], acc[4 * j + 1]), alpha, beta, c_vec2_ok);
            sgemm::store_c2(C, ldc, row + 8, col, M, N, make_float2(acc[4 * j + 2], acc[4 * j + 3]), alpha, beta,
                            c_vec2_ok);
        }
        return;
    }
    // Undo the scaling: 2^(e_row + e_col), exact unless the result itself is subnormal.
    sgemm::named_barrier_sync(kExponentBarrier, kConsumers + kProducerThreads);
    if (fallback) return;
    const int local_row = wg * kWgM + 16 * (t / 32) + (t % 32) / 4;
    const int e_row[2] = {exponents[local_row], exponents[local_row + 8]};
#pragma unroll
    for (int j = 0; j < kWgN / 8; ++j) {
        const int col = block_col + 8 * j + 2 * (t % 4);
        const int e0 = exponents[BM + 8 * j + 2 * (t % 4)], e1 = exponents[BM + 8 * j + 2 * (t % 4) + 1];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const float2 v = make_float2(mul_pow2(acc[4 * j + 2 * h], e_row[h] + e0),
                                         mul_pow2(acc[4 * j + 2 * h + 1], e_row[h] + e1));
            sgemm::store_c2(C, ldc, row + 8 * h, col, M, N, v, alpha, beta, c_vec2_ok);
        }
    }
}

// [doc:split]
// One operand's split: src rows x cols (ld_src) -> big, small: the same (kTranspose = false) or
// transposed, pitch ld_dst (pitch_floats below: whole 128-byte lines). small == nullptr: big only.
// max_bits: the scan's maxima of the destination rows (the scaled pass only).
struct SplitJob {
    int rows, cols;
    const float* src;
    int ld_src;
    const unsigned* max_bits;
    float *big, *small;
    int col_blocks;  // blocks per 32 rows of src, each walking every col_blocks-th 32 columns
    // Consecutive blocks take consecutive 32-row blocks of the same columns (a 2-D grid's order): a
    // transposed destination row is then written by neighbouring blocks.
    __host__ __device__ int row_blocks() const { return sgemm::ceil_div(rows, sgemm::kStageTile); }
    __host__ __device__ long long blocks() const { return static_cast<long long>(row_blocks()) * col_blocks; }
};

// Two passes split both operands, B's job in the grid's first blocks, A's in the rest:
// - first, unscaled (kScaled = false), setting *flag when a finite nonzero element lies outside
//   the band [kBandBottom, kBandTop);
// - then, only if *flag is set, again with each destination row r scaled by 2^-e(r), setting
//   flag[1] if a scaled element still lies below the band (a row or column spanning more than
//   2^52): then the tensor cores may lose a product that matters, and the FFMA kernel computes C
//   instead. Otherwise its blocks return at once.
template <bool kTranspose, Tf32 kMode, bool kScaled>
__device__ __forceinline__ void split_rows(const SplitJob& job, long long block, unsigned* flag, long long ld_dst) {
    // This thread's smallest nonzero and largest magnitude, as bits (non-negative floats order like
    // their bits): |x| - 1 wraps zero to the largest value, so zeros never count as small. Inf and
    // NaN count as large: they set the flag too (the scaled pass then leaves them as they are).
    unsigned lo = ~0u, hi = 0;
    bool below = false;
    sgemm::stage_tiles<kTranspose>(
        job.rows, job.cols, job.src, job.ld_src,
        [&](int row, int col, float x) {
            if constexpr (kScaled) {
                x = mul_pow2(x, -scale_exponent(job.max_bits, row));
                const float ax = fabsf(x);
                below |= ax != 0.0f && ax < kBandBottom;  // still outside the band: see flag[1]
            } else {
                const unsigned magnitude = __float_as_uint(x) & 0x7fffffffu;
                lo = min(lo, magnitude - 1);
                hi = max(hi, magnitude);
            }
            const float hi = to_tf32<kMode>(x);
            const size_t at = static_cast<size_t>(row) * ld_dst + col;
            job.big[at] = hi;
            if (job.small) job.small[at] = to_tf32<kMode>(x - hi);
        },
        static_cast<int>(block % job.row_blocks()), static_cast<int>(block / job.row_blocks()), job.col_blocks);
    if (!kScaled && (lo < __float_as_uint(kBandBottom) - 1 || hi >= __float_as_uint(kBandTop))) atomicOr(flag, 1u);
    if (kScaled && below) atomicOr(flag + 1, 1u);
}

// One launch for both operands: kTransB / kTransA say which source is stored N- or M-major (B in NN,
// A in TN and TT) and is transposed into K-major rows; kModeA may differ (kCopy: A split in smem).
// A block takes the jobs' blocks blockIdx.x, + gridDim.x, ...: the unscaled pass launches one block
// for each, the scaled one at most a wave (kSplitBlocksPerSm an SM), since it usually returns at once
// and thousands of blocks that do nothing cost microseconds (11.8 us for 8320 at 512 x 512 x 32768).
constexpr int kSplitBlocksPerSm = 6;
template <bool kTransB, bool kTransA, Tf32 kModeB, Tf32 kModeA, bool kScaled>
__global__ void __launch_bounds__(sgemm::kStageTile* sgemm::kStageRows, kSplitBlocksPerSm)
    sgemm_12_3xtf32_wgmma_split(SplitJob b, SplitJob a, unsigned* flag, long long ld_dst) {
    sgemm::wait_prior_grid();
    sgemm::allow_next_grid();
    const auto split_block = [&](long long block) {
        if (block < b.blocks())
            split_rows<kTransB, kModeB, kScaled>(b, block, flag, ld_dst);
        else
            split_rows<kTransA, kModeA, kScaled>(a, block - b.blocks(), flag, ld_dst);
    };
    if constexpr (kScaled) {
        if (*flag == 0) return;
        for (long long block = blockIdx.x; block < b.blocks() + a.blocks(); block += gridDim.x) split_block(block);
    } else {
        split_block(blockIdx.x);  // a loop here too would cost the pass spills at kSplitBlocksPerSm blocks an SM
    }
}
// [/doc:split]

// The maxima and the flags start at 0 on every launch (the workspace may hold anything): the chain's
// first kernel, an ordinary launch, so that everything before it in the stream has finished.
__global__ void __launch_bounds__(256) sgemm_12_3xtf32_wgmma_clear(unsigned* words, long long count) {
    sgemm::allow_next_grid();
    for (long long i = blockIdx.x * 256ll + threadIdx.x; i < count; i += gridDim.x * 256ll) words[i] = 0;
}

// [doc:scan]
// ---- the scan: the largest finite magnitude of every row of op(A) and every column of op(B), as
// bits (atomicMax on the bits of non-negative floats; the maxima start at 0). In storage each is a
// run of K elements along a row (A in NN, B in NT) or down a column (B in NN, A in TN): a ScanJob.
// One warp per work item, its loads all independent (one memory latency per item, not one per load;
// indices past the end are clamped to the last element instead of branched around, which would
// serialize the loads, and a repeated element does not change a maximum): kScanSpanA consecutive
// elements of a row, or kScanRowsB rows of 32 consecutive columns (a lane per column). Every load
// instruction of a warp reads one contiguous 128-byte line.
constexpr int kScanSpanA = 512, kScanRowsB = 16, kScanThreads = 256;
// At most one wave of blocks (the warps stride over the items): the scan usually finds the flag clear
// and returns at once, and 4224 blocks doing that cost 6.9 us at 512 x 512 x 32768 (H200).
constexpr long long kScanBlocksPerSm = 2048 / kScanThreads;
__device__ __forceinline__ float finite_abs(float x) { return x == x ? fabsf(x) : 0.0f; }  // NaN: 0

struct ScanJob {
    const float* x;
    int ld;
    int count;  // maxima: M of op(A), N of op(B)
    bool along_rows;  // the K elements of maximum i are x[i * ld + k] (else x[k * ld + i])
    unsigned* max;
    __host__ __device__ long long items(int K) const {
        return along_rows ? count * static_cast<long long>(sgemm::ceil_div(K, kScanSpanA))
                          : sgemm::ceil_div(count, 32) * static_cast<long long>(sgemm::ceil_div(K, kScanRowsB));
    }
};

__device__ __forceinline__ void scan_item(const ScanJob& job, int K, long long item, int lane) {
    float m = 0.0f;
    if (job.along_rows) {
        const long long pieces = sgemm::ceil_div(K, kScanSpanA);
        const int row = static_cast<int>(item / pieces);
        const int k0 = static_cast<int>(item % pieces) * kScanSpanA + lane;
        const float* a = job.x + static_cast<std::size_t>(row) * job.ld;
        float v[kScanSpanA / 32];  // all loads first: each one's own register, all in flight at once
        // 64-bit ends: a piece may end past 2^31 - 1.
        if (static_cast<long long>(k0) - lane + kScanSpanA <= K) {  // a whole piece: constant offsets
#pragma unroll
            for (int i = 0; i < kScanSpanA / 32; ++i) v[i] = a[k0 + 32 * i];
        } else {
#pragma unroll
            for (int i = 0; i < kScanSpanA / 32; ++i) v[i] = a[min(static_cast<long long>(k0) + 32 * i, K - 1ll)];
        }
#pragma unroll
        for (int i = 0; i < kScanSpanA / 32; ++i) m = fmaxf(m, finite_abs(v[i]));
        m = __uint_as_float(__reduce_max_sync(0xffffffffu, __float_as_uint(m)));
        if (lane == 0 && m != 0.0f) atomicMax(&job.max[row], __float_as_uint(m));
    } else {
        const long long pieces = sgemm::ceil_div(K, kScanRowsB);
        const int col = static_cast<int>(item / pieces) * 32 + lane;
        const int k0 = static_cast<int>(item % pieces) * kScanRowsB;
        if (col >= job.count) return;
        float v[kScanRowsB];
        const float* b = job.x + static_cast<std::size_t>(k0) * job.ld + col;
        if (static_cast<long long>(k0) + kScanRowsB <= K) {
#pragma unroll
            for (int i = 0; i < kScanRowsB; ++i) v[i] = b[static_cast<std::size_t>(i) * job.ld];
        } else {
#pragma unroll
            for (int i = 0; i < kScanRowsB; ++i) v[i] = b[static_cast<std::size_t>(min(i, K - 1 - k0)) * job.ld];
        }
#pragma unroll
        for (int i = 0; i < kScanRowsB; ++i) m = fmaxf(m, finite_abs(v[i]));
        if (m != 0.0f) atomicMax(&job.max[col], __float_as_uint(m));
    }
}

__global__ void __launch_bounds__(kScanThreads)
    sgemm_12_3xtf32_wgmma_scan(int K, ScanJob a, ScanJob b, const unsigned* flag) {
    sgemm::wait_prior_grid();
    sgemm::allow_next_grid();
    if (*flag == 0) return;  // every element in the band: no scaling (the maxima stay 0: exponent 0)
    const int lane = threadIdx.x % 32;
    const long long a_items = a.items(K), all = a_items + b.items(K);
    const long long warps = static_cast<long long>(gridDim.x) * (kScanThreads / 32);
    for (long long item = blockIdx.x * (kScanThreads / 32ll) + threadIdx.x / 32; item < all; item += warps)
        item < a_items ? scan_item(a, K, item, lane) : scan_item(b, K, item - a_items, lane);
}
// [/doc:scan]

// [doc:small-k]
// ---- K below kMinTensorK: plain FP32. Per product, the split keeps x to within ~2^-22 |x|, so
// the three products and the dropped small*small term can be off by up to 3 * 2^-22 |a b| = 12 u
// |a b|; the FP32 bound allows (K + 2) u per element of |A||B|. With a factor of 2 left for the
// tensor cores' truncating accumulation, the split needs K + 2 >= 24. At such a K the product is
// bound by the stores of C anyway (2K flops per 4 bytes written is below the FFMA ridge), so FFMA
// costs nothing: a block computes 32 x 128 outputs, a thread 4 rows x 4 consecutive columns
// (one 16-byte store per row, 512 contiguous bytes per warp), summing k in order like the FFMA steps.
constexpr int kMinTensorK = 22;
constexpr int kSmallBM = 32, kSmallBN = 128, kSmallThreads = 256;

__global__ void __launch_bounds__(kSmallThreads)
    sgemm_12_3xtf32_wgmma_small_k(int M, int N, int K, float alpha, float beta, const float* A, int lda, const float* B,
                                  int ldb, float* C, int ldc, bool c_vec_ok, const unsigned* only_if, bool a_t,
                                  bool b_t) {
    constexpr int kMaxK = kMinTensorK - 1;  // k per slice: one slice below kMinTensorK
    constexpr int kRowsPerThread = kSmallBM / (kSmallThreads / 32);
    static_assert(kSmallBN == 4 * 32, "a warp covers the tile's columns with one float4 per lane");
    sgemm::wait_prior_grid();  // the last of the tensor-core path's chain (a no-op when launched alone)
    if (only_if != nullptr && *only_if == 0) return;  // the fallback of the tensor-core path, not needed
    // The block's A (32 x k) and B (k x 128) slices, all loads of a slice in flight together, zero
    // outside the matrices. Below kMinTensorK one slice is all of K.
    __shared__ float As[kSmallBM][kMaxK];
    __shared__ __align__(16) float Bs[kMaxK][kSmallBN];
    // The block's corner of A, B and C, and how much of its tile lies inside them: every index
    // below is local (the tile's corner may lie within a tile of 2^31).
    const int tiles_n = sgemm::ceil_div(N, kSmallBN);
    const int block_row = blockIdx.x / tiles_n * kSmallBM, block_col = blockIdx.x % tiles_n * kSmallBN;
    const int rows = min(kSmallBM, M - block_row), cols = min(kSmallBN, N - block_col);
    // a_t, b_t: op(A) = A^T (A stored K x M), op(B) = B^T (B stored N x K).
    A += a_t ? block_row : static_cast<std::size_t>(block_row) * lda;
    B += b_t ? static_cast<std::size_t>(block_col) * ldb : block_col;
    C += static_cast<std::size_t>(block_row) * ldc + block_col;
    const int r0 = threadIdx.x / 32, c = 4 * (threadIdx.x % 32);
    float4 acc[kRowsPerThread] = {};
    for (long long k0 = 0; k0 < K; k0 += kMaxK) {
        const int kc = K - k0 < kMaxK ? static_cast<int>(K - k0) : kMaxK;
        // Consecutive threads read consecutive addresses in every layout: along k where it is contiguous.
        for (int i = threadIdx.x; i < kSmallBM * kc; i += kSmallThreads)
            if (a_t)
                As[i % kSmallBM][i / kSmallBM] =
                    sgemm::load_or_zero(A + k0 * lda, lda, i / kSmallBM, i % kSmallBM, kc, rows);
            else
                As[i / kc][i % kc] = sgemm::load_or_zero(A + k0, lda, i / kc, i % kc, rows, kc);
        for (int i = threadIdx.x; i < kc * kSmallBN; i += kSmallThreads)
            if (b_t)
                Bs[i % kc][i / kc] = sgemm::load_or_zero(B + k0, ldb, i / kc, i % kc, cols, kc);
            else
                Bs[i / kSmallBN][i % kSmallBN] =
                    sgemm::load_or_zero(B + k0 * ldb, ldb, i / kSmallBN, i % kSmallBN, kc, cols);
        __syncthreads();
        for (int k = 0; k < kc; ++k) {
            const float4 b = *reinterpret_cast<const float4*>(&Bs[k][c]);
#pragma unroll
            for (int i = 0; i < kRowsPerThread; ++i) {
                const float a = As[r0 + 8 * i][k];  // one address per warp: a broadcast
                acc[i].x = fmaf(a, b.x, acc[i].x);
                acc[i].y = fmaf(a, b.y, acc[i].y);
                acc[i].z = fmaf(a, b.z, acc[i].z);
                acc[i].w = fmaf(a, b.w, acc[i].w);
            }
        }
        __syncthreads();  // the slices are refilled
    }
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i)
        sgemm::store_c4(C, ldc, r0 + 8 * i, c, rows, cols, acc[i], alpha, beta, c_vec_ok);
}
// [/doc:small-k]

// [doc:reduction]
// ---- split-K's reduction: each element adds its splits' partial sums in split order (the same
// bits on every run), undoes the scaling and applies alpha and beta. The fused kernel's: flag,
// row_max and col_max nullptr (nothing scaled, no FFMA kernel behind it).
__global__ void __launch_bounds__(256)
    sgemm_12_3xtf32_wgmma_reduce(int M, int N, int splits, const float* partials, const unsigned* row_max,
                                 const unsigned* col_max, const unsigned* flag, float alpha, float beta, float* C,
                                 int ldc) {
    sgemm::wait_prior_grid();
    sgemm::allow_next_grid();
    if (flag != nullptr && flag[1] != 0) return;  // the FFMA kernel computes C
    const std::size_t mn = static_cast<std::size_t>(M) * N;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < mn;
         i += std::size_t(gridDim.x) * blockDim.x) {
        float sum = 0.0f;
        for (int s = 0; s < splits; ++s) sum += partials[s * mn + i];
        const int row = static_cast<int>(i / N), col = static_cast<int>(i % N);
        sgemm::store_c(C, ldc, row, col, M, N,
                       mul_pow2(sum, scale_exponent(row_max, row) + scale_exponent(col_max, col)), alpha, beta);
    }
}

// ---- host side

using sgemm::align256;

// [doc:model]
// Step 12's time on a shape, as its own plan and step 13's planner weigh it: its launches (the
// chain of clear, split, scan, scaled split, GEMM and the FFMA fallback's check, plus a reduction
// when K is split: one ordinary launch, the rest chained, kChainedLaunchSeconds each; the fused
// kernel alone, or with its reduction), the pre-pass
// (reads 4 and writes 8 bytes per element of A and B, at kSplitDramFraction of the DRAM peak: 0.59-0.72
// for the split kernel under ncu on an H100, less with the chain's small kernels around it), and the
// GEMM: waves of 128 x 128 tiles (one block per SM), each tile a fixed cost (the pipeline's fill and
// the epilogue, which one tile per block does not overlap with another tile's mainloop; twice as long
// when C's rows are not 8-byte aligned, sgemm::rows_are_8b_aligned) plus its k-tiles at the tensor cores' TF32
// rate / 3 products times the fraction the mainloop reaches (at the max clock: the GPU holds 1.71-1.84
// of its 1.98 GHz under this load, ncu); or the bytes it must move, if more. The four constants
// (6.5 and 12 us, 0.71, 0.55) are least-squares fits of measured time over random shape zoos of an
// H100 and an H200 together, checked on zoos drawn apart from them (scripts/fit_models;
// docs/kernels/appendix-13-details.md).
// Below kMinTensorK, the FFMA kernel's store-bound time: its stores reach about half the rate of a
// streaming kernel (41 % of the DRAM peak at 46341 x 46341 x 2 on an H200, where step 10's outer-product
// kernel reaches 85 %). Rates from the GPU at hand (gpu_at_hand in kernels/common/check.h, peaks from
// gpu_rates.h).
using sgemm::kChainedLaunchSeconds;
using sgemm::kLaunchSeconds;
constexpr double kTileSeconds = 6.5e-6, kUnpairedTileSeconds = 12e-6, kTensorFraction = 0.71;
constexpr double kSplitDramFraction = 0.55, kSmallKStoreFraction = 0.5;
// [doc:fused-cost]
// The fused kernel's k-tiles: its consumer warps split the next k-tile between issuing this one's wgmma
// and waiting for them, and the tensor pipe waits on that work (active 52.5 % of the cycles on an H200
// and on an H100, Nsight Compute, 512 x 512 x 32768), where the pre-pass GEMM's mainloop reaches
// kTensorFraction; its tile's fixed cost is smaller (no split copies to wait for). Against that it
// saves the pre-pass (12 bytes an element of A and B through DRAM) and the chain's other launches:
// small problems, few tiles over a deep K, skinny and short-K shapes. The two constants are a
// least-squares fit of measured time on the fused rows of two fresh zoos, an H100's and an H200's
// (scripts/fit_models --grid; docs/kernels/appendix-12-variants.md#the-fused-kernels-cost).
constexpr double kFusedTensorFraction = 0.44, kFusedTileSeconds = 4e-6;
// [/doc:fused-cost]
// [doc:fine-promotion]
// A block whose k-range is short promotes every k-tile (16 k) instead of every second: with few
// partial sums per block, the tensor cores' truncation inside each one is most of the error (H100,
// K = 33: 2.22x cuBLAS's error with 32 k, 1.19x with 16 k; 256 x 256 x 16384, positive inputs, 31
// k-tiles a block: 2.07x and 1.13x), and the wait for all of a warpgroup's wgmma before each FADD
// costs the k-tile kFinePromotionCost more time (4096^3: 1.16-1.17x the whole GEMM). Beyond
// kFinePromotionTiles k-tiles a block the FADDs into the accumulator dominate the error and 16 k buys
// nothing there (4096^3: 0.27x cuBLAS's error either way).
constexpr int kStepPromotion = 2;  // the step's k-tiles per partial sum (Step12 below)
constexpr int kFinePromotionTiles = 32;
constexpr double kFinePromotionCost = 0.16;
// k-tiles per partial sum for a kernel built with kPromote: the step's becomes 1 on a short k-range.
constexpr int promotion_tiles(int kPromote, int k_tiles_per_split) {
    return kPromote == kStepPromotion && k_tiles_per_split <= kFinePromotionTiles ? 1 : kPromote;
}
// [/doc:fine-promotion]
constexpr int kChainLaunches = 6;  // clear, split, scan, scaled split, GEMM, fallback check

struct Rates {
    int sms;
    double tensor;  // 3xTF32 FLOP/s of one SM at kTensorFraction
    double dram;  // DRAM bytes/s a streaming kernel reaches
    double split;  // DRAM bytes/s the pre-pass reaches
};
Rates rates_at_hand() {
    const sgemm::GpuAtHand& g = sgemm::gpu_at_hand();
    const double dram_peak = sgemm::dram_peak_bytes_per_s(g.mem_clock_hz, g.bus_bits);
    return {g.sms, sgemm::tf32_tensor_peak_flops(g.cc, g.sms, g.sm_clock_hz) / 3 / g.sms * kTensorFraction,
            dram_peak * sgemm::kStreamDramFraction, dram_peak * kSplitDramFraction};
}

// The GEMM with K split into `splits` ranges of `per_split` k-tiles, and the reduction if split;
// `promote_every_tile`: each k-tile kFinePromotionCost longer; `pairs`: the epilogue stores C two
// floats at a time, its rows 8-byte aligned (split-K tiles store their partial sums in pairs
// wherever N is even); `fused`: it reads A and B as stored (4 bytes an element, not the split
// copies' 8), its k-tiles reach kFusedTensorFraction of the tensor peak, not kTensorFraction, and its
// tile's fixed cost is kFusedTileSeconds where the pre-pass GEMM's is kTileSeconds.
double gemm_seconds(const sgemm::GemmArgs& a, int splits, int per_split, const Rates& r, bool pairs,
                    bool promote_every_tile = false, bool fused = false) {
    const double mk = double(a.M) * a.K, kn = double(a.K) * a.N, mn = double(a.M) * a.N;
    const double c_bytes = 4 * mn * (a.beta == 0.0f ? 1 : 2);
    const double waves = std::ceil(double(sgemm::tile_total(a.M, a.N, 128, 128)) * splits / r.sms);
    const double tile_seconds = 2.0 * 128 * 128 * 16 * per_split / r.tensor *
        (promote_every_tile ? 1 + kFinePromotionCost : 1) * (fused ? kTensorFraction / kFusedTensorFraction : 1);
    const double fixed = ((splits > 1 ? a.N % 2 == 0 : pairs) ? kTileSeconds : kUnpairedTileSeconds) *
        (fused ? kFusedTileSeconds / kTileSeconds : 1);
    const double gemm = std::max(waves * (fixed + tile_seconds), ((fused ? 4 : 8) * (mk + kn) + c_bytes) / r.dram);
    return gemm + (splits > 1 ? (8 * mn * splits + c_bytes) / r.dram + kChainedLaunchSeconds : 0);
}
// [/doc:model]

// [doc:plan]
// What launch() runs on a shape: FFMA for small K, else the tensor-core GEMM, with K split over
// `splits` blocks per tile when the tiles alone would leave SMs idle: as many as the model above
// says pay for their partial sums' extra bytes and reduction, all in one wave. The choice depends on
// the shape and beta alone, not on where C lies (the model takes C's rows 8-byte aligned where N is
// even, as with ldc = N), so that the workspace a shape needs is known without the pointers.
// The fused kernel replaces the pre-pass and its chain where the model says it is faster and TMA can
// read A and B as stored (rows 16-byte aligned; the pointers are checked at launch, the plan sees
// the leading dimensions): doc:fused-cost.
struct Plan {
    bool small_k = false;
    int splits = 1, k_tiles_per_split = 0;
    int sms = 0;  // the SMs of the device it was made for (the grids of the pre-pass and reduction)
    bool fused = false;  // the fused kernel (and its reduction where K is split), nothing else
};

// The whole of one path: launches (the chain's six, or the fused kernel alone; a reduction is in
// gemm_seconds), the pre-pass, the GEMM.
double path_seconds(const sgemm::GemmArgs& a, int splits, int per_split, const Rates& r, bool pairs, bool fused,
                    bool promote_every_tile = false) {
    const double launches = kLaunchSeconds + (fused ? 0 : kChainLaunches - 1) * kChainedLaunchSeconds;
    const double prepass = fused ? 0.0 : 12 * (double(a.M) * a.K + double(a.K) * a.N) / r.split;
    return launches + prepass + gemm_seconds(a, splits, per_split, r, pairs, promote_every_tile, fused);
}

template <int BM, int BN, int BK>
Plan plan(const sgemm::GemmArgs& a) {
    if (a.K < kMinTensorK) return {.small_k = true};
    const int k_tiles = sgemm::ceil_div(a.K, BK);
    const long long tiles = sgemm::tile_total(a.M, a.N, BM, BN);
    const Rates r = rates_at_hand();
    const bool fusable = a.lda % 4 == 0 && a.ldb % 4 == 0;
    Plan best{.small_k = false, .splits = 1, .k_tiles_per_split = k_tiles, .sms = r.sms};
    double best_seconds = path_seconds(a, 1, k_tiles, r, a.N % 2 == 0, false);
    const long long most = std::min<long long>(tiles < r.sms ? r.sms / tiles : 1, k_tiles);
    for (int s = 1; s <= most; ++s) {
        const int per_split = sgemm::ceil_div(k_tiles, s);
        if (sgemm::ceil_div(k_tiles, per_split) != s) continue;  // the same ranges as fewer splits
        for (const bool fused : {false, true}) {
            if ((fused && !fusable) || (s == 1 && !fused)) continue;  // s = 1 unfused: best's start
            const double seconds = path_seconds(a, s, per_split, r, a.N % 2 == 0, fused);
            if (seconds < best_seconds) {
                best = {.small_k = false, .splits = s, .k_tiles_per_split = per_split, .sms = r.sms, .fused = fused};
                best_seconds = seconds;
            }
        }
    }
    return best;
}
// Whether launch() runs the fused kernel: the plan's, and A and B start on 16-byte boundaries.
bool runs_fused(const sgemm::GemmArgs& a, const Plan& p) {
    return p.fused && reinterpret_cast<std::uintptr_t>(a.A) % 16 == 0 &&
        reinterpret_cast<std::uintptr_t>(a.B) % 16 == 0;
}
// [/doc:plan]

// [doc:pitch]
// The split copies' rows start on 128-byte lines (sgemm::line_pitch): TMA needs a pitch of 16 bytes,
// but with K floats of pitch 4K bytes (K = 1500: 6000 bytes) most 64-byte box rows straddle two lines
// and the GEMM reads twice the L2 sectors (H100, 3072 x 2048 x K: 367 us at K = 1500, 185 us at K = 1536).
long long pitch_floats(long long K) { return sgemm::line_pitch(K, sizeof(float)); }
// [/doc:pitch]

std::size_t part_bytes(const sgemm::GemmArgs& a, int rows) {  // rows of K floats, pitch_floats(K) apart
    return align256(static_cast<std::size_t>(rows) * pitch_floats(a.K) * sizeof(float));
}
std::size_t partial_bytes(const sgemm::GemmArgs& a, int splits) {
    return splits > 1 ? align256(static_cast<std::size_t>(splits) * a.M * a.N * sizeof(float)) : 0;
}

// The workspace, each piece 256-byte aligned: B^T_big, B^T_small (N rows), A_big, A_small (M rows;
// the variant that splits A in shared memory: A's scaled copy alone); with split-K the partial
// sums, splits x M x N; last the row maxima of A (M), the column maxima of B (N) and the band flag,
// zeroed by each launch. Pieces a configuration does not use are nullptr.
struct Workspace {
    float *b_big = nullptr, *b_small = nullptr, *a_big = nullptr, *a_small = nullptr, *partials = nullptr;
    unsigned *row_max = nullptr, *col_max = nullptr, *flag = nullptr;
    std::size_t bytes = 0, maxima_bytes = 0;  // the whole workspace; its tail of maxima and flag
};

// The pieces of a workspace at address `base`, for launch(); with base 0, only its size counts
// (workspace_bytes()): one layout for both.
template <int kProducts, bool kSplitA>
Workspace carve(const sgemm::GemmArgs& a, int splits, std::uintptr_t base) {
    std::uintptr_t end = base;
    const auto take = [&](std::size_t bytes) { return reinterpret_cast<float*>(std::exchange(end, end + bytes)); };
    Workspace w;
    w.b_big = take(part_bytes(a, a.N));
    if (kProducts == 3) w.b_small = take(part_bytes(a, a.N));
    w.a_big = take(part_bytes(a, a.M));
    if (kProducts == 3 && !kSplitA) w.a_small = take(part_bytes(a, a.M));
    if (splits > 1) w.partials = take(partial_bytes(a, splits));
    // The maxima and the flag last, where they leave the split copies' addresses as they would be alone.
    const std::uintptr_t maxima = end;
    w.row_max = reinterpret_cast<unsigned*>(take(align256(static_cast<std::size_t>(a.M) * sizeof(unsigned))));
    w.col_max = reinterpret_cast<unsigned*>(take(align256(static_cast<std::size_t>(a.N) * sizeof(unsigned))));
    w.flag = reinterpret_cast<unsigned*>(take(256));
    w.bytes = end - base;
    w.maxima_bytes = end - maxima;
    return w;
}

// Both operands' split in one launch (see the split kernel), chained after the kernel before it.
// B's source is transposed into K-major rows unless op(B) = B^T; A's only if op(A) = A^T.
template <Tf32 kModeB, Tf32 kModeA, bool kScaled>
void split(bool b_t, bool a_t, const sgemm::GemmArgs& args, const unsigned* row_max, const unsigned* col_max,
           unsigned* flag, const Workspace& w, long long ld_dst, int sms, cudaStream_t stream) {
    const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
    // Each job's own blocks: one per 32 x 32 tile (the scaled pass walks them with at most a wave of
    // blocks, which ends soonest when it finds its flag clear, the usual case).
    const auto job = [&](int rows, int cols, const float* src, int ld, const unsigned* max_bits, float* big,
                         float* small) {
        const dim3 grid = sgemm::stage_grid(rows, cols);
        return SplitJob{rows, cols, src, ld, max_bits, big, small, static_cast<int>(grid.y)};
    };
    const SplitJob b =
        b_t ? job(N, K, B, ldb, col_max, w.b_big, w.b_small) : job(K, N, B, ldb, col_max, w.b_big, w.b_small);
    const SplitJob a =
        a_t ? job(K, M, A, lda, row_max, w.a_big, w.a_small) : job(M, K, A, lda, row_max, w.a_big, w.a_small);
    // 2^31 blocks would take an operand of more than 2^39 elements (fewer than 32 rows or columns
    // give at most 2^26 blocks); checked anyway, so that the grid size cannot wrap.
    const long long blocks = b.blocks() + a.blocks();
    if (blocks > INT_MAX) throw std::invalid_argument("step 12: the split would need more than 2^31 - 1 blocks");
    const dim3 grid(
        static_cast<unsigned>(kScaled ? std::min<long long>(blocks, 1ll * kSplitBlocksPerSm * sms) : blocks));
    const auto go = [&](auto kernel) {
        sgemm::launch_chained(kernel, grid, dim3(sgemm::kStageTile, sgemm::kStageRows), 0, stream, b, a, flag, ld_dst);
    };
    if (b_t)
        a_t ? go(sgemm_12_3xtf32_wgmma_split<false, true, kModeB, kModeA, kScaled>)
            : go(sgemm_12_3xtf32_wgmma_split<false, false, kModeB, kModeA, kScaled>);
    else
        a_t ? go(sgemm_12_3xtf32_wgmma_split<true, true, kModeB, kModeA, kScaled>)
            : go(sgemm_12_3xtf32_wgmma_split<true, false, kModeB, kModeA, kScaled>);
}

// Alone (only_if == nullptr), an ordinary launch; as the tensor-core path's fallback, the chain's last.
void launch_small_k(const sgemm::GemmArgs& args, cudaStream_t stream, const unsigned* only_if = nullptr) {
    const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
    const dim3 grid(sgemm::tile_count(M, N, kSmallBM, kSmallBN)), block(kSmallThreads);
    const bool c_vec_ok = sgemm::rows_are_16b_aligned(C, ldc), a_t = op_a == sgemm::Op::kT, b_t = op_b == sgemm::Op::kT;
    if (only_if)
        sgemm::launch_chained(sgemm_12_3xtf32_wgmma_small_k, grid, block, 0, stream, M, N, K, alpha, beta, A, lda, B,
                              ldb, C, ldc, c_vec_ok, only_if, a_t, b_t);
    else
        sgemm::launch_checked(sgemm_12_3xtf32_wgmma_small_k, grid, block, 0, stream, M, N, K, alpha, beta, A, lda, B,
                              ldb, C, ldc, c_vec_ok, only_if, a_t, b_t);
}

// Template arguments as sgemm_12_3xtf32_wgmma's.
template <int BM, int BN, int BK, int STAGES, int GROUP_M, int kProducts, int kPromote, Tf32 kMode, bool kSplitA>
struct Gemm {
    // [doc:can-fuse]
    // The fused kernel splits both operands for three products and needs a promotion, whose `part` takes a
    // marked k-tile's products alone (not the 1xTF32, split-A or no-promotion variants: they keep the
    // pre-pass path, as misaligned operands do).
    // Its raw stages must fit beside the split ones: 4 stages do, 5 do not (the stage-count variants above 4
    // keep the pre-pass path too).
    static constexpr bool kCanFuse = kProducts == 3 && !kSplitA && kPromote > 0 &&
        smem_bytes(BM, BN, BK, STAGES, kProducts, true) <= kSm90SmemPerBlock;
    // [/doc:can-fuse]

    static void launch(const sgemm::GemmArgs& args, void* workspace, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        const Plan p = plan<BM, BN, BK>(args);
        if (p.small_k) return launch_small_k(args, stream);
        // The GEMM kernel for this plan (kFused, kAMn, kBMn as the kernel's): the step's promotion every
        // 32 k becomes every 16 k on a short k-range (see doc:fine-promotion); the tuning variants with
        // another promotion keep theirs.
        const auto gemm_kernel = [&]<bool kF, bool kAMn, bool kBMn>() {
            auto* k =
                sgemm_12_3xtf32_wgmma<BM, BN, BK, STAGES, GROUP_M, kProducts, kPromote, kMode, kSplitA, kF, kAMn, kBMn>;
            if constexpr (kPromote == kStepPromotion)
                if (promotion_tiles(kPromote, p.k_tiles_per_split) == 1)
                    k = sgemm_12_3xtf32_wgmma<BM, BN, BK, STAGES, GROUP_M, kProducts, 1, kMode, kSplitA, kF, kAMn,
                                              kBMn>;
            return k;
        };
        auto* kernel = gemm_kernel.template operator()<false, false, false>();
        constexpr int smem = smem_bytes(BM, BN, BK, STAGES, kProducts);
        sgemm::allow_dynamic_smem(kernel, smem);
        const bool fused = kCanFuse && runs_fused(args, p);

        const Workspace w = carve<kProducts, kSplitA>(args, p.splits, reinterpret_cast<std::uintptr_t>(workspace));
        const auto& [b_big, b_small, a_big, a_small, partials, row_max, col_max, flag, bytes, maxima_bytes] = w;
        const long long ld = pitch_floats(K);
        const unsigned* a_scale = row_max;
        const bool a_t = op_a == sgemm::Op::kT, b_t = op_b == sgemm::Op::kT;
        const bool c_vec2_ok = sgemm::rows_are_8b_aligned(C, ldc);
        const dim3 block((BM / kWgM) * 128 + kProducerThreads);
        const dim3 grid(sgemm::tile_count(M, N, BM, BN) * p.splits);  // 1-D: rasterized in the kernel
        const std::size_t mn = static_cast<std::size_t>(M) * N;
        const int reduce_blocks = static_cast<int>(std::min<std::size_t>((mn + 255) / 256, 32ull * p.sms));
        // [doc:fused-launch]
        // The fused kernel, where it runs, is the whole GEMM: it reads A and B as stored, and with K
        // split its reduction follows it. Nothing to clear, scan or split beforehand.
        if constexpr (kCanFuse) {
            if (fused) {
                // The kernel for the layout: A MN-major in TN and TT, B in NN and TN.
                auto* fused_kernel = a_t ? (b_t ? gemm_kernel.template operator()<true, true, false>()
                                                : gemm_kernel.template operator()<true, true, true>())
                                         : (b_t ? gemm_kernel.template operator()<true, false, false>()
                                                : gemm_kernel.template operator()<true, false, true>());
                constexpr int fused_smem = smem_bytes(BM, BN, BK, STAGES, kProducts, true);
                sgemm::allow_dynamic_smem(fused_kernel, fused_smem);
                // A and B as stored: K-major boxes of BK floats by BM (BN) rows, or MN-major boxes of
                // BM (BN) floats by BK rows (A in TN and TT, B in NN and TN); split_raw_rows reads both.
                const CUtensorMap a_map = a_t
                    ? sgemm::make_tensor_map_2d(A, K, M, lda, {BK, BM}, CU_TENSOR_MAP_SWIZZLE_NONE)
                    : sgemm::make_tensor_map_2d(A, M, K, lda, {BM, BK}, CU_TENSOR_MAP_SWIZZLE_NONE);
                const CUtensorMap b_map = b_t
                    ? sgemm::make_tensor_map_2d(B, N, K, ldb, {BN, BK}, CU_TENSOR_MAP_SWIZZLE_NONE)
                    : sgemm::make_tensor_map_2d(B, K, N, ldb, {BK, BN}, CU_TENSOR_MAP_SWIZZLE_NONE);
                sgemm::launch_chained(fused_kernel, grid, block, fused_smem, stream, M, N, K, alpha, beta, C, ldc,
                                      c_vec2_ok, nullptr, nullptr, nullptr, p.k_tiles_per_split, partials, a_map, a_map,
                                      b_map, b_map);
                if (partials)
                    sgemm::launch_chained(sgemm_12_3xtf32_wgmma_reduce, dim3(reduce_blocks), dim3(256), 0, stream, M, N,
                                          p.splits, partials, nullptr, nullptr, nullptr, alpha, beta, C, ldc);
                return;
            }
        }
        // [/doc:fused-launch]

        // [doc:launch-sequence]
        // One chain of kernels, each launched while the one before it runs (launch_chained): clear
        // the maxima and the flags; split both operands unscaled, flagging elements outside the band;
        // then, only if one was, scan for the maxima and split again, scaled (otherwise these two
        // launches return at once). wgmma reads both K-major: B is transposed in NN, A in TN and TT.
        const long long words = static_cast<long long>(maxima_bytes / sizeof(unsigned));
        const long long clear_blocks = std::min<long long>((words + 255) / 256, 4ll * p.sms);
        sgemm::launch_checked(sgemm_12_3xtf32_wgmma_clear, dim3(static_cast<unsigned>(clear_blocks)), dim3(256), 0,
                              stream, row_max, words);
        constexpr Tf32 kModeA = kSplitA ? Tf32::kCopy : kMode;  // kCopy: scale (if so), no split
        split<kMode, kModeA, false>(b_t, a_t, args, nullptr, nullptr, flag, w, ld, p.sms, stream);
        {
            const ScanJob a_job{A, lda, M, !a_t, row_max}, b_job{B, ldb, N, b_t, col_max};
            const long long items = a_job.items(K) + b_job.items(K);
            const int blocks = static_cast<int>(
                std::min<long long>((items + kScanThreads / 32 - 1) / (kScanThreads / 32), kScanBlocksPerSm * p.sms));
            sgemm::launch_chained(sgemm_12_3xtf32_wgmma_scan, dim3(blocks), dim3(kScanThreads), 0, stream, K, a_job,
                                  b_job, flag);
        }
        split<kMode, kModeA, true>(b_t, a_t, args, row_max, col_max, flag, w, ld, p.sms, stream);

        using Box = Boxes<BM, BN, BK>;
        // [doc:maps]
        auto map = [&](const float* ptr, int rows, long long pitch, sgemm::TmaBox box) {
            return sgemm::make_tensor_map_2d(ptr ? ptr : b_big, rows, K, ptr ? pitch : ld, box,
                                             CU_TENSOR_MAP_SWIZZLE_64B);
        };
        const CUtensorMap a_big_map = map(a_big, M, ld, Box::a), a_small_map = map(a_small, M, ld, Box::a);
        const CUtensorMap b_big_map = map(b_big, N, ld, Box::b), b_small_map = map(b_small, N, ld, Box::b);
        // [/doc:maps]
        sgemm::launch_chained(kernel, grid, block, smem, stream, M, N, K, alpha, beta, C, ldc, c_vec2_ok, flag, a_scale,
                              col_max, p.k_tiles_per_split, partials, a_big_map, a_small_map, b_big_map, b_small_map);
        if (partials)
            sgemm::launch_chained(sgemm_12_3xtf32_wgmma_reduce, dim3(reduce_blocks), dim3(256), 0, stream, M, N,
                                  p.splits, partials, a_scale, col_max, flag, alpha, beta, C, ldc);
        launch_small_k(args, stream, flag + 1);  // returns at once unless a row or column spans too much
    }

    static std::string describe(const sgemm::GemmArgs& args) {
        const Plan p = plan<BM, BN, BK>(args);
        if (p.small_k)
            return "K < " + std::to_string(kMinTensorK) +
                ": FP32 FFMA (the split's error would exceed the FP32 bound), 32x128 tile, thread 4x4";
        const bool fused = kCanFuse && runs_fused(args, p);
        const char* a_split = fused ? "A and B read as stored, split in smem a k-tile ahead"
            : kSplitA               ? "A copied, split in smem"
                                    : "A split in a pre-pass";
        return std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) +
            " tile, 2 warpgroups of wgmma " + "m64n128k8, " + std::to_string(kProducts) + "xTF32 (" +
            (kMode == Tf32::kRound ? "rounded" : "truncated") + " split, " + a_split + "), " +
            (fused ? "k-tiles holding an element outside [2^" + std::to_string(std::ilogb(kBandBottom)) + ", 2^" +
                     std::to_string(std::ilogb(kBandTop)) + ") scaled into it in smem (by FFMA where none fits), "
                   : "rows of A and columns of B scaled by powers of two where needed, ") +
            (kPromote ? "FADD every " + std::to_string(promotion_tiles(kPromote, p.k_tiles_per_split) * BK) + " k"
                      : std::string("no promotion")) +
            ", " + std::to_string(STAGES) + " TMA stages, group " + std::to_string(GROUP_M) +
            (p.splits > 1 ? ", split-K " + std::to_string(p.splits) + " x " + std::to_string(p.k_tiles_per_split * BK) +
                     " k, reduced in split order"
                          : "");
    }

    // Both kernels' tiles fit a 1-D grid; the small-K kernel indexes within its tile, the GEMM needs its
    // rows and columns (not K) one tile below 2^31 (an A or B that large with K >= 22 fits in no GPU).
    static std::string can_implement(const sgemm::GemmArgs& a) {
        if (sgemm::tile_total(a.M, a.N, a.K < kMinTensorK ? kSmallBM : BM, a.K < kMinTensorK ? kSmallBN : BN) > INT_MAX)
            return "more than 2^31 - 1 tiles";
        if (a.K >= kMinTensorK && (a.M > INT_MAX - BM || a.N > INT_MAX - BN))
            return "M, N within one tile of 2^31 (32-bit tile indices)";
        return "";
    }

    static std::size_t workspace_bytes(const sgemm::GemmArgs& a) {
        const Plan p = plan<BM, BN, BK>(a);
        return p.small_k ? 0 : carve<kProducts, kSplitA>(a, p.splits, 0).bytes;
    }
};

using Step12 = Gemm<128, 128, 16, 4, 8, 3, kStepPromotion, Tf32::kRound, false>;
static_assert(Step12::kCanFuse, "the step takes the fused kernel where its plan says (model_seconds counts on it)");

// [doc:model-total]
// The whole launch, as step 13's planner weighs it against step 10's (see "doc:model" above).
double model_seconds(const sgemm::GemmArgs& a) {
    const Rates r = rates_at_hand();
    const double mk = double(a.M) * a.K, kn = double(a.K) * a.N, mn = double(a.M) * a.N;
    const Plan p = plan<128, 128, 16>(a);
    if (p.small_k)
        return kLaunchSeconds + (4 * (mk + kn + mn * (a.beta == 0.0f ? 1 : 2))) / (r.dram * kSmallKStoreFraction);
    // The split count is chosen for speed alone (plan); promoting every k-tile on a short k-range then
    // costs its k-tiles more.
    return path_seconds(a, p.splits, p.k_tiles_per_split, r, sgemm::rows_are_8b_aligned(a.C, a.ldc), runs_fused(a, p),
                        promotion_tiles(kStepPromotion, p.k_tiles_per_split) == 1);
}
// [/doc:model-total]

}  // namespace

// [doc:entry]
const sgemm::StepEntry& sgemm::tf32x3_wgmma_entry() {
    static const StepEntry entry{Step12::launch, Step12::workspace_bytes, Step12::describe, Step12::can_implement,
                                 model_seconds};
    return entry;
}
// [/doc:entry]

static const sgemm::Registration registration{Step12{},
                                              {.number = 12,
                                               .name = "3xtf32_wgmma",
                                               .idea = "FP32 from TF32 tensor cores: operands split into big + small, "
                                                       "3 wgmma products per k-step, fed by step 11's TMA producer",
                                               .requirements = {.min_cc = 90, .needs_sm90a = true},
                                               .precision = sgemm::Precision::kFp32ViaTensorCores,
                                               .gemm_function = "sgemm_12_3xtf32_wgmma",
                                               .sass = {.required = {"HGMMA.TF32"}},
                                               .any_layout = true}};
#ifdef SGEMM_TUNING
static const sgemm::Registration registration_1200{
    Gemm<128, 128, 16, 4, 8, 1, 2, Tf32::kRound, false>{},
    {.number = 1200,
     .name = "3xtf32_wgmma_1xtf32",
     .idea = "step 12 with one product (big * big): TF32 speed and TF32 error",
     .precision = sgemm::Precision::kTf32}};
static const sgemm::Registration registration_1201{Gemm<128, 128, 16, 4, 8, 3, 2, Tf32::kTruncate, false>{},
                                                   {.number = 1201,
                                                    .name = "3xtf32_wgmma_truncated_split",
                                                    .idea = "step 12 with the split truncated instead of rounded",
                                                    .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1202{
    Gemm<128, 128, 16, 4, 8, 3, 0, Tf32::kRound, false>{},
    {.number = 1202,
     .name = "3xtf32_wgmma_no_promotion",
     .idea = "step 12 with the tensor cores accumulating all of K (no FADD of partial sums)",
     .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1203{Gemm<128, 128, 16, 4, 8, 3, 1, Tf32::kRound, false>{},
                                                   {.number = 1203,
                                                    .name = "3xtf32_wgmma_promote16",
                                                    .idea = "step 12 adding the partial sums every 16 k instead of 32",
                                                    .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1204{Gemm<128, 128, 16, 4, 8, 3, 4, Tf32::kRound, false>{},
                                                   {.number = 1204,
                                                    .name = "3xtf32_wgmma_promote64",
                                                    .idea = "step 12 adding the partial sums every 64 k",
                                                    .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1205{
    Gemm<128, 128, 16, 4, 8, 3, 2, Tf32::kRound, true>{},
    {.number = 1205,
     .name = "3xtf32_wgmma_split_a_in_smem",
     .idea = "step 12 with A split by the consumer warpgroups in shared memory instead of the pre-pass",
     .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1206{Gemm<128, 128, 16, 7, 8, 3, 2, Tf32::kRound, false>{},
                                                   {.number = 1206,
                                                    .name = "3xtf32_wgmma_s7",
                                                    .idea = "step 12 with 7 stages",
                                                    .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1207{Gemm<128, 128, 16, 6, 8, 3, 2, Tf32::kRound, false>{},
                                                   {.number = 1207,
                                                    .name = "3xtf32_wgmma_s6",
                                                    .idea = "step 12 with 6 stages",
                                                    .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1208{Gemm<128, 128, 16, 3, 8, 3, 2, Tf32::kRound, false>{},
                                                   {.number = 1208,
                                                    .name = "3xtf32_wgmma_s3",
                                                    .idea = "step 12 with 3 stages",
                                                    .precision = sgemm::Precision::kFp32ViaTensorCores}};
static const sgemm::Registration registration_1209{Gemm<128, 128, 16, 5, 8, 3, 2, Tf32::kRound, false>{},
                                                   {.number = 1209,
                                                    .name = "3xtf32_wgmma_s5",
                                                    .idea = "step 12 with 5 stages",
                                                    .precision = sgemm::Precision::kFp32ViaTensorCores}};
#endif
