// Step 14: FP32 from exact integer products (the Ozaki scheme II on INT8 wgmma). Step 12 rounds
// each operand into TF32 pieces and loses a little in every product; here nothing is lost in the
// products at all. Every row of op(A) and every column of op(B) is scaled by a power of two and
// rounded to an integer of p bits (a fixed-point copy whose largest element has p significant
// bits). The integer product C' = A'B' is then computed exactly, not in one piece but modulo n
// small pairwise-coprime moduli m_l <= 256: the residues of A' and B' fit in int8, wgmma multiplies
// them exactly into int32 (s8 x s8 -> s32), and C' mod m_l is what that sum leaves modulo m_l. The
// Chinese remainder theorem gives C' back from its n residues as long as |C'| < (m_1 ... m_n) / 2,
// which fixes p: K 2^(2p) < M / 2. One rounding to FP32 at the very end: the result is the exact
// product of the p-bit copies, rounded once.
// The passes: a scan finds each row's (column's) largest magnitude and mean exponent; a pre-pass
// scales, rounds and writes the n int8 residues of every element, K-major; one persistent wgmma GEMM
// for all moduli reduces its int32 sums mod m_l to bytes; a last pass reconstructs C' from the
// bytes (a 64-bit CRT sum for 8 moduli, Garner's mixed-radix digits beyond, then one double), undoes
// the scaling and applies alpha and beta. Inputs the fixed point cannot hold to FP32's accuracy (a row whose nonzero
// elements lie, on average, more than 2^kMaxMeanGap below its largest) get dot products in double
// instead; K below kMinIntK goes to step 12; rows and columns holding Inf or NaN give NaN products, as
// they must.
// See docs/kernels/14_ozaki_int8.md.
#include "common/check.h"
#include "common/gpu_rates.h"
#include "common/hopper.cuh"
#include "common/registry.h"
#include "common/staging.cuh"
#include "common/step_entries.h"
#include "common/tile.cuh"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace {

// [doc:moduli]
// ---- the moduli: the largest pairwise-coprime numbers up to 256 (the count of int8 values), in
// the order they are taken. 256 first: its residues wrap for free. n of them multiply to M_n, about
// 2^(7.95 n).
constexpr int kMaxModuli = 16;
constexpr int kModuli[kMaxModuli] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217, 211, 199, 197, 193};

constexpr int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }
constexpr bool pairwise_coprime() {
    for (int i = 0; i < kMaxModuli; ++i)
        for (int j = i + 1; j < kMaxModuli; ++j)
            if (gcd(kModuli[i], kModuli[j]) != 1) return false;
    return true;
}
static_assert(pairwise_coprime(), "the CRT needs pairwise-coprime moduli");

// [doc:k-bound]
// Exactness of the int32 sums: a residue lies in [-128, 127], a product's magnitude is at most 2^14,
// so any 2^16 of them sum to at most 2^30 < 2^31. The GEMM reduces its sums mod m_l every
// kChunkK of K (a reduced sum is below 2^8), so K itself is unbounded.
constexpr int kChunkK = 1 << 16;

// Below kMinIntK step 12 computes the product (which is FFMA there): the bound allows (K + 2) u, and
// small K leaves the fixed point no room for rows whose elements differ in magnitude; at such K the
// GEMM is bound by its stores anyway.
constexpr int kMinIntK = 22;
// The fixed point rounds every element of a row to the same absolute step, 2^(1-p) of the row's
// largest: an element 2^-g below it keeps p - g bits. A few small elements cost nothing (their
// products are small too), but a row whose typical element lies far below its largest (exponents
// spread over many binades: --init wide) has most of its products computed to few bits. The scan
// measures the mean of log2 |x| over a row's nonzero elements; a row (column) whose mean lies more
// than kMaxMeanGap binades below its largest sends the product to sgemm_14_ozaki_int8_fp64, where every
// element keeps its own exponent.
constexpr int kMaxMeanGap = 8;
// The pre-pass's residue arithmetic holds for fixed points of up to 45 bits; plan() asks for at
// most want + 4 (about 33).
constexpr int kMaxBits = 45;
// A row (column) holding Inf or NaN: every element of its row (column) of the product is Inf or
// NaN whatever the rest, so the scan marks it (above any finite magnitude's bits), the pre-pass
// gives it zero residues and the reconstruction writes NaN there.
constexpr unsigned kNonFinite = 0x80000000u;

// [doc:crt-tables]
// What the kernels need of the moduli in use, made once on the host per plan.
struct Crt {
    int n = 0;  // moduli in use
    int p = 0;  // bits of the fixed point: |A'|, |B'| <= 2^p
    int m[kMaxModuli] = {};
    unsigned magic[kMaxModuli] = {};  // floor(2^32 / m): a quotient estimate, corrected after
    unsigned bias[kMaxModuli] = {};   // m 2^23: makes any |x| < 2^30 non-negative, x's residue unchanged
    double m_f64[kMaxModuli] = {};    // m, for the reconstruction's Horner steps
    int r16[kMaxModuli] = {};         // 2^16 mod m
    int r24[kMaxModuli] = {};         // 2^24 mod m
    // Garner: digit l of C' needs (m_0 ... m_(j-1)) mod m_l for j < l, and (m_0 ... m_(l-1))^-1 mod m_l.
    int prefix_mod[kMaxModuli][kMaxModuli] = {};
    int inv_prefix[kMaxModuli] = {};
    // With 8 moduli M_8 < 2^64, and C' = sum_l r_l W_l mod M in 64-bit integers, W_l = (M / m_l)
    // ((M / m_l)^-1 mod m_l) mod M split into 32-bit halves; M, 1 / M (double) and M / 2.
    unsigned w_lo[8] = {}, w_hi[8] = {};
    std::uint64_t modulus = 0, half = 0;
    double inv_modulus = 0;
};

// x mod m in [0, m) for 0 <= x < 2^32, in integer instructions only (the float conversions a
// reciprocal would need run at a quarter of their rate): q = x floor(2^32 / m) / 2^32 falls short
// of x / m by less than x / 2^32 < 1, so one correction is enough.
__device__ __forceinline__ int mod_u32(unsigned x, unsigned m, unsigned magic) {
    const unsigned r = x - __umulhi(x, magic) * m;
    return static_cast<int>(r >= m ? r - m : r);
}
// Any |x| < 2^30 mod m (m >= 128): shifted by bias = m 2^23 into [0, 2^32) first.
__device__ __forceinline__ int mod_small(int x, int m, unsigned magic, unsigned bias) {
    return mod_u32(static_cast<unsigned>(x) + bias, m, magic);
}
// Any int32 mod m in [0, m): x = hi 2^16 + lo, and |hi (2^16 mod m) + lo| < 2^24.
__device__ __forceinline__ int mod_int32(int x, int m, unsigned magic, unsigned bias, int r16) {
    return mod_small((x >> 16) * r16 + (x & 0xFFFF), m, magic, bias);
}

