// Step 10, the tile kernel: step 09's mainloop with run-time leading dimensions and a K range per
// block, the fixed-order split-K reduction, and the copy of an unaligned B into an aligned
// workspace. The planner (planner.h) decides which of them run, with which tile and split.
#pragma once

#include "../common/tile.cuh"
#include "planner.h"  // kPad, smem_bytes

namespace step10 {

// [doc:tile-params]
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

// The mainloop is step 09's; what changed is marked "step 10". Row, column and k indices are kept
// relative to the block's tile and k-tile (compared against rows_left = M - row0 etc.), so that no
// index ever exceeds M, N or K: M may be 2^31 - 1, where row0 + BM would overflow an int.
// [doc:template-flags]
// [doc:template-flags-why]
// kBVec: B's rows are 16-byte aligned (float4 copies). kSplit: some blocks compute a K range into
// the workspace (params.sk_tiles > 0). Template parameters, not run-time flags: this kernel is
// bound by instruction issue, and code for a path not taken changes how ptxas schedules the
// mainloop (both paths in one loop carried ~100 more integer instructions per k-tile).
// [/doc:template-flags-why]
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int TM, int TN, int STAGES, int GROUP_M,
          bool kBVec, bool kSplit>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32,
                                  sgemm::min_blocks_per_sm((BM / WM) * (BN / WN) * 32, TM, TN))
    sgemm_10_every_shape_tile(const TileParams params) {
    // [/doc:template-flags]
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
    // [doc:b-few-copies]
    constexpr bool kBFewCopies = BK * BN / 4 < kThreads;  // step 10: a narrow tile, fewer B float4s than threads
    static_assert(BN % 4 == 0 && kThreads % (BN / 4) == 0 && (kBFewCopies || BK % (kThreads / (BN / 4)) == 0),
                  "one pass of the block copies whole rows of the B tile as float4s (the first BK * BN / 4 "
                  "threads when the tile holds fewer float4s than there are threads), and the passes cover it evenly");
    // [/doc:b-few-copies]
    static_assert((kThreads % BN == 0 || BN % kThreads == 0) && BK * BN % kThreads == 0,
                  "step 10: unaligned B is copied one float per copy, consecutive threads on consecutive columns; "
                  "a copy's row and column offsets must then be the same for every thread");
    static_assert(BM * BN % (4 * 256) == 0,
                  "step 10: the reduction covers a split tile with whole blocks of 256 x 4 outputs");
    static_assert(BK >= 2, "the fragment pipeline switches stages at k = BK - 1, after reading k = BK - 1");
    static_assert(STAGES >= 3,
                  "STAGES - 1 >= 2 k-tiles in flight; with 2 stages step 08's register staging does as well");
    static_assert(GROUP_M >= 1, "GROUP_M tile-rows per rasterization group; 1 is plain row-major order");
    constexpr int kBRowsPerPass = kThreads / (BN / 4);
    constexpr int kBLoads = kBFewCopies ? 1 : BK * BN / (4 * kThreads);  // B float4s each thread copies per k-tile
    constexpr int kBScalarLoads = BK * BN / kThreads;  // step 10: B floats per thread per k-tile when unaligned

    extern __shared__ float4 smem[];  // smem_bytes(BM, BN, BK, STAGES), opted into once per device
    auto As = reinterpret_cast<float(*)[BK][BM + kPad]>(smem);  // STAGES stages; transposed: As[s][k][m] = A[m][k]
    auto Bs = reinterpret_cast<float(*)[BK][BN]>(&As[STAGES][0][0]);

    // Kernel parameters into registers (the lambdas below capture by reference).
    const int M = params.M, N = params.N, K = params.K, lda = params.lda, ldb = params.ldb, ldc = params.ldc;
    const float alpha = params.alpha, beta = params.beta;
    const float *A = params.A, *B = params.B;
    const bool b_vec = params.b_vec, c_vec = params.c_vec;

    const int tid = threadIdx.x;
    // [doc:k-range]
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
    // [/doc:k-range]
    const sgemm::TileOrigin origin = sgemm::rasterized_tile<BM, BN, GROUP_M>(M, N, tile);
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
    // [doc:b-copier]
    const bool b_copier = !kBFewCopies || tid < BK * BN / 4;  // compile-time true but for narrow tiles

    // [doc:interior]
    // Uniform per block: interior tiles never test an index against M or N (step 10: also when B or
    // C is unaligned; the kernels for unaligned B test A's rows and B's columns apart, load_tile_async).
    const bool interior = rows_left >= BM && cols_left >= BN;

    float acc[TM][TN] = {};
    float a_frag[2][TM];  // double-buffered: the fragments of k + 1 load while those of k feed the FMAs
    float b_frag[2][TN];

    // ---- global -> shared memory, asynchronously (cp.async: LDGSTS). Whole tiles copy without
    // predicates; edge tiles copy 0 source bytes (zero-fill) outside A and B. step 10: unaligned B
    // rows are copied in 4-byte pieces, consecutive threads on consecutive columns (coalesced; step
    // 09 copied them 4 per thread).
    auto copy_a_whole = [&](int stage, int k0) {
        // One 64-bit base per k-tile; the copies add row offsets (multiples of lda) to it. (B's below: ldb.)
        const float* a_src = A_tile + static_cast<size_t>(a_row) * lda + k0 + a_col;
#pragma unroll
        for (int p = 0; p < BM / kARows; ++p)
#pragma unroll
            for (int q = 0; q < BK / 8; ++q)
                sgemm::cp_async4(&As[stage][a_col + 8 * q][a_row + p * kARows],
                                 a_src + static_cast<size_t>(p * kARows) * lda + 8 * q, 4);
    };
    auto copy_b_whole = [&](int stage, int k0) {
        // [doc:b-copy-width]
        if constexpr (kBVec) {
            const float* b_src = B_tile + static_cast<size_t>(k0 + b_row) * ldb + b_col;
#pragma unroll
            // [doc:b-copier-float4]
            for (int p = 0; p < kBLoads; ++p)
                if (b_copier)
                    sgemm::cp_async16(&Bs[stage][b_row + p * kBRowsPerPass][b_col],
                                      b_src + static_cast<size_t>(p * kBRowsPerPass) * ldb, 16);
            // [/doc:b-copier-float4]
        } else {
            const float* b_src = B_tile + static_cast<size_t>(k0 + bs_row) * ldb + bs_col;
#pragma unroll
            for (int p = 0; p < kBScalarLoads; ++p) {
                constexpr int kStep = kThreads;  // element p * kThreads of the tile, row-major
                const int dr = p * kStep / BN, dc = p * kStep % BN;
                sgemm::cp_async4(&Bs[stage][bs_row + dr][bs_col + dc], b_src + static_cast<size_t>(dr) * ldb + dc, 4);
            }
        }
        // [/doc:b-copy-width]
    };
    auto copy_a_edge = [&](int stage, int k0, int k_left) {
#pragma unroll
        for (int p = 0; p < BM / kARows; ++p)
#pragma unroll
            for (int q = 0; q < BK / 8; ++q) {
                const int m = a_row + p * kARows, k = a_col + 8 * q;  // in the tile, in the k-tile
                const bool in = m < rows_left && k < k_left;  // outside A: copy nothing, zero-fill
                sgemm::cp_async4(&As[stage][k][m], in ? A_tile + static_cast<size_t>(m) * lda + k0 + k : A, in ? 4 : 0);
            }
    };
    // [doc:edge-b-copies]
    // Edge tiles copy an aligned B as step 09 does: four floats a thread, one zero-filling 16-byte
    // copy of the 0 .. 4 floats inside B (N need not be a multiple of 4 when ldb is). The 4-byte arm
    // is never taken in these kernels (b_vec is true) but kept: it is step 09's code, and with it the
    // aligned kernels compile to the same machine code as before (without it ptxas reorders the loop).
    // step 10: an unaligned B as in whole tiles, zero-filled outside B. Step 09's four 4-byte
    // copies of neighbouring floats per thread have each warp instruction touch one float in every
    // 16 bytes of 512, 4x the sectors.
    auto copy_b_edge = [&](int stage, int k0, int k_left) {
        if constexpr (kBVec) {
#pragma unroll
            // [doc:b-copier-edge]
            for (int p = 0; p < kBLoads && b_copier; ++p) {
                // [/doc:b-copier-edge]
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
        } else {
            const float* b_src = B_tile + static_cast<size_t>(k0 + bs_row) * ldb + bs_col;
#pragma unroll
            for (int p = 0; p < kBScalarLoads; ++p) {
                constexpr int kStep = kThreads;
                const int dr = p * kStep / BN, dc = p * kStep % BN;
                const bool in = bs_row + dr < k_left && bs_col + dc < cols_left;
                sgemm::cp_async4(&Bs[stage][bs_row + dr][bs_col + dc],
                                 in ? b_src + static_cast<size_t>(dr) * ldb + dc : B, in ? 4 : 0);
            }
        }
    };
    // [/doc:edge-b-copies]
    // [doc:load-tile]
    auto load_tile_async = [&](int stage, int k0) {
        const int k_left = k_end - k0;  // >= 1
        if constexpr (kBVec) {
            // One uniform branch per k-tile, as step 09.
            if (interior && k_left >= BK) {
                copy_a_whole(stage, k0);
                copy_b_whole(stage, k0);
            } else {
                copy_a_edge(stage, k0, k_left);
                copy_b_edge(stage, k0, k_left);
            }
        } else {
            // step 10: A's rows and B's columns decide apart. Where M is below the tile's height every
            // tile is an edge tile, yet B's part of it is whole wherever its columns lie inside B: those
            // copies skip the bounds tests (and so do A's at an edge in N only).
            if (rows_left >= BM && k_left >= BK)
                copy_a_whole(stage, k0);
            else
                copy_a_edge(stage, k0, k_left);
            if (cols_left >= BN && k_left >= BK)
                copy_b_whole(stage, k0);
            else
                copy_b_edge(stage, k0, k_left);
        }
    };
    // [/doc:load-tile]
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
    __syncthreads();  // ... for every thread's copies
    load_fragments(0, 0, 0);

    // ---- mainloop: compute k-tile kt from stage `read_stage` while k-tiles kt + 1 ..
    // kt + STAGES - 1 are in flight.
    int read_stage = 0, write_stage = STAGES - 1;
    for (int kt = 0; kt < num_k_tiles; ++kt) {
        const bool has_next = kt + 1 < num_k_tiles;  // uniform across the block
        // [doc:refill]
        // Refill the stage computed on during k-tile kt - 1 (every thread has passed the barrier
        // behind its last read) with k-tile kt + STAGES - 1. Group kt + STAGES - 1, maybe empty.
        if (kt + STAGES - 1 < num_k_tiles) load_tile_async(write_stage, k_begin + (kt + STAGES - 1) * BK);
        // [/doc:refill]
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

    // [doc:store-unaligned-c]
    // step 10: C's rows unaligned. For each i, the warp's lanes hold kStagedRows rows x WN columns
    // of C (row lane / kLanesN, kLaneTN columns per sub-tile); they go into a per-warp buffer in
    // shared memory, then every lane stores columns lane, lane + 32, ... of each row: one store
    // instruction writes 32 consecutive floats of a row (whole 32-byte sectors but at the row ends).
    constexpr int kStagedRows = 32 / kLanesN;
    auto store_unaligned_c = [&](const float(&out)[TM][TN]) {
        static_assert(WN % 32 == 0 && kThreads / 32 * kStagedRows * WN <= smem_bytes(BM, BN, BK, STAGES) / 4,
                      "the warps' staging buffers fit in the pipeline's shared memory");
        float(*buf)[WN] = reinterpret_cast<float(*)[WN]>(reinterpret_cast<float*>(smem) + warp * kStagedRows * WN);
        __syncthreads();  // every warp has read its last fragments: the stages are free
#pragma unroll
        for (int i = 0; i < TM; ++i) {
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4*>(&buf[lane / kLanesN][(j / kLaneTN) * kSubN + lane_col + j % kLaneTN]) =
                    make_float4(out[i][j + 0], out[i][j + 1], out[i][j + 2], out[i][j + 3]);
            __syncwarp();
#pragma unroll
            for (int q = 0; q < kStagedRows; ++q) {
                const int row = warp_row + (i / kLaneTM) * kSubM + q * kLaneTM + i % kLaneTM;  // in the tile
#pragma unroll
                for (int c = lane; c < WN; c += 32) {
                    const int col = warp_col + c;
                    if (row < rows_left && col < cols_left) {
                        float* dst = C_tile + static_cast<size_t>(row) * ldc + col;
                        *dst = sgemm::scale(buf[q][c], alpha, beta, dst);
                    }
                }
            }
            __syncwarp();  // every lane has read the buffer before the next i overwrites it
        }
    };

    // [doc:epilogue]
    // ---- epilogue. step 10: a split block stores its unscaled partial tile, whole and unchecked
    // (rows and columns outside C hold zeros: their copies were zero-filled); a data-parallel block
    // writes C = alpha * acc + beta * C as in step 09, unchecked in interior tiles of an aligned C.
    // Where C's rows are not 16-byte aligned, the float4 of a lane would become 4 scalar stores, and
    // each store instruction of the warp would write 8 floats in each of 4 rows, a quarter of every
    // sector it touches: at small K, where the epilogue is the kernel, that runs at ~30 % of DRAM
    // bandwidth. Instead the warp passes its rows through shared memory and stores each row as 32
    // consecutive floats per instruction (store_unaligned_c above). Only in the kernels for unaligned
    // B (kBVec false; with ldb = ldc = N the alignments go together): in the others the extra path
    // changes how ptxas schedules the mainloop (4096^3 ran 6 % slower with it).
    if constexpr (!kBVec) {  // only where B is unaligned too: the aligned kernels keep step 09's epilogue and schedule
        if (!to_workspace && !c_vec) {
            store_unaligned_c(acc);
            return;
        }
    }
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

// [doc:reduce]
// step 10: the split-K reduction. Lane q of a warp adds the partials of one quad (4 consecutive
// outputs) of a split tile over a run of consecutive splits, in split order; with R runs per quad
// (reduce_runs), the R warps of a quad group then add their run sums in run order. The order of
// every addition is fixed, so the sum of an output does not depend on which block finished first and
// the result is bit-identical run to run (float atomics would add in arrival order); with one run
// it is the plain order 0, 1, ..., S - 1. Then C = alpha * sum + beta * C (beta == 0: C is not
// read). Memory-bound: it reads S * sk_tiles * BM * BN * 4 bytes, most of them still in L2 right
// after the tile kernel. Runs spread a long sum over warps where C is small and S large (55 x 101 x
// 36746: one 64 x 128 tile, 256 splits, 2048 quads): one thread per quad would leave most SMs idle
// and wait for one load after another; with few splits one run per quad keeps each block's 256
// threads on 256 quads. Launched chained to the tile kernel where it was compiled for sm_90+: its
// blocks start as the tile kernel's last block ends, without a launch between the two.
constexpr int kReduceThreads = 256, kReduceMaxRuns = 8, kReduceSplitsPerRun = 16, kReduceBatch = 8;
// Runs per quad for S splits: a power of two, about S / kReduceSplitsPerRun, 1 to kReduceMaxRuns.
__host__ __device__ constexpr int reduce_runs(int splits) {
    int runs = 1;
    while (runs < kReduceMaxRuns && runs * kReduceSplitsPerRun < splits) runs *= 2;
    return runs;
}
// Outputs of a split tile one block reduces: 32 quads for each of its kReduceThreads / 32 / runs groups.
__host__ __device__ constexpr int reduce_block_outputs(int splits) { return 4 * kReduceThreads / reduce_runs(splits); }
__device__ __forceinline__ void accumulate(float4& sum, const float4& v) {
    sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
}
// src[0] + src[stride] + ... + src[(count - 1) stride], count >= 1, in this order; the loads of
// kReduceBatch splits are issued before their adds.
__device__ __forceinline__ float4 sum_splits(const float* src, size_t split_stride, int count) {
    float4 sum = *reinterpret_cast<const float4*>(src);
    int s = 1;
    for (; s + kReduceBatch <= count; s += kReduceBatch) {
        float4 v[kReduceBatch];
#pragma unroll
        for (int i = 0; i < kReduceBatch; ++i) v[i] = *reinterpret_cast<const float4*>(src + (s + i) * split_stride);
#pragma unroll
        for (int i = 0; i < kReduceBatch; ++i) accumulate(sum, v[i]);
    }
    for (; s < count; ++s) accumulate(sum, *reinterpret_cast<const float4*>(src + s * split_stride));
    return sum;
}
__global__ void __launch_bounds__(kReduceThreads)
    sgemm_10_every_shape_reduce(const TileParams p, int bm, int bn, int group_m) {
    sgemm::wait_prior_grid();  // the tile kernel's partials written and visible (no-op if not chained)
    __shared__ float4 run_sums[kReduceThreads / 32][32];  // [warp][lane]
    const int runs = reduce_runs(p.splits), block_outputs = reduce_block_outputs(p.splits);
    // Grid: bm * bn / block_outputs blocks per split tile, 32-bit indices only.
    const int blocks_per_tile = bm * bn / block_outputs;
    const int t = blockIdx.x / blocks_per_tile;  // split tile dp_tiles + t
    const int first_output = blockIdx.x % blocks_per_tile * block_outputs;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, group = warp / runs, run = warp % runs;
    const int e = first_output + 4 * (32 * group + lane);  // first of this quad's 4 floats in the tile
    const int row = e / bn, col = e % bn;  // one row: bn is a multiple of 4
    const sgemm::TileOrigin origin =
        sgemm::rasterized_tile(p.dp_tiles + t, sgemm::ceil_div(p.M, bm), sgemm::ceil_div(p.N, bn), group_m, bm, bn);
    const int rows_left = p.M - origin.row, cols_left = p.N - origin.col;
    const bool inside = row < rows_left && col < cols_left;  // else padding of an edge tile: nothing to write
    const size_t split_stride = static_cast<size_t>(p.sk_tiles) * bm * bn;  // floats between splits
    const int per_run = sgemm::ceil_div(p.splits, runs), first = run * per_run;
    const int count = min(p.splits - first, per_run);
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (inside && count > 0)
        sum = sum_splits(p.partials + static_cast<size_t>(t) * bm * bn + e + first * split_stride, split_stride, count);
    if (runs > 1) {
        run_sums[warp][lane] = sum;
        __syncthreads();
        if (run == 0)
            for (int r = 1; r < runs && r * per_run < p.splits; ++r) accumulate(sum, run_sums[warp + r][lane]);
    }
    float* C_tile = p.C + static_cast<size_t>(origin.row) * p.ldc + origin.col;
    if (p.c_vec) {
        if (run == 0 && inside)
            sgemm::store_c4(C_tile, p.ldc, row, col, rows_left, cols_left, sum, p.alpha, p.beta, true);
        return;
    }
    // [doc:reduce-unaligned-c]
    // C's rows unaligned: the block's sums go out one float per thread and step, so that a warp's
    // store writes 32 consecutive floats of a row (a lane's 4 scalar stores would each write a
    // quarter of every sector they touch).
    if (run == 0) run_sums[warp][lane] = sum;  // only this warp read its slot above
    __syncthreads();
    for (int i = threadIdx.x; i < block_outputs; i += kReduceThreads) {
        const int g = i / 128, r = (first_output + i) / bn, c = (first_output + i) % bn;
        if (r < rows_left && c < cols_left) {
            float* dst = C_tile + static_cast<size_t>(r) * p.ldc + c;
            *dst = sgemm::scale(reinterpret_cast<const float*>(run_sums[g * runs])[i % 128], p.alpha, p.beta, dst);
        }
    }
    // [/doc:reduce-unaligned-c]
}

// [doc:pack-b]
// step 10: B's rows not 16-byte aligned (ldb or B not a multiple of 4 floats, e.g. N = 4097): the
// tile kernel copies B one float per cp.async, ~4 % slower than with 16-byte copies. For a large
// problem, copying B once into an aligned K x ldp workspace (ldp = N rounded up to 4, the extra
// columns zero) costs K * N * 8 bytes, against 2 * M * N * K FLOP that then run at full speed.
// A straight copy, so a grid-stride loop rather than staging.cuh's shared-memory tile walk (made
// for transposes); it writes the padding columns too, since the float4 copies of B read them.
__global__ void __launch_bounds__(256)
    sgemm_10_every_shape_pack_b(int K, int N, const float* B, int ldb, float* Bp, int ldp) {
    const long long n_total = static_cast<long long>(K) * ldp;
    for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n_total; i += static_cast<long long>(gridDim.x) * 256) {
        const long long k = i / ldp;
        const int n = static_cast<int>(i - k * ldp);
        Bp[i] = n < N ? B[k * ldb + n] : 0.0f;
    }
}

}  // namespace step10
