#pragma once

#include <optional>
#include <stdexcept>

#include "report.h"

namespace sgemm {

// No usable CUDA device (none present, no driver, or the index is out of range).
struct NoDeviceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Selects device `index` and describes it. Throws NoDeviceError.
DeviceInfo query_device(int index);

// How many CUDA devices are usable; 0 (never an exception) without a GPU or driver.
int usable_device_count();

// Compute capability x 10 of device `index` (e.g. 90).
int compute_capability(int index);

// The SM and memory clocks of device `index` now (NVML; empty where NVML is not available).
struct Clocks {
    std::optional<int> sm_mhz, mem_mhz;
};
Clocks current_clocks(int index);

}  // namespace sgemm
