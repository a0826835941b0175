// Step 10: every shape. Step 09's mainloop is fast only where its one 128 x 256 tile fills the
// GPU: 4096^3 has 512 tiles for 132 SMs, 1024^3 has 32 and 256 x 256 x 16384 has 2. Like cuBLAS,
// step 10 chooses per shape, from a small fixed family compiled from ONE templated mainloop
// (step 09's, with runtime leading dimensions and a k-range per block):
//  * smaller block tiles (128 x 128, 128 x 64, 64 x 128, 64 x 64: fewer 64 x 64 warps per block,
//    more blocks per SM) when there are too few tiles to fill the SMs;
//  * split-K: S blocks per output tile over disjoint K ranges write partial tiles to a workspace;
//    a second kernel adds the S partials in a fixed order and applies alpha/beta (bit-identical
//    run to run). Either every tile is split (few tiles, deep K), or only the tiles of the last,
//    partial round of blocks are ("tail" split: the partial round of 3000^3 runs in 1/5 of the time);
//  * a heuristic that picks the tile and the split from a model of the machine: blocks per SM from
//    shared memory, threads and registers; rounds of blocks; warps per SM; the split's extra traffic;
//  * GEMV kernels for N == 1 and M == 1, where a 64-wide tile would waste 63/64 of its FMAs.
// sgemm_runner --tune times every candidate against the pick. See docs/kernels/10_every_shape.md.
#include "common/check.h"
#include "common/registry.h"
#include "common/tile.cuh"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

constexpr int kPad = 4;  // As row padding: conflict-free transposed copies, rows stay 16-byte aligned

// Dynamic shared memory of one block: STAGES x (As[BK][BM + kPad] + Bs[BK][BN]) floats.
constexpr int smem_bytes(int BM, int BN, int BK, int STAGES) {
    return STAGES * (BK * (BM + kPad) + BK * BN) * static_cast<int>(sizeof(float));
}

// What one launch of the tile kernel computes. Blocks 0 .. dp_tiles - 1 each compute a whole tile
// (all of K) and write C, as in step 09 ("data-parallel" blocks). The sk_tiles * splits blocks after
// them compute tiles dp_tiles .. dp_tiles + sk_tiles - 1 in `splits` K ranges of k_per_split each
// (a multiple of BK) and write unscaled partial tiles to `partials`:
//   partials[(split * sk_tiles + t) * BM * BN + r * BN + c], t = tile - dp_tiles, (r, c) in the tile,
// dense and 16-byte aligned whatever C's shape, so a block stores its partial tile unchecked.
struct TileParams {
    int M, N, K;
    float alpha, beta;
    const float* A;
    int lda;
    const float* B;
    int ldb;
    float* C;
    int ldc;
    bool b_vec;  // B's rows are 16-byte aligned: float4 copies of B
    bool c_vec;  // C's rows are 16-byte aligned: float4 stores to C
    int dp_tiles, sk_tiles, splits, k_per_split;
    float* partials;
};

// Threadblock rasterization (step 09's, as a function: the reduction kernel needs it too): tile
// index -> first row and column of its C tile, in groups of group_m tile-rows, column by column.
struct TileOrigin {
    int row, col;
};
__host__ __device__ __forceinline__ TileOrigin tile_origin(int tile, int tiles_m, int tiles_n, int group_m, int bm,
                                                           int bn) {
    const int group = tile / (group_m * tiles_n);
    const int rows_after = tiles_m - group * group_m;
    const int group_rows = group_m < rows_after ? group_m : rows_after;  // the last group may be shorter
    const int in_group = tile % (group_m * tiles_n);
    return {(group * group_m + in_group % group_rows) * bm, in_group / group_rows * bn};
}

