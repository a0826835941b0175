// Steps whose GEMM another translation unit calls: step 13 (and the library built on it, see
// include/sgemm/sgemm.h) composes steps 10, 12 and 14 through these, by direct calls rather than through
// the registry, so that a program linking the static library pulls in exactly the objects it uses.
// Each is defined in its step's file, beside its registration, and does what that registration does.
#pragma once

#include "registry.h"

namespace sgemm {

struct StepEntry {
    LaunchFn launch;
    WorkspaceFn workspace_bytes;
    DescribeFn describe;
    CanImplementFn can_implement;  // the registration's own (the registry adds "NN only" for NN-only steps)
    // The step's model of its own time on `args` on the current device, in seconds: what step 13's
    // planner weighs. The arguments must be valid and can_implement must accept them.
    double (*model_seconds)(const GemmArgs& args);
};

const StepEntry& every_shape_entry();   // step 10: FFMA tiles, split-K and streaming kernels, NN only
const StepEntry& tf32x3_wgmma_entry();  // step 12: 3xTF32 on wgmma, every layout; needs sm_90a (CC 9.0)
const StepEntry& ozaki_int8_entry();    // step 14: Ozaki scheme II on int8 wgmma, every layout; needs sm_90a

}  // namespace sgemm
