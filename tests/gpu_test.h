// What every GPU test of the suite does first: skip, with the reason, on a machine without a usable
// CUDA device (the CPU tests of the same binary still run there).
#pragma once

#include <gtest/gtest.h>

#include "device_info.h"

namespace sgemm {

inline bool have_gpu() {
    static const bool present = usable_device_count() > 0;
    return present;
}

}  // namespace sgemm

// A macro: GTEST_SKIP must be called from the test body (or SetUp).
#define SKIP_WITHOUT_GPU()                                                                            \
    if (!::sgemm::have_gpu())                                                                         \
    GTEST_SKIP() << "no CUDA device on this machine: GPU test skipped (it runs on a machine with an " \
                    "NVIDIA GPU)"
