// The energy window's arithmetic (runner/energy.h), without a GPU; and that a machine without NVML (or
// without an energy counter) gets a reason, not an error.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <thread>
#include <vector>

#include "energy.h"

using namespace sgemm;

TEST(EnergyWindow, LaunchesCoverTheWindowAtTheMedian) {
    EXPECT_EQ(energy_window_launches(0.5, 1.0), 500);
    EXPECT_EQ(energy_window_launches(0.5, 0.3), 1667);  // ceil: the window is at least 0.5 s
    EXPECT_EQ(energy_window_launches(20, 2.5), 8000);
    EXPECT_EQ(energy_window_launches(0.5, 900.0), 1);  // one launch longer than the window
    EXPECT_EQ(energy_window_launches(0.5, 500.0), 1);
}

TEST(EnergyWindow, OneLaunchWhereTheMedianIsNoTime) {
    for (double median : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()})
        EXPECT_EQ(energy_window_launches(0.5, median), 1) << median;
    EXPECT_EQ(energy_window_launches(0.0, 1.0), 1);
    EXPECT_GE(energy_window_launches(3600, 1e-300), 1);  // capped, not overflowed
}

namespace {
// A stand-in for launch_n: `ms` a launch, spun rather than slept (a sleep overshoots by a varying amount);
// records the batches.
auto spinning(double ms, std::vector<std::int64_t>& batches) {
    return [ms, &batches](std::int64_t count) {
        batches.push_back(count);
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(ms * count);
        while (std::chrono::steady_clock::now() < until) {}
    };
}
}  // namespace

// Launches that run faster back to back than timed (a warm L2) get more batches, until the window is full.
TEST(EnergyWindow, FillsTheWindowWhenLaunchesRunFasterThanTimed) {
    std::vector<std::int64_t> batches;
    const auto start = std::chrono::steady_clock::now();
    const std::int64_t n = fill_window(0.05, 10.0, spinning(2.0, batches));  // 2 ms a launch, not the 10 timed
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    ASSERT_GE(batches.size(), 2u);  // 2 where nothing else runs: the second batch is sized at 2 ms a launch
    EXPECT_EQ(batches[0], 5);
    EXPECT_EQ(n, std::accumulate(batches.begin(), batches.end(), std::int64_t{0}));
    EXPECT_GE(elapsed.count(), 0.05);
}

TEST(EnergyWindow, OneBatchWhereTheTimedCountFillsIt) {
    std::vector<std::int64_t> batches;
    EXPECT_EQ(fill_window(0.005, 10.0, spinning(10.0, batches)), 1);  // one launch outlasts the window
    EXPECT_EQ(batches, std::vector<std::int64_t>{1});
    batches.clear();
    EXPECT_EQ(fill_window(0.02, 2.0, spinning(2.0, batches)), 10);
    EXPECT_EQ(batches, std::vector<std::int64_t>{10});
}

TEST(EnergyCounter, DifferenceInJoules) {
    EXPECT_EQ(counter_joules(1000, 3500), 2.5);
    EXPECT_FALSE(counter_joules(1000, 1000));  // did not advance: no energy, rather than 0 J
    EXPECT_FALSE(counter_joules(5000, 1000));  // went back (a driver reload)
    EXPECT_FALSE(counter_joules(std::nullopt, 1000));
    EXPECT_FALSE(counter_joules(1000, std::nullopt));
}

TEST(EnergyCounter, PerGemmFigures) {
    EnergySample window;
    window.joules = 300.0;
    window.seconds = 0.5;
    const EnergyPerGemm e = per_gemm(window, 200, 2.0 * 4096.0 * 4096.0 * 4096.0);
    EXPECT_DOUBLE_EQ(*e.joules, 1.5);
    EXPECT_DOUBLE_EQ(*e.gflop_per_j, 2.0 * 4096.0 * 4096.0 * 4096.0 / 1e9 / 1.5);
    EXPECT_DOUBLE_EQ(*e.watts, 600.0);
    window.joules.reset();
    const EnergyPerGemm none = per_gemm(window, 200, 1e9);
    EXPECT_FALSE(none.joules || none.gflop_per_j || none.watts);
}

// Without libnvidia-ml.so.1 (CI), or a GPU without the counter, open() says why; with one, a window reads.
TEST(EnergyMeter, OpensOrSaysWhyNot) {
    std::string why;
    const std::optional<EnergyMeter> meter = EnergyMeter::open(0, &why);
    if (!meter) {
        EXPECT_FALSE(why.empty());
        return;
    }
    const EnergySample s = meter->measure([] { std::this_thread::sleep_for(std::chrono::milliseconds(50)); });
    EXPECT_GE(s.seconds, 0.05);
    if (s.sm_clock_mhz) EXPECT_GT(*s.sm_clock_mhz, 0);
    if (s.joules) EXPECT_GT(*s.joules, 0);
}
