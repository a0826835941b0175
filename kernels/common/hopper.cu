// Host half of hopper.cuh: building TMA tensor maps. cuTensorMapEncodeTiled is a driver API
// function; it is looked up through the runtime (cudaGetDriverEntryPointByVersion), so the
// project links no libcuda and a machine without a driver still builds and lists the kernels.
#include "hopper.cuh"

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000

#include <source_location>
#include <string>

#include "check.h"

namespace sgemm {

namespace {

// [doc:encode-tiled]
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
    static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
        check(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess || p == nullptr)
            throw_cuda_error("the driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer needed)",
                             std::source_location::current());
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    }();
    return fn;
}

}  // namespace

// [doc:make-tensor-map]
CUtensorMap make_tensor_map_2d(const void* base, long long rows, long long cols, long long ld, TmaBox box_shape,
                               CUtensorMapSwizzle swizzle) {
    const int box_rows = box_shape.rows, box_cols = box_shape.cols;
    CUtensorMap map{};
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};  // innermost first
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * box_shape.element_bytes};  // bytes between rows
    const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUtensorMapDataType type =
        box_shape.element_bytes == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    const CUresult r = encode_tiled()(&map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                                      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        throw_cuda_error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(r)) + ") for a " +
                             std::to_string(rows) + " x " + std::to_string(cols) + " matrix, ld " + std::to_string(ld) +
                             ", box " + std::to_string(box_rows) + " x " + std::to_string(box_cols),
                         std::source_location::current());
    return map;
}

}  // namespace sgemm
