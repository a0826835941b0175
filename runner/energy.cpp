#include "energy.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <utility>

namespace sgemm {

std::int64_t energy_window_launches(double window_s, double median_ms) {
    if (!(median_ms > 0) || !std::isfinite(median_ms) || !(window_s > 0)) return 1;
    // Capped where a window of tiny launches would overflow the count (not reachable with --sustained's
    // bound and a median the timer can resolve, but the division must not be undefined).
    const double n = std::ceil(window_s * 1e3 / median_ms);
    return n >= 9e18 ? std::int64_t(9e18) : std::max<std::int64_t>(1, static_cast<std::int64_t>(n));
}

std::optional<double> counter_joules(std::optional<unsigned long long> before_mj,
                                     std::optional<unsigned long long> after_mj) {
    if (!before_mj || !after_mj || *after_mj <= *before_mj) return std::nullopt;
    return static_cast<double>(*after_mj - *before_mj) * 1e-3;
}

EnergyPerGemm per_gemm(const EnergySample& window, std::int64_t gemms, double flop_per_gemm) {
    EnergyPerGemm e;
    if (!window.joules || gemms < 1) return e;
    e.joules = *window.joules / static_cast<double>(gemms);
    e.gflop_per_j = flop_per_gemm / 1e9 / *e.joules;
    if (window.seconds > 0) e.watts = *window.joules / window.seconds;
    return e;
}

std::optional<EnergyMeter> EnergyMeter::open(int cuda_device, std::string* why_not) {
    std::optional<NvmlSession> session = NvmlSession::open(why_not);
    if (!session) return std::nullopt;
    const std::optional<NvmlDevice> device = session->device(cuda_device, why_not);
    if (!device) return std::nullopt;
    // One read now: a GPU without the counter (NVML_ERROR_NOT_SUPPORTED) is told apart before any window.
    if (!session->total_energy_mj(*device, why_not)) return std::nullopt;
    return EnergyMeter(std::move(*session), *device);
}

EnergyMeter::Sampler::Sampler(const EnergyMeter& meter) : meter_(meter) {
    thread_ = std::jthread([this](std::stop_token stop) {
        std::mutex mutex;  // the wait's own: the fields are read only after join()
        std::condition_variable_any wake;
        std::unique_lock lock(mutex);
        do {
            const NvmlSession& nvml = meter_.session_;
            if (const auto mhz = nvml.clock_mhz(meter_.device_, NvmlClock::kSm)) {
                sm_sum_mhz_ += *mhz;
                ++sm_samples_;
            }
            if (const auto mw = nvml.power_mw(meter_.device_)) power_max_mw_ = std::max(power_max_mw_.value_or(0), *mw);
        } while (!wake.wait_for(lock, stop, kEnergySamplePeriod, [&] { return stop.stop_requested(); }));
    });
}

EnergySample EnergyMeter::Sampler::stop() {
    thread_.request_stop();
    if (thread_.joinable()) thread_.join();
    EnergySample s;
    if (sm_samples_ > 0) s.sm_clock_mhz = sm_sum_mhz_ / sm_samples_;
    if (power_max_mw_) s.power_max_w = *power_max_mw_ * 1e-3;
    return s;
}

}  // namespace sgemm