// [doc:scan]
// ---- the scan: per row of op(A) and per column of op(B) (both rows of the K-major copies), the
// bits of the largest finite magnitude (non-negative floats order like their bits; kNonFinite in a
// row holding Inf or NaN), and the sum of the biased exponents (the bits above the 23 of the
// significand; subnormals count as 0) and the count of the nonzero finite elements, each as integer
// atomics (their order does not change the result).
struct RowStats {
    unsigned* max_bits;
    unsigned long long* exponent_sum;
    unsigned* nonzeros;
};
// A warp takes one row and a range of its k: the lanes read it 32 consecutive floats at a time, keep
// the range's statistics in registers and add them up with shuffles; one atomic of each per warp.
constexpr int kScanRowsWarps = 8;
__global__ void __launch_bounds__(32 * kScanRowsWarps)
    sgemm_14_ozaki_int8_scan_rows(int rows, int cols, const float* src, int ld_src, int cols_per_block, RowStats st) {
    sgemm::wait_prior_grid();  // every kernel of the chain waits before it touches memory (see launch())
    sgemm::allow_next_grid();
    const int row = blockIdx.x * kScanRowsWarps + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= rows) return;
    const long long first = static_cast<long long>(blockIdx.y) * cols_per_block;
    const long long last = min(static_cast<long long>(cols), first + cols_per_block);
    const float* p = src + static_cast<std::size_t>(row) * ld_src;
    unsigned hi = 0, count = 0;
    unsigned long long exponents = 0;
    bool nonfinite = false;
#pragma unroll 8  // several loads in flight a lane
    for (long long k = first + lane; k < last; k += 32) {
        const unsigned b = __float_as_uint(p[k]) & 0x7fffffffu;
        nonfinite |= b >= 0x7f800000u;
        if (b != 0 && b < 0x7f800000u) hi = max(hi, b), exponents += b >> 23, ++count;
    }
    hi = __reduce_max_sync(0xffffffffu, hi);
    count = __reduce_add_sync(0xffffffffu, count);
    for (int d = 16; d > 0; d /= 2) exponents += __shfl_xor_sync(0xffffffffu, exponents, d);
    nonfinite = __any_sync(0xffffffffu, nonfinite);
    if (lane != 0) return;
    if (nonfinite) atomicOr(&st.max_bits[row], kNonFinite);
    if (count != 0) {
        atomicMax(&st.max_bits[row], hi);
        atomicAdd(&st.exponent_sum[row], exponents);
        atomicAdd(&st.nonzeros[row], count);
    }
}
// The same for a source whose rows are the K-major copy's columns (stored K x rows): each thread
// keeps its column's extremes over the block's k-rows, then one atomic per column and block.
__global__ void __launch_bounds__(sgemm::kStageTile* sgemm::kStageRows)
    sgemm_14_ozaki_int8_scan_cols(int k_rows, int cols, const float* src, int ld_src, RowStats st) {
    sgemm::wait_prior_grid();
    sgemm::allow_next_grid();
    const long long col = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (col >= cols) return;
    unsigned hi = 0, count = 0;
    unsigned long long exponents = 0;
    bool nonfinite = false;
    for (long long k = blockIdx.y; k < k_rows; k += gridDim.y) {
        const unsigned b = __float_as_uint(src[static_cast<std::size_t>(k) * ld_src + col]) & 0x7fffffffu;
        nonfinite |= b >= 0x7f800000u;
        if (b != 0 && b < 0x7f800000u) hi = max(hi, b), exponents += b >> 23, ++count;
    }
    if (nonfinite) atomicOr(&st.max_bits[col], kNonFinite);
    if (count != 0) {
        atomicMax(&st.max_bits[col], hi);
        atomicAdd(&st.exponent_sum[col], exponents);
        atomicAdd(&st.nonzeros[col], count);
    }
}

using sgemm::float_exponent;  // of a magnitude's bits, subnormals included (kernels/common/tile.cuh)
// The scale of a row: x 2^shift puts its largest magnitude in [2^(p-1), 2^p); a row of zeros: 0.
__device__ __forceinline__ int row_shift(const unsigned* max_bits, int row, int p) {
    const unsigned bits = max_bits[row];
    return bits == 0 || bits >= kNonFinite ? 0 : p - 1 - float_exponent(bits);
}

// [doc:verdict]
// Flag bit 1 when the mean exponent of some row's (column's) nonzero elements lies more than
// kMaxMeanGap below its largest one's. The host never reads it: every kernel after the verdict
// reads it on the device (the int8 kernels return at once when it is set, the FP64 kernel when it
// is not), so that a call only queues work and can be captured in a CUDA graph.
__global__ void __launch_bounds__(256) sgemm_14_ozaki_int8_verdict(int rows, RowStats st, unsigned* flag) {
    sgemm::wait_prior_grid();
    sgemm::allow_next_grid();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows || st.nonzeros[i] == 0 || st.max_bits[i] >= kNonFinite) return;
    const double mean = static_cast<double>(st.exponent_sum[i]) / st.nonzeros[i];
    if (static_cast<double>(st.max_bits[i] >> 23) - mean > kMaxMeanGap) atomicOr(flag, 2u);
}

using sgemm::mul_pow2;  // x 2^e, exact (kernels/common/tile.cuh)