// The mainloop is step 09's; what changed is marked "step 10". Row, column and k indices are kept
// relative to the block's tile and k-tile (compared against rows_left = M - row0 etc.), so that no
// index ever exceeds M, N or K: M may be 2^31 - 1, where row0 + BM would overflow an int.
// kBVec: B's rows are 16-byte aligned (float4 copies). kSplit: some blocks compute a K range into
// the workspace (params.sk_tiles > 0). Template parameters, not run-time flags: this kernel is
// bound by instruction issue, and code for a path not taken changes how ptxas schedules the
// mainloop (both paths in one loop carried ~100 more integer instructions per k-tile).
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int TM, int TN, int STAGES, int GROUP_M,
          bool kBVec, bool kSplit>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, sgemm::min_blocks_per_sm((BM / WM) * (BN / WN) * 32, TM * TN))
    sgemm_10_every_shape_tile(const TileParams params) {
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
    static_assert(BK % 8 == 0 && BM % kARows == 0,
                  "A is copied in 8-float row pieces (one 32-byte sector per 8 lanes; with kPad = 4 their "
                  "transposed stores hit 32 different banks), and the passes cover the A tile evenly");
    constexpr bool kBFewCopies = BK * BN / 4 < kThreads;  // step 10: a narrow tile, fewer B float4s than threads
    static_assert(BN % 4 == 0 && kThreads % (BN / 4) == 0 && (kBFewCopies || BK % (kThreads / (BN / 4)) == 0),
                  "one pass of the block copies whole rows of the B tile as float4s (the first BK * BN / 4 "
                  "threads when the tile holds fewer float4s than there are threads), and the passes cover it evenly");
    static_assert((kThreads % BN == 0 || BN % kThreads == 0) && BK * BN % kThreads == 0,
                  "step 10: unaligned B is copied one float per copy, consecutive threads on consecutive columns; "
                  "a copy's row and column offsets must then be the same for every thread");
    static_assert(BM * BN % (4 * 256) == 0, "step 10: the reduction covers a split tile with whole blocks of 256 x 4 outputs");
    static_assert(BK >= 2, "the fragment pipeline switches stages at k = BK - 1, after reading k = BK - 1");
    static_assert(STAGES >= 3, "STAGES - 1 >= 2 k-tiles in flight; with 2 stages step 08's register staging does as well");
    static_assert(GROUP_M >= 1, "GROUP_M tile-rows per rasterization group; 1 is plain row-major order");
    constexpr int kBRowsPerPass = kThreads / (BN / 4);
    constexpr int kBLoads = kBFewCopies ? 1 : BK * BN / (4 * kThreads);  // B float4s each thread copies per k-tile
    constexpr int kBScalarLoads = BK * BN / kThreads;  // step 10: B floats per thread per k-tile when unaligned

    extern __shared__ float4 smem[];  // smem_bytes(BM, BN, BK, STAGES), opted into once per device
    auto As = reinterpret_cast<float (*)[BK][BM + kPad]>(smem);  // STAGES stages; transposed: As[s][k][m] = A[m][k]
    auto Bs = reinterpret_cast<float (*)[BK][BN]>(&As[STAGES][0][0]);

    // Kernel parameters into registers (the lambdas below capture by reference).
    const int M = params.M, N = params.N, K = params.K, lda = params.lda, ldb = params.ldb, ldc = params.ldc;
    const float alpha = params.alpha, beta = params.beta;
    const float *A = params.A, *B = params.B;
    const bool b_vec = params.b_vec, c_vec = params.c_vec;

    const int tid = threadIdx.x;
    // step 10: which tile and which K range. Data-parallel blocks come first in blockIdx order, so
    // they are scheduled first and the short split blocks fill the last round. Split blocks are
    // split-major: neighbouring blocks compute neighbouring tiles over the same K range (L2 reuse).
    int tile = blockIdx.x, split = 0;
    const bool to_workspace = kSplit && tile >= params.dp_tiles;
    if (to_workspace) {
        const int r = tile - params.dp_tiles;
        tile = params.dp_tiles + r % params.sk_tiles;
        split = r / params.sk_tiles;
    }
    const int k_begin = to_workspace ? split * params.k_per_split : 0;
    const int k_end = to_workspace ? k_begin + min(params.k_per_split, K - k_begin) : K;  // no overflow near 2^31
    const TileOrigin origin =
        tile_origin(tile, sgemm::ceil_div(M, BM), sgemm::ceil_div(N, BN), GROUP_M, BM, BN);
    const int rows_left = M - origin.row, cols_left = N - origin.col;  // >= 1: rows / columns of C in this tile
    const float* A_tile = A + static_cast<size_t>(origin.row) * lda;   // 64-bit offsets, once
    const float* B_tile = B + origin.col;
    float* C_tile = params.C + static_cast<size_t>(origin.row) * ldc + origin.col;

    const int warp = tid / 32, lane = tid % 32;
    const int warp_row = warp / kWarpsN * WM, warp_col = warp % kWarpsN * WN;
    const int lane_row = lane / kLanesN * kLaneTM, lane_col = lane % kLanesN * kLaneTN;
    // What this thread copies into shared memory: the floats (a_row + p * kARows, a_col + 8 * q) of
    // the A tile, one by one; the float4s (b_row + p * kBRowsPerPass, b_col .. b_col + 3) of the B
    // tile when B is aligned, otherwise the floats (bs_row, bs_col) + element p * kThreads of the tile.
    const int a_row = tid / 8, a_col = tid % 8;
    const int b_row = tid / (BN / 4), b_col = tid % (BN / 4) * 4;
    const int bs_row = tid / BN, bs_col = tid % BN;
    const bool b_copier = !kBFewCopies || tid < BK * BN / 4;  // compile-time true but for narrow tiles

    // Uniform per block: interior tiles never test an index against M or N (step 10: also when B or
    // C is unaligned; the alignment only chooses the copy and store width).
    const bool interior = rows_left >= BM && cols_left >= BN;

    float acc[TM][TN] = {};
    float a_frag[2][TM];  // double-buffered: the fragments of k + 1 load while those of k feed the FMAs
    float b_frag[2][TN];

    // ---- global -> shared memory, asynchronously (cp.async: LDGSTS). One uniform branch per
    // k-tile: full tiles copy without predicates; edge tiles copy 0 source bytes (zero-fill)
    // outside A and B. step 10: unaligned B rows are copied in 4-byte pieces on both paths,
    // consecutive threads on consecutive columns (coalesced; step 09 copied them 4 per thread).
    auto load_tile_async = [&](int stage, int k0) {
        const int k_left = k_end - k0;  // >= 1
        if (interior && k_left >= BK) {
            // One 64-bit base per operand and k-tile; the copies add row offsets (multiples of lda, ldb) to it.
            const float* a_src = A_tile + static_cast<size_t>(a_row) * lda + k0 + a_col;
#pragma unroll
            for (int p = 0; p < BM / kARows; ++p)
#pragma unroll
                for (int q = 0; q < BK / 8; ++q)
                    sgemm::cp_async4(&As[stage][a_col + 8 * q][a_row + p * kARows],
                                     a_src + static_cast<size_t>(p * kARows) * lda + 8 * q, 4);
            if constexpr (kBVec) {
                const float* b_src = B_tile + static_cast<size_t>(k0 + b_row) * ldb + b_col;
#pragma unroll
                for (int p = 0; p < kBLoads; ++p)
                    if (b_copier)
                        sgemm::cp_async16(&Bs[stage][b_row + p * kBRowsPerPass][b_col],
                                          b_src + static_cast<size_t>(p * kBRowsPerPass) * ldb, 16);
            } else {
                const float* b_src = B_tile + static_cast<size_t>(k0 + bs_row) * ldb + bs_col;
#pragma unroll
                for (int p = 0; p < kBScalarLoads; ++p) {
                    constexpr int kStep = kThreads;  // element p * kThreads of the tile, row-major
                    const int dr = p * kStep / BN, dc = p * kStep % BN;
                    sgemm::cp_async4(&Bs[stage][bs_row + dr][bs_col + dc], b_src + static_cast<size_t>(dr) * ldb + dc,
                                     4);
                }
            }
        } else {
#pragma unroll
            for (int p = 0; p < BM / kARows; ++p)
#pragma unroll
                for (int q = 0; q < BK / 8; ++q) {
                    const int m = a_row + p * kARows, k = a_col + 8 * q;  // in the tile, in the k-tile
                    const bool in = m < rows_left && k < k_left;  // outside A: copy nothing, zero-fill
                    sgemm::cp_async4(&As[stage][k][m], in ? A_tile + static_cast<size_t>(m) * lda + k0 + k : A,
                                     in ? 4 : 0);
                }
            // Edge tiles copy B as step 09 does: four floats a thread, one zero-filling 16-byte copy of
            // the 0 .. 4 floats inside B (N need not be a multiple of 4 when ldb is) or four 4-byte ones.
            // (This path is rare; written as step 09's, ptxas schedules the mainloop as step 09's.)
#pragma unroll
            for (int p = 0; p < kBLoads && b_copier; ++p) {
                const int k = b_row + p * kBRowsPerPass;
                float* dst = &Bs[stage][k][b_col];
                const float* src = B_tile + static_cast<size_t>(k0 + k) * ldb + b_col;
                if (b_vec) {
                    const int n_in = k < k_left ? max(0, min(4, cols_left - b_col)) : 0;
                    sgemm::cp_async16(dst, n_in > 0 ? src : B, 4 * n_in);
                } else {
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        const bool in = k < k_left && b_col + j < cols_left;
                        sgemm::cp_async4(dst + j, in ? src + j : B, in ? 4 : 0);
                    }
                }
            }
        }
    };
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

    // ---- prologue: start k-tiles 0 .. STAGES - 2 of this block's K range, one commit group each
    // (committed even when empty, so that group g always belongs to k-tile g and the wait counts
    // below hold for any K). step 10: the range is [k_begin, k_end), never empty (see make_tile_plan).
    const int num_k_tiles = sgemm::ceil_div(k_end - k_begin, BK);
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < num_k_tiles) load_tile_async(s, k_begin + s * BK);
        sgemm::cp_async_commit();
    }
    sgemm::cp_async_wait<STAGES - 2>();  // at most STAGES - 2 groups pending: k-tile 0 has landed
    __syncthreads();                     // ... for every thread's copies
    load_fragments(0, 0, 0);

    // ---- mainloop: compute k-tile kt from stage `read_stage` while k-tiles kt + 1 ..
    // kt + STAGES - 1 are in flight.
    int read_stage = 0, write_stage = STAGES - 1;
    for (int kt = 0; kt < num_k_tiles; ++kt) {
        const bool has_next = kt + 1 < num_k_tiles;  // uniform across the block
        // Refill the stage computed on during k-tile kt - 1 (every thread has passed the barrier
        // behind its last read) with k-tile kt + STAGES - 1. Group kt + STAGES - 1, maybe empty.
        if (kt + STAGES - 1 < num_k_tiles) load_tile_async(write_stage, k_begin + (kt + STAGES - 1) * BK);
        sgemm::cp_async_commit();
        write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k == BK - 1 && has_next) {
                // Every fragment of this stage has been read (the last, k = BK - 1, one step ago).
                // kt + STAGES groups are committed; waiting until at most STAGES - 2 are pending
                // means groups 0 .. kt + 1 are complete: k-tile kt + 1 has landed. The barrier
                // makes it visible to all threads and frees this stage for the refill at kt + 1.
                sgemm::cp_async_wait<STAGES - 2>();
                __syncthreads();
                read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
            }
            // Fragments of k + 1 (of the next k-tile's k = 0 at the end) while the FMAs of k run.
            load_fragments((k + 1) % 2, read_stage, (k + 1) % BK);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[k % 2][i] * b_frag[k % 2][j];
        }
    }

    // ---- epilogue. step 10: a split block stores its unscaled partial tile, whole and unchecked
    // (rows and columns outside C hold zeros: their copies were zero-filled); a data-parallel block
    // writes C = alpha * acc + beta * C as in step 09, unchecked in interior tiles of an aligned C.
    float* partial = to_workspace
                         ? params.partials + (static_cast<size_t>(split) * params.sk_tiles + (tile - params.dp_tiles)) * (BM * BN)
                         : nullptr;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = warp_row + (i / kLaneTM) * kSubM + lane_row + i % kLaneTM;  // in the tile
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const int col = warp_col + (j / kLaneTN) * kSubN + lane_col + j % kLaneTN;
            const float4 out = make_float4(acc[i][j + 0], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            if (to_workspace)
                *reinterpret_cast<float4*>(&partial[row * BN + col]) = out;
            else if (interior && c_vec)
                sgemm::store_c4_unchecked(C_tile, ldc, row, col, out, alpha, beta);
            else
                sgemm::store_c4(C_tile, ldc, row, col, rows_left, cols_left, out, alpha, beta, c_vec);
        }
    }
}

