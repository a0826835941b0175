// The roofline of one GEMM shape: the least time C = alpha*A*B + beta*C can take on a GPU, from its
// FFMA peak and its DRAM bandwidth. Host-only arithmetic (no CUDA calls): the CPU tests feed it
// synthetic GPUs. The rates themselves come from common/gpu_rates.h (FFMA) and copy_bandwidth.h (DRAM).
#pragma once

#include <optional>
#include <string>

namespace sgemm {

// Bytes that must cross DRAM at the least: A and B read once, C written once, and C also read once
// when beta != 0. In double: at M = N = K = 2^31 - 1 the count exceeds 2^64.
double gemm_min_bytes(int M, int N, int K, double beta);

struct Roof {
    double seconds = 0;  // max(2*M*N*K / FFMA peak, gemm_min_bytes / DRAM bandwidth)
    std::string bound;   // which term is the larger: "flop" or "dram"
};

// The roof of one shape at `ffma_flops` FLOP/s and `dram_bytes_per_s`. Empty when either rate is not
// positive and finite (an unknown compute capability has FFMA peak 0): no roof rather than a division by 0.
std::optional<Roof> gemm_roof(int M, int N, int K, double beta, double ffma_flops, double dram_bytes_per_s);

// ffma_peak_flops (gpu_rates.h) in TFLOP/s, empty where the FP32 lanes of `cc` are unknown.
std::optional<double> theoretical_ffma_tflops(int cc, int sms, double sm_clock_hz);

}  // namespace sgemm
