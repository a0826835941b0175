// Step 10, the streaming kernels: shapes where a tile kernel would spend its time on padding, on
// a pipeline that never fills, or on FMAs the shape does not have, and where the time that counts
// is the time to move the bytes. Each reads its large operand once at full width:
//  * gemv_n1 (N == 1): lanes of a warp share a row of A;
//  * gemv_m1 (M == 1): warps share a column range of B, each a row at a time;
//  * skinny (M <= 64): 16, 8 or 4 rows of A per block in shared memory, B streamed once, K split
//    across blocks with a fixed-order reduction by the block that finishes last (one launch);
//  * tall (2 <= N <= 8): rows of A streamed along K, B's chunk in shared memory, K split across
//    blocks as skinny does;
//  * outer (K <= 32): the whole K of a tile in shared memory, C written in full 128-byte lines.
#pragma once

#include "../common/tile.cuh"
#include "planner.h"  // the kernels' fixed sizes

namespace step10 {

// [doc:gemv]
// step 10: N == 1, y = alpha * A x + beta * y (x: B's column, stride ldb; y: C's column, stride ldc).
// Memory-bound on A. LPR lanes per row (a power of two, 1 .. 256, chosen from K and M) read the row
// coalesced, as float4s when A's rows are 16-byte aligned; each lane sums its elements in k order,
// the lanes of a warp add up with a fixed butterfly of shuffles and, when a row spans several
// warps, the warps' sums are added in warp order through shared memory: deterministic. x (K
// floats) is read by every row and stays in L1/L2.
template <int LPR>
__global__ void __launch_bounds__(256)
    sgemm_10_every_shape_gemv_n1(int M, int K, float alpha, const float* A, int lda, const float* x, int incx,
                                 float beta, float* y, int incy, bool a_vec) {
    static_assert(LPR >= 1 && LPR <= 256 && (LPR & (LPR - 1)) == 0,
                  "a row's lanes are a power-of-two part of the block");
    constexpr int kRowsPerBlock = 256 / LPR;
    constexpr int kShuffle = LPR < 32 ? LPR : 32;  // lanes of a row within one warp
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
    for (int offset = kShuffle / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if constexpr (LPR > 32) {  // the row's LPR / 32 warps, added in warp order
        __shared__ float warp_sums[8];
        if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
        __syncthreads();
        if (lane == 0)
            for (int w = 1; w < LPR / 32; ++w) sum += warp_sums[threadIdx.x / 32 + w];
    }
    if (row < M && lane == 0) {
        float* out = y + row * incy;
        *out = sgemm::scale(sum, alpha, beta, out);
    }
}

// [doc:split-sum]
// A block of a split streaming kernel (gridDim.y > 1 K ranges), after storing its partial sums: the
// last block of its range to finish (one counter per range, zero on entry) adds the S partials of
// the range's outputs, rows [row0, row0 + rows) x columns [col0, col0 + cols) of C, in split order
// 0, 1, ..., S - 1, whichever block that is: the same bits every run. Every block calls it (barriers).
__device__ inline void add_partials_if_last(const sgemm::GemmArgs& a, const float* partials, unsigned* counter,
                                            long long row0, int rows, long long col0, int cols) {
    __shared__ bool last_block;
    __threadfence();  // this block's partials are visible device-wide before it is counted
    __syncthreads();
    if (threadIdx.x == 0) last_block = atomicAdd(counter, 1u) == gridDim.y - 1;
    __syncthreads();
    if (!last_block) return;
    __threadfence();  // ... and the other blocks' partials are visible to this one
    for (int e = threadIdx.x; e < rows * cols; e += blockDim.x) {
        const long long m = row0 + e / cols, n = col0 + e % cols;
        const float* src = partials + m * a.N + n;
        float sum = __ldcg(src);  // from L2: written by other blocks during this launch
#pragma unroll 8
        for (unsigned s = 1; s < gridDim.y; ++s) sum += __ldcg(src + static_cast<long long>(s) * a.M * a.N);
        a.C[m * a.ldc + n] = sgemm::scale(sum, a.alpha, a.beta, &a.C[m * a.ldc + n]);
    }
}
// [/doc:split-sum]

// [doc:skinny]
// ---- skinny M: C (M x N, M <= 64) = alpha * A B + beta * C, B streamed once.
// A block owns MR rows of A (one of row_groups groups), 128 columns and one K range [k_begin, k_end)
// (blockIdx.y = the split). Its 8 warps
// are 8 k-groups: warp g streams rows k_begin + g, + 8, ... of its 128 columns, a 512-byte row
// segment per row, and multiplies each B element by all MR rows of A, read as float4 broadcasts
// from a transposed copy of A's chunk in shared memory (MR / 4 LDS.128 per 4 MR FMAs). The A chunks
// are double-buffered and copied by cp.async while the previous chunk is in use, so no warp waits
// for A. How B arrives depends on its alignment:
//  * rows 16-byte aligned (kVec4): a ring of kSkinnyDepth row buffers per warp in shared memory,
//    filled by 16-byte cp.async. A lane reads back only the bytes it copied, so the ring needs no
//    barrier, and kSkinnyDepth rows per warp are in flight without holding registers;
//  * otherwise: 4-byte loads of columns lane, lane + 32, lane + 64, lane + 96 (coalesced at any
//    alignment) straight into registers, kAhead rows at a time, all issued before any is used (a
//    4-byte cp.async per float would cost 4 copy instructions per lane and row).
// The 8 k-groups are added in group order through shared memory; with S > 1 splits each block
// writes its partial tile to the workspace and the last block of a column range (a counter per
// column range, zeroed before the launch) adds the S partials in split order 0, 1, ..., S - 1.
// Every sum has a fixed order: bit-identical run to run.
struct SkinnyParams {
    sgemm::GemmArgs a;     // the GEMM
    int row_groups;        // blocks per column range, one per MR rows of A (M <= row_groups x MR)
    int k_per_split;       // rows of B per split (the last split may have fewer)
    float* partials;       // splits x M x N floats (splits > 1)
    unsigned* counters;    // one per column range and row group, zero on entry (splits > 1)
};

// The column (of the block's 128) that lane `lane` holds in its v-th accumulator.
template <bool kVec4>
__device__ __forceinline__ int skinny_col(int lane, int v) {
    return kVec4 ? lane * 4 + v : lane + 32 * v;
}

template <int MR, bool kVec4>
__global__ void __launch_bounds__(256) sgemm_10_every_shape_skinny(const SkinnyParams p) {
    static_assert(MR % 4 == 0, "A's chunk is read as float4s of 4 consecutive rows");
    static_assert(kSkinnyGroups * 32 == 256, "one k-group per warp");
    static_assert(kSkinnyChunk % (kSkinnyGroups * kSkinnyDepth) == 0,
                  "a chunk holds whole rounds of every warp's rows, and more than kSkinnyDepth of them");
    constexpr int kAhead = kSkinnyAhead;  // unaligned B: rows per warp and round (planner.h)
    // Dynamic shared memory (skinny_smem(MR) bytes): two A chunks (the first reused for the
    // k-groups' sums at the end), then the warps' rings of B rows.
    extern __shared__ float4 skinny_smem_base[];
    float* smem = reinterpret_cast<float*>(skinny_smem_base);
    auto As = reinterpret_cast<float(*)[kSkinnyChunk][MR + kSkinnyPadA]>(smem);  // As[buf][k][m] = A[m][k0 + k]
    auto red = reinterpret_cast<float(*)[4][kSkinnyCols]>(smem);                 // red[group][row][column]
    auto ring = reinterpret_cast<float(*)[kSkinnyDepth][kSkinnyCols]>(smem + skinny_a_floats(MR));

    const int tid = threadIdx.x, g = tid / 32, lane = tid % 32;
    const int M = p.a.M, N = p.a.N;
    // Neighbouring blocks take the row groups of one column range: they read the same B rows at
    // about the same time, the first from DRAM, the others from L2.
    const int row0 = static_cast<int>(blockIdx.x % p.row_groups) * MR, rows = min(MR, M - row0);
    const long long col0 = static_cast<long long>(blockIdx.x / p.row_groups) * kSkinnyCols;
    const long long k_begin = static_cast<long long>(blockIdx.y) * p.k_per_split;
    const long long k_end = min(static_cast<long long>(p.a.K), k_begin + p.k_per_split);
    const bool full = col0 + kSkinnyCols <= N;  // uniform per block: every column inside B
    const float* B_cols = p.a.B + col0;

    // A's chunk starting at row k0 of the K range into buffer `buf`, transposed, by 4-byte cp.async
    // (zero-filled outside A and past k_end). One commit group.
    auto copy_a = [&](int buf, long long k0) {
        const int kc = static_cast<int>(min(static_cast<long long>(kSkinnyChunk), k_end - k0));
#pragma unroll 8
        for (int i = tid; i < MR * kSkinnyChunk; i += 256) {
            const int m = i / kSkinnyChunk, k = i % kSkinnyChunk;  // consecutive threads: along a row of A
            const bool in = m < rows && k < kc;
            sgemm::cp_async4(&As[buf][k][m], in ? p.a.A + static_cast<long long>(row0 + m) * p.a.lda + k0 + k : p.a.A,
                             in ? 4 : 0);
        }
        sgemm::cp_async_commit();
    };
    // [doc:copy-row]
    // kVec4: row t of this warp (k = k_begin + g + 8 t) into ring slot t % kSkinnyDepth; one commit
    // group per call, empty past the end.
    auto copy_row = [&](long long t) {
        const long long k = k_begin + g + kSkinnyGroups * t;
        if (k < k_end) {  // the lane's 4 columns, zero-filled past N (the last column range may be partial)
            const long long n_in = min(4LL, max(0LL, N - (col0 + lane * 4)));
            const float* src = B_cols + k * p.a.ldb + lane * 4;
            sgemm::cp_async16(ring[g][t % kSkinnyDepth] + lane * 4, n_in > 0 ? src : p.a.B, static_cast<int>(4 * n_in));
        }
        sgemm::cp_async_commit();
    };
    // [/doc:copy-row]
    // One row of B times the MR rows of A's chunk.
    float acc[MR][4] = {};
    auto fma_row = [&](const float(*a_chunk)[MR + kSkinnyPadA], int r, const float(&b)[4]) {
#pragma unroll
        for (int m = 0; m < MR; m += 4) {
            const float4 a = *reinterpret_cast<const float4*>(&a_chunk[r][m]);
#pragma unroll
            for (int v = 0; v < 4; ++v) {
                acc[m + 0][v] += a.x * b[v];
                acc[m + 1][v] += a.y * b[v];
                acc[m + 2][v] += a.z * b[v];
                acc[m + 3][v] += a.w * b[v];
            }
        }
    };

    copy_a(0, k_begin);
    if constexpr (kVec4)
        for (int t = 0; t < kSkinnyDepth; ++t) copy_row(t);
    long long t = 0;  // this warp's next row
    int buf = 0;
    for (long long k0 = k_begin; k0 < k_end; k0 += kSkinnyChunk, buf ^= 1) {
        const int kc = static_cast<int>(min(static_cast<long long>(kSkinnyChunk), k_end - k0));
        // A's chunk has landed: with kVec4 at least kSkinnyDepth row groups were committed after it
        // (the previous chunk's rows, or the prologue's), so waiting down to kSkinnyDepth pending
        // groups completes it; without, its group is the only one.
        if constexpr (kVec4)
            sgemm::cp_async_wait<kSkinnyDepth>();
        else
            sgemm::cp_async_wait<0>();
        __syncthreads();  // ... for every thread's copies; and every warp is done with the other buffer
        if (k0 + kSkinnyChunk < k_end) copy_a(buf ^ 1, k0 + kSkinnyChunk);
        const auto a_chunk = As[buf];
        if constexpr (kVec4) {
            for (int r = g; r < kc; r += kSkinnyGroups, ++t) {
                sgemm::cp_async_wait<kSkinnyDepth - 1>();  // row t has landed (and maybe one more)
                float b[4];
#pragma unroll
                for (int v = 0; v < 4; ++v) b[v] = ring[g][t % kSkinnyDepth][lane * 4 + v];
                fma_row(a_chunk, r, b);
                // Into the slot just read, by the lane that read it: its loads of b above were consumed by
                // the FMAs, so the copy cannot overwrite them.
                copy_row(t + kSkinnyDepth);
            }
        } else {
            // Rounds of kAhead rows, software-pipelined: the loads of round i + 1 are issued before
            // the FMAs of round i, so a warp always has a round in flight.
            // [doc:load-round]
            auto load_round = [&](float(&b)[kAhead][4], int r0) {
#pragma unroll
                for (int u = 0; u < kAhead; ++u) {
                    const int r = r0 + u * kSkinnyGroups;
                    const float* b_row = B_cols + (k0 + r) * p.a.ldb;
#pragma unroll
                    for (int v = 0; v < 4; ++v) {
                        const int c = skinny_col<kVec4>(lane, v);
                        b[u][v] = r < kc && (full || col0 + c < N) ? b_row[c] : 0.0f;  // zeros past the chunk
                    }
                }
            };
            // [/doc:load-round]
            constexpr int kRound = kSkinnyGroups * kAhead;
            float b[kAhead][4], next[kAhead][4];
            load_round(b, g);
            for (int r0 = g; r0 < kc; r0 += kRound) {
                load_round(next, r0 + kRound);
#pragma unroll
                for (int u = 0; u < kAhead; ++u) fma_row(a_chunk, min(r0 + u * kSkinnyGroups, kSkinnyChunk - 1), b[u]);
#pragma unroll
                for (int u = 0; u < kAhead; ++u)
#pragma unroll
                    for (int v = 0; v < 4; ++v) b[u][v] = next[u][v];
            }
        }
    }
    sgemm::cp_async_wait<0>();

    // The 8 k-groups, added in group order, 4 rows at a time (in the first A buffer: a barrier
    // first, below). Output (r, c) of a slab goes to C (one split) or to this split's partial tile.
    const bool split = gridDim.y > 1;
    float* partial = p.partials + static_cast<long long>(blockIdx.y) * M * N;
#pragma unroll
    for (int m0 = 0; m0 < MR; m0 += 4) {
        if (m0 >= rows) break;  // uniform: rows beyond the block's hold zeros
        __syncthreads();
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int v = 0; v < 4; ++v) red[g][r][skinny_col<kVec4>(lane, v)] = acc[m0 + r][v];
        __syncthreads();
        for (int e = tid; e < 4 * kSkinnyCols; e += 256) {
            const int r = e / kSkinnyCols, c = e % kSkinnyCols;
            const long long m = row0 + m0 + r, n = col0 + c;  // in C
            if (m0 + r >= rows || n >= N) continue;
            float sum = red[0][r][c];
#pragma unroll
            for (int i = 1; i < kSkinnyGroups; ++i) sum += red[i][r][c];
            if (split)
                partial[m * N + n] = sum;
            else
                p.a.C[m * p.a.ldc + n] = sgemm::scale(sum, p.a.alpha, p.a.beta, &p.a.C[m * p.a.ldc + n]);
        }
    }
    // Split: the last block of this column range adds the partials in split order.
    if (split)
        add_partials_if_last(p.a, p.partials, &p.counters[blockIdx.x], row0, rows, col0,
                             static_cast<int>(min(static_cast<long long>(kSkinnyCols), N - col0)));
}
// [/doc:skinny]

// [doc:gemv-m1]
// ---- M == 1: y = alpha * x B + beta * y (x: A's one row, y: C's one row), B's rows 16-byte aligned,
// streamed once. With one row of A the skinny kernel would copy x into shared memory and compute 4
// rows of FMAs for it; this kernel is gemv_n1's mirror instead, with nothing in its loop but B's
// loads. A block owns kSkinnyCols columns and one K range (blockIdx.y = the split); warp g reads rows
// k_begin + g, + 8, ... of its columns, 512 bytes a row (a float4 a lane), kGemvM1Ahead rows a round,
// every load of a round issued before any is used; x[k] is one broadcast load a row. No shared
// memory but the sums': 3 blocks fit on an SM (66 registers a thread), 96 KB of B in flight. The 8
// warps' sums are added in warp order through shared memory; with S > 1 K ranges the last block of a
// column range adds the partials in split order (add_partials_if_last): the same bits every run.
__global__ void __launch_bounds__(256) sgemm_10_every_shape_gemv_m1(const SkinnyParams p) {
    constexpr int R = kGemvM1Ahead, G = kSkinnyGroups;
    static_assert(G * 32 == 256, "one k-group per warp");
    static_assert(kSkinnyCols == 32 * 4, "a float4 of columns a lane");
    __shared__ float red[G][kSkinnyCols];
    static_assert(sizeof(red) == kGemvM1Smem, "the planner's occupancy counts this kernel's shared memory");
    const int tid = threadIdx.x, g = tid / 32, lane = tid % 32;
    const int N = p.a.N;
    const long long col0 = static_cast<long long>(blockIdx.x) * kSkinnyCols;
    const long long k_begin = static_cast<long long>(blockIdx.y) * p.k_per_split;
    const long long k_end = min(static_cast<long long>(p.a.K), k_begin + p.k_per_split);
    const int n_in = static_cast<int>(min(4LL, max(0LL, N - (col0 + lane * 4))));  // the lane's columns in B
    const float* B_lane = p.a.B + col0 + lane * 4;
    const float* x = p.a.A;  // M == 1: A's row

    // The lane's 4 columns of row k of B (zeros past N; a partial float4 one float at a time).
    auto load_row = [&](float(&b)[4], long long k) {
        const float* row = B_lane + k * p.a.ldb;
        if (n_in == 4) {
            const float4 v = *reinterpret_cast<const float4*>(row);
            b[0] = v.x, b[1] = v.y, b[2] = v.z, b[3] = v.w;
        } else {
#pragma unroll
            for (int v = 0; v < 4; ++v) b[v] = v < n_in ? row[v] : 0.0f;
        }
    };
    float acc[4] = {};  // each column's sum over this warp's rows, in k order
    long long k = k_begin + g;
    for (; k + (R - 1) * G < k_end; k += R * G) {  // whole rounds: R rows of this warp
        float b[R][4], xs[R];
#pragma unroll
        for (int u = 0; u < R; ++u) {
            load_row(b[u], k + u * G);
            xs[u] = x[k + u * G];
        }
#pragma unroll
        for (int u = 0; u < R; ++u)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[v] += xs[u] * b[u][v];
    }
    for (; k < k_end; k += G) {  // the rows left, one at a time
        float b[4];
        load_row(b, k);
        const float xk = x[k];
#pragma unroll
        for (int v = 0; v < 4; ++v) acc[v] += xk * b[v];
    }

    // The 8 warps' sums, in warp order; then C (one split) or this split's partials.
#pragma unroll
    for (int v = 0; v < 4; ++v) red[g][lane * 4 + v] = acc[v];
    __syncthreads();
    const bool split = gridDim.y > 1;
    if (tid < kSkinnyCols && col0 + tid < N) {
        const long long n = col0 + tid;
        float sum = red[0][tid];
#pragma unroll
        for (int i = 1; i < G; ++i) sum += red[i][tid];
        if (split)
            p.partials[static_cast<long long>(blockIdx.y) * N + n] = sum;
        else
            p.a.C[n] = sgemm::scale(sum, p.a.alpha, p.a.beta, &p.a.C[n]);
    }
    // Split: the last block of this column range adds the partials in split order.
    if (split)
        add_partials_if_last(p.a, p.partials, &p.counters[blockIdx.x], 0, 1, col0,
                             static_cast<int>(min(static_cast<long long>(kSkinnyCols), N - col0)));
}
// [/doc:gemv-m1]

// [doc:tall]
// ---- tall: 2 <= N <= 8, C (M x N) = alpha * A B + beta * C, A streamed once. The mirror of skinny
// for tall, narrow C, where a tile kernel reads A in 32-byte pieces of 128 rows per k-tile. A block
// owns kTallRows rows per warp (8 warps) and one K range (blockIdx.y = the split); per chunk of
// kTallChunk rows of B it stages the chunk transposed in shared memory, Bs[n][k] (the next one
// copied by cp.async meanwhile), and every warp
// streams its rows of A along k: where A's rows are 16-byte aligned one warp instruction reads 512
// contiguous bytes of a row (float4s), otherwise 128 (4-byte loads at lane, lane + 32, ...). Each lane
// keeps kTallN accumulators per row (N <= kTallN of them real) for the k's it read; at the end the 32 lanes' sums are added by a
// fixed butterfly that leaves each (row, column) with one lane. With S > 1 splits the last block of
// a row range adds the S partials in split order (as skinny). Every sum has a fixed order.
struct TallParams {
    sgemm::GemmArgs a;
    int k_per_split;  // rows of B per split, a multiple of 4 when K is split (the last split may have fewer)
    float* partials;  // splits x M x N floats (splits > 1)
    unsigned* counters;  // one per row range, zero on entry (splits > 1)
};

// The k (of a chunk's 128 per step) that lane `lane` reads in its v-th element.
template <bool kVec>
__device__ __forceinline__ int tall_k(int lane, int v) {
    return kVec ? lane * 4 + v : lane + 32 * v;
}

template <bool kVec>
__global__ void __launch_bounds__(256, 2) sgemm_10_every_shape_tall(const TallParams p) {
    constexpr int NB = kTallN, R = kTallRows, kValues = R * NB, KC = kTallChunk, kStepsPerChunk = KC / 128;
    static_assert(kValues == 32, "the butterfly leaves each lane one of its warp's R x NB = 32 sums");
    static_assert(KC % 128 == 0, "a chunk is whole steps of 128 k (32 lanes x 4)");
    // Bs[buf][n][k] = B[k0 + k][n]: two chunks, the next one copied (cp.async) while this one is used.
    __shared__ __align__(16) float Bs[2][NB][KC + 4];  // +4: fewer bank conflicts on the transposed stores
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int M = p.a.M, N = p.a.N;
    const long long row0 = static_cast<long long>(blockIdx.x) * 8 * R + warp * R;  // this warp's first row
    const long long k_begin = static_cast<long long>(blockIdx.y) * p.k_per_split;
    const long long k_end = min(static_cast<long long>(p.a.K), k_begin + p.k_per_split);
    const long long steps = (k_end - k_begin + 127) / 128;
    const float* a_rows[R];
#pragma unroll
    for (int r = 0; r < R; ++r) a_rows[r] = row0 + r < M ? p.a.A + (row0 + r) * p.a.lda : nullptr;

    // B's chunk c (KC rows from k_begin + c KC) into buffer `buf`, transposed, zero past K and N.
    auto copy_b = [&](int buf, long long c) {
        const long long k0 = k_begin + c * KC;
        for (int i = tid; i < KC * NB; i += 256) {  // consecutive threads: along a row of B
            const int k = i / NB, n = i % NB;
            const bool in = k0 + k < k_end && n < N;
            sgemm::cp_async4(&Bs[buf][n][k], in ? p.a.B + (k0 + k) * p.a.ldb + n : p.a.B, in ? 4 : 0);
        }
        sgemm::cp_async_commit();
    };
    // A's 4 k of step `step` for each of the warp's rows (zeros past K and M).
    auto load_a = [&](float(&a)[R][4], long long step) {
        const long long k = k_begin + step * 128;
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (kVec && a_rows[r] && k + 128 <= k_end) {
                const float4 v = *reinterpret_cast<const float4*>(a_rows[r] + k + lane * 4);
                a[r][0] = v.x, a[r][1] = v.y, a[r][2] = v.z, a[r][3] = v.w;
            } else {
#pragma unroll
                for (int v = 0; v < 4; ++v) {
                    const long long kv = k + tall_k<kVec>(lane, v);
                    a[r][v] = a_rows[r] && kv < k_end ? a_rows[r][kv] : 0.0f;
                }
            }
        }
    };