// [doc:residues]
// ---- the pre-pass: element x of row r becomes the integer a = rint(x 2^shift(r)), |a| <= 2^p
// (the scaling is exact, and a float of magnitude 2^23 or more is an integer already), and its n
// residues, each the representative in [-128, 127], go to the n planes of the K-major int8 copy
// (pitch ld_dst bytes). In integers: a = hi 2^24 + lo, and a = hi (2^24 mod m) + lo (mod m), whose
// magnitude stays below 2^30 for p <= kMaxBits.
// A block converts a tile of 32 rows of the copy x 128 k, staged through shared memory so that
// both the reads (along the source's contiguous dimension, whichever it is) and the writes (a warp
// writes 128 consecutive bytes of a row of each plane, 4 per thread) are whole 128-byte lines.
constexpr int kResRows = 32, kResK = 128, kResThreads = 256;
template <bool kTranspose, int kN>
__global__ void __launch_bounds__(kResThreads)
    sgemm_14_ozaki_int8_residues(int rows, int K, const float* src, int ld_src, const unsigned* max_bits, Crt crt,
                                 std::int8_t* dst, long long ld_dst, long long plane, const unsigned* flag) {
    __shared__ float tile[kResRows][kResK + 1];  // + 1: the transposed writes hit 32 different banks
    sgemm::wait_prior_grid();
    sgemm::allow_next_grid();
    if (*flag != 0) return;  // the FP64 kernel computes C
    const int row0 = blockIdx.x * kResRows;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (long long k0 = static_cast<long long>(blockIdx.y) * kResK; k0 < K;
         k0 += static_cast<long long>(gridDim.y) * kResK) {
        if constexpr (kTranspose) {  // source K x rows: a warp reads 32 consecutive rows of the copy
            for (int k = warp; k < kResK; k += kResThreads / 32) {
                const long long kk = k0 + k;
                const int r = row0 + lane;
                tile[lane][k] = kk < K && r < rows ? src[static_cast<std::size_t>(kk) * ld_src + r] : 0.0f;
            }
        } else {  // source rows x K: a warp reads 32 consecutive k of a row, four times
            for (int i = warp; i < kResRows * (kResK / 32); i += kResThreads / 32) {
                const int r = row0 + i / (kResK / 32), k = (i % (kResK / 32)) * 32 + lane;
                tile[i / (kResK / 32)][k] =
                    k0 + k < K && r < rows ? src[static_cast<std::size_t>(r) * ld_src + k0 + k] : 0.0f;
            }
        }
        __syncthreads();
        for (int r = warp; r < kResRows; r += kResThreads / 32) {
            const int row = row0 + r;
            const long long k = k0 + 4 * lane;
            if (row >= rows || k >= K) continue;
            const int shift = row_shift(max_bits, row, crt.p);
            const bool finite = max_bits[row] < kNonFinite;  // else the row's products are NaN: its residues 0
            int hi[4], lo[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const long long a = finite ? static_cast<long long>(rintf(mul_pow2(tile[r][4 * lane + j], shift))) : 0;
                hi[j] = static_cast<int>(a >> 24), lo[j] = static_cast<int>(a & 0xFFFFFF);
            }
        // k + 3 may pass K but not the pitch (a multiple of 128 bytes): the padding takes it.
            std::int8_t* out = dst + static_cast<std::size_t>(row) * ld_dst + k;
#pragma unroll
            for (int l = 0; l < kN; ++l) {
                unsigned packed = 0;
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const int res = mod_small(hi[j] * crt.r24[l] + lo[j], crt.m[l], crt.magic[l], crt.bias[l]);
                    packed |= static_cast<unsigned>((res > 127 ? res - crt.m[l] : res) & 0xFF) << (8 * j);
                }
                *reinterpret_cast<unsigned*>(out + l * plane) = packed;
            }
        }
        __syncthreads();  // the tile is refilled for the next k
    }
}

// [doc:fp64]
// ---- inputs the fixed point cannot hold: each output a dot product in double. A float times a float is
// exact in double (24 + 24 significant bits < 53), and K such products summed in double are off by about
// K 2^-53 of |op(A)||op(B)|, far below FP32's last bit; alpha and beta C0 added in double, one rounding.
// Inf and NaN follow IEEE arithmetic, as in the float64 reference. FP64 runs at half the FP32 rate on
// Hopper: a path for the inputs the int8 path cannot take, not for speed. A block computes 64 x 64
// outputs, a thread 4 x 4, from k-slices of 16 converted to double once, in shared memory; the blocks
// that fit on the GPU at once loop over the tiles, so that the launch costs little when the verdict
// sends the inputs to the int8 path and every block returns at once (only_if: the verdict's flag).
constexpr int kFp64Tile = 64, kFp64K = 16, kFp64Threads = 256;
__global__ void __launch_bounds__(kFp64Threads)
    sgemm_14_ozaki_int8_fp64(int M, int N, int K, float alpha, float beta, const float* A, int lda, bool a_t,
                             const float* B, int ldb, bool b_t, float* C, int ldc, const unsigned* only_if) {
    __shared__ double As[kFp64K][kFp64Tile + 1], Bs[kFp64K][kFp64Tile + 1];  // [k][m], [k][n]
    sgemm::wait_prior_grid();  // the last kernel of the chain: it lets none start early
    if (*only_if == 0) return;  // the int8 path has computed C
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const long long tiles_n = sgemm::ceil_div(N, kFp64Tile), tiles = sgemm::ceil_div(M, kFp64Tile) * tiles_n;
    for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int bm = static_cast<int>(tile / tiles_n) * kFp64Tile, bn = static_cast<int>(tile % tiles_n) * kFp64Tile;
        double acc[4][4] = {};
        for (int k0 = 0; k0 < K; k0 += kFp64K) {
            for (int i = threadIdx.x; i < kFp64Tile * kFp64K; i += kFp64Threads) {
                // Consecutive threads on the operand's contiguous dimension: k unless it is transposed.
                const int a_m = a_t ? i % kFp64Tile : i / kFp64K, a_k = a_t ? i / kFp64Tile : i % kFp64K;
                const int b_n = b_t ? i / kFp64K : i % kFp64Tile, b_k = b_t ? i % kFp64K : i / kFp64Tile;
                const int m = bm + a_m, ka = k0 + a_k, n = bn + b_n, kb = k0 + b_k;
                As[a_k][a_m] = m < M && ka < K ? double(a_t ? A[static_cast<std::size_t>(ka) * lda + m]
                                                            : A[static_cast<std::size_t>(m) * lda + ka])
                                               : 0.0;
                Bs[b_k][b_n] = n < N && kb < K ? double(b_t ? B[static_cast<std::size_t>(n) * ldb + kb]
                                                            : B[static_cast<std::size_t>(kb) * ldb + n])
                                               : 0.0;
            }
            __syncthreads();
#pragma unroll
            for (int k = 0; k < kFp64K; ++k) {
                double a[4], b[4];
#pragma unroll
                for (int i = 0; i < 4; ++i) a[i] = As[k][4 * ty + i], b[i] = Bs[k][4 * tx + i];
#pragma unroll
                for (int i = 0; i < 4; ++i)
#pragma unroll
                    for (int j = 0; j < 4; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
            }
            __syncthreads();  // the slices are refilled
        }
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int m = bm + 4 * ty + i, n = bn + 4 * tx + j;
                if (m >= M || n >= N) continue;
                float* c = C + static_cast<std::size_t>(m) * ldc + n;
                const double v = double(alpha) * acc[i][j];
                *c = static_cast<float>(beta == 0.0f ? v : v + double(beta) * *c);
            }
    }
}

// [doc:smem-descriptor]
// The shared-memory matrix descriptor of a K-major int8 tile with 128-byte rows, stored by TMA with
// its 128-byte swizzle (16-byte chunks of row r XORed with r % 8): start address (1024-byte aligned
// tile, advanced by 32 bytes per k32 step inside the row), stride 1024 bytes between 8-row groups,
// swizzle mode 1 (128B). The leading-byte offset is unused for one swizzle row along K (set to 1).
constexpr int kSwizzleBytes = 128;
__device__ __forceinline__ std::uint64_t smem_descriptor(const std::int8_t* tile) {
    const std::uint64_t addr = sgemm::smem_addr(tile);
    return ((addr & 0x3FFFF) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{8 * kSwizzleBytes >> 4} << 32) |
        (std::uint64_t{1} << 62);
}