// step 10: the split-K reduction. One thread per 4 consecutive outputs of a split tile adds the
// partials of splits 0, 1, ..., S - 1 in this order, always: the sum of an output does not depend
// on which block finished first, so the result is bit-identical run to run (float atomics would
// add in arrival order). Then C = alpha * sum + beta * C (beta == 0: C is not read). Memory-bound:
// it reads S * sk_tiles * BM * BN * 4 bytes, most of them still in L2 right after the tile kernel.
__global__ void __launch_bounds__(256) sgemm_10_every_shape_reduce(const TileParams p, int bm, int bn, int group_m) {
    // Grid: bm * bn / 1024 blocks per split tile (a multiple of 256 quads per tile), 32-bit indices only.
    const int blocks_per_tile = bm * bn / (4 * 256);
    const int t = blockIdx.x / blocks_per_tile;                                    // split tile dp_tiles + t
    const int e = (blockIdx.x % blocks_per_tile * 256 + threadIdx.x) * 4;          // first of 4 floats in it
    const int row = e / bn, col = e % bn;                                          // in the tile
    const TileOrigin origin =
        tile_origin(p.dp_tiles + t, sgemm::ceil_div(p.M, bm), sgemm::ceil_div(p.N, bn), group_m, bm, bn);
    const int rows_left = p.M - origin.row, cols_left = p.N - origin.col;
    if (row >= rows_left || col >= cols_left) return;  // padding of an edge tile: nothing to write
    const size_t split_stride = static_cast<size_t>(p.sk_tiles) * bm * bn;  // floats between splits
    const float* src = p.partials + static_cast<size_t>(t) * bm * bn + e;
    float4 sum = *reinterpret_cast<const float4*>(src);
    for (int s = 1; s < p.splits; ++s) {
        const float4 v = *reinterpret_cast<const float4*>(src + s * split_stride);
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    }
    float* C_tile = p.C + static_cast<size_t>(origin.row) * p.ldc + origin.col;
    sgemm::store_c4(C_tile, p.ldc, row, col, rows_left, cols_left, sum, p.alpha, p.beta, p.c_vec);
}

