// Energy per GEMM (--energy, --sustained): NVML's total-energy counter read around an energy window of
// back-to-back launches, with the SM clock and board power sampled by a background thread meanwhile.
// The counter moves in steps (tens of ms apart), too coarse for one launch of a few ms: the window is
// long (0.5 s by default) and the energy of a GEMM is the window's energy / its launches.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "nvml_session.h"

namespace sgemm {

inline constexpr double kDefaultEnergyWindowS = 0.5;  // --energy without --sustained
inline constexpr double kMaxEnergyWindowS = 3600;     // --sustained's upper bound
inline constexpr std::chrono::milliseconds kEnergySamplePeriod{10};

// Launches in a window of at least `window_s` seconds of launches `median_ms` long each:
// max(1, ceil(window_s / median_ms)); 1 where the median is not a positive finite time.
std::int64_t energy_window_launches(double window_s, double median_ms);

// Runs launch_n(count), which launches the GEMM `count` times back to back and waits for them, until
// at least `window_s` seconds have passed: first energy_window_launches(window_s, median_ms), then, while
// the window is shorter (back-to-back launches ran faster than the timed ones: a warm L2, no flush between
// them), as many more as the rate they ran at needs for the rest. Returns the launches made.
template <typename F>
std::int64_t fill_window(double window_s, double median_ms, F&& launch_n) {
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    std::int64_t n = energy_window_launches(window_s, median_ms);
    launch_n(n);
    for (double s = elapsed(); s < window_s; s = elapsed()) {
        const std::int64_t more = energy_window_launches(window_s - s, s * 1e3 / n);
        launch_n(more);
        n += more;
    }
    return n;
}

// One energy window.
struct EnergySample {
    std::optional<double> joules;        // the counter's difference; empty: unreadable, or it did not advance
    double seconds = 0;                  // wall-clock length of the window
    std::optional<double> sm_clock_mhz;  // mean of the SM clock samples
    std::optional<double> power_max_w;   // the largest power sample
};

// The counter's difference in joules from two reads in millijoules; empty where a read failed or the
// counter did not advance (a window shorter than its update interval, or a driver reload in between).
std::optional<double> counter_joules(std::optional<unsigned long long> before_mj,
                                     std::optional<unsigned long long> after_mj);

// A window's figures per GEMM: joules, GFLOP per joule (useful work flop_per_gemm, i.e. 2·M·N·K), mean
// power (joules / seconds); all empty where the window has no energy.
struct EnergyPerGemm {
    std::optional<double> joules, gflop_per_j, watts;
};
EnergyPerGemm per_gemm(const EnergySample& window, std::int64_t gemms, double flop_per_gemm);

// The energy counter of one GPU. Move-only; holds its own NVML session.
class EnergyMeter {
  public:
    // Empty where NVML cannot be loaded or initialised, the GPU is not found, or it has no readable
    // total-energy counter; `why_not` says which ("libnvidia-ml.so.1 not found", "... Not Supported").
    static std::optional<EnergyMeter> open(int cuda_device, std::string* why_not = nullptr);

    // Runs `run_gemms` (which launches the window's GEMMs and waits for them) between two reads of the
    // counter and of the wall clock, sampling the SM clock and power every kEnergySamplePeriod meanwhile.
    template <typename F>
    EnergySample measure(F&& run_gemms) const {
        Sampler sampler(*this);  // stopped and joined on the way out, a throwing run_gemms included
        const std::optional<unsigned long long> before = energy_mj();
        const auto start = std::chrono::steady_clock::now();
        run_gemms();
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        const std::optional<unsigned long long> after = energy_mj();
        EnergySample s = sampler.stop();
        s.joules = counter_joules(before, after);
        s.seconds = elapsed.count();
        return s;
    }

  private:
    // A background thread that samples the SM clock and power from construction to stop().
    class Sampler {
      public:
        explicit Sampler(const EnergyMeter& meter);
        EnergySample stop();  // joins the thread; the clock and power fields of the window
      private:
        const EnergyMeter& meter_;
        double sm_sum_mhz_ = 0;
        int sm_samples_ = 0;
        std::optional<unsigned> power_max_mw_;
        std::jthread thread_;  // last: started after the fields it writes, joined before they go
    };

    EnergyMeter(NvmlSession session, NvmlDevice device) : session_(std::move(session)), device_(device) {}
    std::optional<unsigned long long> energy_mj() const { return session_.total_energy_mj(device_); }

    NvmlSession session_;
    NvmlDevice device_;
};

}  // namespace sgemm