// One wgmma.m64n256k32: a consumer warpgroup owns 64 rows of the block tile, all 256 columns.
constexpr int kWgM = 64, kWgN = 256, kWgK = 32;
constexpr int kProducerThreads = 128;
// 128 int32 accumulators per consumer thread; the producer warpgroup gives its registers to them.
constexpr unsigned kProducerRegs = 40, kConsumerRegs = 232;

template <int BM, int BN, int BK>
struct Boxes {
    static constexpr sgemm::TmaBox a{BM, BK, 1};  // BM rows of A's residues, BK bytes each
    static constexpr sgemm::TmaBox b{BN, BK, 1};  // BN rows of B^T's residues
};
constexpr int smem_bytes(int BM, int BN, int BK, int STAGES) { return 1024 + STAGES * (BM + BN) * BK + 2 * STAGES * 8; }

// [doc:gemm]
// ---- the GEMM: work item i is tile i % tiles of modulus l = i / tiles (the tiles of one modulus
// are neighbours in order: they share its planes in L2); a block per SM takes every gridDim.x-th. Step 12's pipeline: a producer
// warpgroup streams k-tiles of both operands' residue planes through STAGES TMA stages; two
// consumer warpgroups multiply them with wgmma into int32, exactly. The epilogue reduces each sum
// mod m_l and stores it as one byte of plane l of the residues of C' (pitch ldr bytes).
template <int BM, int BN, int BK, int STAGES, int GROUP_M>
__global__ void __launch_bounds__((BM / kWgM) * 128 + kProducerThreads, 1)
    sgemm_14_ozaki_int8(int M, int N, int K, Crt crt, std::uint8_t* c_res, int ldr, const unsigned* flag,
                        const __grid_constant__ CUtensorMap a_map,  // n planes of M rows of K bytes
                        const __grid_constant__ CUtensorMap b_map) {  // n planes of N rows of K bytes
    constexpr int kConsumers = (BM / kWgM) * 128;
    using Box = Boxes<BM, BN, BK>;
    constexpr unsigned kStageBytes = Box::a.bytes() + Box::b.bytes();
    constexpr int kRegs = kWgM * kWgN / 128;
    static_assert(BM % kWgM == 0 && BM / kWgM == 2, "two consumer warpgroups of 64 rows");
    static_assert(BN == kWgN, "one wgmma spans the block tile's 256 columns");
    static_assert(BK == kSwizzleBytes, "a tile row of BK int8 is one 128-byte swizzle row");
    static_assert(BK % kWgK == 0, "a k-tile is whole wgmma k-steps");
    static_assert(kChunkK % BK == 0, "the sums are reduced between k-tiles");
    static_assert((BM * BK) % 1024 == 0, "every sub-tile starts 1024-byte aligned, as the 128-byte swizzle needs");
    static_assert(BM <= 256 && BN <= 256, "a TMA box is at most 256 rows");
    static_assert(STAGES >= 2, "at least one k-tile in flight while one is computed");

    extern __shared__ float4 smem_raw[];
    auto* stages = reinterpret_cast<std::int8_t*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) / 1024 * 1024);
    auto a_tile = [&](int s) { return stages + s * (BM + BN) * BK; };
    auto b_tile = [&](int s) { return stages + s * (BM + BN) * BK + BM * BK; };
    auto* full = reinterpret_cast<std::uint64_t*>(stages + STAGES * (BM + BN) * BK);
    std::uint64_t* empty = full + STAGES;

    const int tid = threadIdx.x, warp = tid / 32;
    const int tiles = sgemm::ceil_div(M, BM) * sgemm::ceil_div(N, BN);
    const int items = tiles * crt.n;  // (tile, modulus) pairs, this block's every gridDim.x-th
    const int num_k_tiles = sgemm::ceil_div(K, BK);

    if (tid == 0) sgemm::init_stage_barriers(full, empty, STAGES, kConsumers);
    // An ordinary launch (see launch()); the reconstruction may launch early.
    sgemm::allow_next_grid();
    const bool fp64 = *flag != 0;  // the FP64 kernel computes C: every thread returns
    __syncthreads();
    if (fp64) return;

    if (warp >= kConsumers / 32) {
        // ---- producer: plane l's rows of A and B^T, BK bytes of K per stage. The ring runs on from
        // one item to the next: the next tile's first k-tiles load while the consumers store this one.
        sgemm::setmaxnreg_dec<kProducerRegs>();
        if (tid == kConsumers) {
            int s = 0, round = 0;
            for (int item = blockIdx.x; item < items; item += gridDim.x) {
                const int l = item / tiles;
                const auto [block_row, block_col] = sgemm::rasterized_tile<BM, BN, GROUP_M>(M, N, item % tiles);
                for (int kt = 0; kt < num_k_tiles; ++kt) {
                    if (round > 0) sgemm::mbarrier_wait(&empty[s], (round - 1) & 1);
                    sgemm::mbarrier_arrive_expect_tx(&full[s], kStageBytes);
                    sgemm::tma_load_2d(a_tile(s), &a_map, &full[s], kt * BK, l * M + block_row);
                    sgemm::tma_load_2d(b_tile(s), &b_map, &full[s], kt * BK, l * N + block_col);
                    if (++s == STAGES) s = 0, ++round;
                }
            }
        }
        return;
    }

    // ---- consumers: warpgroup g computes rows 64 g .. 64 g + 63 of each tile.
    sgemm::setmaxnreg_inc<kConsumerRegs>();
    const int wg = warp / 4;
    int s = 0, phase = 0;
    for (int item = blockIdx.x; item < items; item += gridDim.x) {
        const int l = item / tiles;  // the modulus
        const auto [block_row, block_col] = sgemm::rasterized_tile<BM, BN, GROUP_M>(M, N, item % tiles);
        const int m = crt.m[l], r16 = crt.r16[l];
        const unsigned magic = crt.magic[l], bias = crt.bias[l];
        int acc[kRegs];
        int pending = -1;  // the stage the previous k-tile's wgmma may still read
        for (int kt = 0; kt < num_k_tiles; ++kt) {
            sgemm::mbarrier_wait(&full[s], phase);
            // [doc:products]
            sgemm::wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK; kk += kWgK)
                sgemm::wgmma_m64n256k32_s8(acc, smem_descriptor(a_tile(s) + wg * kWgM * BK + kk),
                                           smem_descriptor(b_tile(s) + kk), kt > 0 || kk > 0);
            sgemm::wgmma_commit_group();
            // [/doc:products]
            sgemm::wgmma_wait_group<1>();
            if (pending >= 0) sgemm::mbarrier_arrive(&empty[pending]);
            pending = s;
            if ((kt + 1) % (kChunkK / BK) == 0 && kt + 1 < num_k_tiles) {
                // Another kChunkK of K would reach 2^31: reduce the sums (the wgmma writing them done).
                sgemm::wgmma_wait_group<0>();
#pragma unroll
                for (int i = 0; i < kRegs; ++i) acc[i] = mod_int32(acc[i], m, magic, bias, r16);
            }
            if (++s == STAGES) s = 0, phase ^= 1;
        }
        sgemm::wgmma_wait_group<0>();
        sgemm::mbarrier_arrive(&empty[pending]);  // the tile's last stage goes back: the producer runs ahead

        // [doc:gemm-epilogue]
        // Thread t holds rows r, r + 8 (r = 16 (t / 32) + (t % 32) / 4) and column pairs 8 j + 2 (t % 4):
        // one 2-byte store per pair (ldr is even; a pair's second column may be padding, never past the pitch).
        const int t = tid % 128;
        const int row = block_row + wg * kWgM + 16 * (t / 32) + (t % 32) / 4;
        std::uint8_t* plane = c_res + static_cast<std::size_t>(l) * M * ldr;