// step 10: N == 1, y = alpha * A x + beta * y (x: B's column, stride ldb; y: C's column, stride ldc).
// Memory-bound on A. LPR lanes per row (a power of two, 1 .. 32, chosen from K) read the row
// coalesced, as float4s when A's rows are 16-byte aligned; each lane sums its elements in k order
// and the LPR lanes add up with a fixed butterfly of shuffles: deterministic. x (K floats) is
// read by every row and stays in L1/L2.
template <int LPR>
__global__ void __launch_bounds__(256) sgemm_10_every_shape_gemv_n1(int M, int K, float alpha, const float* A, int lda,
                                                                    const float* x, int incx, float beta, float* y,
                                                                    int incy, bool a_vec) {
    static_assert(LPR >= 1 && LPR <= 32 && (LPR & (LPR - 1)) == 0, "a row's lanes are a power-of-two part of a warp");
    constexpr int kRowsPerBlock = 256 / LPR;
    const long long row = static_cast<long long>(blockIdx.x) * kRowsPerBlock + threadIdx.x / LPR;  // M <= 2^31 - 1
    const int lane = threadIdx.x % LPR;
    float sum = 0.0f;
    if (row < M) {  // no early return: every lane of the warp takes part in the shuffles below
        const float* a = A + row * lda;
        long long k = 0;  // 64-bit: k + 4 * LPR must not overflow for K near 2^31
        if (a_vec) {
            const long long k4_end = K / 4 * 4;
#pragma unroll 4
            for (k = 4 * lane; k < k4_end; k += 4 * LPR) {
                const float4 v = *reinterpret_cast<const float4*>(a + k);
                sum += v.x * x[k * incx];
                sum += v.y * x[(k + 1) * incx];
                sum += v.z * x[(k + 2) * incx];
                sum += v.w * x[(k + 3) * incx];
            }
            k = k4_end;
        }
#pragma unroll 4
        for (k += lane; k < K; k += LPR) sum += a[k] * x[k * incx];
    }
#pragma unroll
    for (int offset = LPR / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (row < M && lane == 0) {
        float* out = y + row * incy;
        *out = sgemm::scale(sum, alpha, beta, out);
    }
}

// step 10: M == 1, y = alpha * x B + beta * y (x: A's row, y: C's row). Memory-bound on B. A block
// owns 8 * VEC columns; its 32 k-groups (8 lanes each) stream rows k = g, g + 32, ... of B
// (VEC = 4: float4s, when B's rows are 16-byte aligned), each thread summing in k order; then the 32
// partial sums of a column are added in group order through shared memory: deterministic.
// With gridDim.y = S > 1 the K rows are split into S ranges of k_chunk (a multiple of 32): block
// row s writes its sums to partials[s * N + n] and sgemm_10_every_shape_gemv_m1_reduce adds the S
// partials of each column in order s = 0, 1, ... (deterministic). 4096 columns are only 128 blocks
// of 32 columns: the split gives the 132 SMs enough loads in flight to stream B at full bandwidth.
template <int VEC>
__global__ void __launch_bounds__(256) sgemm_10_every_shape_gemv_m1(int N, int K, float alpha, const float* x,
                                                                    const float* B, int ldb, float beta, float* y,
                                                                    int k_chunk, float* partials) {
    constexpr int kColLanes = 8, kGroups = 256 / kColLanes, kCols = kColLanes * VEC;
    __shared__ float partial[kGroups][kCols + 1];
    const int g = threadIdx.x / kColLanes, c = threadIdx.x % kColLanes * VEC;
    const long long col = static_cast<long long>(blockIdx.x) * kCols + c;  // first of the thread's VEC columns
    const long long k_begin = static_cast<long long>(blockIdx.y) * k_chunk;
    const long long k_end = std::min<long long>(K, k_begin + k_chunk);
    float sum[VEC] = {};
    if (VEC == 4 && col + 3 < N) {
#pragma unroll 4
        for (long long k = k_begin + g; k < k_end; k += kGroups) {
            const float xk = x[k];
            const float4 b = *reinterpret_cast<const float4*>(B + k * ldb + col);
            sum[0] += xk * b.x, sum[1] += xk * b.y, sum[2] += xk * b.z, sum[3] += xk * b.w;
        }
    } else {
#pragma unroll 4
        for (long long k = k_begin + g; k < k_end; k += kGroups) {
            const float xk = x[k];
#pragma unroll
            for (int v = 0; v < VEC; ++v)
                if (col + v < N) sum[v] += xk * B[k * ldb + col + v];
        }
    }
#pragma unroll
    for (int v = 0; v < VEC; ++v) partial[g][c + v] = sum[v];
    __syncthreads();
    if (threadIdx.x < kCols) {
        const long long n = static_cast<long long>(blockIdx.x) * kCols + threadIdx.x;
        float total = partial[0][threadIdx.x];
        for (int i = 1; i < kGroups; ++i) total += partial[i][threadIdx.x];
        if (n < N) {
            if (gridDim.y == 1) y[n] = sgemm::scale(total, alpha, beta, &y[n]);
            else partials[blockIdx.y * static_cast<long long>(N) + n] = total;
        }
    }
}

__global__ void __launch_bounds__(256) sgemm_10_every_shape_gemv_m1_reduce(int N, int splits, const float* partials,
                                                                           float alpha, float beta, float* y) {
    const long long n = blockIdx.x * 256ll + threadIdx.x;
    if (n >= N) return;
    float total = partials[n];
    for (int s = 1; s < splits; ++s) total += partials[s * static_cast<long long>(N) + n];
    y[n] = sgemm::scale(total, alpha, beta, &y[n]);
}

// step 10: B's rows not 16-byte aligned (ldb or B not a multiple of 4 floats, e.g. N = 4097): the
// tile kernel copies B one float per cp.async, ~4 % slower than with 16-byte copies. For a large
// problem, copying B once into an aligned K x ldp workspace (ldp = N rounded up to 4, the extra
// columns zero) costs K * N * 8 bytes, against 2 * M * N * K FLOP that then run at full speed.
__global__ void __launch_bounds__(256) sgemm_10_every_shape_pack_b(int K, int N, const float* B, int ldb, float* Bp,
                                                                   int ldp) {
    const long long n_total = static_cast<long long>(K) * ldp;
    for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n_total; i += static_cast<long long>(gridDim.x) * 256) {
        const long long k = i / ldp;
        const int n = static_cast<int>(i - k * ldp);
        Bp[i] = n < N ? B[k * ldb + n] : 0.0f;
    }
}

// ---------------------------------------------------------------------------------------------
// Host side: the configurations, the model and the plans.

// One instantiation of the tile kernel. Template arguments, in order: BM, BN, BK (block tile),
// WM, WN (warp tile), WMITER, WNITER (sub-tiles per warp tile), TM, TN (thread tile), STAGES,
// GROUP_M (rasterization).
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int TM, int TN, int STAGES, int GROUP_M>
struct TileKernel {
    static constexpr int kBM = BM, kBN = BN, kBK = BK, kWM = WM, kWN = WN, kStages = STAGES, kGroupM = GROUP_M;
    static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
    static constexpr int kSmem = smem_bytes(BM, BN, BK, STAGES);
    template <bool kBVec, bool kSplit>
    static constexpr auto kernel =
        sgemm_10_every_shape_tile<BM, BN, BK, WM, WN, WMITER, WNITER, TM, TN, STAGES, GROUP_M, kBVec, kSplit>;
    static constexpr auto kernels = {kernel<true, false>, kernel<false, false>, kernel<true, true>,
                                     kernel<false, true>};
    static void launch(const TileParams& p, int blocks, cudaStream_t stream) {
        const auto k = p.sk_tiles > 0 ? (p.b_vec ? kernel<true, true> : kernel<false, true>)
                                      : (p.b_vec ? kernel<true, false> : kernel<false, false>);
        sgemm::launch_checked(k, dim3(blocks), dim3(kThreads), kSmem, stream, p);
    }
    // Once per device: more than 48 KB of dynamic shared memory needs an explicit opt-in; the
    // registers per thread feed the occupancy model (the larger of the two copy paths').
    static int prepare() {
        int regs = 0;
        for (auto kernel : kernels) {
            sgemm::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
            cudaFuncAttributes attributes{};
            sgemm::check(cudaFuncGetAttributes(&attributes, kernel));
            regs = std::max(regs, attributes.numRegs);
        }
        return regs;
    }
};