    float acc[R][NB] = {};
    float a[R][4], next[R][4];
    copy_b(0, 0);
    load_a(a, 0);
    // Software-pipelined: the loads of step s + 1 are issued before the FMAs of step s, across
    // the barrier between chunks too, so a warp always has a step of A in flight.
    for (long long s = 0; s < steps; ++s) {
        const long long c = s / kStepsPerChunk;
        const int buf = static_cast<int>(c & 1), q = static_cast<int>(s % kStepsPerChunk) * 128;
        if (q == 0) {
            sgemm::cp_async_wait<0>();
            __syncthreads();  // chunk c has landed for every thread; every warp is done with chunk c - 1
            if ((c + 1) * KC < k_end - k_begin) copy_b(buf ^ 1, c + 1);
        }
        if (s + 1 < steps) load_a(next, s + 1);
#pragma unroll
        for (int n = 0; n < NB; ++n) {
            float b[4];
            if constexpr (kVec) {
                const float4 v = *reinterpret_cast<const float4*>(&Bs[buf][n][q + lane * 4]);
                b[0] = v.x, b[1] = v.y, b[2] = v.z, b[3] = v.w;
            } else {
#pragma unroll
                for (int v = 0; v < 4; ++v) b[v] = Bs[buf][n][q + tall_k<kVec>(lane, v)];
            }
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int v = 0; v < 4; ++v) acc[r][n] += a[r][v] * b[v];
        }
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int v = 0; v < 4; ++v) a[r][v] = next[r][v];
    }

    // The warp's R x NB = 32 sums over its 32 lanes: at each step a lane keeps one half of its values
    // and adds the partner's (lane ^ offset) copy of that half, so after 5 steps lane l holds value l.
    float v[kValues];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int n = 0; n < NB; ++n) v[r * NB + n] = acc[r][n];
    int count = kValues;
