// DRAM bandwidth as a plain copy kernel reaches it. One function serves sgemm_ceilings' copy line and
// the runner's roofline, so that the overview's bandwidth ceiling and each shape's roof come from the
// same measurement.
#pragma once

#include <cstddef>
#include <string>

namespace sgemm {

struct CopyBandwidth {
    std::size_t bytes = 0;  // copied per launch: each byte read once and written once
    double median_ms = 0, min_ms = 0;
    double gb_per_s = 0;    // (bytes read + bytes written) / median time, in 1e9 bytes/s
};

// Copies `bytes` (rounded down to 256) between two fresh buffers of the current device with a
// grid-stride float4 kernel: `warmup` untimed launches, then `reps` timed by CUDA events. The buffers
// are freed before it returns.
CopyBandwidth measure_copy_bandwidth(std::size_t bytes, int warmup, int reps);

// How measure_copy_bandwidth measured, for the JSON's "method".
std::string copy_method(int warmup, int reps);

// The runner's buffer size: min(1 GiB, a quarter of the free device memory), so that source and
// destination together take at most half of what is free, and 1 GiB is far beyond any L2.
std::size_t roofline_copy_bytes();

}  // namespace sgemm
