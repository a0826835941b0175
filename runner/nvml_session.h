// NVML, the driver's management library, for the runner's clock reads (device_info.h) and energy
// measurements (energy.h). It is part of the driver, not the toolkit: loaded at run time (dlopen of
// libnvidia-ml.so.1) and never linked, so that the runner starts (for --help and --list, or to say
// "no CUDA device") on a machine without a driver. Every read is optional: a function the driver's
// NVML lacks, or one the GPU does not support, reads as empty.
#pragma once

#include <optional>
#include <string>

struct nvmlDevice_st;  // nvml.h's device handle type (nvmlDevice_t), at global scope like nvml.h's

namespace sgemm {

using NvmlDevice = nvmlDevice_st*;
enum class NvmlClock { kSm, kMem };

// An initialised NVML (nvmlInit_v2 on open, nvmlShutdown when destroyed; NVML counts these, so
// sessions nest). Move-only.
class NvmlSession {
  public:
    // Loads the library (once per process) and initialises NVML; empty where either fails, with the
    // reason in `why_not` ("libnvidia-ml.so.1 not found", "nvmlInit_v2 failed: ...").
    static std::optional<NvmlSession> open(std::string* why_not = nullptr);
    // The session the process keeps for its clock and driver reads, opened on first use; null without NVML.
    static const NvmlSession* shared();

    NvmlSession(NvmlSession&& other) noexcept : open_(other.open_) { other.open_ = false; }
    NvmlSession& operator=(NvmlSession&&) = delete;
    NvmlSession(const NvmlSession&) = delete;
    NvmlSession& operator=(const NvmlSession&) = delete;
    ~NvmlSession();

    // The NVML device of CUDA device `cuda_device`, found by its PCI bus id so that CUDA_VISIBLE_DEVICES
    // (which renumbers CUDA's devices, not NVML's) cannot pair it with another GPU.
    std::optional<NvmlDevice> device(int cuda_device, std::string* why_not = nullptr) const;
    std::optional<std::string> driver_version() const;
    std::optional<unsigned> clock_mhz(NvmlDevice device, NvmlClock clock) const;
    // nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver was loaded. On failure `why_not`
    // says why (the function missing, or NVML's error, e.g. "Not Supported").
    std::optional<unsigned long long> total_energy_mj(NvmlDevice device, std::string* why_not = nullptr) const;
    std::optional<unsigned> power_mw(NvmlDevice device) const;  // nvmlDeviceGetPowerUsage, milliwatts

  private:
    NvmlSession() = default;
    bool open_ = false;  // false once moved from: nothing to shut down
};

}  // namespace sgemm
