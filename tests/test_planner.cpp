// Step 10's planner on synthetic GPUs (no GPU needed): the rates it derives from a GPU's numbers,
// its picks for an H100, an H200 and an A100 with every calibration scale 1 (so that a new
// calibration does not move these pins), the plans' arithmetic, and the calibration file format.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

#include "10_every_shape/calibration.h"
#include "10_every_shape/planner.h"

namespace {

using namespace step10;

DeviceModel h200() { return DeviceModel{}; }  // the defaults are an H200's attributes

DeviceModel h100() {
    DeviceModel d;
    d.mem_clock_hz = 2619e6;
    d.bus_bits = 5120;
    return d;
}

DeviceModel a100() {
    DeviceModel d;
    d.cc = 80;
    d.sms = 108;
    d.sm_clock_hz = 1410e6;
    d.mem_clock_hz = 1593e6;
    d.bus_bits = 5120;
    d.smem_per_sm = 167936;
    d.l2_bytes = 40LL << 20;
    return d;
}

std::string picked(const Shape& s, const DeviceModel& d) { return pick(s, d).describe(); }

TEST(Planner, RatesComeFromTheGpusNumbers) {
    // 2 x 128 lanes x 132 SMs x 1.98 GHz; 2 x 64 lanes x 108 x 1.41 GHz (sm_80 has half the FP32 lanes).
    EXPECT_DOUBLE_EQ(h200().ffma_peak(), 2.0 * 128 * 132 * 1980e6);
    EXPECT_DOUBLE_EQ(a100().ffma_peak(), 2.0 * 64 * 108 * 1410e6);
    // DRAM: 2 transfers per clock x bus bytes x the calibrated fraction.
    EXPECT_DOUBLE_EQ(h200().dram(), 2.0 * 3201e6 * 6016 / 8 * 0.83);
    EXPECT_DOUBLE_EQ(h100().dram(), 2.0 * 2619e6 * 5120 / 8 * 0.83);
    // The mainloop rate per SM that the tile model uses: 0.744 of an SM's peak.
    EXPECT_NEAR(h200().sm_flops() * 132, 49.8e12, 0.05e12);
}

TEST(Planner, PicksOnAnH200) {
    const DeviceModel d = h200();
    EXPECT_EQ(picked({4096, 4096, 4096}, d), "128x256x8 w64x64 s5");              // step 09's tile fills the GPU
    EXPECT_EQ(picked({256, 256, 16384}, d), "128x256x8 w64x64 s5 splitk=64");     // 2 tiles: split K
    EXPECT_EQ(picked({3000, 3000, 3000}, d), "128x256x8 w64x64 s5 splitk=5 tail=24");  // 288 = 2 x 132 + 24 tiles
    // Writing C is the GEMM: the pick takes the memory bound (C's bytes at the DRAM rate) and a launch,
    // and the outer kernel is within a round latency of it.
    const Shape store_bound{46341, 46341, 2};
    const double c_write = compulsory_bytes(store_bound) / d.dram() + kLaunchS;
    EXPECT_NEAR(pick(store_bound, d).seconds, c_write, 1e-3 * c_write);
    EXPECT_NEAR(make_outer_plan(store_bound, d)->seconds, c_write, kRoundLatencyS + 1e-3 * c_write);
    // Unaligned B and C (the runner's views, ldb = ldc = N): packing B would buy float4 copies but
    // leave C to the scalar epilogue, a third of the bandwidth; the unaligned kernel stages C instead.
    EXPECT_EQ(picked({8191, 8193, 31, true, false, false}, d), "128x256x8 w64x64 s5");
    EXPECT_EQ(picked({8191, 8193, 31, true, false, true}, d), "128x256x8 w64x64 s5 packB");
    // Reading B is the GEMM: one tile-row of short tiles reads it once, at the tile kernel's FMA rate
    // (the skinny kernel's 16 rows run at 0.3 of the peak, and two row groups read B twice).
    EXPECT_EQ(picked({16, 24576, 4096}, d), "16x128x8 w16x64 s5 splitk=2");
    EXPECT_EQ(picked({24, 24576, 4096}, d), "32x128x8 w32x64 s5 splitk=4");
    EXPECT_EQ(picked({16, 4096, 4096}, d), "16x128x8 w16x64 s5 splitk=16");
    EXPECT_EQ(picked({7, 9, 100003, true, false}, d), "skinny m<=8 4 floats splitk=121");
    EXPECT_EQ(picked({2104, 3, 58201}, d), "tall n<=8 splitk=4");  // rows of A streamed along K
    EXPECT_EQ(picked({4097, 1, 4097, true, false}, d), "gemv n=1 256 lanes/row");  // a block per row: 4097 blocks
    EXPECT_EQ(picked({100000, 1, 64}, d), "gemv n=1 4 lanes/row");  // 16 elements per lane
    // 33 column ranges x 8 K ranges: 264 blocks, one wave of 2 blocks on each of the 132 SMs.
    EXPECT_EQ(picked({1, 4097, 4097, true, false}, d), "skinny m<=4 4 floats splitk=8");
    // One row of A and B's rows aligned: gemv_m1, 86 column ranges x 4 K ranges in one wave of 3 blocks
    // a SM, 32 KB in flight each.
    EXPECT_EQ(picked({1, 11008, 14336}, d), "gemv m=1 float4 splitk=4");
    // With N = 8 a row of B is one 32-byte sector: gemv_m1's rounds keep 2 KB a block in flight, and
    // the tall kernel (rows of A streamed along K) is faster.
    EXPECT_EQ(picked({1, 8, 100000}, d), "tall n<=8 splitk=64");
}

TEST(Planner, PicksFollowTheGpu) {
    // 132 tiles of 128 x 256: one full round on 132 SMs, 1 + 24/108 rounds on an A100.
    const Shape s{1536, 2816, 4096};
    EXPECT_EQ(picked(s, h200()), "128x256x8 w64x64 s5");
    EXPECT_EQ(picked(s, a100()), "128x256x8 w64x64 s5 splitk=4 tail=24");
    // 3000^3 on an A100: 288 tiles = 2 x 108 + 72; a smaller tile's rounds fit better there (64 x 64:
    // 2209 tiles = 3 x 648 + 265, 6 blocks per SM).
    EXPECT_EQ(picked({3000, 3000, 3000}, a100()), "64x64x8 w32x64 s5 splitk=2 tail=265");
    // A store-bound shape takes as long as writing C: 1.4x as long on the H100's slower DRAM.
    const Shape outer{16384, 16384, 1};
    EXPECT_GT(pick(outer, h100()).seconds, 1.3 * pick(outer, h200()).seconds);  // 4.81 / 3.35 TB/s
    // The same FLOP take ~3.4x as long on an A100 (19.5 vs 66.9 TFLOP/s at the FFMA peak; the rounds
    // of blocks differ by a few per cent).
    const Shape big{8192, 8192, 8192};
    const double peaks = h200().ffma_peak() / a100().ffma_peak();
    EXPECT_NEAR(pick(big, a100()).seconds / pick(big, h200()).seconds, peaks, 0.05 * peaks);
}

// A few hundred split blocks fill whole rounds only by chance: a split may take more than two.
TEST(Planner, SplitBlocksTakeAsManyRoundsAsFillThem) {
    // 97 tiles of 128 x 256, 132 slots of one block: S = 2 is 1.47 rounds, the second half used;
    // S = 4 is 388 blocks, 2.94 rounds, each a quarter of K.
    EXPECT_EQ(picked({12376, 222, 26820, true, false}, h200()), "128x256x8 w64x64 s5 splitk=4 packB");
    // The partials stay within kMaxPartialBytes, whatever the split.
    for (const Plan& p : all_plans({4411, 487, 55971, true, false}, h200()))
        EXPECT_LE(p.partial_bytes, kMaxPartialBytes);
}

// DRAM shares its bandwidth among SMs, not blocks: 86 column ranges x 2 K ranges are 172 blocks on
// 132 SMs, and the 40 SMs holding two finish last (an H200 measured 215 us at M = 1, against 184 us
// for 32 K ranges in full waves); the model gives the two-block SMs the bandwidth the others leave.
TEST(Planner, AWaveSpreadUnevenlyOverTheSMsWaitsForItsFullestSMs) {
    const Shape s{2, 11008, 14336};
    const DeviceModel d = h200();
    EXPECT_EQ(picked(s, d), "skinny m<=4 float4 splitk=32");
    const auto two = make_skinny_plan(s, d, 2), many = make_skinny_plan(s, d, 32);
    ASSERT_TRUE(two && many);
    EXPECT_EQ(two->col_blocks * two->splits, 172);
    EXPECT_GT(two->seconds, 1.05 * many->seconds);
}

TEST(Planner, EveryPlanCoversKOnceAndAsksForItsWorkspace) {
    const DeviceModel d = h200();
    for (const Shape s :
         {Shape{256, 256, 16384}, Shape{3000, 3000, 3000}, Shape{20, 7047, 16056, true, false}, Shape{3001, 7, 50001},
          Shape{1599, 5, 14347}, Shape{46341, 46341, 2}, Shape{1, 4097, 4097}, Shape{129, 257, 65537}}) {
        for (const Plan& p : all_plans(s, d)) {
            SCOPED_TRACE(p.describe() + " on " + std::to_string(s.M) + "x" + std::to_string(s.N) + "x" +
                         std::to_string(s.K));
            if (p.kind == Plan::kTile || p.kind == Plan::kSkinny || p.kind == Plan::kTall) {
                // splits ranges of k_per_split rows, none empty: (S - 1) k < K <= S k.
                EXPECT_LT(static_cast<long long>(p.splits - 1) * p.k_per_split, s.K);
                EXPECT_GE(static_cast<long long>(p.splits) * p.k_per_split, s.K);
            }
            if (p.kind == Plan::kSkinny) {
                EXPECT_LE(s.M, p.rows * p.row_groups);
                EXPECT_GT(s.M, p.rows * (p.row_groups - 1));
                EXPECT_EQ(p.col_blocks, (s.N + kSkinnyCols - 1) / kSkinnyCols);
                const std::size_t need = p.splits > 1 ? static_cast<std::size_t>(p.splits) * s.M * s.N * 4 +
                        static_cast<std::size_t>(p.col_blocks) * p.row_groups * 4
                                                      : 0;
                EXPECT_GE(p.workspace, need);
            }
            if (p.kind == Plan::kTall) {
                EXPECT_TRUE(s.N >= 2 && s.N <= kTallN);
                if (p.splits > 1) EXPECT_GE(p.partial_bytes, static_cast<std::size_t>(p.splits) * s.M * s.N * 4);
                EXPECT_EQ(p.row_blocks, (s.M + 8 * kTallRows - 1) / (8 * kTallRows));
                EXPECT_EQ(p.k_per_split % 4 == 0 || p.splits == 1, true);  // float4 loads of A start on 16 bytes
                const std::size_t need = p.splits > 1
                    ? static_cast<std::size_t>(p.splits) * s.M * s.N * 4 + static_cast<std::size_t>(p.row_blocks) * 4
                    : 0;
                EXPECT_GE(p.workspace, need);
            }
            if (p.kind == Plan::kOuter) EXPECT_LE(s.K, kOuterMaxK);
            if (p.kind == Plan::kTile && p.splits > 1)
                EXPECT_EQ(p.partial_bytes,
                          static_cast<std::size_t>(p.sk_tiles) * p.splits * kTileShapes[p.config].bm *
                              kTileShapes[p.config].bn * 4);
            EXPECT_GT(p.seconds, 0.0);
        }
    }
}

// A tile shorter than 64 rows is a candidate only where C is one tile-row of it, more than half
// full: above, a taller tile reuses B more; below, a shorter tile or the skinny kernel computes less
// padding. Every M from 1 to 200 is checked.
TEST(Planner, ShortTilesOnlyWhereCIsOneTileRowMoreThanHalfFull) {
    const DeviceModel d = h200();
    for (int config = 0; config < kNumTileShapes; ++config) {
        const int bm = kTileShapes[config].bm;
        if (bm >= 64) continue;
        for (int m = 1; m <= 200; ++m) {
            const auto plan = make_tile_plan(Shape{m, 4096, 4096}, d, config, 1, false);
            EXPECT_EQ(plan.has_value(), 2 * m > bm && m <= bm) << bm << "-row tile, M = " << m;
        }
    }
}

// A warp's registers come from the quarter of the register file of its scheduler: whole warps per
// quarter. Nsight Compute's register limit, in blocks per SM, for the tile kernel at 195 and 154
// registers a thread (64 x 64, 2 warps), 230 (128 x 128, 4 warps) and 167 (64 x 128, 4 warps):
// docs/results/raw/h100-step10-edge-copies/ncu-*.txt.
TEST(Planner, WarpsTakeRegistersFromTheirSchedulersQuarter) {
    const DeviceModel d = h200();
    EXPECT_EQ(blocks_per_sm(64, 0, 195, d), 4);  // 65,536 / (2 x 6,400) would give 5
    EXPECT_EQ(blocks_per_sm(64, 0, 154, d), 6);
    EXPECT_EQ(blocks_per_sm(128, 0, 230, d), 2);
    EXPECT_EQ(blocks_per_sm(128, 0, 167, d), 3);
}

TEST(Planner, SizesNear2To31KeepEveryPlanLaunchable) {
    // K = 2^31 - 1: rounding a K range up to whole rounds of rows must not overflow an int.
    for (const Shape s : {Shape{1, 2, 2147483647}, Shape{16, 1, 2147483647, false, false}, Shape{2147483647, 3, 5}}) {
        const std::vector<Plan> plans = all_plans(s, h200());
        EXPECT_FALSE(plans.empty());
        for (const Plan& p : plans) {
            SCOPED_TRACE(p.describe());
            EXPECT_GE(p.splits, 1);
            EXPECT_LE(p.splits, 65535);  // gridDim.y of the skinny and tall kernels
            if (p.kind == Plan::kSkinny || p.kind == Plan::kTile || p.kind == Plan::kTall) {
                EXPECT_GT(p.k_per_split, 0);
                EXPECT_GE(static_cast<long long>(p.splits) * p.k_per_split, s.K);
            }
            EXPECT_TRUE(std::isfinite(p.seconds));
        }
    }
}

TEST(Planner, ScalesMoveThePick) {
    DeviceModel d = h200();
    const Shape s{46341, 46341, 2};
    const Plan first = pick(s, d);
    d.cal.scale[plan_class(first)] = 10.0;  // its kernel measured 10x slower than modelled
    EXPECT_NE(plan_class(pick(s, d)), plan_class(first));
}

// A streaming kernel's blocks run in waves of SMs x blocks per SM. One block past a whole wave runs
// alone after it, at the rate its own loads in flight sustain (32 KB a skinny block: 32 GB/s), not
// at a share of the DRAM bandwidth: 265 column ranges take ~1.5x the time of 264.
TEST(Planner, AStreamingKernelsLastWaveRunsAtOneBlocksRate) {
    const DeviceModel d = h200();
    const int K = 65536;
    const auto whole = make_skinny_plan(Shape{1, 264 * kSkinnyCols, K}, d, 1);
    const auto one_more = make_skinny_plan(Shape{1, 265 * kSkinnyCols, K}, d, 1);
    ASSERT_TRUE(whole && one_more);
    ASSERT_EQ(whole->occupancy, 2);  // 264 slots on 132 SMs
    EXPECT_GT(one_more->seconds, 1.3 * whole->seconds);
    // Split 8 ways, the extra column range is 8 blocks among 2120: a few per cent.
    EXPECT_LT(make_skinny_plan(Shape{1, 265 * kSkinnyCols, K}, d, 8)->seconds, 1.1 * whole->seconds);
}

// A tile shape's round latency is paid once per round of its blocks: where K is short a round is
// short too, and a shape that waits longer per round loses the pick.
TEST(Planner, RoundLatenciesMoveThePick) {
    DeviceModel d = h200();
    const Shape s{8192, 8192, 64};
    const Plan first = pick(s, d);
    ASSERT_EQ(first.kind, Plan::kTile);
    EXPECT_DOUBLE_EQ(d.cal.round_latency[first.config], kRoundLatencyS);  // the estimate until measured
    d.cal.round_latency[first.config] = 20e-6;
    const Plan second = pick(s, d);
    EXPECT_TRUE(second.kind != Plan::kTile || second.config != first.config) << second.describe();
    EXPECT_GT(make_tile_plan(s, d, first.config, 1, false)->seconds, first.seconds);
}

TEST(Planner, CalibrationFilesAreParsedStrictly) {
    const Calibration c = parse_calibration(
        "# a comment\n\nmainloop_fraction 0.7\nscale.tile4 1.25  # trailing\n"
        "scale.skinny16s 2\nlatency_us.tile1 4.5\nlatency_us.tile2 0\n");
    EXPECT_DOUBLE_EQ(c.round_latency[1], 4.5e-6);
    EXPECT_DOUBLE_EQ(c.round_latency[2], 0.0);
    EXPECT_DOUBLE_EQ(c.round_latency[0], kRoundLatencyS);
    EXPECT_DOUBLE_EQ(c.mainloop_fraction, 0.7);
    EXPECT_DOUBLE_EQ(c.scale[4], 1.25);
    EXPECT_DOUBLE_EQ(c.scale[std::find(std::begin(kClassNames), std::end(kClassNames), std::string("skinny16s")) -
                             std::begin(kClassNames)],
                     2.0);
    EXPECT_DOUBLE_EQ(c.scale[0], 1.0);
    EXPECT_DOUBLE_EQ(c.dram_fraction, Calibration{}.dram_fraction);
    for (const char* bad : {"mainloop_fraction 1.5\n", "dram_fraction 0\n", "scale.tile9 1\n", "scale.tile0 11\n",
                            "warp_factor 0.5\n", "mainloop_fraction\n", "mainloop_fraction 0.5 0.6\n",
                            "latency_us.outer 1\n", "latency_us.tile0 21\n", "latency_us.tile0 -1\n"})
        EXPECT_THROW(parse_calibration(bad), std::invalid_argument) << bad;
}

TEST(Planner, EveryCompiledInCalibrationParsesAndTheFirstIsTheFallback) {
    for (const DeviceCalibration& c : kCalibrations) EXPECT_NO_THROW(parse_calibration(c.text)) << c.device;
    EXPECT_STREQ(calibration_for("a GPU never measured"), kCalibrations[0].text);
    EXPECT_STREQ(kCalibrations[0].device, "NVIDIA H200");
}

}  // namespace