#pragma unroll
    for (int offset = 16; offset >= 1; offset /= 2) {
        const bool upper = lane & offset;
        const int half = count / 2;
#pragma unroll
        for (int i = 0; i < kValues / 2; ++i) {
            if (i >= half) break;
            const float send = upper ? v[i] : v[i + half];
            const float keep = upper ? v[i + half] : v[i];
            v[i] = keep + __shfl_xor_sync(0xffffffffu, send, offset);
        }
        count = half;
    }
    const bool split = gridDim.y > 1;
    float* partial = p.partials + static_cast<long long>(blockIdx.y) * M * N;
#pragma unroll
    for (int j = 0; j < kValues / 32; ++j) {
        const int idx = lane * (kValues / 32) + j, r = idx / NB, n = idx % NB;
        const long long m = row0 + r;
        if (m >= M || n >= N) continue;
        if (split)
            partial[m * N + n] = v[j];
        else
            p.a.C[m * p.a.ldc + n] = sgemm::scale(v[j], p.a.alpha, p.a.beta, &p.a.C[m * p.a.ldc + n]);
    }
    // Split: the last block of this row range adds the partials in split order.
    if (split) {
        const long long first = static_cast<long long>(blockIdx.x) * 8 * R;
        add_partials_if_last(p.a, p.partials, &p.counters[blockIdx.x], first,
                             static_cast<int>(min(static_cast<long long>(8 * R), M - first)), 0, N);
    }
}
// [/doc:tall]