#pragma unroll
        for (int j = 0; j < kWgN / 8; ++j) {
            const int col = block_col + 8 * j + 2 * (t % 4);
            if (col >= N) continue;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = row + 8 * h;
                if (r >= M) continue;
                const int lo = m == 256 ? acc[4 * j + 2 * h] & 255 : mod_int32(acc[4 * j + 2 * h], m, magic, bias, r16);
                const int hi =
                    m == 256 ? acc[4 * j + 2 * h + 1] & 255 : mod_int32(acc[4 * j + 2 * h + 1], m, magic, bias, r16);
                *reinterpret_cast<std::uint16_t*>(plane + static_cast<std::size_t>(r) * ldr + col) =
                    static_cast<std::uint16_t>(lo | hi << 8);
            }
        }
    }
}

// [doc:reconstruct]
// ---- the reconstruction: C'_ij from its n residues r_l, as mixed-radix digits (Garner): C' =
// v_0 + m_0 (v_1 + m_1 (v_2 + ...)), digit v_l = (r_l - (v_0 + m_0 v_1 + ...)) (m_0 ... m_(l-1))^-1
// mod m_l, all in small integers, each v_l taken in [-m_l / 2, m_l / 2) so that the sum is the
// representative in [-M/2, M/2). Then one double: Horner from the top digit (the error is 2^-53
// of C'), times 2^-(shift_i + shift_j) (exact: a power of two within double's range), alpha and
// beta C0 added in double and one rounding to FP32.
template <int kN>
__device__ __forceinline__ double crt_value(const int (&r)[kN], const Crt& crt);

// [doc:crt-64]
// n = 8 (every K up to ~24000): the CRT sum S = sum_l r_l W_l < 8 2^8 M < 2^75 in two 64-bit halves
// (each sum_l r_l w_l < 2^43), its quotient q = floor(S / M) from a double (off by at most one: S / M
// < 2^11 is known to 2^-41), X = S - q M modulo 2^64 (exact: the true value lies within [-M, 2M) and
// M < 2^64), one correction, and the representative in [-M/2, M/2) as an int64. About 45 instructions
// an element where Garner's digits take ~150.
template <>
__device__ __forceinline__ double crt_value<8>(const int (&r)[8], const Crt& crt) {
    std::uint64_t lo = 0, hi = 0;
#pragma unroll
    for (int l = 0; l < 8; ++l) {
        lo += static_cast<std::uint64_t>(r[l]) * crt.w_lo[l];
        hi += static_cast<std::uint64_t>(r[l]) * crt.w_hi[l];
    }
    const double s = fma(static_cast<double>(hi), 0x1p32, static_cast<double>(lo));
    const std::uint64_t q = static_cast<std::uint64_t>(s * crt.inv_modulus);
    std::uint64_t x = (hi << 32) + lo - q * crt.modulus;  // S - q M modulo 2^64
    if (x >= ~std::uint64_t{0} - (std::uint64_t{1} << 40))
        x += crt.modulus;  // q was one too many
    else if (x >= crt.modulus)
        x -= crt.modulus;  // or one too few
    return static_cast<double>(x > crt.half ? static_cast<long long>(x - crt.modulus) : static_cast<long long>(x));
}

template <int kN>
__device__ __forceinline__ double crt_value(const int (&r)[kN], const Crt& crt) {
    int v[kN];
#pragma unroll
    for (int l = 0; l < kN; ++l) {
        int t = r[l];
#pragma unroll
        for (int j = 0; j < l; ++j) t -= v[j] * crt.prefix_mod[l][j];  // |t| < 2^20, |t inv| < 2^28
        const int d = mod_small(t * crt.inv_prefix[l], crt.m[l], crt.magic[l], crt.bias[l]);
        v[l] = 2 * d >= crt.m[l] ? d - crt.m[l] : d;
    }
    double x = 0;
#pragma unroll
    for (int l = kN - 1; l >= 0; --l) x = fma(x, crt.m_f64[l], static_cast<double>(v[l]));
    return x;
}

template <int kN>
__device__ __forceinline__ float reconstruct(const int (&r)[kN], const Crt& crt, int shift, float alpha, float beta,
                                             const float* c) {
    const double x = crt_value<kN>(r, crt) * __longlong_as_double(static_cast<long long>(1023 - shift) << 52);
    return static_cast<float>(beta == 0.0f ? double(alpha) * x : double(alpha) * x + double(beta) * *c);
}
// A thread per 4 consecutive elements of a row (one 4-byte load from each plane: a warp reads 128
// consecutive bytes): columns on x, rows on y.
template <int kN>
__global__ void __launch_bounds__(256)
    sgemm_14_ozaki_int8_reconstruct(int M, int N, Crt crt, const std::uint8_t* c_res, int ldr, const unsigned* a_max,
                                    const unsigned* b_max, float alpha, float beta, float* C, int ldc,
                                    const unsigned* flag) {
    sgemm::wait_prior_grid();
    sgemm::allow_next_grid();
    if (*flag != 0) return;  // the FP64 kernel computes C
    const std::size_t plane = static_cast<std::size_t>(M) * ldr;
    const int col = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (col >= N) return;
    int col_shift[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) col_shift[j] = col + j < N ? row_shift(b_max, col + j, crt.p) : 0;
    for (int row = blockIdx.y; row < M; row += gridDim.y) {
        const std::uint8_t* res = c_res + static_cast<std::size_t>(row) * ldr + col;  // 4-byte aligned: ldr % 128 == 0
        unsigned word[kN];
#pragma unroll
        for (int l = 0; l < kN; ++l) word[l] = *reinterpret_cast<const unsigned*>(res + l * plane);
        const int row_shift_i = row_shift(a_max, row, crt.p);
        const bool nonfinite_row = a_max[row] >= kNonFinite;
        float* c = C + static_cast<std::size_t>(row) * ldc + col;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            if (col + j >= N) break;
            int r[kN];
#pragma unroll
            for (int l = 0; l < kN; ++l) r[l] = (word[l] >> (8 * j)) & 0xFF;
            c[j] = nonfinite_row || b_max[col + j] >= kNonFinite
                ? __int_as_float(0x7fc00000)
                : reconstruct(r, crt, row_shift_i + col_shift[j], alpha, beta, c + j);
        }
    }
}

