#include "roofline.h"

#include <cmath>

#include "common/gpu_rates.h"

namespace sgemm {

namespace {
bool usable_rate(double r) { return std::isfinite(r) && r > 0; }
}  // namespace

double gemm_min_bytes(int M, int N, int K, double beta) { return compulsory_bytes(M, N, K, beta != 0); }

std::optional<Roof> gemm_roof(int M, int N, int K, double beta, double ffma_flops, double dram_bytes_per_s) {
    if (!usable_rate(ffma_flops) || !usable_rate(dram_bytes_per_s)) return std::nullopt;
    const double flop_s = 2.0 * M * static_cast<double>(N) * K / ffma_flops;
    const double dram_s = gemm_min_bytes(M, N, K, beta) / dram_bytes_per_s;
    return flop_s >= dram_s ? Roof{flop_s, "flop"} : Roof{dram_s, "dram"};
}

std::optional<double> theoretical_ffma_tflops(int cc, int sms, double sm_clock_hz) {
    const double flops = ffma_peak_flops(cc, sms, sm_clock_hz);
    if (!usable_rate(flops)) return std::nullopt;
    return flops / 1e12;
}

}  // namespace sgemm
