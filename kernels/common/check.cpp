#include "check.h"

namespace sgemm {

void throw_cuda_error(const std::string& what, std::source_location where) {
    throw CudaError(what + " (at " + where.file_name() + ":" + std::to_string(where.line()) + ")");
}

}  // namespace sgemm
