// Device-side plumbing shared by the kernels: bounds-checked global loads, the
// alpha/beta epilogue and cp.async wrappers. Kept to mechanics only: each
// kernel file still shows its own tiling, indexing and loop structure.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "check.h"
#include "registry.h"

namespace sgemm {

// True when rows of a matrix with leading dimension `ld` starting at `base`
// may be read or written as float4: every row start is 16-byte aligned.
inline bool rows_are_16b_aligned(const void* base, int ld) {
    return ld % 4 == 0 && reinterpret_cast<std::uintptr_t>(base) % 16 == 0;
}
// The same for pairs of floats (float2, 8-byte stores): every row start is 8-byte aligned.
inline bool rows_are_8b_aligned(const void* base, int ld) {
    return ld % 2 == 0 && reinterpret_cast<std::uintptr_t>(base) % 8 == 0;
}

// True when A, B and C may all be read and written as float4s (pointer and leading dimension).
inline bool all_rows_16b_aligned(const GemmArgs& a) {
    return rows_are_16b_aligned(a.A, a.lda) && rows_are_16b_aligned(a.B, a.ldb) && rows_are_16b_aligned(a.C, a.ldc);
}

// describe() of a warp-tiled step: "128x128x8 tile, warp 32x64, thread 8x8", then `extra` (e.g. the
// stages), then what launch() chose for these arguments: no edge checks, scalar (unaligned) access.
inline std::string describe_warp_tiles(int bm, int bn, int bk, int wm, int wn, int tm, int tn, const std::string& extra,
                                       bool check_edges, bool vec_ok) {
    return std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) + " tile, warp " +
        std::to_string(wm) + "x" + std::to_string(wn) + ", thread " + std::to_string(tm) + "x" + std::to_string(tn) +
        extra + (check_edges ? "" : ", no edge checks") + (vec_ok ? "" : ", scalar (rows not 16-byte aligned)");
}

// ---- the grid: one block per tile of C ----
// Tiles along N on gridDim.x (up to 2^31 - 1), tiles along M on gridDim.y, which holds at most
// 65535: a taller C (more than 65535 x 128 rows) continues on gridDim.z. Blocks launch x first,
// then y, then z: the row-by-row order of a plain 2-D grid. (A 1-D grid that recovers the tile
// by a division measured 2-6 % slower on steps 05, 06 and 08 at 4096^3: the 2-D order is kept.)
inline constexpr int kMaxGridY = 65535;

// The grid for tiles_x x tiles_y tiles. When tiles_y > kMaxGridY, y * z may exceed tiles_y:
// the blocks past the last tile row must find nothing to do (edge-checked kernels do: their rows
// are >= M). Kernels without edge handling run only where tiles_y <= kMaxGridY (exact grid).
inline dim3 tile_grid(int tiles_x, int tiles_y) {
    const int z = ceil_div(tiles_y, kMaxGridY);
    return dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(ceil_div(tiles_y, z)), static_cast<unsigned>(z));
}

// The tile row (along gridDim.y, continued on gridDim.z) of this block (device).
__device__ __forceinline__ int tile_y() { return blockIdx.y + gridDim.y * blockIdx.z; }

// Threadblock rasterization of a 1-D grid (steps 09-12): block `block` takes the tile whose first
// row and column this returns, walking groups of group_m tile-rows column by column, so that the
// blocks resident at one time share rows of A and columns of B in L2 (a square-ish patch of C
// instead of whole tile-rows). group_m = 1 is plain row-major order. Host and device: a split-K
// reduction finds its tiles with the same walk. `block` keeps its caller's type: blockIdx.x is
// unsigned, and unsigned division is the shorter instruction sequence.
struct TileOrigin {
    int row, col;
};
// [doc:rasterized-tile]
template <typename Block>
__host__ __device__ __forceinline__ TileOrigin rasterized_tile(Block block, int tiles_m, int tiles_n, int group_m,
                                                               int bm, int bn) {
    const int group = block / (group_m * tiles_n);
    const int rows_after = tiles_m - group * group_m;
    const int group_rows = group_m < rows_after ? group_m : rows_after;  // the last group may be shorter
    const int in_group = block % (group_m * tiles_n);
    return {(group * group_m + in_group % group_rows) * bm, in_group / group_rows * bn};
}
// [/doc:rasterized-tile]
// The same for compile-time tiles of an M x N matrix.
template <int BM, int BN, int GROUP_M, typename Block>
__device__ __forceinline__ TileOrigin rasterized_tile(int M, int N, Block block) {
    static_assert(GROUP_M >= 1, "GROUP_M tile-rows per rasterization group; 1 is plain row-major order");
    return rasterized_tile(block, ceil_div(M, BM), ceil_div(N, BN), GROUP_M, BM, BN);
}

