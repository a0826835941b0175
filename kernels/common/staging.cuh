// Operand staging before a GEMM (steps 11 and 12): a kernel copies, transposes or splits A or B
// into the workspace, in the layout that TMA and the GEMM kernel need. The tile walk is shared
// here; what is written for each element stays in the step's own kernel.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "check.h"
#include "tile.cuh"

namespace sgemm {

// A staging kernel runs 32 x 8 threads per block over 32 x 32 tiles of the source.
inline constexpr int kStageTile = 32, kStageRows = 8;

// The grid of a staging kernel over a rows x cols source: tiles of rows on x (up to 2^31 - 1 of
// them), of columns on y (at most col_blocks, 65535 at most; stage_tiles loops over the rest).
inline dim3 stage_grid(int rows, int cols, int col_blocks = kMaxGridY) {
    return dim3(ceil_div(rows, kStageTile), std::min(ceil_div(cols, kStageTile), std::min(col_blocks, kMaxGridY)));
}

// [doc:stage-tiles]
// Walks this block's 32 x 32 tiles of src (rows x cols, leading dimension ld_src) through shared
// memory and calls put(out_row, out_col, x) once for every element x of the destination: src
// itself (kTranspose = false) or src^T. Both the reads and the transposed writes stay coalesced.
// Column indices are 64-bit: a grid of at most 65535 column blocks steps by 65535 x 32 columns,
// which would wrap a 32-bit index for sources of more than 2^31 - 2^21 columns.
// The block's place: row block x, column block y of a grid of col_blocks column blocks (a grid that
// serves two sources passes its own).
template <bool kTranspose, typename Put>
__device__ __forceinline__ void stage_tiles(int rows, int cols, const float* src, int ld_src, Put put,
                                            int row_block = blockIdx.x, int col_block = blockIdx.y,
                                            int col_blocks = gridDim.y) {
    __shared__ float tile[kStageTile][kStageTile + 1];  // + 1: the transposed reads hit 32 different banks
    const int row0 = row_block * kStageTile;
    for (long long col0 = static_cast<long long>(col_block) * kStageTile; col0 < cols;
         col0 += static_cast<long long>(col_blocks) * kStageTile) {
        for (int r = threadIdx.y; r < kStageTile; r += kStageRows) {
            const int row = row0 + r;
            const long long col = col0 + threadIdx.x;
            tile[r][threadIdx.x] = row < rows && col < cols ? src[static_cast<std::size_t>(row) * ld_src + col] : 0.0f;
        }
        __syncthreads();
        for (int r = threadIdx.y; r < kStageTile; r += kStageRows) {
            // Inside the source every index is below 2^31: the narrowing casts below are exact.
            const long long out_row = kTranspose ? col0 + r : row0 + r;
            const long long out_col = kTranspose ? row0 + threadIdx.x : col0 + threadIdx.x;
            if (out_row < (kTranspose ? cols : rows) && out_col < (kTranspose ? rows : cols))
                put(static_cast<int>(out_row), static_cast<int>(out_col),
                    kTranspose ? tile[threadIdx.x][r] : tile[r][threadIdx.x]);
        }
        __syncthreads();  // the tile is refilled for the next column block
    }
}

}  // namespace sgemm
