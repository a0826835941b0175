#include "check.h"

#include <map>
#include <mutex>
#include <string_view>
#include <tuple>

namespace sgemm {

namespace {
// The source file relative to the repository (runner/problem.cu), not the build machine's
// absolute path: SGEMM_SOURCE_DIR is the repository root the build was configured from.
std::string_view relative_source(std::string_view file) {
#ifdef SGEMM_SOURCE_DIR
    constexpr std::string_view root = SGEMM_SOURCE_DIR;
    if (file.substr(0, root.size()) == root) file.remove_prefix(root.size());
#endif
    return file;
}
}  // namespace

void throw_cuda_error(const std::string& what, std::source_location where) {
    throw CudaError(what + " (at " + std::string(relative_source(where.file_name())) + ":" +
                    std::to_string(where.line()) + ")");
}

void allow_dynamic_smem(const void* kernel, int bytes) {
    int device = 0;
    check(cudaGetDevice(&device));
    static std::mutex mutex;
    static std::map<std::tuple<const void*, int>, int> granted;  // (kernel, device) -> bytes allowed
    const std::lock_guard lock(mutex);
    auto it = granted.find({kernel, device});
    if (it != granted.end() && it->second == bytes) return;
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    granted[{kernel, device}] = bytes;
}

}  // namespace sgemm