// ---- host side

using sgemm::align256;

// [doc:plan]
// How many moduli: p bits must keep the error of the fixed point near FP32's own rounding — 24 bits
// (as many as an FP32 significand) from K = 512 on, one more for each halving of K below (there the
// FP32 bound, (K + 2) u, is tight) — and the exact sums must fit: K 2^(2p) < M_n / 2. The smallest
// such n, and with it the largest p it allows (every bit M_n leaves goes to accuracy).
struct Plan {
    bool delegate = false;  // K < kMinIntK: step 12
    Crt crt;
};

double log2_moduli(int n) {
    double bits = 0;
    for (int l = 0; l < n; ++l) bits += std::log2(double(kModuli[l]));
    return bits;
}
int inverse_mod(long long a, int m) {  // a^-1 mod m, a coprime to m (m <= 256: a search is enough)
    a %= m;
    for (int x = 1; x < m; ++x)
        if (a * x % m == 1) return x;
    return 1;  // m == 1 never occurs
}

Plan plan(const sgemm::GemmArgs& a) {
    Plan p;
    if (a.K < kMinIntK) return {.delegate = true};
    const double log2k = std::log2(double(a.K));
    const int want = 24 + std::max(0, 9 - static_cast<int>(std::floor(log2k)));
    int n = 1;
    while (n < kMaxModuli && log2_moduli(n) - 1 - log2k <= 2.0 * want) ++n;
    Crt& c = p.crt;
    c.n = n;
    // The largest p with 2p < log2 M_n - 1 - log2 K (M_n is no power of two: never equal).
    c.p = static_cast<int>(std::ceil((log2_moduli(n) - 1 - log2k) / 2)) - 1;
    if (c.p > kMaxBits) throw std::logic_error("step 14: a fixed point of more than kMaxBits bits");
    for (int l = 0; l < n; ++l) {
        const int m = kModuli[l];
        c.m[l] = m;
        c.magic[l] = static_cast<unsigned>((std::uint64_t{1} << 32) / m);
        c.bias[l] = static_cast<unsigned>(m) << 23;
        c.m_f64[l] = m;
        c.r16[l] = 65536 % m;
        c.r24[l] = (1 << 24) % m;
        long long prefix = 1;  // m_0 ... m_(j-1) mod m_l
        for (int j = 0; j < l; ++j) {
            c.prefix_mod[l][j] = static_cast<int>(prefix);
            prefix = prefix * kModuli[j] % m;
        }
        c.inv_prefix[l] = l == 0 ? 1 : inverse_mod(prefix, m);
    }
    if (n == 8) {  // the 64-bit CRT sum's constants (crt_value<8>)
        using u128 = unsigned __int128;
        u128 M = 1;
        for (int l = 0; l < 8; ++l) M *= static_cast<u128>(kModuli[l]);
        for (int l = 0; l < 8; ++l) {
            const u128 ml = M / kModuli[l];
            const u128 w = ml * static_cast<u128>(inverse_mod(static_cast<long long>(ml % kModuli[l]), kModuli[l])) % M;
            c.w_lo[l] = static_cast<unsigned>(w), c.w_hi[l] = static_cast<unsigned>(w >> 32);
        }
        c.modulus = static_cast<std::uint64_t>(M);
        c.half = c.modulus / 2;
        c.inv_modulus = 1.0 / static_cast<double>(c.modulus);
    }
    return p;
}

constexpr int kBM = 128, kBN = 256, kBK = 128, kStages = 4, kGroupM = 8;

// Rows of the int8 planes start on 128-byte lines (sgemm::line_pitch): TMA needs a 16-byte pitch, but
// a 128-byte box row that straddles two lines costs two L2 transactions instead of one (and a warp's
// 128 bytes of C' likewise). int8 elements: the pitch in bytes.
long long pitch128(long long x) { return sgemm::line_pitch(x, 1); }

// The workspace: the residue planes of A (n x M x K) and B^T (n x N x K), of C' (n x M x ldr), the
// scan's statistics (M + N rows each) and the flag. Step 12's, when it computes the product, reuses it.
struct Workspace {
    std::int8_t *a = nullptr, *b = nullptr;
    std::uint8_t* c = nullptr;
    RowStats stats{};  // zeroed by each launch, with the flag after it
    unsigned* flag = nullptr;
    std::size_t stats_bytes = 0, bytes = 0;
};
Workspace carve(const sgemm::GemmArgs& a, const Crt& crt, std::uintptr_t base) {
    std::uintptr_t end = base;
    const auto take = [&](std::size_t bytes) { return std::exchange(end, end + align256(bytes)); };
    const std::size_t kp = pitch128(a.K), n = crt.n;
    Workspace w;
    w.a = reinterpret_cast<std::int8_t*>(take(n * a.M * kp));
    w.b = reinterpret_cast<std::int8_t*>(take(n * a.N * kp));
    w.c = reinterpret_cast<std::uint8_t*>(take(n * a.M * pitch128(a.N)));
    const std::size_t rows = std::size_t(a.M) + a.N;
    const std::uintptr_t stats = end;
    w.stats.exponent_sum = reinterpret_cast<unsigned long long*>(take(sizeof(unsigned long long) * rows));
    w.stats.max_bits = reinterpret_cast<unsigned*>(take(sizeof(unsigned) * rows));
    w.stats.nonzeros = reinterpret_cast<unsigned*>(take(sizeof(unsigned) * rows));
    w.flag = reinterpret_cast<unsigned*>(take(sizeof(unsigned)));
    w.stats_bytes = end - stats;
    w.bytes = end - base;
    return w;
}

// Blocks along K that make 8 blocks an SM over `across` blocks across, at least `least`, at most `most`.
int blocks_to_fill(long long across, long long least, long long most) {
    const long long fill = (8ll * sgemm::gpu_at_hand().sms + across - 1) / across;
    return static_cast<int>(std::min(most, std::max(least, fill)));
}
// The scans' grids along K. A row scan's warp takes a range of at least 512 floats (two batches of 8
// loads a lane). A column scan keeps at least 64 blocks down K and fills the GPU when the columns are few:
// with 22 columns, 1 x 64 blocks took 772 us at K = 127042, each thread waiting on ~2000 loads in turn.
int scan_row_blocks(int rows, int k) {
    return blocks_to_fill(sgemm::ceil_div(rows, kScanRowsWarps), 1,
                          std::min(65535, std::max(1, sgemm::ceil_div(k, 512))));
}
int scan_col_blocks(int cols, int k_rows) {
    return blocks_to_fill(sgemm::ceil_div(cols, 256), std::min(64, k_rows), std::min(65535, k_rows));
}