struct TileConfig {
    int bm, bn, bk, wm, wn, stages, group_m, threads, smem;
    // The mainloop's speed at 8 warps per SM relative to step 09's tile (the model's only constant per
    // configuration), measured with sgemm_runner --tune on an H200 (unsplit, whole tiles: 4096^3,
    // 2048^3, 8192 x 8192 x 1024; docs/results/raw/h200-step10-calibration.json).
    double efficiency;
    void (*launch)(const TileParams&, int blocks, cudaStream_t);
    int (*prepare)();
};

template <class T>
constexpr TileConfig make_config(double efficiency) {
    return {T::kBM, T::kBN, T::kBK, T::kWM, T::kWN, T::kStages, T::kGroupM, T::kThreads, T::kSmem,
            efficiency, T::launch, T::prepare};
}

// The family. The big tiles keep step 09's 64 x 64 warp tile of 16 x 8 outputs per thread (the
// fastest per FMA: 6 LDS.128 per 128 FFMA) with 8 or 4 warps. The small tiles use step 08's 32 x 64
// warp tile of 8 x 8 per thread (4 LDS.128 per 64 FFMA): a 64 x 64 warp tile in a 2-warp block
// would leave each thread 16 A copies per k-tile, whose addresses push ptxas past 255 registers
// (it spills); with 32 x 64 warps the block has twice the threads, half the copies per thread and
// ~half the registers (more warps per SM). All with 5 stages (the count at which ptxas emits step
// 09's better schedule) and GROUP_M = 8. The efficiencies are the measured ratios of TileConfig.
const TileConfig kConfigs[] = {
    make_config<TileKernel<128, 256, 8, 64, 64, 4, 2, 16, 8, 5, 8>>(1.00),  // step 09's: 8 warps
    make_config<TileKernel<128, 128, 8, 64, 64, 4, 2, 16, 8, 5, 8>>(0.98),  // 4 warps
    make_config<TileKernel<128, 64, 8, 32, 64, 2, 2, 8, 8, 5, 8>>(0.91),    // 4 warps: tall, narrow C
    make_config<TileKernel<64, 128, 8, 32, 64, 2, 2, 8, 8, 5, 8>>(0.92),    // 4 warps: short, wide C
    make_config<TileKernel<64, 64, 8, 32, 64, 2, 2, 8, 8, 5, 8>>(0.91),     // 2 warps
    make_config<TileKernel<128, 32, 8, 32, 32, 2, 1, 8, 4, 5, 8>>(0.75),    // 4 warps of 32 x 32, 8 x 4 per thread: N <= 32
};
constexpr int kNumConfigs = sizeof(kConfigs) / sizeof(kConfigs[0]);

// What the model knows of the GPU: cudaDeviceGetAttribute, queried once per device and cached.
// (The defaults are an H100 SXM / H200, for tests of the heuristic without a GPU.)
struct DeviceModel {
    int sms = 132;
    int smem_per_sm = 233472;  // 228 KB
    int smem_reserved_per_block = 1024;
    int regs_per_sm = 65536;
    int threads_per_sm = 2048;
    int blocks_per_sm = 32;
    long long l2_bytes = 50LL << 20;
    std::array<int, kNumConfigs> regs{};  // registers per thread of each configuration (cudaFuncGetAttributes)
};

// Resident blocks per SM: the tightest of the thread, register, shared-memory and block limits.
// Registers are allocated per warp in units of 256.
int blocks_per_sm(const TileConfig& c, int regs, const DeviceModel& d) {
    const int warps = c.threads / 32;
    const int regs_per_warp = (regs * 32 + 255) / 256 * 256;
    const int by_regs = regs > 0 ? d.regs_per_sm / (regs_per_warp * warps) : d.blocks_per_sm;
    const int by_smem = d.smem_per_sm / (c.smem + d.smem_reserved_per_block);
    const int by_threads = d.threads_per_sm / c.threads;
    return std::max(1, std::min({by_regs, by_smem, by_threads, d.blocks_per_sm}));
}

// The model's machine constants (H100 / H200 class). Only their ratios decide between candidates,
// except against the fixed costs of a launch and of a block's pipeline fill.
constexpr double kSmFlops = 49.8e12 / 132;  // FLOP/s of one SM running step 09's mainloop, 8 warps (measured)
constexpr double kDramBytesPerS = 4.0e12;   // HBM, measured ~4.3 TB/s on an H200
constexpr double kL2BytesPerS = 8.0e12;     // partial tiles written and read back while they fit in L2
constexpr double kLaunchS = 3e-6;           // a kernel launch (the same for every candidate)
constexpr double kReduceLaunchS = 3e-6;     // the second, dependent launch of a split
constexpr double kRoundLatencyS = 2e-6;     // per round of blocks: first k-tile from DRAM + the epilogue
constexpr int kMinKPerSplit = 64;           // 8 k-tiles: below that the pipeline never fills
constexpr double kUnalignedB = 0.96;        // mainloop speed with 4-byte copies of B (4095 x 4097 x 4093, measured)
constexpr int kSplits[] = {2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256};

// FFMA throughput with w warps resident on an SM, relative to 8 (2 per scheduler, as step 09).
// One warp per scheduler keeps it mostly busy (128 independent FFMAs per k, fragments prefetched);
// fewer than 4 warps leave schedulers idle.
double warp_factor(int w) {
    if (w >= 8) return 1.0;
    if (w >= 4) return 0.8 + 0.05 * (w - 4);
    return 0.8 * w / 4;
}

// The leading dimension of packed B: N rounded up to a whole float4 (an int: N <= 2^31 - 4 here).
int packed_ld(int N) { return static_cast<int>((static_cast<long long>(N) + 3) / 4 * 4); }

// A plan: what launch() runs.
struct Plan {
    enum Kind { kTile, kGemvN1, kGemvM1 } kind = kTile;
    int config = 0;            // kConfigs index
    int splits_asked = 1;      // the split count it was made for (the candidate id)
    int splits = 1;            // K ranges of a split tile (1: no split)
    bool tail = false;         // split only the tiles of the last, partial round
    bool pack_b = false;       // copy B into an aligned workspace first (B's rows not 16-byte aligned)
    int tiles = 0, dp_tiles = 0, sk_tiles = 0, k_per_split = 0, occupancy = 0;
    int gemv_width = 0;        // gemv: lanes per row (N == 1) or float4 (4) / float (1) columns (M == 1)
    std::size_t workspace = 0;      // packed B (256-byte aligned) then the partial tiles
    std::size_t pack_bytes = 0, partial_bytes = 0;
    double seconds = 0;        // the model's estimate

