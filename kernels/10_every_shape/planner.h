// Step 10, the planner: which kernel, tile and split to run for a shape, from a model of the GPU at
// hand. Host-only arithmetic: the GPU comes in as a DeviceModel (filled from cudaDeviceGetAttribute
// in 10_every_shape.cu, or by hand in the CPU tests, which pin the picks for an H100, an H200 and
// an A100), so the same code is read, run and tested without a GPU.
//
// The model: a plan's time is max(compute, memory) + fixed costs, where
//   compute = the FLOP the kernel really executes (padding included) / (FFMA peak x the kernel's
//             fraction of it), block by block on the busiest SM;
//   memory  = bytes that must cross DRAM / DRAM bandwidth, + a split's partial tiles at L2 speed;
//   fixed   = one launch, the dependent launch of a reduction, the latency of a round of blocks.
// The rates are the GPU's: FFMA peak = 2 x FP32 lanes x SMs x SM clock, DRAM = 2 x memory clock
// x bus width (kernels/common/gpu_rates.h); what a kernel gets of them is a fraction measured on
// one GPU (Calibration: an H200 unless a file written by scripts/calibrate_planner says otherwise).
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common/check.h"  // sgemm::ceil_div, round_up4, align256
#include "../common/gpu_rates.h"

namespace step10 {

using sgemm::ceil_div;

// ---- the kernels, as the planner sees them ----------------------------------------------------

constexpr int kPad =
    4;  // As row padding of the tile kernel: conflict-free transposed copies, rows stay 16-byte aligned

// Dynamic shared memory of one tile-kernel block: STAGES x (As[BK][BM + kPad] + Bs[BK][BN]) floats.
constexpr int smem_bytes(int BM, int BN, int BK, int STAGES) {
    return STAGES * (BK * (BM + kPad) + BK * BN) * static_cast<int>(sizeof(float));
}

// One configuration of the tile kernel: block tile BM x BN x BK, warp tile WM x WN in WMITER x
// WNITER sub-tiles, thread tile TM x TN, STAGES, GROUP_M (rasterization). 10_every_shape.cu
// instantiates the kernel from these very numbers.
struct TileShape {
    int bm, bn, bk, wm, wn, wmiter, wniter, tm, tn, stages, group_m;
    // The mainloop's speed at 8 warps per SM relative to step 09's tile, measured with sgemm_runner
    // --tune on an H200 (unsplit, whole tiles: 4096^3, 2048^3, 8192 x 8192 x 1024; the short tiles
    // against the 64 x 64 and 128 x 32 tiles at 4095^3 with B packed).
    double efficiency;
    constexpr int threads() const { return (bm / wm) * (bn / wn) * 32; }
    constexpr int smem() const { return smem_bytes(bm, bn, bk, stages); }
};

// [doc:tile-family]
// The family. The big tiles keep step 09's 64 x 64 warp tile of 16 x 8 outputs per thread (the
// fastest per FMA: 6 LDS.128 per 128 FFMA) with 8 or 4 warps. The small tiles use step 08's 32 x 64
// warp tile of 8 x 8 per thread (4 LDS.128 per 64 FFMA): a 64 x 64 warp tile in a 2-warp block
// would leave each thread 16 A copies per k-tile, whose addresses push ptxas past 255 registers
// (it spills); with 32 x 64 warps the block has twice the threads, half the copies per thread and
// ~half the registers (more warps per SM). The short tiles, 32 and 16 rows, are for M <= 32: a
// 64-row tile there computes half padding or more, and one tile-row of blocks reads B once (the
// skinny kernel's row groups read it once per 16 rows). All with 5 stages (the count at which
// ptxas emits step 09's better schedule) and GROUP_M = 8.
// [doc:tile-shapes]
constexpr TileShape kTileShapes[] = {
    {128, 256, 8, 64, 64, 4, 2, 16, 8, 5, 8, 1.00},  // step 09's: 8 warps
    {128, 128, 8, 64, 64, 4, 2, 16, 8, 5, 8, 0.98},  // 4 warps
    {128, 64, 8, 32, 64, 2, 2, 8, 8, 5, 8, 0.91},    // 4 warps: tall, narrow C
    {64, 128, 8, 32, 64, 2, 2, 8, 8, 5, 8, 0.92},    // 4 warps: short, wide C
    {64, 64, 8, 32, 64, 2, 2, 8, 8, 5, 8, 0.91},     // 2 warps
    // [doc:narrow-tile]
    {128, 32, 8, 32, 32, 2, 1, 8, 4, 5, 8, 0.75},    // 4 warps of 32 x 32, 8 x 4 per thread: N <= 32
    // [/doc:narrow-tile]
    // [doc:short-tile]
    {32, 128, 8, 32, 64, 2, 2, 8, 8, 5, 8, 0.90},    // 2 warps side by side: M <= 32, B read once
    {16, 128, 8, 16, 64, 1, 2, 4, 8, 5, 8, 0.81},    // 2 warps of 16 x 64, 4 x 8 per thread: M <= 16
    // [/doc:short-tile]
};
// [/doc:tile-shapes]
// [/doc:tile-family]
constexpr int kNumTileShapes = sizeof(kTileShapes) / sizeof(kTileShapes[0]);

// The streaming kernels (streaming.cuh): 256 threads each.
constexpr int kStreamThreads = 256;
constexpr int kOuterBM = 64, kOuterBN = 128, kOuterMaxK = 32;                    // outer: K <= 32
constexpr int kOuterSmem = kOuterMaxK * (kOuterBM + kOuterBN) * 4;               // static shared memory
constexpr int kSkinnyRows[] = {4, 8, 16};                                        // skinny: MR, rows of A per block
constexpr int kSkinnyMaxM = 64;                                                  // ... in up to 4 row groups of 16
constexpr int kSkinnyGroups = 8, kSkinnyChunk = 512;                             // k-groups (warps), A chunk rows
constexpr int kSkinnyCols = 128, kSkinnyDepth = 8, kSkinnyPadA = 4;  // block columns, B rows in flight per warp
// [doc:skinny-ahead]
constexpr int kSkinnyAhead = 4;  // unaligned B: rows per warp and round, 4 floats a lane, a round in flight
// [/doc:skinny-ahead]
constexpr int kSkinnyMaxSplits = 4096;
// gemv_m1: rows per warp and round, all loaded before any is used (8 x 512 bytes a warp, 32 KB a block).
constexpr int kGemvM1Ahead = 8;
constexpr int kGemvM1Smem = kSkinnyGroups * kSkinnyCols * 4;  // static shared memory: the warps' sums
// tall: the columns a block computes (N at most), rows per warp (32 sums a lane), rows of B per
// chunk, and the static shared memory (two chunks of B, transposed and padded, and a flag).
constexpr int kTallN = 8, kTallRows = 32 / kTallN, kTallChunk = 4096 / kTallN;
constexpr int kTallSmem = 2 * kTallN * (kTallChunk + 4) * 4 + 16;
// Shared memory of the skinny kernel: two A chunks (or the reduction's sums, in the same bytes) and the rings.
constexpr int skinny_a_floats(int mr) {
    return std::max(2 * kSkinnyChunk * (mr + kSkinnyPadA), kSkinnyGroups * 4 * kSkinnyCols);  // two A buffers
}
constexpr int skinny_smem(int mr) { return (skinny_a_floats(mr) + kSkinnyGroups * kSkinnyDepth * kSkinnyCols) * 4; }
constexpr int skinny_row_index(int mr) { return mr <= 4 ? 0 : mr <= 8 ? 1 : 2; }

// ---- the GPU -----------------------------------------------------------------------------------

// The kernels as the calibration knows them: a plan's class (plan_class below) names the kernel it
// launches. Every class has a time scale, measured per GPU.
// Skinny classes: MR rows, "s" where B is read as 4-byte floats, "g" for 16 rows in several row groups.
constexpr const char* kClassNames[] = {"tile0",     "tile1",     "tile2",      "tile3",    "tile4",
                                       "tile5",     "tile6",     "tile7",      "gemv_n1",  "outer",
                                       "skinny4",   "skinny4s",  "skinny8",    "skinny8s", "skinny16",
                                       "skinny16s", "skinny16g", "skinny16gs", "tall8",    "gemv_m1"};
constexpr int kNumClasses = sizeof(kClassNames) / sizeof(kClassNames[0]);
static_assert(kNumClasses == kNumTileShapes + 2 + 2 * 4 + 1 + 1,
              "one class per tile shape, gemv, outer, skinny (MR or groups, float4 or not), tall, gemv m=1");

// [doc:round-latency]
// Per round of tile blocks, the time the SM's FMA pipes wait on the blocks themselves: the first
// k-tile's trip from DRAM and the epilogue's stores, hidden only in part by the other resident
// blocks. Measured per tile shape and GPU (latency_us.<class> in a calibration); this is the
// estimate of an uncalibrated GPU, and the outer kernel's (one round).
constexpr double kRoundLatencyS = 2e-6;
// [/doc:round-latency]

// [doc:calibration]
// What one GPU gives the kernels. The fractions turn its peaks (FFMA: 2 x lanes x SMs x clock; DRAM:
// 2 x memory clock x bus width) into the rates of a kernel: step 09's mainloop reaches 49.8 of
// 66.9 TFLOP/s on an H200 (0.744), a streaming kernel ~83 % of the DRAM peak. What the model
// leaves out (occupancy effects, instruction mixes) is in one time scale per kernel class: the
// geometric mean of measured / modelled time over every candidate of that class in sgemm_runner
// --tune runs on that GPU, after each tile shape's round latency is fitted to the same runs; both
// written by scripts/calibrate_planner (kernels/10_every_shape/calibration.h).
struct Calibration {
    double mainloop_fraction = 0.744;  // step 09's mainloop, 8 warps per SM, of the FFMA peak
    double dram_fraction = sgemm::kStreamDramFraction;  // DRAM bandwidth a streaming kernel reaches, of the peak
    double outer_fraction = 0.2;  // the outer kernel's FFMA rate, of the peak (3 blocks, 24 warps per SM)
    double skinny_fraction = 0.3;  // the skinny kernel's FFMA rate, of the peak (1 block of 8 warps per SM)
    double tall_fraction = 0.5;    // the tall kernel's FFMA rate, of the peak
    std::array<double, kNumClasses> scale = [] {
        std::array<double, kNumClasses> one{};
        one.fill(1.0);
        return one;
    }();
    // Seconds per round of blocks of each tile shape (kRoundLatencyS until measured): for the
    // full-height tiles the measured values track the C a round stores at the SM's share of DRAM.
    std::array<double, kNumTileShapes> round_latency = [] {
        std::array<double, kNumTileShapes> est{};
        est.fill(kRoundLatencyS);
        return est;
    }();
};

// A calibration: lines "name value" (# starts a comment); names as in Calibration (fractions, in
// (0, 1]), "scale.<class>" (a time scale, in (0, 10]) or "latency_us.<tile class>" (a tile shape's
// round latency in microseconds, in [0, 20]). Throws std::invalid_argument with the line at fault.
inline Calibration parse_calibration(const std::string& text) {
    Calibration c;
    std::istringstream in(text);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        line = line.substr(0, line.find('#'));
        std::istringstream words(line);
        std::string name, extra;
        double value = 0;
        if (!(words >> name)) continue;  // blank or comment
        auto fail = [&](const std::string& why) {
            throw std::invalid_argument("step 10 calibration, line " + std::to_string(number) + ": " + why + ": " +
                                        line);
        };
        if (!(words >> value) || (words >> extra)) fail("expected 'name value'");
        if (name.rfind("scale.", 0) == 0) {
            const auto* it = std::find(std::begin(kClassNames), std::end(kClassNames), name.substr(6));
            if (it == std::end(kClassNames)) fail("unknown kernel class");
            if (!(value > 0.0 && value <= 10.0)) fail("a time scale lies in (0, 10]");
            c.scale[it - std::begin(kClassNames)] = value;
            continue;
        }
        if (name.rfind("latency_us.", 0) == 0) {
            const auto* it =
                std::find(std::begin(kClassNames), std::begin(kClassNames) + kNumTileShapes, name.substr(11));
            if (it == std::begin(kClassNames) + kNumTileShapes) fail("unknown tile class");
            if (!(value >= 0.0 && value <= 20.0)) fail("a round latency lies in [0, 20] us");
            c.round_latency[it - std::begin(kClassNames)] = value * 1e-6;
            continue;
        }
        if (!(value > 0.0 && value <= 1.0)) fail("a fraction lies in (0, 1]");
        if (name == "mainloop_fraction")
            c.mainloop_fraction = value;
        else if (name == "dram_fraction")
            c.dram_fraction = value;
        else if (name == "outer_fraction")
            c.outer_fraction = value;
        else if (name == "skinny_fraction")
            c.skinny_fraction = value;
        else if (name == "tall_fraction")
            c.tall_fraction = value;
        else
            fail("unknown name");
    }
    return c;
}