// Scans op(A)'s rows (maxima [0, M)) and op(B)'s columns ([M, M + N)) as rows of their K-major copies.
// A's scan follows the memset (an ordinary launch); every later kernel is chained.
void scan(const sgemm::GemmArgs& a, const Workspace& w, cudaStream_t stream) {
    const bool a_t = a.op_a == sgemm::Op::kT, b_t = a.op_b == sgemm::Op::kT;
    auto rows = [&](const float* src, int ld, int count, bool k_major, int first, auto launch) {
        const RowStats st{w.stats.max_bits + first, w.stats.exponent_sum + first, w.stats.nonzeros + first};
        if (k_major) {
            const int k_blocks = scan_row_blocks(count, a.K);
            launch(sgemm_14_ozaki_int8_scan_rows, dim3(sgemm::ceil_div(count, kScanRowsWarps), k_blocks),
                   dim3(32 * kScanRowsWarps), 0, stream, count, a.K, src, ld, sgemm::ceil_div(a.K, k_blocks), st);
        } else {
            launch(sgemm_14_ozaki_int8_scan_cols, dim3(sgemm::ceil_div(count, 256), scan_col_blocks(count, a.K)),
                   dim3(256), 0, stream, a.K, count, src, ld, st);
        }
    };
    rows(a.A, a.lda, a.M, !a_t, 0, [](auto&&... x) { sgemm::launch_checked(x...); });
    rows(a.B, a.ldb, a.N, b_t, a.M, [](auto&&... x) { sgemm::launch_chained(x...); });
    const int all = a.M + a.N;
    sgemm::launch_chained(sgemm_14_ozaki_int8_verdict, dim3(sgemm::ceil_div(all, 256)), dim3(256), 0, stream, all,
                          w.stats, w.flag);
}

// The pre-pass and the reconstruction loop over the moduli: compiled for each count plan() can ask for
// (8 from K = 22 to 2^12 or so, up to 11 at K = 2^31), the loops unrolled without a test per modulus.
constexpr int kMinN = 8, kMaxN = 11;
template <typename F>
void with_moduli(int n, F&& f) {
    switch (n) {
        case 8: return f(std::integral_constant<int, 8>{});
        case 9: return f(std::integral_constant<int, 9>{});
        case 10: return f(std::integral_constant<int, 10>{});
        case 11: return f(std::integral_constant<int, 11>{});
        default: throw std::logic_error("step 14: a plan with " + std::to_string(n) + " moduli");
    }
}
static_assert(kMaxN <= kMaxModuli && kMaxN - kMinN == 3, "with_moduli() has a case for each count");

void residues(bool transpose, int rows, int K, const float* src, int ld, const unsigned* max_bits, const Crt& crt,
              std::int8_t* dst, const unsigned* flag, cudaStream_t stream) {
    const long long kp = pitch128(K), plane = rows * kp;
    const dim3 grid(sgemm::ceil_div(rows, kResRows), std::min(sgemm::ceil_div(K, kResK), sgemm::kMaxGridY));
    with_moduli(crt.n, [&](auto n) {
        auto* kernel = transpose ? sgemm_14_ozaki_int8_residues<true, n> : sgemm_14_ozaki_int8_residues<false, n>;
        sgemm::launch_chained(kernel, grid, dim3(kResThreads), 0, stream, rows, K, src, ld, max_bits, crt, dst, kp,
                              plane, flag);
    });
}

const sgemm::StepEntry& step12() { return sgemm::tf32x3_wgmma_entry(); }

// The FP64 kernel, last in the chain: it computes C only if the verdict's flag is set. As many blocks
// as fit on the GPU at once, each looping over tiles.
void launch_fp64(const sgemm::GemmArgs& a, const unsigned* flag, cudaStream_t stream) {
    // Blocks per SM: asked once (every GPU this kernel runs on is an sm_90a part with the same SM).
    static const int per_sm = [] {
        int n = 0;
        sgemm::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, sgemm_14_ozaki_int8_fp64, kFp64Threads, 0));
        return n;
    }();
    const long long tiles = sgemm::tile_total(a.M, a.N, kFp64Tile, kFp64Tile);
    const dim3 grid(static_cast<unsigned>(std::min<long long>(tiles, std::max(1, per_sm) * sgemm::gpu_at_hand().sms)));
    sgemm::launch_chained(sgemm_14_ozaki_int8_fp64, grid, dim3(kFp64Threads), 0, stream, a.M, a.N, a.K, a.alpha, a.beta,
                          a.A, a.lda, a.op_a == sgemm::Op::kT, a.B, a.ldb, a.op_b == sgemm::Op::kT, a.C, a.ldc, flag);
}

struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* workspace, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        const Plan p = plan(args);
        if (p.delegate) return step12().launch(args, workspace, stream);
        const Workspace w = carve(args, p.crt, reinterpret_cast<std::uintptr_t>(workspace));
        // [doc:launch-sequence]
        // Everything queued at once, nothing read back: the scan and its verdict, the int8 path (which
        // returns at once if the verdict hands the inputs to the FP64 kernel) and the FP64 kernel
        // (which returns at once if not). The launches are chained (programmatic dependent launch:
        // a kernel's blocks become resident while the one before runs) except the first after the
        // memset and the GEMM: with the persistent GEMM chained too, the call took 1.4-1.6x as long at
        // 8192^3 (H100; each kernel as fast as before in isolation), so the GEMM starts on an idle GPU.
        sgemm::check(cudaMemsetAsync(w.stats.exponent_sum, 0, w.stats_bytes, stream));  // the statistics and the flag
        scan(args, w, stream);

        const bool a_t = op_a == sgemm::Op::kT, b_t = op_b == sgemm::Op::kT;
        residues(a_t, M, K, A, lda, w.stats.max_bits, p.crt, w.a, w.flag, stream);
        residues(!b_t, N, K, B, ldb, w.stats.max_bits + M, p.crt, w.b, w.flag, stream);

        using Box = Boxes<kBM, kBN, kBK>;
        const long long kp = pitch128(K);
        const CUtensorMap a_map = sgemm::make_tensor_map_2d(w.a, p.crt.n * static_cast<long long>(M), K, kp, Box::a,
                                                            CU_TENSOR_MAP_SWIZZLE_128B);
        const CUtensorMap b_map = sgemm::make_tensor_map_2d(w.b, p.crt.n * static_cast<long long>(N), K, kp, Box::b,
                                                            CU_TENSOR_MAP_SWIZZLE_128B);
        auto* kernel = sgemm_14_ozaki_int8<kBM, kBN, kBK, kStages, kGroupM>;
        constexpr int smem = smem_bytes(kBM, kBN, kBK, kStages);
        sgemm::allow_dynamic_smem(kernel, smem);
        const int ldr = static_cast<int>(pitch128(N));
        // Persistent: one block per SM (its shared memory allows no second), each looping over items.
        const long long items = sgemm::tile_total(M, N, kBM, kBN) * p.crt.n;
        const dim3 grid(static_cast<unsigned>(std::min<long long>(items, sgemm::gpu_at_hand().sms)));
        sgemm::launch_checked(kernel, grid, dim3(2 * 128 + kProducerThreads), smem, stream, M, N, K, p.crt, w.c, ldr,
                              w.flag, a_map, b_map);
        const dim3 rec_grid(sgemm::ceil_div(N, 4 * 256), std::min(M, sgemm::kMaxGridY));
        with_moduli(p.crt.n, [&](auto n) {
            sgemm::launch_chained(sgemm_14_ozaki_int8_reconstruct<n>, rec_grid, dim3(256), 0, stream, M, N, p.crt, w.c,
                                  ldr, w.stats.max_bits, w.stats.max_bits + M, alpha, beta, C, ldc, w.flag);
        });
        launch_fp64(args, w.flag, stream);
        // [/doc:launch-sequence]
    }

    static std::string describe(const sgemm::GemmArgs& args) {
        const Plan p = plan(args);
        if (p.delegate) return "K < " + std::to_string(kMinIntK) + ": step 12 (" + step12().describe(args) + ")";
        return std::to_string(p.crt.n) + " moduli (" + std::to_string(p.crt.p) + "-bit fixed point, M_n ~ 2^" +
            std::to_string(static_cast<int>(log2_moduli(p.crt.n))) + " > 2 K 2^" + std::to_string(2 * p.crt.p) + "), " +
            std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) +
            " int8 tile, 2 warpgroups of wgmma m64n256k32 s8, " + std::to_string(kStages) +
            " TMA stages; rows whose mean exponent lies > " + std::to_string(kMaxMeanGap) +
            " below their largest: FP64 dot products";
    }

    static std::string can_implement(const sgemm::GemmArgs& a) {
        if (a.K < kMinIntK) return step12().can_implement(a);
        if (sgemm::tile_total(a.M, a.N, kBM, kBN) * kMaxModuli > INT_MAX) return "more than 2^31 - 1 blocks";
        if (std::string why = step12().can_implement(a); !why.empty()) return why;  // the fallback must run too
        return "";
    }

    static std::size_t workspace_bytes(const sgemm::GemmArgs& a) {
        const Plan p = plan(a);
        const std::size_t fallback = step12().workspace_bytes(a);
        return p.delegate ? fallback : std::max(fallback, carve(a, p.crt, 0).bytes);
    }
};