    int id() const {
        if (kind == kGemvN1) return 100000 + gemv_width;
        if (kind == kGemvM1) return 200000 + 1000 * gemv_width + splits;
        return (config * 2 + (tail ? 1 : 0)) * 1000 + (pack_b ? 500 : 0) + splits_asked;
    }
    std::string describe() const {
        char s[96];
        if (kind == kGemvN1) {
            std::snprintf(s, sizeof s, "gemv n=1 %d lanes/row", gemv_width);
        } else if (kind == kGemvM1) {
            int n = std::snprintf(s, sizeof s, "gemv m=1 %s", gemv_width == 4 ? "float4" : "float");
            if (splits > 1) std::snprintf(s + n, sizeof s - n, " splitk=%d", splits);
        } else {
            const TileConfig& c = kConfigs[config];
            int n = std::snprintf(s, sizeof s, "%dx%dx%d w%dx%d s%d", c.bm, c.bn, c.bk, c.wm, c.wn, c.stages);
            if (splits > 1) n += std::snprintf(s + n, sizeof s - n, " splitk=%d", splits);
            if (tail) n += std::snprintf(s + n, sizeof s - n, " tail=%d", sk_tiles);
            if (pack_b) std::snprintf(s + n, sizeof s - n, " packB");
        }
        return s;
    }
};

// The model: seconds for `blocks` blocks of `flop` each on the busiest SM, in rounds of at most
// `occupancy` co-resident blocks that share the SM's FFMA rate (which depends on their warps).
double phase_seconds(long long blocks, double flop, const TileConfig& c, double efficiency, int occupancy,
                     const DeviceModel& d) {
    if (blocks <= 0) return 0;
    const long long per_sm = (blocks + d.sms - 1) / d.sms;
    const long long rounds = (per_sm + occupancy - 1) / occupancy;
    const int last = static_cast<int>(per_sm - (rounds - 1) * occupancy);
    const int warps = c.threads / 32;
    const double full_round = occupancy * flop / (kSmFlops * efficiency * warp_factor(occupancy * warps));
    const double last_round = last * flop / (kSmFlops * efficiency * warp_factor(last * warps));
    return (rounds - 1) * full_round + last_round + rounds * kRoundLatencyS;
}

double model_seconds(const sgemm::GemmArgs& a, const Plan& plan, const DeviceModel& d) {
    const TileConfig& c = kConfigs[plan.config];
    const double tile_flop = 2.0 * c.bm * c.bn;  // per k: padding rows and columns cost FMAs too
    const double k_full = static_cast<double>(sgemm::ceil_div(a.K, c.bk)) * c.bk;
    const bool b_aligned = plan.pack_b || sgemm::rows_are_16b_aligned(a.B, a.ldb);
    const double efficiency = c.efficiency * (b_aligned ? 1.0 : kUnalignedB);
    const double compute = phase_seconds(plan.dp_tiles, tile_flop * k_full, c, efficiency, plan.occupancy, d) +
                           phase_seconds(static_cast<long long>(plan.sk_tiles) * plan.splits,
                                         tile_flop * plan.k_per_split, c, efficiency, plan.occupancy, d);
    const double c_passes = a.beta == 0.0f ? 1.0 : 2.0;
    const double dram = 4.0 * (double(a.M) * a.K + double(a.K) * a.N + c_passes * double(a.M) * a.N) / kDramBytesPerS;
    double seconds = std::max(compute, dram) + kLaunchS;
    if (plan.pack_b) seconds += kReduceLaunchS + 8.0 * double(a.K) * packed_ld(a.N) / kDramBytesPerS;
    if (plan.splits > 1) {
        // Extra traffic of the split: S partial tiles written (tile kernel) and read (reduction), i.e.
        // 2 * S * sk_tiles * BM * BN * 4 bytes, at L2 speed while the partials fit in half the L2.
        // E.g. 1024 x 1024 x 8192, 128 x 256 tiles, S = 4: 2 * 4 * 32 * 128 KB = 32 MB, ~4 us.
        const double partial_bytes = 2.0 * plan.partial_bytes;
        const double bw = plan.partial_bytes <= static_cast<std::size_t>(d.l2_bytes / 2) ? kL2BytesPerS : kDramBytesPerS;
        seconds += kReduceLaunchS + partial_bytes / bw;
    }
    return seconds;
}

// A tile plan for configuration `config` with `splits_asked` K ranges (1: none) on every tile or,
// with `tail`, on the tiles of the last, partial round only. nullopt where it makes no sense.
std::optional<Plan> make_tile_plan(const sgemm::GemmArgs& a, const DeviceModel& d, int config, int splits_asked, bool tail,
                                   bool pack_b = false) {
    const TileConfig& c = kConfigs[config];
    Plan plan;
    plan.config = config;
    plan.splits_asked = splits_asked;
    plan.tail = tail;
    plan.pack_b = pack_b;
    if (pack_b) plan.pack_bytes = (static_cast<std::size_t>(a.K) * packed_ld(a.N) * sizeof(float) + 255) / 256 * 256;
    plan.occupancy = blocks_per_sm(c, d.regs[config], d);
    const long long tiles = sgemm::tile_total(a.M, a.N, c.bm, c.bn);
    if (tiles > INT_MAX) return std::nullopt;
    plan.tiles = static_cast<int>(tiles);
    const long long slots = static_cast<long long>(d.sms) * plan.occupancy;  // blocks of one full round
    if (splits_asked == 1) {
        if (tail) return std::nullopt;
        plan.dp_tiles = plan.tiles, plan.k_per_split = a.K;
    } else {
        // K ranges: whole k-tiles, none empty. S asked may shrink: K = 100, S = 8 -> 16 per range ->
        // 7 ranges (and the kMinKPerSplit check rejects it anyway).
        const int k_per_split = sgemm::ceil_div(sgemm::ceil_div(a.K, splits_asked), c.bk) * c.bk;
        plan.splits = sgemm::ceil_div(a.K, k_per_split);
        plan.k_per_split = k_per_split;
        if (plan.splits < 2 || k_per_split < kMinKPerSplit) return std::nullopt;
        if (tail) {
            // Split the partial last round only, if its split blocks still fit in one round.
            const long long rest = tiles % slots;
            if (tiles < slots || rest == 0 || rest * plan.splits > slots) return std::nullopt;
            plan.sk_tiles = static_cast<int>(rest);
        } else {
            // Split every tile: only when the tiles do not fill one round, into at most two rounds
            // of blocks (beyond that a split adds traffic and buys nothing).
            if (tiles >= slots || tiles * plan.splits > 2 * slots) return std::nullopt;
            plan.sk_tiles = plan.tiles;
        }
        plan.dp_tiles = plan.tiles - plan.sk_tiles;
        if (plan.dp_tiles + static_cast<long long>(plan.sk_tiles) * plan.splits > INT_MAX) return std::nullopt;
        plan.partial_bytes = static_cast<std::size_t>(plan.sk_tiles) * plan.splits * c.bm * c.bn * sizeof(float);
    }
    plan.workspace = plan.pack_bytes + plan.partial_bytes;
    plan.seconds = model_seconds(a, plan, d);
    return plan;
}