// A calibration file (SGEMM_STEP10_CALIBRATION, step10_model --calibration), parsed.
inline Calibration read_calibration(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::invalid_argument("step 10 calibration: cannot read " + path);
    std::stringstream text;
    text << in.rdbuf();
    return parse_calibration(text.str());
}

// [doc:device-model]
// What the model knows of the GPU. The defaults are an H200 (cudaDeviceGetAttribute's values).
struct DeviceModel {
    int cc = 90;  // compute capability x 10
    int sms = 132;
    double sm_clock_hz = 1980e6;  // cudaDevAttrClockRate: the maximum SM clock
    double mem_clock_hz = 3201e6;  // cudaDevAttrMemoryClockRate
    int bus_bits = 6016;  // cudaDevAttrGlobalMemoryBusWidth
    int smem_per_sm = 233472;  // 228 KB
    int smem_reserved_per_block = 1024;
    int regs_per_sm = 65536;
    int schedulers = 4;  // per SM (sub-partitions), each with a quarter of the registers: every GPU since Maxwell
    int threads_per_sm = 2048;
    int blocks_per_sm = 32;
    long long l2_bytes = 50LL << 20;
    Calibration cal;
    // Registers per thread of each kernel (cudaFuncGetAttributes; ptxas' numbers for sm_90 here).
    // [doc:register-counts]
    std::array<int, kNumTileShapes> tile_regs{229, 232, 157, 167, 167, 127, 167, 117};
    // [/doc:register-counts]
    int outer_regs = 80;
    std::array<int, 3> skinny_regs{113, 128, 202};
    int tall_regs = 126;
    int gemv_m1_regs = 66;