// The number of BM x BN tiles of an M x N matrix, in 64 bits (it may exceed an int).
inline long long tile_total(int M, int N, int BM, int BN) {
    return static_cast<long long>(ceil_div(M, BM)) * ceil_div(N, BN);
}

// A 1-D grid of all BM x BN tiles, for kernels that map blocks to tiles themselves
// (rasterized_tile): its size, at most 2^31 - 1 (host).
inline unsigned tile_count(int M, int N, int BM, int BN) {
    const long long tiles = tile_total(M, N, BM, BN);
    if (tiles > INT_MAX) throw std::length_error("more than 2^31 - 1 tiles: the grid cannot hold them");
    return static_cast<unsigned>(tiles);
}

// can_implement for a kernel with BM x BN x BK tiles: its indices are 32-bit ints, so the end of
// the last tile (e.g. block_row + BM) must not overflow; on a 1-D grid (kOneDimGrid) the tiles
// must number at most 2^31 - 1.
// The end of the last row (column) of tiles that a grid from tile_grid() launches: past
// ceil(tiles / 65535) * 65535 tiles when gridDim.z continues gridDim.y (blocks that find no tile).
inline long long grid_extent(int extent, int tile) {
    const int tiles = ceil_div(extent, tile);
    const dim3 g = tile_grid(1, tiles);
    return static_cast<long long>(g.y) * g.z * tile;
}

template <int BM, int BN, int BK, bool kOneDimGrid = false>
std::string fits_int_tiles(const GemmArgs& a) {
    if (a.M > INT_MAX - BM || a.N > INT_MAX - BN || a.K > INT_MAX - BK)
        return "M, N, K within one tile of 2^31 (32-bit tile indices)";
    if (kOneDimGrid && tile_total(a.M, a.N, BM, BN) > INT_MAX) return "more than 2^31 - 1 tiles";
    // On a 2-D grid (either side may be the one continued on gridDim.z) every block's first row
    // and column + one tile must stay below 2^31: the blocks past the last tile compute theirs too.
    if (!kOneDimGrid && (grid_extent(a.M, BM) + BM > INT_MAX || grid_extent(a.N, BN) + BN > INT_MAX))
        return "M, N within 2^16 tiles of 2^31 (the grid's spare blocks would overflow 32-bit indices)";
    return "";
}

// True when a kernel compiled without edge handling can run: M, N, K multiples of the tile, and a
// grid of exactly the tiles (see tile_grid), so that no block lies outside C.
template <int BM, int BN, int BK>
bool is_whole_tiles(const GemmArgs& a) {
    return a.M % BM == 0 && a.N % BN == 0 && a.K % BK == 0 && a.M / BM <= kMaxGridY;
}

// can_implement for tuning variants compiled without edge handling: whole tiles only, and
// 16-byte aligned rows of A, B and C (they copy and store float4s unconditionally).
template <int BM, int BN, int BK>
std::string whole_aligned_tiles_only(const GemmArgs& a) {
    if (!is_whole_tiles<BM, BN, BK>(a))
        return "needs M % " + std::to_string(BM) + ", N % " + std::to_string(BN) + ", K % " + std::to_string(BK) +
            " = 0";
    if (!rows_are_16b_aligned(a.A, a.lda) || !rows_are_16b_aligned(a.B, a.ldb) || !rows_are_16b_aligned(a.C, a.ldc))
        return "needs 16-byte aligned rows";
    return fits_int_tiles<BM, BN, BK>(a);
}