Plan make_gemv_plan(const sgemm::GemmArgs& a, int sms) {
    Plan plan;
    if (a.N == 1) {
        plan.kind = Plan::kGemvN1;
        plan.gemv_width = 1;  // lanes per row: the smallest power of two that leaves <= 16 elements per lane
        while (plan.gemv_width < 32 && a.K > 16 * plan.gemv_width) plan.gemv_width *= 2;
    } else {
        plan.kind = Plan::kGemvM1;
        plan.gemv_width = sgemm::rows_are_16b_aligned(a.B, a.ldb) ? 4 : 1;
        // K split so that the column blocks x splits give every SM several blocks: B streams at
        // memory speed only with enough loads in flight. At least 256 rows of B per split.
        const long long col_blocks = (a.N + 8LL * plan.gemv_width - 1) / (8LL * plan.gemv_width);
        const long long want = (4LL * sms + col_blocks - 1) / col_blocks;
        plan.splits = static_cast<int>(std::max(1LL, std::min({want, a.K / 256LL, 64LL})));
        plan.k_per_split = static_cast<int>(std::min<long long>(
            INT_MAX, (static_cast<long long>(sgemm::ceil_div(a.K, plan.splits)) + 31) / 32 * 32));
        plan.splits = sgemm::ceil_div(a.K, plan.k_per_split);
        if (plan.splits > 1) plan.workspace = plan.partial_bytes = static_cast<std::size_t>(plan.splits) * a.N * sizeof(float);
    }
    return plan;
}

// Every plan worth timing: all configurations unsplit, split-K where the tiles do not fill a round,
// tail splits where the last round is partial; for N == 1 or M == 1 the GEMV kernel first.
std::vector<Plan> all_plans(const sgemm::GemmArgs& a, const DeviceModel& d) {
    std::vector<Plan> plans;
    const bool gemv = a.N == 1 || a.M == 1;
    if (gemv) {
        const Plan g = make_gemv_plan(a, d.sms);
        plans.push_back(g);
        if (g.splits > 1) {  // and unsplit, for comparison
            Plan whole = g;
            whole.splits = 1, whole.k_per_split = a.K, whole.workspace = whole.partial_bytes = 0;
            plans.push_back(whole);
        }
    }
    // Packing B pays only where B's rows are unaligned; it is timed both ways there.
    const bool unaligned_b = !sgemm::rows_are_16b_aligned(a.B, a.ldb);
    for (bool pack_b : {false, true}) {
        // (At most 512 MiB of workspace for it: a bigger copy would crowd out the problem itself.)
        if (pack_b && (!unaligned_b || gemv || a.N > INT_MAX - 3 ||
                       static_cast<double>(a.K) * packed_ld(a.N) * sizeof(float) > 512.0 * (1 << 20)))
            continue;
        for (int config = 0; config < kNumConfigs; ++config) {
            if (auto plan = make_tile_plan(a, d, config, 1, false, pack_b)) plans.push_back(*plan);
            if (gemv) continue;  // the tile kernels only for comparison there, unsplit
            for (bool tail : {false, true})
                for (int s : kSplits) {
                    const auto plan = make_tile_plan(a, d, config, s, tail, pack_b);
                    if (!plan) continue;
                    const bool seen = std::any_of(plans.begin(), plans.end(), [&](const Plan& q) {
                        return q.kind == Plan::kTile && q.config == config && q.tail == tail &&
                               q.pack_b == pack_b && q.splits == plan->splits;
                    });
                    if (!seen) plans.push_back(*plan);
                }
        }
    }
    return plans;
}

// The heuristic: GEMV where N == 1 or M == 1 (memory-bound; a tile kernel would waste 63/64 of its
// FMAs); otherwise the plan the model predicts fastest, the first of equals (step 09's configuration
// comes first, so it wins ties).
Plan pick(const sgemm::GemmArgs& a, const DeviceModel& d) {
    if (a.N == 1 || a.M == 1) return make_gemv_plan(a, d.sms);
    const std::vector<Plan> plans = all_plans(a, d);
    if (plans.empty()) throw std::invalid_argument("10_every_shape: no plan for this shape (see can_implement)");
    const Plan* best = &plans.front();
    for (const Plan& p : plans)
        if (p.seconds < best->seconds) best = &p;
    return *best;
}

const DeviceModel& current_device() {
    constexpr int kMaxDevices = 64;
    static std::array<DeviceModel, kMaxDevices> models;
    static std::array<std::once_flag, kMaxDevices> once;
    int device = 0;
    sgemm::check(cudaGetDevice(&device));
    if (device >= kMaxDevices) throw std::runtime_error("10_every_shape: device ordinal above 63");
    std::call_once(once[device], [device] {
        DeviceModel& d = models[device];
        auto attribute = [device](cudaDeviceAttr attr) {
            int value = 0;
            sgemm::check(cudaDeviceGetAttribute(&value, attr, device));
            return value;
        };
        d.sms = attribute(cudaDevAttrMultiProcessorCount);
        d.smem_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
        d.smem_reserved_per_block = attribute(cudaDevAttrReservedSharedMemoryPerBlock);
        d.regs_per_sm = attribute(cudaDevAttrMaxRegistersPerMultiprocessor);
        d.threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
        d.blocks_per_sm = attribute(cudaDevAttrMaxBlocksPerMultiprocessor);
        d.l2_bytes = attribute(cudaDevAttrL2CacheSize);
        for (int i = 0; i < kNumConfigs; ++i) d.regs[i] = kConfigs[i].prepare();
    });
    return models[device];
}

