#pragma once

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

}  // namespace sgemm