    double ffma_peak() const { return sgemm::ffma_peak_flops(cc, sms, sm_clock_hz); }
    // [doc:sm-flops]
    double sm_flops() const { return ffma_peak() / sms * cal.mainloop_fraction; }  // step 09's mainloop, one SM
    // [/doc:sm-flops]
    double dram() const { return sgemm::dram_peak_bytes_per_s(mem_clock_hz, bus_bits) * cal.dram_fraction; }
    // L2: ~30 bytes per SM clock per SM for a stream of partial tiles written then read back
    // (8 TB/s on an H200, measured with the split-K reduction).
    double l2() const { return 30.6 * sms * sm_clock_hz; }
};
// [/doc:device-model]

// [doc:blocks-per-sm]
// Resident blocks per SM: the tightest of the thread, register, shared-memory and block limits.
// Registers are allocated per warp in units of 256, from the quarter of the register file of the
// scheduler the warp runs on: whole warps per quarter (2 warps of 195 registers a thread take 12,800
// of 16,384 registers, so a quarter holds 2 such warps, not 2.56: 4 blocks of 2 warps, not 5).
inline int blocks_per_sm(int threads, int smem, int regs, const DeviceModel& d) {
    const int warps = threads / 32;
    const int regs_per_warp = (regs * 32 + 255) / 256 * 256;
    const int by_regs =
        regs > 0 ? d.schedulers * (d.regs_per_sm / d.schedulers / regs_per_warp) / warps : d.blocks_per_sm;
    const int by_smem = d.smem_per_sm / (smem + d.smem_reserved_per_block);
    const int by_threads = d.threads_per_sm / threads;
    return std::max(1, std::min({by_regs, by_smem, by_threads, d.blocks_per_sm}));
}

// [doc:fixed-costs]
// Fixed costs (host and front end: the same on every GPU of this class).
constexpr double kLaunchS = sgemm::kLaunchSeconds;  // a kernel launch (the same for every candidate)
constexpr double kReduceLaunchS = 3e-6;  // a second, dependent launch (reduction, memset, packing)
// [/doc:fixed-costs]
constexpr double kL2LatencyS = 0.5e-6;  // a dependent round trip to L2 under load
// [doc:dram-latency]
constexpr double kDramLatencyS = 1e-6;  // a round trip to DRAM under load: bandwidth x this must be in flight
// [/doc:dram-latency]
// [doc:min-k-per-split]
constexpr int kMinKPerSplit = 64;  // 8 k-tiles: below that the pipeline never fills
// [/doc:min-k-per-split]
// [doc:unaligned-b]
constexpr double kUnalignedB = 0.96;  // mainloop speed with 4-byte copies of B (4095 x 4097 x 4093, measured)
// [/doc:unaligned-b]
// [doc:scalar-epilogue]
constexpr double kScalarEpilogue = 0.3;  // DRAM bandwidth of the scalar epilogue for an unaligned C (46341^2 x 2, H100)
// [/doc:scalar-epilogue]
constexpr int kSplits[] = {2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256};
// A split's partials take at most 512 MiB, and so does a packed B: more would crowd out the problem itself.
constexpr std::size_t kMaxPartialBytes = std::size_t{512} << 20;

