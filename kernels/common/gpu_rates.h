// A GPU's peak rates from what CUDA reports about it, and the bytes a GEMM must move: one place for
// the runner's roofline per shape, sgemm_ceilings and step 10's planner. Host-only arithmetic (no CUDA calls), so CPU tests can feed
// it synthetic GPUs.
#pragma once

#include <cstdint>

namespace sgemm {

// FP32 lanes (FFMA per clock) per SM, by compute capability x 10, from the CUDA C++ Programming
// Guide's arithmetic-throughput table: 64 on sm_60, sm_70, sm_72, sm_75 and sm_80 (A100), 128 on
// sm_61, sm_62, sm_86, sm_87, sm_89, sm_90 (H100, H200) and later. 0: unknown.
constexpr int fp32_lanes_per_sm(int cc) {
    if (cc >= 86 || cc == 61 || cc == 62) return 128;
    if (cc >= 60) return 64;
    return 0;
}

// FLOP/s of the FFMA pipes: 2 FLOP per FFMA x lanes x SMs x SM clock (Hz).
constexpr double ffma_peak_flops(int cc, int sms, double sm_clock_hz) {
    return 2.0 * fp32_lanes_per_sm(cc) * sms * sm_clock_hz;
}

// FLOP/s of the tensor cores on TF32 operands (dense, FP32 accumulation): 2 FLOP per FMA x FMA
// per clock per SM x SMs x SM clock. Per SM and clock: 1024 TF32 FMA on sm_90 (H100 SXM: 495
// TFLOP/s at 1830 MHz), 512 on sm_80 (A100: 156 TFLOP/s at 1410 MHz); 0 where not known here.
constexpr double tf32_tensor_peak_flops(int cc, int sms, double sm_clock_hz) {
    const int fma_per_clock = cc == 90 ? 1024 : cc == 80 ? 512 : 0;
    return 2.0 * fma_per_clock * sms * sm_clock_hz;
}

// OP/s of the tensor cores on int8 operands (dense, int32 accumulation): 2 OP per multiply-add x
// multiply-adds per clock per SM x SMs x SM clock. Per SM and clock: 4096 on sm_90 (H100 SXM: 1979
// TOPS at 1830 MHz); 0 where not known here.
constexpr double int8_tensor_peak_ops(int cc, int sms, double sm_clock_hz) {
    return 2.0 * (cc == 90 ? 4096 : 0) * sms * sm_clock_hz;
}

// What the models of steps 10, 12, 13 and 14 charge for a kernel launch in stream time (3 us, as empty
// launches measure on an H100 and an H200), and the fraction of the DRAM peak a streaming kernel reaches
// (0.83, step 10's measurement on an H200; a calibration file may set step 10's own).
inline constexpr double kLaunchSeconds = 3e-6;
// A launch chained after the kernel before it (programmatic dependent launch, launch_chained in
// check.h): its blocks are resident when that kernel ends. Against the same kernels launched one after
// another, step 12's chain of five or six such launches saved 1.3 us per launch on average (0.9 to 1.9;
// 11 shapes up to 2048^3, two runs, an H100 and an H200: docs/results/raw/h{100,200}-step12-chain/), so a
// chained launch costs about 3 - 1.3 = 1.7 us. The models charge 1.4 us: the saving measured 1.6 us a
// launch on the chain's first build (its split-K partial sums still stored one float at a time).
inline constexpr double kChainedLaunchSeconds = 1.4e-6;
inline constexpr double kStreamDramFraction = 0.83;

// DRAM bytes/s from the memory clock and bus width as cudaDevAttrMemoryClockRate and
// cudaDevAttrGlobalMemoryBusWidth report them: two transfers per reported clock (H100 SXM:
// 2 x 2619 MHz x 5120 bits / 8 = 3.35 TB/s; H200: 2 x 3201 MHz x 6016 bits / 8 = 4.81 TB/s).
constexpr double dram_peak_bytes_per_s(double mem_clock_hz, int bus_bits) {
    return 2.0 * mem_clock_hz * bus_bits / 8.0;
}

// Bytes a GEMM C = alpha A B + beta C must move through DRAM at the least: A and B read once, C
// written once and, when beta != 0 (`reads_c`), read once. Element counts in 64 bits are exact (4 x
// (2^31 - 1)^2 < 2^64); the bytes, 4 times that, may not be, so double.
inline double compulsory_bytes(std::int64_t M, std::int64_t N, std::int64_t K, bool reads_c) {
    const std::uint64_t m = M, n = N, k = K;
    return 4.0 * static_cast<double>(m * k + k * n) + 4.0 * static_cast<double>((reads_c ? 2 : 1) * m * n);
}

}  // namespace sgemm
