#include "device_info.h"

#include <dlfcn.h>

#include <cstdio>
#include <string>

#include "common/check.h"

namespace sgemm {

namespace {

std::string version_string(int v) {  // 13000 -> "13.0"
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// NVML is part of the driver, not the toolkit: loaded at run time so that the
// runner starts (for --help and --list) on a machine without a driver.
struct Nvml {
    using Device = void*;
    int (*init)() = nullptr;
    int (*driver_version)(char*, unsigned) = nullptr;
    int (*by_pci)(const char*, Device*) = nullptr;
    int (*clock)(Device, int, unsigned*) = nullptr;
    void* lib = nullptr;

    Nvml() {
        lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) return;
        init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
        driver_version = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(lib, "nvmlSystemGetDriverVersion"));
        by_pci = reinterpret_cast<int (*)(const char*, Device*)>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
        clock = reinterpret_cast<int (*)(Device, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
        if (!init || !driver_version || !by_pci || !clock || init() != 0) lib = nullptr;
    }
    explicit operator bool() const { return lib != nullptr; }
};

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
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, index));
    d.mem_clock_max_mhz = khz / 1000;
    d.mem_bus_bits = prop.memoryBusWidth;
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

    d.driver_version = "unknown";
    if (Nvml nvml; nvml) {
        char text[96] = {};
        if (nvml.driver_version(text, sizeof text) == 0) d.driver_version = text;
        char bus[32] = {};
        Nvml::Device handle = nullptr;
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, index) == cudaSuccess && nvml.by_pci(bus, &handle) == 0) {
            unsigned mhz = 0;
            constexpr int kSm = 1, kMem = 2;  // NVML_CLOCK_SM, NVML_CLOCK_MEM
            if (nvml.clock(handle, kSm, &mhz) == 0) d.sm_clock_now_mhz = static_cast<int>(mhz);
            if (nvml.clock(handle, kMem, &mhz) == 0) d.mem_clock_now_mhz = static_cast<int>(mhz);
        }
    }
    return d;
}

}  // namespace sgemm
