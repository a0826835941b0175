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
        "#   h200-calibration-tune.json (2026-11-25T02:45:01Z)\n"
        "scale.gemv_n1 1.565\n"
        "scale.outer 1.001\n"
        "scale.skinny16 1.129\n"
        "scale.skinny16g 1.071\n"
        "scale.skinny16gs 1.269\n"
        "scale.skinny16s 1.340\n"
        "scale.skinny4 1.186\n"
        "scale.skinny4s 1.519\n"
        "scale.skinny8 1.240\n"
        "scale.skinny8s 1.542\n"
        "scale.tall8 1.543\n"
        "scale.tile0 1.133\n"
        "scale.tile1 1.122\n"
        "scale.tile2 1.177\n"
        "scale.tile3 1.192\n"
        "scale.tile4 1.237\n"
        "scale.tile5 1.237\n"
        "scale.tile6 1.255\n"
        "scale.tile7 1.406\n"},
    {"NVIDIA H100 80GB HBM3",
        "# step 10 calibration for NVIDIA H100 80GB HBM3, from sgemm_runner --kernel 10 --tune:\n"
        "#   h100-step10-calibration-tune.json (2026-11-24T07:10:39Z)\n"
        "#   h100-calibration-tune.json (2026-11-25T01:40:28Z)\n"
        "#   h100-calibration-tune.json (2026-11-25T02:41:08Z)\n"
        "scale.gemv_n1 1.480\n"
        "scale.outer 0.931\n"
        "scale.skinny16 1.170\n"
        "scale.skinny16g 1.115\n"
        "scale.skinny16gs 1.264\n"
        "scale.skinny16s 1.426\n"
        "scale.skinny4 1.132\n"
        "scale.skinny4s 1.410\n"
        "scale.skinny8 1.152\n"
        "scale.skinny8s 1.748\n"
        "scale.tall8 1.308\n"
        "scale.tile0 1.108\n"
        "scale.tile1 1.096\n"
        "scale.tile2 1.158\n"
        "scale.tile3 1.166\n"
        "scale.tile4 1.203\n"
        "scale.tile5 1.235\n"
        "scale.tile6 1.213\n"
        "scale.tile7 1.308\n"},
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