// [doc:outer]
// ---- outer: K <= kOuterMaxK. A tile of C is kOuterBM x kOuterBN outputs, each a sum of K
// products: with K this small a GEMM is C being written (and read when beta != 0), so the kernel is
// built around the store. A block copies its A rows (kOuterBM x K) and B columns (K x kOuterBN)
// into shared memory once, then warp w computes rows 8w .. 8w + 7 and lane l columns l, l + 32,
// l + 64, l + 96: each store instruction of a warp writes 32 consecutive floats of one row of C, a
// whole 128-byte line when the row is 128-byte aligned and two half lines otherwise, at any
// alignment of C (no float4 needed). Per k a warp reads 2 float4 broadcasts of A and 4
// conflict-free floats of B for 32 FMAs: the FMAs, not shared memory, set the compute time. The
// block is small (32 accumulators a thread, 24 KB) so that 3 fit on an SM: while one copies its
// tile in, the others compute and store.
__global__ void __launch_bounds__(256, 3) sgemm_10_every_shape_outer(const sgemm::GemmArgs a) {
    constexpr int TM = kOuterBM / 8, TN = kOuterBN / 32;  // 8 warps x TM rows, 32 lanes x TN columns
    static_assert(TM % 4 == 0, "a warp's rows of A are read as float4 broadcasts");
    __shared__ __align__(16) float As[kOuterMaxK][kOuterBM];  // As[k][m] = A[row0 + m][k]
    __shared__ float Bs[kOuterMaxK][kOuterBN];  // Bs[k][n] = B[k][col0 + n]
    const int K = a.K;
    const int tiles_n = sgemm::ceil_div(a.N, kOuterBN);
    const int row0 = blockIdx.x / tiles_n * kOuterBM, col0 = blockIdx.x % tiles_n * kOuterBN;
    const int rows_left = a.M - row0, cols_left = a.N - col0;  // >= 1; indices stay relative to the tile
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

    for (int i = tid; i < kOuterBM * K; i += 256) {  // consecutive threads: along a row of A
        const int m = i / K, k = i % K;
        As[k][m] = m < rows_left ? a.A[static_cast<long long>(row0 + m) * a.lda + k] : 0.0f;
    }
    for (int i = tid; i < K * kOuterBN; i += 256) {  // consecutive threads: along a row of B
        const int k = i / kOuterBN, n = i % kOuterBN;
        Bs[k][n] = n < cols_left ? a.B[static_cast<long long>(k) * a.ldb + col0 + n] : 0.0f;
    }
    __syncthreads();

    float acc[TM][TN] = {};
#pragma unroll 4
    for (int k = 0; k < K; ++k) {
        float av[TM], bv[TN];
#pragma unroll
        for (int i = 0; i < TM; i += 4) {
            const float4 v = *reinterpret_cast<const float4*>(&As[k][warp * TM + i]);
            av[i] = v.x, av[i + 1] = v.y, av[i + 2] = v.z, av[i + 3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < TN; ++j) bv[j] = Bs[k][lane + 32 * j];
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j) acc[i][j] += av[i] * bv[j];
    }

    float* C_tile = a.C + static_cast<long long>(row0) * a.ldc + col0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = warp * TM + i;
        if (r >= rows_left) break;
        float* c_row = C_tile + static_cast<long long>(r) * a.ldc;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int c = lane + 32 * j;
            if (c < cols_left) c_row[c] = sgemm::scale(acc[i][j], a.alpha, a.beta, &c_row[c]);
        }
    }
}
// [/doc:outer]

}  // namespace step10
