// sgemm-steps as a library: one call, C = alpha * op(A) * op(B) + beta * C, row-major, FP32
// accurate, backed by step 13 (kernels/13_one_call.cu), which picks for each shape and layout the
// fastest of the course's families on the GPU it runs on: exact int8 products (step 14, the Ozaki
// scheme II) or 3xTF32 on tensor cores (Hopper, sm_90a), or the FFMA kernels and their streaming
// kernels for memory-bound shapes.
//
//   find_package(sgemm_steps REQUIRED)               # CMake
//   target_link_libraries(app PRIVATE sgemm::sgemm)
//
//   sgemm::Status s = sgemm::gemm(sgemm::Op::kN, sgemm::Op::kT, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
//
// Storage, every matrix row-major (element (r, c) of a matrix X at X[r * ldx + c]):
//   op_a == kN: A is M x K, lda >= K        op_a == kT: A is K x M (op(A) = A^T), lda >= M
//   op_b == kN: B is K x N, ldb >= N        op_b == kT: B is N x K (op(B) = B^T), ldb >= K
//   C is M x N, ldc >= N. A linear layer y = x W^T with W stored out_features x in_features is
//   gemm(kN, kT, batch, out, in, 1, x, in, W, in, 0, y, out).
// Pointers are device pointers with 4-byte alignment; views into larger matrices are fine. With
// beta == 0, C is write-only (BLAS semantics: NaN or Inf already in C is ignored). Dimensions and
// leading dimensions are below 2^31.
//
// Accuracy: every element within the FP32 bound of a float64 reference, |C - C_ref| <= gamma_(K+2)
// * (|alpha| |op(A)| |op(B)| + |beta| |C|) componentwise, on every input (K of 1 included, inputs near
// the ends of FP32's range included); Inf and NaN propagate as in float64 arithmetic. Results are the
// same bits on every run of the same call on the same GPU (no order-dependent atomics).
//
// Errors are return codes, never exceptions; nothing is launched when a call returns an error
// other than kCudaError. Calls are thread-safe: step 10's plans are cached per device and shape behind
// a lock, and step 13's choice among the families is a few model evaluations per call.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace sgemm {

// op(X) = X (kN, "no transpose") or X^T (kT): the operand as stored, row-major either way.
enum class Op : unsigned char { kN, kT };

enum class Status {
    kSuccess = 0,
    kInvalidValue,    // a dimension < 1, a leading dimension too small, a null pointer, or a workspace too small
    kNotSupported,    // no GPU, a GPU this build has no code for (CMAKE_CUDA_ARCHITECTURES), or a call no
                      // kernel can index (status_string says which)
    kCudaError,       // a CUDA call or launch failed (status_string has CUDA's error name and text)
};
// "success", "invalid value: ...", ... : the status and, for the last failed call on this thread, why.
std::string status_string(Status status);

// Bytes of device workspace gemm() needs on the current device for a call with these layouts and
// dimensions, whatever its pointers, leading dimensions, alpha and beta (0: none; also 0 when the
// arguments are invalid or the device unsupported). A workspace of at least this size, 256-byte
// aligned, may be passed to gemm() and reused across calls on the same stream.
std::size_t gemm_workspace_bytes(Op op_a, Op op_b, int M, int N, int K);

// C = alpha * op(A) * op(B) + beta * C on `stream`, asynchronously (a kernel's own fault surfaces at
// the next synchronization as a CUDA error): the call only queues kernels (and, without a workspace,
// the stream-ordered allocations), never waits, and can be captured into a CUDA graph. Choices that
// depend on the data (the int8 family's scan, which hands inputs whose rows spread their exponents
// to dot products in double) are made on the device. `workspace` (256-byte aligned, at
// least gemm_workspace_bytes() bytes, `workspace_bytes` says how many) or nullptr: then the call
// takes what it needs from the stream-ordered allocator (cudaMallocAsync on `stream`) and frees it
// after the GEMM, in stream order.
Status gemm(Op op_a, Op op_b, int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
            float beta, float* C, int ldc, cudaStream_t stream = nullptr, void* workspace = nullptr,
            std::size_t workspace_bytes = 0);

// What gemm() runs for these arguments on the current device, and why: the family and configuration
// it picked and the model's time of each family it weighed, e.g. "3xTF32 tensor cores: ... (model
// 1.2 ms; FFMA 2.9 ms)". Empty when the arguments are invalid.
std::string gemm_describe(Op op_a, Op op_b, int M, int N, int K);

}  // namespace sgemm