// [doc:warp-factor]
// FFMA throughput with w warps resident on an SM, relative to 8 (2 per scheduler, as step 09).
// One warp per scheduler keeps it mostly busy (128 independent FFMAs per k, fragments prefetched);
// fewer than 4 warps leave schedulers idle.
inline double warp_factor(int w) {
    if (w >= 8) return 1.0;
    if (w >= 4) return 0.8 + 0.05 * (w - 4);
    return 0.8 * w / 4;
}

// ---- plans -------------------------------------------------------------------------------------

// The shape as the planner needs it: sizes, whether beta is 0 (C not read) and whether B's and C's
// rows are 16-byte aligned (float4 copies and stores).
struct Shape {
    int M, N, K;
    bool beta_zero = true;
    bool b_aligned = true;
    bool c_aligned = true;  // C's rows 16-byte aligned: float4 stores in the tile kernel's epilogue
};

struct Plan {
    enum Kind { kTile, kGemvN1, kSkinny, kOuter, kTall, kGemvM1 } kind = kTile;
    int config = 0;  // kTileShapes index
    int splits_asked = 1;  // the split count it was made for (the candidate id)
    int splits = 1;  // K ranges (1: no split)
    bool tail = false;  // split only the tiles of the last, partial round
    bool pack_b = false;  // copy B into an aligned workspace first (B's rows not 16-byte aligned)
    int tiles = 0, dp_tiles = 0, sk_tiles = 0, k_per_split = 0, occupancy = 0;
    int gemv_width = 0;  // gemv_n1: lanes per row
    int rows = 0, vec = 0;  // skinny: MR (rows of A per block) and 4 (float4 B) or 1
    int row_groups = 1;  // skinny: blocks per column range (M <= row_groups x MR)
    int col_blocks = 0;  // skinny, gemv_m1: column ranges
    int row_blocks = 0;  // tall: row ranges of 8 x kTallRows rows
    std::size_t workspace =
        0;  // packed B (256-byte aligned) then the partial tiles (tile); partials then counters (skinny)
    std::size_t pack_bytes = 0, partial_bytes = 0;
    double seconds = 0;  // the model's estimate

    int id() const {
        if (kind == kGemvN1) return 100000 + gemv_width;
        if (kind == kOuter) return 900000;
        if (kind == kSkinny) return 1000000 + rows * 100000 + row_groups * 10000 + (vec == 4 ? 5000 : 0) + splits;
        if (kind == kTall) return 3000000 + splits;
        if (kind == kGemvM1) return 4000000 + splits;
        return (config * 2 + (tail ? 1 : 0)) * 1000 + (pack_b ? 500 : 0) + splits_asked;
    }
    std::string describe() const {
        char s[96];
        if (kind == kGemvN1) {
            std::snprintf(s, sizeof s, "gemv n=1 %d lanes/row", gemv_width);
        } else if (kind == kOuter) {
            std::snprintf(s, sizeof s, "outer %dx%d k<=%d", kOuterBM, kOuterBN, kOuterMaxK);
        } else if (kind == kGemvM1) {
            int n = std::snprintf(s, sizeof s, "gemv m=1 float4");
            if (splits > 1) std::snprintf(s + n, sizeof s - n, " splitk=%d", splits);
        } else if (kind == kTall) {
            int n = std::snprintf(s, sizeof s, "tall n<=%d", kTallN);
            if (splits > 1) std::snprintf(s + n, sizeof s - n, " splitk=%d", splits);
        } else if (kind == kSkinny) {
            int n = std::snprintf(s, sizeof s, "skinny m<=%d", rows);
            if (row_groups > 1) n += std::snprintf(s + n, sizeof s - n, " x%d", row_groups);
            n += std::snprintf(s + n, sizeof s - n, " %s", vec == 4 ? "float4" : "4 floats");
            if (splits > 1) std::snprintf(s + n, sizeof s - n, " splitk=%d", splits);
        } else {
            const TileShape& c = kTileShapes[config];
            int n = std::snprintf(s, sizeof s, "%dx%dx%d w%dx%d s%d", c.bm, c.bn, c.bk, c.wm, c.wn, c.stages);
            if (splits > 1) n += std::snprintf(s + n, sizeof s - n, " splitk=%d", splits);
            if (tail) n += std::snprintf(s + n, sizeof s - n, " tail=%d", sk_tiles);
            if (pack_b) std::snprintf(s + n, sizeof s - n, " packB");
        }
        return s;
    }
};

// [doc:plan-class]
// The kernel class of a plan (an index into kClassNames): its tile shape, gemv, outer, or skinny
// with MR rows (or row groups of 16) and float4 (or 4-byte) reads of B.
inline int plan_class(const Plan& p) {
    switch (p.kind) {
        case Plan::kTile: return p.config;
        case Plan::kGemvN1: return kNumTileShapes;
        case Plan::kOuter: return kNumTileShapes + 1;
        case Plan::kTall: return kNumTileShapes + 2 + 2 * 4;
        case Plan::kGemvM1: return kNumTileShapes + 2 + 2 * 4 + 1;
        default:
            return kNumTileShapes + 2 + 2 * (p.row_groups > 1 ? 3 : skinny_row_index(p.rows)) + (p.vec == 4 ? 0 : 1);
    }
}

// [doc:tile-model]
// Seconds for `blocks` blocks of `flop` each on the busiest SM, in rounds of at most `occupancy`
// co-resident blocks that share the SM's FFMA rate (which depends on their warps), each round
// `round_latency` longer.
inline double phase_seconds(long long blocks, double flop, int warps_per_block, double sm_flops, int occupancy,
                            double round_latency, const DeviceModel& d) {
    if (blocks <= 0) return 0;
    const long long per_sm = (blocks + d.sms - 1) / d.sms;
    const long long rounds = (per_sm + occupancy - 1) / occupancy;
    const int last = static_cast<int>(per_sm - (rounds - 1) * occupancy);
    const double full_round = occupancy * flop / (sm_flops * warp_factor(occupancy * warps_per_block));
    const double last_round = last * flop / (sm_flops * warp_factor(last * warps_per_block));
    return (rounds - 1) * full_round + last_round + rounds * round_latency;
}