// [doc:model]
// Step 14's time on a shape, as step 13's planner weighs it: its nine kernels (memset, two scans, the
// verdict, two pre-passes, the GEMM, the reconstruction and the FP64 kernel's check), each
// kKernelSeconds beyond its work (ncu on an H100: the kernels with nothing to do take 3.0-4.7 us); the
// scans and the pre-passes at the DRAM rates they reach on an H100 at 4096^3 (ncu: 1.26 and 1.67 TB/s
// of 3.35, fractions 0.37 and 0.50 of the peak); the GEMM: waves of (tile, modulus) items, each its
// k-tiles at the int8 peak plus a fixed cost per item (the epilogue, the pipeline's refill: 12700 SM
// cycles, what Nsight Compute's active cycles per item leave beyond the k-tiles at the peak on an
// H100, at 4096^3 and at 21157 x 8110 x 671 alike), at the clock the GPU holds under this load
// (kGemmClockFraction of the max: ncu 1.61 GHz at 8192^3, 1.78 at 4096^3, 1.75-1.83 on smaller
// shapes, of 1.98), and the n M N bytes of C' it writes; the reconstruction at 1.4 SM cycles per
// element for n = 8, growing with n^2 beyond (Garner), or its bytes (n read, 4 or 8 written) at
// kReconstructDramFraction of the peak if more (ncu: 0.49 at 4096^3, 0.53 at 8192^3). Inputs that go
// to the FP64 kernel (rows whose mean exponent lies more than kMaxMeanGap below their largest) are
// not foreseen: the model is that of in-range data.
constexpr double kScanDramFraction = 0.37, kResidueDramFraction = 0.50, kReconstructDramFraction = 0.50;
constexpr double kItemCycles = 12700, kReconstructCycles = 1.4, kGemmClockFraction = 0.85;
constexpr double kKernelSeconds = 4e-6;
constexpr int kKernels = 9;

double model_seconds(const sgemm::GemmArgs& a) {
    const Plan p = plan(a);
    if (p.delegate) return step12().model_seconds(a);
    const sgemm::GpuAtHand& g = sgemm::gpu_at_hand();
    struct {
        int sms;
        double clock, int8, dram;  // SM Hz; int8 OP/s of one SM at its peak; DRAM peak bytes/s
    } const r{g.sms, g.sm_clock_hz, sgemm::int8_tensor_peak_ops(g.cc, g.sms, g.sm_clock_hz) / g.sms,
              sgemm::dram_peak_bytes_per_s(g.mem_clock_hz, g.bus_bits)};
    const double n = p.crt.n, mk = double(a.M) * a.K, kn = double(a.K) * a.N, mn = double(a.M) * a.N;
    const double scan = 4 * (mk + kn) / (r.dram * kScanDramFraction);
    const double residues = (4 + n) * (mk + kn) / (r.dram * kResidueDramFraction);
    const double waves = std::ceil(double(sgemm::tile_total(a.M, a.N, kBM, kBN)) * n / r.sms);
    const double item =
        (2.0 * kBM * kBN * kBK * sgemm::ceil_div(a.K, kBK) / r.int8 + kItemCycles / r.clock) / kGemmClockFraction;
    const double c_residues = n * mn / (r.dram * sgemm::kStreamDramFraction);  // the GEMM's writes of C'

    const double reconstruct = std::max(mn * kReconstructCycles * (n / 8) * (n / 8) / (r.sms * r.clock),
                                        (n + 4 * (a.beta == 0.0f ? 1 : 2)) * mn / (r.dram * kReconstructDramFraction));
    return kKernels * kKernelSeconds + scan + residues + waves * item + c_residues + reconstruct;
}
// [/doc:model]

}  // namespace

const sgemm::StepEntry& sgemm::ozaki_int8_entry() {
    static const StepEntry entry{Gemm::launch, Gemm::workspace_bytes, Gemm::describe, Gemm::can_implement,
                                 model_seconds};
    return entry;
}

static const sgemm::Registration registration{
    Gemm{},
    {.number = 14,
     .name = "ozaki_int8",
     .idea = "FP32 from exact integer products: Ozaki scheme II, int8 residues modulo n coprime moduli "
             "multiplied on wgmma, the Chinese remainder theorem, one rounding",
     .requirements = {.min_cc = 90, .needs_sm90a = true},
     .precision = sgemm::Precision::kFp32ViaTensorCores,
     .gemm_function = "sgemm_14_ozaki_int8",
     .sass = {.functions = "sgemm_14_ozaki_int8", .required = {"IGMMA.S8"}},
     .any_layout = true,
     .composes = {12}}};
