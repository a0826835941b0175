#include "copy_bandwidth.h"

#include <algorithm>
#include <stdexcept>

#include "common/check.h"
#include "device_buffer.h"
#include "event_timing.h"

namespace sgemm {

namespace {

constexpr int kCopyThreads = 256;

// Nothing but 16-byte loads and stores: the kernel waits on DRAM alone.
__global__ void __launch_bounds__(kCopyThreads)
    copy_float4(const float4* __restrict__ src, float4* __restrict__ dst, std::size_t n) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
        dst[i] = src[i];
}

}  // namespace

CopyBandwidth measure_copy_bandwidth(std::size_t bytes, int warmup, int reps) {
    CopyBandwidth r;
    r.bytes = bytes / 256 * 256;
    if (r.bytes == 0) throw std::runtime_error("too little free device memory to measure the copy bandwidth");
    const std::size_t n = r.bytes / sizeof(float4);
    DeviceBuffer<float4> src(n), dst(n);
    check(cudaMemset(src.get(), 1, src.bytes()));
    // As many blocks as fit on the device at once: every SM full, and each thread strides over the rest.
    int device = 0, sms = 0, per_sm = 0;
    check(cudaGetDevice(&device));
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy_float4, kCopyThreads, 0));
    const int blocks = std::max(1, sms * per_sm);
    const std::vector<float> ms = time_ms(warmup, reps, [&] {
        launch_checked(copy_float4, dim3(blocks), dim3(kCopyThreads), 0, nullptr, src.get(), dst.get(), n);
    });
    const Timing t = summarize(ms);
    r.median_ms = t.median_ms;
    r.min_ms = t.min_ms;
    r.gb_per_s = 2.0 * r.bytes / (r.median_ms * 1e-3) / 1e9;
    return r;
}

std::string copy_method(int warmup, int reps) {
    return "copy kernel (grid-stride float4 loads and stores): bytes read + bytes written over the median of " +
        std::to_string(reps) + " CUDA-event-timed launches after " + std::to_string(warmup) + " warm-ups";
}

std::size_t roofline_copy_bytes() {
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes));
    return std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4);
}

}  // namespace sgemm