// Bytes that must cross DRAM: A and B once, C written (and read when beta != 0).
inline double compulsory_bytes(const Shape& s) { return sgemm::compulsory_bytes(s.M, s.N, s.K, !s.beta_zero); }

// [doc:tile-seconds]
inline double tile_seconds(const Shape& s, const Plan& plan, const DeviceModel& d) {
    const TileShape& c = kTileShapes[plan.config];
    const double tile_flop = 2.0 * c.bm * c.bn;  // per k: padding rows and columns cost FMAs too
    const double k_full = static_cast<double>(ceil_div(s.K, c.bk)) * c.bk;
    const bool b_aligned = plan.pack_b || s.b_aligned;
    const double sm_flops = d.sm_flops() * c.efficiency * (b_aligned ? 1.0 : kUnalignedB);
    const int warps = c.threads() / 32;
    const double latency = d.cal.round_latency[plan.config];
    const double compute =
        phase_seconds(plan.dp_tiles, tile_flop * k_full, warps, sm_flops, plan.occupancy, latency, d) +
        phase_seconds(static_cast<long long>(plan.sk_tiles) * plan.splits, tile_flop * plan.k_per_split, warps,
                      sm_flops, plan.occupancy, latency, d);
    // [doc:epilogue-model]
    // A block's epilogue (C written, read when beta != 0) drains behind the FMAs of the blocks that
    // follow it: C's bytes count in the memory bound, and what the SM waits on them per round is in
    // the round latency. Not so in the kernels for aligned B (also after packing B) where C's rows
    // are unaligned: their scalar stores write 8 floats in each of 4 rows per warp instruction, a
    // quarter of every sector at a time, 4x the store transactions for the same bytes, at
    // kScalarEpilogue of the bandwidth; no other block hides that, since they all store through it.
    const double c_bytes = (s.beta_zero ? 4.0 : 8.0) * double(s.M) * s.N;
    const bool scalar_epilogue = !s.c_aligned && (s.b_aligned || plan.pack_b);
    const double epilogue = scalar_epilogue ? c_bytes / (d.dram() * kScalarEpilogue) : 0.0;
    const double memory = compulsory_bytes(s) / d.dram();
    double seconds = std::max(compute + epilogue, memory) + kLaunchS;
    // [/doc:epilogue-model]
    if (plan.pack_b) seconds += kReduceLaunchS + 8.0 * double(s.K) * sgemm::round_up4(s.N) / d.dram();
    if (plan.splits > 1) {
        // Extra traffic of the split: S partial tiles written (tile kernel) and read (reduction), i.e.
        // 2 * S * sk_tiles * BM * BN * 4 bytes, at L2 speed while the partials fit in half the L2.
        // E.g. 1024 x 1024 x 8192, 128 x 256 tiles, S = 4: 2 * 4 * 32 * 128 KB = 32 MB, ~4 us.
        // The reduction is launched chained to the tile kernel where the GPU can (sm_90+).
        const double bw = plan.partial_bytes <= static_cast<std::size_t>(d.l2_bytes / 2) ? d.l2() : d.dram();
        seconds += (d.cc >= 90 ? sgemm::kChainedLaunchSeconds : kReduceLaunchS) + 2.0 * plan.partial_bytes / bw;
    }
    return seconds;
}
// [/doc:tile-model]

// A tile plan for configuration `config` with `splits_asked` K ranges (1: none) on every tile or,
// with `tail`, on the tiles of the last, partial round only. nullopt where it makes no sense.
inline std::optional<Plan> make_tile_plan(const Shape& s, const DeviceModel& d, int config, int splits_asked, bool tail,
                                          bool pack_b = false) {
    const TileShape& c = kTileShapes[config];
    // [doc:short-tile-rule]
    // The short tiles are for short C, one tile-row of blocks that reads B once: with more rows a
    // taller tile reuses each B element more; with at most half their rows, a shorter tile (or the
    // skinny kernel, 4 or 8 rows) computes less padding.
    if (c.bm < 64 && (s.M > c.bm || 2 * s.M <= c.bm)) return std::nullopt;
    // [/doc:short-tile-rule]
    Plan plan;
    plan.config = config;
    plan.splits_asked = splits_asked;
    plan.tail = tail;
    plan.pack_b = pack_b;
    if (pack_b) plan.pack_bytes = sgemm::align256(s.K * sgemm::round_up4(s.N) * sizeof(float));  // B with float4 rows
    plan.occupancy = blocks_per_sm(c.threads(), c.smem(), d.tile_regs[config], d);
    const long long tiles = static_cast<long long>(ceil_div(s.M, c.bm)) * ceil_div(s.N, c.bn);
    if (tiles > INT_MAX) return std::nullopt;
    plan.tiles = static_cast<int>(tiles);
    const long long slots = static_cast<long long>(d.sms) * plan.occupancy;  // blocks of one full round
    if (splits_asked == 1) {
        if (tail) return std::nullopt;
        plan.dp_tiles = plan.tiles, plan.k_per_split = s.K;
    } else {
        // K ranges: whole k-tiles, none empty. S asked may shrink: K = 100, S = 8 -> 16 per range ->
        // 7 ranges (and the kMinKPerSplit check rejects it anyway).
        const int k_per_split = ceil_div(ceil_div(s.K, splits_asked), c.bk) * c.bk;
        plan.splits = ceil_div(s.K, k_per_split);
        plan.k_per_split = k_per_split;
        if (plan.splits < 2 || k_per_split < kMinKPerSplit) return std::nullopt;
        // [doc:split-rounds]
        if (tail) {
            // Split the partial last round only, if its split blocks still fit in one round. (Taking
            // more rounds there measured faster on shapes of a few rounds and slower behind many,
            // 8192^3 among them, where the model's rounds are too even to tell the two apart.)
            const long long rest = tiles % slots;
            if (tiles < slots || rest == 0 || rest * plan.splits > slots) return std::nullopt;
            plan.sk_tiles = static_cast<int>(rest);
        } else {
            // Split every tile where the tiles do not fill one round, into as many rounds as the model
            // finds best: a few hundred blocks fill whole rounds only by chance (194 tiles on 264
            // slots: S = 2 leaves the second round half used, S = 4 fills 2.94 rounds).
            if (tiles >= slots) return std::nullopt;
            plan.sk_tiles = plan.tiles;
        }
        // [/doc:split-rounds]
        plan.dp_tiles = plan.tiles - plan.sk_tiles;
        if (plan.dp_tiles + static_cast<long long>(plan.sk_tiles) * plan.splits > INT_MAX) return std::nullopt;
        plan.partial_bytes = static_cast<std::size_t>(plan.sk_tiles) * plan.splits * c.bm * c.bn * sizeof(float);
        if (plan.partial_bytes > kMaxPartialBytes) return std::nullopt;
    }
    plan.workspace = plan.pack_bytes + plan.partial_bytes;
    plan.seconds = tile_seconds(s, plan, d) * d.cal.scale[plan_class(plan)];
    return plan;
}

