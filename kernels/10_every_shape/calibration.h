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
        "#   tune-before.json (2026-11-25T06:42:27Z)\n"
        "latency_us.tile0 4\n"
        "latency_us.tile1 6\n"
        "latency_us.tile2 3\n"
        "latency_us.tile3 2\n"
        "latency_us.tile4 3\n"
        "latency_us.tile5 1.5\n"
        "latency_us.tile6 6\n"
        "latency_us.tile7 6\n"
        "scale.gemv_n1 1.580\n"
        "scale.outer 1.026\n"
        "scale.skinny16 1.135\n"
        "scale.skinny16g 1.088\n"
        "scale.skinny16gs 1.260\n"
        "scale.skinny16s 1.227\n"
        "scale.skinny4 1.186\n"
        "scale.skinny4s 1.048\n"
        "scale.skinny8 1.244\n"
        "scale.skinny8s 1.203\n"
        "scale.tall8 1.467\n"
        "scale.tile0 1.113\n"
        "scale.tile1 1.072\n"
        "scale.tile2 1.146\n"
        "scale.tile3 1.176\n"
        "scale.tile4 1.200\n"
        "scale.tile5 1.231\n"
        "scale.tile6 1.210\n"
        "scale.tile7 1.385\n"},
    {"NVIDIA H100 80GB HBM3",
        "# step 10 calibration for NVIDIA H100 80GB HBM3, from sgemm_runner --kernel 10 --tune:\n"
        "#   h100-step10-calibration-tune.json (2026-11-24T07:10:39Z)\n"
        "#   h100-calibration-tune.json (2026-11-25T01:40:28Z)\n"
        "#   h100-calibration-tune.json (2026-11-25T02:41:08Z)\n"
        "#   tune-before.json (2026-11-25T06:38:50Z)\n"
        "latency_us.tile0 4\n"
        "latency_us.tile1 6\n"
        "latency_us.tile2 3\n"
        "latency_us.tile3 2\n"
        "latency_us.tile4 3\n"
        "latency_us.tile5 1\n"
        "latency_us.tile6 6\n"
        "latency_us.tile7 12\n"
        "scale.gemv_n1 1.471\n"
        "scale.outer 0.982\n"
        "scale.skinny16 1.174\n"
        "scale.skinny16g 1.095\n"
        "scale.skinny16gs 1.279\n"
        "scale.skinny16s 1.246\n"
        "scale.skinny4 1.139\n"
        "scale.skinny4s 1.093\n"
        "scale.skinny8 1.158\n"
        "scale.skinny8s 1.112\n"
        "scale.tall8 1.213\n"
        "scale.tile0 1.097\n"
        "scale.tile1 1.059\n"
        "scale.tile2 1.135\n"
        "scale.tile3 1.154\n"
        "scale.tile4 1.180\n"
        "scale.tile5 1.234\n"
        "scale.tile6 1.158\n"
        "scale.tile7 1.267\n"},
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
