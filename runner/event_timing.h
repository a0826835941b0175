// Timing with CUDA events: time_ms on the default stream for the measurements that are not a GEMM
// problem (sgemm_ceilings' FFMA, copy and cuBLAS lines, the runner's DRAM bandwidth: `warmup` untimed
// launches, then `reps` launches each between its own pair of events), and the median and minimum that
// every timing of the project reports (Problem::time's too).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "common/check.h"

namespace sgemm {

// The time of each timed launch, in ms.
template <typename F>
std::vector<float> time_ms(int warmup, int reps, F&& launch) {
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start));
    check(cudaEventCreate(&stop));
    for (int i = 0; i < warmup; ++i) launch();
    check(cudaDeviceSynchronize());
    std::vector<float> ms(reps);
    for (int i = 0; i < reps; ++i) {
        check(cudaEventRecord(start));
        launch();
        check(cudaEventRecord(stop));
        check(cudaEventSynchronize(stop));
        check(cudaEventElapsedTime(&ms[i], start, stop));
    }
    check(cudaEventDestroy(start));
    check(cudaEventDestroy(stop));
    return ms;
}

inline double median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (static_cast<double>(v[n / 2 - 1]) + v[n / 2]);
}

struct Timing {
    double median_ms = 0, min_ms = 0;
};

// What is reported of the launch times `ms` (at least one).
inline Timing summarize(const std::vector<float>& ms) { return {median(ms), *std::min_element(ms.begin(), ms.end())}; }

}  // namespace sgemm