// N == 1: the GEMV kernel, memory-bound on A.
inline Plan make_gemv_n1_plan(const Shape& s, const DeviceModel& d) {
    Plan plan;
    plan.kind = Plan::kGemvN1;
    // Lanes per row: the smallest power of two (up to a block) that leaves <= 16 elements per lane,
    // or more while the rows would give fewer than 4 blocks per SM (a few long rows).
    plan.gemv_width = 1;
    while (plan.gemv_width < 256 &&
           (s.K > 16 * plan.gemv_width || static_cast<long long>(s.M) * plan.gemv_width < 4LL * 256 * d.sms))
        plan.gemv_width *= 2;
    plan.seconds = (compulsory_bytes(s) / d.dram() + kLaunchS) * d.cal.scale[plan_class(plan)];
    return plan;
}

// A streaming plan's K ranges: ceil(K / S) rows for S = `splits_asked`, rounded up to a multiple of
// `quantum` (at most K; 64-bit: K may be 2^31 - 1), at least `min_rows` each when split; then the
// partials (S x M x N floats, at most kMaxPartialBytes) and one
// counter per block of a split's grid (`blocks`). False where the split makes no sense.
inline bool split_streaming_k(Plan& plan, const Shape& s, int splits_asked, int quantum, int min_rows,
                              long long blocks) {
    const long long per_split = (static_cast<long long>(s.K) + splits_asked - 1) / splits_asked;
    plan.k_per_split = static_cast<int>(std::min<long long>((per_split + quantum - 1) / quantum * quantum, s.K));
    plan.splits = ceil_div(s.K, plan.k_per_split);
    plan.splits_asked = splits_asked;
    if (splits_asked > 1 && (plan.splits < 2 || plan.k_per_split < min_rows)) return false;
    if (plan.splits > kSkinnyMaxSplits) return false;
    if (plan.splits > 1) {
        plan.partial_bytes = sgemm::align256(static_cast<std::size_t>(plan.splits) * s.M * s.N * sizeof(float));
        if (plan.partial_bytes > kMaxPartialBytes) return false;
        plan.workspace = plan.partial_bytes + static_cast<std::size_t>(blocks) * sizeof(unsigned);
    }
    return true;
}

// The FMAs of `blocks` equal blocks of `block_flop` each on the busiest SM, at `fraction` of its
// share of the FFMA peak: the streaming kernels' compute time.
inline double streaming_fma_seconds(long long blocks, double block_flop, double fraction, const DeviceModel& d) {
    const double per_sm = static_cast<double>((blocks + d.sms - 1) / d.sms);
    return per_sm * block_flop / (d.ffma_peak() / d.sms * fraction);
}

// [doc:streaming-waves]
// A streaming plan's time from its FMAs and the bytes it moves. A's and B's bytes from DRAM, an
// equal share per block, in waves of the blocks that fit at once (SMs x blocks per SM): a block
// streams at the rate its loads in flight sustain over a DRAM round trip (kDramLatencyS), or at its
// SM's share of the bandwidth among the SMs running beside it, whichever is lower. A last, partial
// wave of few blocks runs at the blocks' own rate: 1 x 33818 x 38631 (unaligned B, 16 GB/s a
// block) has 265 blocks for 264 slots on an H100, and takes 1.49x the time of 32 K ranges (8480
// blocks). Then C's bytes and those from L2; max with the FMAs, one launch, and for S > 1 splits
// the partials written and read back, the counters' memset and the last block's sums (S partials
// per output from L2, 8 loads in flight per thread, one L2 latency per 8); times the class's scale.
inline double streaming_seconds(const Shape& s, const Plan& plan, const DeviceModel& d, double compute,
                                double in_flight_per_block, long long blocks, double a_b_bytes, double l2_bytes) {
    const double block_rate = in_flight_per_block / kDramLatencyS;  // bytes per second, one block
    const long long slots = static_cast<long long>(d.sms) * plan.occupancy;
    const double per_block = a_b_bytes / static_cast<double>(blocks);
    // [doc:uneven-wave]
    // A wave of n blocks: n = q x SMs + r, so r SMs hold q + 1 blocks and the others q. DRAM shares
    // its bandwidth among SMs, not blocks (each SM at most its blocks' own rate): the SMs with q blocks
    // finish first, then the r others share it. 172 blocks on 132 SMs take 1.12x 172 equal shares
    // on an H200 (1 x 11008 x 14336, S = 2: 215 us, S = 32 in full waves: 184 us).
    auto wave = [&](long long n) {
        const long long q = n / d.sms, r = n % d.sms;
        const long long light = q > 0 ? d.sms - r : 0;  // SMs with q blocks
        const double light_rate = std::min(q * block_rate, d.dram() / static_cast<double>(light + r));
        if (r == 0) return q * per_block / light_rate;
        const double heavy_rate = std::min((q + 1) * block_rate, (d.dram() - light * light_rate) / r);
        const double t_heavy = (q + 1) * per_block / heavy_rate, t_light = light ? q * per_block / light_rate : 0.0;
        if (t_heavy <= t_light) return t_light;
        const double left = (q + 1) * per_block - heavy_rate * t_light;  // on each of the r SMs, alone
        return t_light + left / std::min((q + 1) * block_rate, d.dram() / r);
    };
    // [/doc:uneven-wave]
    const double c_passes = s.beta_zero ? 1.0 : 2.0;
    double memory = static_cast<double>(blocks / slots) * wave(slots) + (blocks % slots ? wave(blocks % slots) : 0.0) +
        4.0 * c_passes * double(s.M) * s.N / d.dram() + l2_bytes / d.l2();
    double fixed = kLaunchS;
    if (plan.splits > 1) {
        const double bw = plan.partial_bytes <= static_cast<std::size_t>(d.l2_bytes / 2) ? d.l2() : d.dram();
        memory += 2.0 * plan.partial_bytes / bw;
        fixed += kReduceLaunchS + ceil_div(plan.splits, 8) * kL2LatencyS;
    }
    return (std::max(compute, memory) + fixed) * d.cal.scale[plan_class(plan)];
}
// [/doc:streaming-waves]

