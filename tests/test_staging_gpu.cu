// GPU test of the operand-staging tile walk (kernels/common/staging.cuh) that steps 11 and 12
// run before their GEMMs: every element of the source is handed to `put` exactly once, also for
// sources wider than 2^31 - 2^21 columns, where a 32-bit column index stepping by the grid's
// 65535 x 32 columns would wrap. Skipped without a GPU or with too little free memory.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <climits>

#include "common/check.h"
#include "common/staging.cuh"
#include "device_buffer.h"
#include "device_info.h"
#include "gpu_test.h"

namespace {

struct WalkStats {
    unsigned long long count, column_sum, nonzero;
    int max_col;
};

// Counts what stage_tiles hands over: how many elements, the sum and maximum of their column
// indices (a skipped or repeated column changes the sum), and values that are not the source's.
template <bool kTranspose>
__global__ void walk(int rows, int cols, const float* src, int ld, WalkStats* out) {
    unsigned long long count = 0, column_sum = 0, nonzero = 0;
    int max_col = -1;
    sgemm::stage_tiles<kTranspose>(rows, cols, src, ld, [&](int, int col, float x) {
        ++count;
        column_sum += static_cast<unsigned long long>(col);
        nonzero += x != 0.0f;
        max_col = max(max_col, col);
    });
    atomicAdd(&out->count, count);
    atomicAdd(&out->column_sum, column_sum);
    atomicAdd(&out->nonzero, nonzero);
    atomicMax(&out->max_col, max_col);
}

TEST(Staging, WalksEveryColumnOfASourceWiderThan2To31Minus2To21) {
    SKIP_WITHOUT_GPU();
    // One row of 2^31 - 257 columns: the reproduction of the wrap (8.6 GB of zeros).
    constexpr int kCols = INT_MAX - 256;
    std::size_t free_bytes = 0, total = 0;
    sgemm::check(cudaMemGetInfo(&free_bytes, &total));
    const std::size_t bytes = static_cast<std::size_t>(kCols) * sizeof(float);
    if (free_bytes < bytes + (1ull << 30)) GTEST_SKIP() << "needs " << (bytes >> 20) << " MiB of free GPU memory";
    sgemm::DeviceBuffer<float> src(kCols);
    sgemm::DeviceBuffer<WalkStats> stats(1);
    sgemm::check(cudaMemset(src.get(), 0, bytes));
    sgemm::check(cudaMemset(stats.get(), 0, sizeof(WalkStats)));
    sgemm::launch_checked(walk<false>, sgemm::stage_grid(1, kCols), dim3(sgemm::kStageTile, sgemm::kStageRows), 0,
                          nullptr, 1, kCols, src.get(), kCols, stats.get());
    sgemm::check(cudaDeviceSynchronize());
    WalkStats h{};
    sgemm::check(cudaMemcpy(&h, stats.get(), sizeof h, cudaMemcpyDeviceToHost));
    const unsigned long long n = kCols;
    EXPECT_EQ(h.count, n);
    EXPECT_EQ(h.column_sum, n * (n - 1) / 2);
    EXPECT_EQ(h.max_col, kCols - 1);
    EXPECT_EQ(h.nonzero, 0u);
}

// The transposed walk on an odd shape: the destination has cols rows and rows columns.
TEST(Staging, TransposedWalkCoversAnOddShapeOnce) {
    SKIP_WITHOUT_GPU();
    constexpr int kRows = 1000, kCols = 77;
    sgemm::DeviceBuffer<float> src(static_cast<std::size_t>(kRows) * kCols);
    sgemm::DeviceBuffer<WalkStats> stats(1);
    sgemm::check(cudaMemset(src.get(), 0, src.bytes()));
    sgemm::check(cudaMemset(stats.get(), 0, sizeof(WalkStats)));
    sgemm::launch_checked(walk<true>, sgemm::stage_grid(kRows, kCols), dim3(sgemm::kStageTile, sgemm::kStageRows), 0,
                          nullptr, kRows, kCols, src.get(), kCols, stats.get());
    sgemm::check(cudaDeviceSynchronize());
    WalkStats h{};
    sgemm::check(cudaMemcpy(&h, stats.get(), sizeof h, cudaMemcpyDeviceToHost));
    EXPECT_EQ(h.count, static_cast<unsigned long long>(kRows) * kCols);
    // Destination columns are source rows: each of 0 .. kRows - 1 appears kCols times.
    EXPECT_EQ(h.column_sum, static_cast<unsigned long long>(kCols) * kRows * (kRows - 1) / 2);
    EXPECT_EQ(h.max_col, kRows - 1);
}

}  // namespace