// [doc:min-blocks-per-sm]
// The minimum-blocks argument of __launch_bounds__ for the warp-tiled steps: ask
// ptxas to fit two blocks per SM (<= 64K / (2 * threads) registers per thread)
// while a block's accumulators (TM x TN per thread) fill at most a quarter of the register file;
// one otherwise.
constexpr int min_blocks_per_sm(int threads, int tm, int tn) { return threads * tm * tn <= 16384 ? 2 : 1; }

// One element of a row-major matrix, or 0 outside it: edge tiles are padded
// with zeros so that the inner product loop needs no bounds checks.
__device__ __forceinline__ float load_or_zero(const float* base, int ld, int row, int col, int rows, int cols) {
    return (row < rows && col < cols) ? base[static_cast<std::size_t>(row) * ld + col] : 0.0f;
}

// Four consecutive elements of one row starting at `col` (a multiple of 4).
// One 16-byte load (LDG.E.128) when the row is 16-byte aligned (`vec_ok`) and
// all four are inside the matrix; otherwise four guarded scalar loads.
__device__ __forceinline__ float4 load4_or_zero(const float* base, int ld, int row, int col, int rows, int cols,
                                                bool vec_ok) {
    if (row < rows) {
        const float* p = base + static_cast<std::size_t>(row) * ld + col;
        if (vec_ok && col + 3 < cols) return *reinterpret_cast<const float4*>(p);
        return make_float4(col < cols ? p[0] : 0.0f, col + 1 < cols ? p[1] : 0.0f, col + 2 < cols ? p[2] : 0.0f,
                           col + 3 < cols ? p[3] : 0.0f);
    }
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// [doc:scale]
// The epilogue of one element: C = alpha * acc + beta * C. With beta == 0 C is
// never read (BLAS semantics), so NaN or garbage in C cannot leak into the result.
__device__ __forceinline__ float scale(float acc, float alpha, float beta, const float* c) {
    return beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

__device__ __forceinline__ void store_c(float* C, int ldc, int row, int col, int M, int N, float acc, float alpha,
                                        float beta) {
    if (row < M && col < N) {
        float* c = C + static_cast<std::size_t>(row) * ldc + col;
        *c = scale(acc, alpha, beta, c);
    }
}

// Four consecutive outputs of one row; one 16-byte store (STG.E.128) when aligned
// and in range, guarded scalar stores at the right and bottom edges.
__device__ __forceinline__ void store_c4(float* C, int ldc, int row, int col, int M, int N, float4 acc, float alpha,
                                         float beta, bool vec_ok) {
    if (row >= M) return;
    float* c = C + static_cast<std::size_t>(row) * ldc + col;
    if (vec_ok && col + 3 < N) {
        float4 out;
        if (beta == 0.0f) {
            out = make_float4(alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w);
        } else {
            const float4 old = *reinterpret_cast<const float4*>(c);
            out = make_float4(alpha * acc.x + beta * old.x, alpha * acc.y + beta * old.y, alpha * acc.z + beta * old.z,
                              alpha * acc.w + beta * old.w);
        }
        *reinterpret_cast<float4*>(c) = out;
        return;
    }
    const float v[4] = {acc.x, acc.y, acc.z, acc.w};
#pragma unroll
    for (int i = 0; i < 4; ++i)
        if (col + i < N) c[i] = scale(v[i], alpha, beta, c + i);
}

// Two consecutive outputs of one row (the pairs a tensor-core accumulator holds); one 8-byte
// store when `vec2_ok` (C's rows 8-byte aligned, `col` even) and both are in range.
__device__ __forceinline__ void store_c2(float* C, int ldc, int row, int col, int M, int N, float2 acc, float alpha,
                                         float beta, bool vec2_ok) {
    if (row >= M) return;
    float* c = C + static_cast<std::size_t>(row) * ldc + col;
    if (vec2_ok && col + 1 < N) {
        float2 out = make_float2(alpha * acc.x, alpha * acc.y);
        if (beta != 0.0f) {
            const float2 old = *reinterpret_cast<const float2*>(c);
            out.x += beta * old.x, out.y += beta * old.y;
        }
        *reinterpret_cast<float2*>(c) = out;
        return;
    }
    if (col < N) c[0] = scale(acc.x, alpha, beta, c);
    if (col + 1 < N) c[1] = scale(acc.y, alpha, beta, c + 1);
}

// store_c / store_c4 without bounds checks, for a block that the caller has
// found to lie wholly inside C (for store_c4_unchecked: rows 16-byte aligned and
// `col` a multiple of 4). Used on the fast path so that interior blocks run no
// per-element predicates; edge blocks use the checked forms above.
__device__ __forceinline__ void store_c_unchecked(float* C, int ldc, int row, int col, float acc, float alpha,
                                                  float beta) {
    float* c = C + static_cast<std::size_t>(row) * ldc + col;
    *c = scale(acc, alpha, beta, c);
}

__device__ __forceinline__ void store_c4_unchecked(float* C, int ldc, int row, int col, float4 acc, float alpha,
                                                   float beta) {
    float4* c = reinterpret_cast<float4*>(C + static_cast<std::size_t>(row) * ldc + col);
    float4 out;
    if (beta == 0.0f) {  // C is never read
        out = make_float4(alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w);
    } else {
        const float4 old = *c;
        out = make_float4(alpha * acc.x + beta * old.x, alpha * acc.y + beta * old.y, alpha * acc.z + beta * old.z,
                          alpha * acc.w + beta * old.w);
    }
    *c = out;
}

// ---- programmatic dependent launch (sm_90+): a chain of kernels without a gap between them ----

// A kernel launched with sgemm::launch_chained (kernels/common/check.h) may start while the kernel
// before it in the stream still runs: it calls wait_prior_grid() before it touches any memory, which
// returns once that kernel has finished and its writes are visible. allow_next_grid() lets the kernel
// after it start early in the same way. Both do nothing on an ordinary launch or before sm_90.
__device__ __forceinline__ void wait_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void allow_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// ---- cp.async (sm_80+): global -> shared copies that bypass registers (LDGSTS) ----

// Copies `src_bytes` (0..16) bytes and zero-fills the rest of the 16-byte
// destination: src_bytes = 0 pads an edge tile with zeros without reading
// global memory. `.cg` caches in L2 only: the tile is reused from shared memory.
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, int src_bytes) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
}