// [doc:make-skinny-plan]
// M <= 64: the skinny kernel with MR = the smallest of 4, 8, 16 rows that holds M (16 rows in
// ceil(M / 16) row groups above 16), and `splits_asked` K ranges (multiples of 64 rows, at least 256
// each). nullopt where it makes no sense. The model: B read once from DRAM at the bandwidth the
// resident loads sustain (and by the other row groups from L2), A from L2 by every column range, C
// written; the FMAs (MR rows a block, padding included) at the kernel's fraction of the FFMA peak;
// a split adds its partials (written, read back) and a memset.
inline std::optional<Plan> make_skinny_plan(const Shape& s, const DeviceModel& d, int splits_asked) {
    if (s.M > kSkinnyMaxM) return std::nullopt;
    Plan plan;
    plan.kind = Plan::kSkinny;
    plan.rows = kSkinnyRows[skinny_row_index(s.M)];
    plan.row_groups = ceil_div(s.M, plan.rows);
    plan.vec = s.b_aligned ? 4 : 1;
    const int cols = kSkinnyCols;
    plan.col_blocks = ceil_div(s.N, cols);
    if (static_cast<long long>(plan.col_blocks) * plan.row_groups > INT_MAX) return std::nullopt;
    // Whole rounds of 64 rows for every warp, at least 256 rows a split.
    const long long grid_x = static_cast<long long>(plan.col_blocks) * plan.row_groups;
    if (!split_streaming_k(plan, s, splits_asked, 64, 256, grid_x)) return std::nullopt;
    plan.occupancy =
        blocks_per_sm(kStreamThreads, skinny_smem(plan.rows), d.skinny_regs[skinny_row_index(plan.rows)], d);
    const long long blocks = grid_x * plan.splits;
    const double compute =
        streaming_fma_seconds(blocks, 2.0 * plan.rows * cols * plan.k_per_split, d.cal.skinny_fraction, d);
    // Loads in flight: a warp keeps kSkinnyDepth row segments of 512 bytes in flight (the ring), or
    // with unaligned B one round of kSkinnyAhead rows while it computes the previous one.
    const double in_flight = kSkinnyGroups * (plan.vec == 4 ? kSkinnyDepth : kSkinnyAhead) * cols * 4.0;
    // B once from DRAM (the other row groups read it from L2), A from L2 by every column range;
    // every row group's blocks take slots in the waves.
    plan.seconds =
        streaming_seconds(s, plan, d, compute, in_flight, blocks, 4.0 * double(s.K) * s.N,
                          4.0 * (plan.row_groups - 1) * double(s.K) * s.N + 4.0 * double(s.M) * s.K * plan.col_blocks);
    return plan;
}

// [doc:make-gemv-m1-plan]
// M == 1 with B's rows 16-byte aligned: the gemv_m1 kernel, `splits_asked` K ranges (multiples of 64
// rows, at least 256 each). The model: B read once from DRAM at the bandwidth the loads in flight
// sustain (kGemvM1Ahead rows a warp, each the 32-byte sectors of its columns: 512 bytes, fewer where
// N < 128), x from L2 by every column range, C written; the FMAs (one row) at the skinny kernel's
// fraction of the FFMA peak; a split adds its partials, a memset and the last block's sums.
inline std::optional<Plan> make_gemv_m1_plan(const Shape& s, const DeviceModel& d, int splits_asked) {
    if (s.M != 1 || !s.b_aligned) return std::nullopt;
    Plan plan;
    plan.kind = Plan::kGemvM1;
    plan.rows = 1;
    plan.vec = 4;
    plan.col_blocks = ceil_div(s.N, kSkinnyCols);
    if (!split_streaming_k(plan, s, splits_asked, kSkinnyGroups * kGemvM1Ahead, 256, plan.col_blocks))
        return std::nullopt;
    plan.occupancy = blocks_per_sm(kStreamThreads, kGemvM1Smem, d.gemv_m1_regs, d);
    const long long blocks = static_cast<long long>(plan.col_blocks) * plan.splits;
    const double compute =
        streaming_fma_seconds(blocks, 2.0 * kSkinnyCols * plan.k_per_split, d.cal.skinny_fraction, d);
    const double row_bytes = 32.0 * ceil_div(4 * std::min(s.N, kSkinnyCols), 32);  // whole sectors
    const double in_flight = kSkinnyGroups * kGemvM1Ahead * row_bytes;
    plan.seconds = streaming_seconds(s, plan, d, compute, in_flight, blocks, 4.0 * double(s.K) * s.N,
                                     4.0 * double(s.K) * plan.col_blocks);
    return plan;
}
// [/doc:make-gemv-m1-plan]