void run(const sgemm::GemmArgs& a, const Plan& plan, void* workspace, cudaStream_t stream) {
    if (plan.kind == Plan::kGemvN1) {
        const long long rows_per_block = 256 / plan.gemv_width;
        const dim3 grid(static_cast<unsigned>((a.M + rows_per_block - 1) / rows_per_block));
        const bool a_vec = sgemm::rows_are_16b_aligned(a.A, a.lda);
        auto go = [&](auto kernel) {
            sgemm::launch_checked(kernel, grid, dim3(256), 0, stream, a.M, a.K, a.alpha, a.A, a.lda, a.B, a.ldb,
                                  a.beta, a.C, a.ldc, a_vec);
        };
        switch (plan.gemv_width) {
            case 1: go(sgemm_10_every_shape_gemv_n1<1>); break;
            case 2: go(sgemm_10_every_shape_gemv_n1<2>); break;
            case 4: go(sgemm_10_every_shape_gemv_n1<4>); break;
            case 8: go(sgemm_10_every_shape_gemv_n1<8>); break;
            case 16: go(sgemm_10_every_shape_gemv_n1<16>); break;
            default: go(sgemm_10_every_shape_gemv_n1<32>); break;
        }
        return;
    }
    if (plan.kind == Plan::kGemvM1) {
        const int cols_per_block = 8 * plan.gemv_width;
        const dim3 grid(sgemm::ceil_div(a.N, cols_per_block), plan.splits);
        auto kernel = plan.gemv_width == 4 ? sgemm_10_every_shape_gemv_m1<4> : sgemm_10_every_shape_gemv_m1<1>;
        float* partials = static_cast<float*>(workspace);
        sgemm::launch_checked(kernel, grid, dim3(256), 0, stream, a.N, a.K, a.alpha, a.A, a.B, a.ldb, a.beta, a.C,
                              plan.k_per_split, partials);
        if (plan.splits > 1)
            sgemm::launch_checked(sgemm_10_every_shape_gemv_m1_reduce, dim3(sgemm::ceil_div(a.N, 256)), dim3(256), 0,
                                  stream, a.N, plan.splits, partials, a.alpha, a.beta, a.C);
        return;
    }
    const TileConfig& c = kConfigs[plan.config];
    if (plan.workspace && reinterpret_cast<std::uintptr_t>(workspace) % 16 != 0)
        throw std::invalid_argument("10_every_shape: the workspace must be 16-byte aligned");
    TileParams p{};
    p.M = a.M, p.N = a.N, p.K = a.K, p.alpha = a.alpha, p.beta = a.beta;
    p.A = a.A, p.lda = a.lda, p.B = a.B, p.ldb = a.ldb, p.C = a.C, p.ldc = a.ldc;
    if (plan.pack_b) {  // B, copied into the workspace with 16-byte aligned rows
        float* packed = static_cast<float*>(workspace);
        const int ldp = packed_ld(a.N);
        const long long n = static_cast<long long>(a.K) * ldp;
        const dim3 grid(static_cast<unsigned>(std::min<long long>((n + 255) / 256, 8 * 1024)));
        sgemm::launch_checked(sgemm_10_every_shape_pack_b, grid, dim3(256), 0, stream, a.K, a.N, a.B, a.ldb, packed,
                              ldp);
        p.B = packed, p.ldb = ldp;
    }
    // float4 copies need B's row starts 16-byte aligned, float4 stores C's (A is copied one float at
    // a time anyway); otherwise 4-byte copies and scalar stores.
    p.b_vec = sgemm::rows_are_16b_aligned(p.B, p.ldb);
    p.c_vec = sgemm::rows_are_16b_aligned(a.C, a.ldc);
    p.dp_tiles = plan.dp_tiles, p.sk_tiles = plan.sk_tiles, p.splits = plan.splits, p.k_per_split = plan.k_per_split;
    p.partials = reinterpret_cast<float*>(static_cast<char*>(workspace) + plan.pack_bytes);
    c.launch(p, plan.dp_tiles + plan.sk_tiles * plan.splits, stream);  // 1D grid: rasterized in the kernel
    if (plan.splits > 1) {
        const dim3 grid(plan.sk_tiles * (c.bm * c.bn / (4 * 256)));  // one thread per 4 outputs
        sgemm::launch_checked(sgemm_10_every_shape_reduce, grid, dim3(256), 0, stream, p, c.bm, c.bn, c.group_m);
    }
}

// The plans depend on the shape, on whether B's rows are 16-byte aligned, on beta == 0 and on the
// device. Evaluating the model takes tens of microseconds of CPU time, as long as a small GEMM runs,
// so they are computed once per such key (the list of candidates and the pick).
struct Plans {
    std::vector<Plan> all;
    Plan pick;
};
using PlanKey = std::tuple<int, int, int, int, bool, bool>;
struct PlanCache {
    std::map<PlanKey, Plans> plans;
    std::mutex mutex;
};
PlanCache& plan_cache() {
    static PlanCache cache;  // one for every caller (a static inside the template below would be one per lambda)
    return cache;
}

template <class F>
auto with_cached_plans(const sgemm::GemmArgs& a, F&& f) {
    int device = 0;
    sgemm::check(cudaGetDevice(&device));
    PlanCache& c = plan_cache();
    auto& cache = c.plans;
    const PlanKey key{device, a.M, a.N, a.K, sgemm::rows_are_16b_aligned(a.B, a.ldb), a.beta == 0.0f};
    const std::lock_guard<std::mutex> lock(c.mutex);
    auto it = cache.find(key);
    if (it == cache.end()) {
        if (cache.size() > 1024) cache.clear();  // bounded, for a program with endless shapes
        const DeviceModel& d = current_device();
        it = cache.emplace(key, Plans{all_plans(a, d), pick(a, d)}).first;
    }
    return f(it->second);  // under the lock: another thread may clear the cache
}
Plan cached_pick(const sgemm::GemmArgs& a) {
    return with_cached_plans(a, [](const Plans& p) { return p.pick; });
}

void launch(const sgemm::GemmArgs& args, void* workspace, cudaStream_t stream) {
    run(args, cached_pick(args), workspace, stream);
}

// Every shape has a plan but those whose tiles cannot be counted in an int even with the largest
// tile (M * N beyond ~7e13 outputs: no GPU holds such a C). Indices stay relative to the tile.
std::string can_implement(const sgemm::GemmArgs& a) {
    if (a.N == 1 || a.M == 1) return "";
    if (sgemm::tile_total(a.M, a.N, 128, 256) > INT_MAX)
        return "more than 2^31 - 1 tiles";
    return "";
}

std::string describe(const sgemm::GemmArgs& args) { return cached_pick(args).describe(); }

std::size_t workspace_bytes(const sgemm::GemmArgs& args) { return cached_pick(args).workspace; }

std::vector<sgemm::Candidate> candidates(const sgemm::GemmArgs& args) {
    std::vector<sgemm::Candidate> out;
    with_cached_plans(args, [&](const Plans& plans) {
        for (const Plan& p : plans.all) out.push_back({p.id(), p.describe(), p.workspace});
        return 0;
    });
    return out;
}

void launch_candidate(const sgemm::GemmArgs& args, int id, void* workspace, cudaStream_t stream) {
    const std::optional<Plan> plan = with_cached_plans(args, [id](const Plans& plans) -> std::optional<Plan> {
        for (const Plan& p : plans.all)
            if (p.id() == id) return p;
        return std::nullopt;
    });
    if (!plan) throw std::invalid_argument("10_every_shape: no candidate " + std::to_string(id) + " for this shape");
    run(args, *plan, workspace, stream);
}

}  // namespace

static const sgemm::Registration registration{{.number = 10, .name = "every_shape", .idea = "step 09's mainloop as a family of tiles, deterministic split-K and GEMV, picked per shape by a model of the GPU", .launch = launch, .describe = describe, .can_implement = can_implement, .workspace_bytes = workspace_bytes, .requirements = {.min_cc = 80}, .candidates = candidates, .launch_candidate = launch_candidate}};
