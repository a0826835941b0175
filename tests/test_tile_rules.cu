// The tile-index rules of kernels/common/tile.cuh that every step's can_implement relies on,
// tested on the rules themselves (no GPU): which shapes a grid of 32-bit tile indices can cover.
#include <gtest/gtest.h>

#include "common/tile.cuh"

namespace {

using sgemm::GemmArgs;

GemmArgs tall(int M) {
    alignas(16) static float buffer[4];
    return GemmArgs{M, 1, 1, 1.0f, 0.0f, buffer, 1, buffer, 1, buffer, 1};
}

// Tall shapes are what gridDim.z is for: a 2-D grid of 128-row tiles takes M = 2^31 - 2^16 ...
TEST(TileRules, TwoDimensionalGridsTakeTallShapes) {
    EXPECT_EQ((sgemm::fits_int_tiles<128, 128, 8>(tall(2147418112))), "");
    EXPECT_EQ((sgemm::fits_int_tiles<32, 32, 1>(tall(2147418112))), "");
}

// ... but where the spare blocks of the gridDim.z continuation would compute a row index past 2^31
// (M = 2^31 - 1026: 16777208 tiles of 128 rows on 65281 x 257 blocks), a 2-D grid refuses the shape
// rather than overflow, while a 1-D grid (rasterized_tile; no spare blocks) takes it.
TEST(TileRules, TwoDimensionalGridsRefuseWhatTheirSpareBlocksWouldOverflow) {
    const GemmArgs edge = tall(2147482622);
    EXPECT_NE((sgemm::fits_int_tiles<128, 128, 8>(edge)), "");
    EXPECT_EQ((sgemm::fits_int_tiles<128, 128, 8, true>(edge)), "");
    EXPECT_GT(sgemm::grid_extent(edge.M, 128) + 128, static_cast<long long>(INT_MAX));
}

// The rasterized walk visits every tile exactly once, whatever the group height and the remainder.
TEST(TileRules, RasterizedWalkCoversEveryTileOnce) {
    for (const int group_m : {1, 3, 8})
        for (const auto [tiles_m, tiles_n] : {std::pair{1, 1}, {7, 5}, {16, 16}, {17, 3}}) {
            std::vector<int> seen(static_cast<size_t>(tiles_m) * tiles_n, 0);
            for (int block = 0; block < tiles_m * tiles_n; ++block) {
                const sgemm::TileOrigin o = sgemm::rasterized_tile(block, tiles_m, tiles_n, group_m, 128, 256);
                ASSERT_EQ(o.row % 128, 0);
                ASSERT_EQ(o.col % 256, 0);
                ASSERT_LT(o.row / 128, tiles_m);
                ASSERT_LT(o.col / 256, tiles_n);
                ++seen[static_cast<size_t>(o.row / 128) * tiles_n + o.col / 256];
            }
            for (const int n : seen) EXPECT_EQ(n, 1) << group_m << " " << tiles_m << "x" << tiles_n;
        }
}

}  // namespace