// [doc:make-tall-plan]
// 2 <= N <= kTallN: the tall kernel, `splits_asked` K ranges (multiples of 4 rows, at least 512
// each). The model: A read once from DRAM at the bandwidth the loads in flight sustain, B from L2
// by every row range, C written; the FMAs (kTallN columns, padding included) at the
// kernel's fraction of the FFMA peak; a split adds its partials, a memset and the last block's sums.
inline std::optional<Plan> make_tall_plan(const Shape& s, const DeviceModel& d, int splits_asked) {
    if (s.N < 2 || s.N > kTallN) return std::nullopt;
    Plan plan;
    plan.kind = Plan::kTall;
    constexpr int block_rows = 8 * kTallRows;
    const long long row_blocks = (static_cast<long long>(s.M) + block_rows - 1) / block_rows;
    if (row_blocks > INT_MAX) return std::nullopt;
    plan.row_blocks = static_cast<int>(row_blocks);
    // Ranges of 4 rows (float4 loads of A start on 16 bytes), at least 512 a split.
    if (!split_streaming_k(plan, s, splits_asked, 4, 512, row_blocks)) return std::nullopt;
    plan.occupancy = blocks_per_sm(kStreamThreads, kTallSmem, d.tall_regs, d);
    const long long blocks = row_blocks * plan.splits;
    const double compute =
        streaming_fma_seconds(blocks, 2.0 * block_rows * kTallN * plan.k_per_split, d.cal.tall_fraction, d);
    // Loads in flight: a warp has a step of its rows x 512 bytes of A in flight.
    const double in_flight = block_rows * 512.0;
    // A once from DRAM, B from L2 by every row range.
    plan.seconds = streaming_seconds(s, plan, d, compute, in_flight, blocks, 4.0 * double(s.M) * s.K,
                                     4.0 * double(s.K) * s.N * row_blocks);
    return plan;
}
// [/doc:make-tall-plan]

// [doc:make-outer-plan]
// K <= 32: the outer kernel, one 64 x 128 tile of C per block, bound by writing C.
inline std::optional<Plan> make_outer_plan(const Shape& s, const DeviceModel& d) {
    if (s.K > kOuterMaxK) return std::nullopt;
    const long long tiles = static_cast<long long>(ceil_div(s.M, kOuterBM)) * ceil_div(s.N, kOuterBN);
    if (tiles > INT_MAX) return std::nullopt;
    Plan plan;
    plan.kind = Plan::kOuter;
    plan.tiles = static_cast<int>(tiles);
    plan.occupancy = blocks_per_sm(kStreamThreads, kOuterSmem, d.outer_regs, d);
    const double compute = streaming_fma_seconds(tiles, 2.0 * kOuterBM * kOuterBN * s.K, d.cal.outer_fraction, d);
    plan.seconds =
        (std::max(compute, compulsory_bytes(s) / d.dram()) + kLaunchS + kRoundLatencyS) * d.cal.scale[plan_class(plan)];
    return plan;
}

// [doc:all-plans]
// Every plan worth timing: all tile configurations unsplit, split-K where the tiles do not fill a
// round, tail splits where the last round is partial; the streaming kernels where they apply.
inline std::vector<Plan> all_plans(const Shape& s, const DeviceModel& d) {
    std::vector<Plan> plans;
    if (s.N == 1) plans.push_back(make_gemv_n1_plan(s, d));
    // The split-K streaming kernels, S = 1, 2, 4, ...: each distinct split once (several S can round
    // to the same K ranges).
    for (auto make : {make_skinny_plan, make_tall_plan, make_gemv_m1_plan})
        for (int splits = 1; splits <= kSkinnyMaxSplits; splits *= 2)
            if (auto plan = make(s, d, splits)) {
                const bool seen = std::any_of(plans.begin(), plans.end(), [&](const Plan& q) {
                    return q.kind == plan->kind && q.splits == plan->splits;
                });
                if (!seen) plans.push_back(*plan);
            }
    if (auto plan = make_outer_plan(s, d)) plans.push_back(*plan);
    const bool gemv = s.N == 1 || s.M == 1;
    // Packing B pays only where B's rows are unaligned; it is timed both ways there.
    for (bool pack_b : {false, true}) {
        // (At most kMaxPartialBytes of workspace for it, as for a split's partials.)
        if (pack_b &&
            (s.b_aligned || gemv || s.N > INT_MAX - 3 ||
             static_cast<double>(s.K) * sgemm::round_up4(s.N) * sizeof(float) > double(kMaxPartialBytes)))
            continue;
        for (int config = 0; config < kNumTileShapes; ++config) {
            if (auto plan = make_tile_plan(s, d, config, 1, false, pack_b)) plans.push_back(*plan);
            if (gemv) continue;  // the tile kernels only for comparison there, unsplit
            for (bool tail : {false, true})
                for (int k : kSplits) {
                    const auto plan = make_tile_plan(s, d, config, k, tail, pack_b);
                    if (!plan) continue;
                    const bool seen = std::any_of(plans.begin(), plans.end(), [&](const Plan& q) {
                        return q.kind == Plan::kTile && q.config == config && q.tail == tail && q.pack_b == pack_b &&
                            q.splits == plan->splits;
                    });
                    if (!seen) plans.push_back(*plan);
                }
        }
    }
    return plans;
}

// [doc:pick]
// The heuristic: GEMV where N == 1 (memory-bound; a tile kernel would waste 63/64 of its FMAs);
// otherwise the plan the model predicts fastest, the first of equals. `plans` is all_plans(s, d).
inline Plan pick_among(const Shape& s, const std::vector<Plan>& plans) {
    if (plans.empty()) throw std::invalid_argument("10_every_shape: no plan for this shape (see can_implement)");
    if (s.N == 1)
        for (const Plan& p : plans)
            if (p.kind == Plan::kGemvN1) return p;
    const Plan* best = &plans.front();
    for (const Plan& p : plans)
        if (p.seconds < best->seconds) best = &p;
    return *best;
}

inline Plan pick(const Shape& s, const DeviceModel& d) { return pick_among(s, all_plans(s, d)); }
// [/doc:pick]

}  // namespace step10