// 4-byte form for rows that are not 16-byte aligned (src_bytes 0 or 4).
__device__ __forceinline__ void cp_async4(void* smem, const void* gmem, int src_bytes) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

// Waits until at most `Pending` committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

// The exponent e of the magnitude whose float bits are `bits` (nonzero, finite): 2^e <= x < 2^(e+1),
// subnormals included (bits x 2^-149, the top bit at 31 - clz). Steps 12 and 14 scale by it.
__device__ __forceinline__ int float_exponent(unsigned bits) {
    if (bits >= 0x00800000u) return static_cast<int>(bits >> 23) - 127;  // normal: the exponent field
    return -118 - __clz(static_cast<int>(bits));
}

// x * 2^e for e in [-252, 254], exact unless the result leaves the normal range (steps 12 and 14
// scale rows and columns by powers of two). One multiply when 2^e is a normal float (every real
// input); else two factors, each a normal power of two, the one nearer 1 first, so that a result
// below the normal range is rounded once.
__device__ __forceinline__ float mul_pow2(float x, int e) {
    if (e >= -126 && e <= 127) return x * __int_as_float((e + 127) << 23);
    const int e1 = max(-126, min(127, e));
    const int e2 = max(-126, min(127, e - e1));
    return x * __int_as_float((e2 + 127) << 23) * __int_as_float((e1 + 127) << 23);
}

}  // namespace sgemm
