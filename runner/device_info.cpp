#include "device_info.h"

#include <cstdio>
#include <string>

#include "common/check.h"
#include "common/gpu_rates.h"
#include "nvml_session.h"
#include "roofline.h"

namespace sgemm {

namespace {

std::string version_string(int v) {  // 13000 -> "13.0"
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

int usable_device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky "no device" error
        return 0;
    }
    return count;
}

DeviceInfo query_device(int index) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0)
        throw NoDeviceError(std::string("no CUDA device available (") +
                            (status == cudaSuccess ? "none found" : cudaGetErrorString(status)) +
                            "): sgemm_runner needs an NVIDIA GPU to run kernels; --list and --help work without one");
    if (index >= count)
        throw NoDeviceError("--device " + std::to_string(index) + " does not exist: " + std::to_string(count) +
                            " CUDA device(s) found");
    check(cudaSetDevice(index));

    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, index));
    DeviceInfo d;
    d.index = index;
    d.name = prop.name;
    d.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    d.sm_count = prop.multiProcessorCount;
    int khz = 0;
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, index));
    d.sm_clock_max_mhz = khz / 1000;
    d.ffma_peak_tflops = theoretical_ffma_tflops(10 * prop.major + prop.minor, d.sm_count, khz * 1e3);
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, index));
    d.mem_clock_max_mhz = khz / 1000;
    d.mem_bus_bits = prop.memoryBusWidth;
    if (const double dram = dram_peak_bytes_per_s(khz * 1e3, d.mem_bus_bits); dram > 0) d.dram_peak_gbs = dram / 1e9;
    d.l2_bytes = prop.l2CacheSize;
    d.global_mem_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);

    int v = 0;
    check(cudaDriverGetVersion(&v));
    d.cuda_driver = version_string(v);
    check(cudaRuntimeGetVersion(&v));
    d.cuda_runtime = version_string(v);
    int major = 0, minor = 0, patch = 0;
    check(cublasGetProperty(MAJOR_VERSION, &major));
    check(cublasGetProperty(MINOR_VERSION, &minor));
    check(cublasGetProperty(PATCH_LEVEL, &patch));
    d.cublas = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);

    const NvmlSession* nvml = NvmlSession::shared();
    d.driver_version = nvml ? nvml->driver_version().value_or("unknown") : "unknown";
    const Clocks now = current_clocks(index);
    d.sm_clock_now_mhz = now.sm_mhz;
    d.mem_clock_now_mhz = now.mem_mhz;
    return d;
}

int compute_capability(int index) {
    int major = 0, minor = 0;
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, index));
    check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, index));
    return 10 * major + minor;
}

Clocks current_clocks(int index) {
    Clocks c;
    const NvmlSession* nvml = NvmlSession::shared();
    const std::optional<NvmlDevice> device = nvml ? nvml->device(index) : std::nullopt;
    if (!device) return c;
    if (const auto mhz = nvml->clock_mhz(*device, NvmlClock::kSm)) c.sm_mhz = static_cast<int>(*mhz);
    if (const auto mhz = nvml->clock_mhz(*device, NvmlClock::kMem)) c.mem_mhz = static_cast<int>(*mhz);
    return c;
}

}  // namespace sgemm
