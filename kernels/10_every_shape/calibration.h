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
        "#   h200-calibration-tune.json (2026-11-25T01:43:13Z)\n"
        "scale.gemv_n1 1.537\n"
        "scale.outer 1.007\n"
        "scale.skinny16 1.150\n"
        "scale.skinny16g 1.051\n"
        "scale.skinny16gs 1.287\n"
        "scale.skinny16s 1.340\n"
        "scale.skinny4 1.198\n"
        "scale.skinny4s 1.498\n"
        "scale.skinny8 1.222\n"
        "scale.tile0 1.131\n"
        "scale.tile1 1.117\n"
        "scale.tile2 1.172\n"
        "scale.tile3 1.190\n"
        "scale.tile4 1.230\n"
        "scale.tile5 1.220\n"
        "scale.tile6 1.299\n"
        "scale.tile7 1.487\n"},
    {"NVIDIA H100 80GB HBM3",
        "# step 10 calibration for NVIDIA H100 80GB HBM3, from sgemm_runner --kernel 10 --tune:\n"
        "#   h100-step10-calibration-tune.json (2026-11-24T07:10:39Z)\n"
        "#   h100-calibration-tune.json (2026-11-25T01:40:28Z)\n"
        "scale.gemv_n1 1.432\n"
        "scale.outer 0.912\n"
        "scale.skinny16 1.154\n"
        "scale.skinny16g 1.107\n"
        "scale.skinny16gs 1.246\n"
        "scale.skinny16s 1.396\n"
        "scale.skinny4 1.136\n"
        "scale.skinny4s 1.331\n"
        "scale.skinny8 1.167\n"
        "scale.skinny8s 1.748\n"
        "scale.tile0 1.102\n"
        "scale.tile1 1.089\n"
        "scale.tile2 1.147\n"
        "scale.tile3 1.154\n"
        "scale.tile4 1.195\n"
        "scale.tile5 1.211\n"
        "scale.tile6 1.249\n"
        "scale.tile7 1.183\n"},
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
