#include "check.h"

#include <string_view>

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

}  // namespace sgemm
