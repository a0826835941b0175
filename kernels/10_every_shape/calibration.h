// Step 10's calibrations, one per GPU measured: the text of a calibration (planner.h,
// parse_calibration) by device name. Written by scripts/calibrate_planner from sgemm_runner
// --kernel 10 --tune runs on that GPU (the runs are named in each entry); edit the runs, not this.
#pragma once

#include <cstring>

namespace step10 {

struct DeviceCalibration {
    const char* device;  // cudaDeviceProp::name
    const char* text;    // parse_calibration's input
};

// clang-format off: scripts/calibrate_planner writes this table
// [doc:calibrations]
// BEGIN CALIBRATIONS (scripts/calibrate_planner)
inline constexpr DeviceCalibration kCalibrations[] = {
    {"NVIDIA H200",
        "# step 10 calibration for NVIDIA H200, from sgemm_runner --kernel 10 --tune:\n"
        "#   h200-step10-calibration-tune.json (2026-11-24T07:06:46Z)\n"
        "scale.gemv_n1 1.500\n"
        "scale.outer 1.010\n"
        "scale.skinny16 1.082\n"
        "scale.skinny16g 1.000\n"
        "scale.skinny16gs 1.305\n"
        "scale.skinny16s 1.383\n"
        "scale.skinny4 1.227\n"
        "scale.skinny4s 1.461\n"
        "scale.skinny8 1.174\n"
        "scale.tile0 1.127\n"
        "scale.tile1 1.121\n"
        "scale.tile2 1.172\n"
        "scale.tile3 1.185\n"
        "scale.tile4 1.229\n"
        "scale.tile5 1.214\n"},
    {"NVIDIA H100 80GB HBM3",
        "# step 10 calibration for NVIDIA H100 80GB HBM3, from sgemm_runner --kernel 10 --tune:\n"
        "#   h100-step10-calibration-tune.json (2026-11-24T07:10:39Z)\n"
        "scale.gemv_n1 1.400\n"
        "scale.outer 0.910\n"
        "scale.skinny16 1.145\n"
        "scale.skinny16g 1.051\n"
        "scale.skinny16gs 1.213\n"
        "scale.skinny16s 1.501\n"
        "scale.skinny4 1.167\n"
        "scale.skinny4s 1.200\n"
        "scale.skinny8 1.126\n"
        "scale.skinny8s 1.748\n"
        "scale.tile0 1.100\n"
        "scale.tile1 1.092\n"
        "scale.tile2 1.150\n"
        "scale.tile3 1.160\n"
        "scale.tile4 1.197\n"
        "scale.tile5 1.207\n"},
};
// END CALIBRATIONS
// clang-format on

// The calibration of the GPU named `device`; the first entry's (an H200) for a GPU not measured.
inline const char* calibration_for(const char* device) {
    for (const DeviceCalibration& c : kCalibrations)
        if (std::strcmp(c.device, device) == 0) return c.text;
    return kCalibrations[0].text;
}

}  // namespace step10
