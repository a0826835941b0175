// How a result is judged against the float64 reference. Pure host code, so
// that the bound itself is unit-tested on a machine without a GPU.
#pragma once

#include <cstdint>
#include <span>

namespace sgemm {

// FP32 unit roundoff u = 2^-24.
inline constexpr double kFp32UnitRoundoff = 1.0 / 16777216.0;

// The pass bound on the normwise error ||C - R||_F / max(||R||_F, ||Rabs||_F / sqrt(K))
// of an FP32 GEMM with inner dimension K (the scale equals ||R||_F on any real
// problem; see passes()). Justified in verify.cpp.
double normwise_bound(int K);

// The bound a TF32-only computation (Precision::kTf32, a tuning-build experiment) is held to
// instead: normwise_bound scaled by 2^13, TF32 keeping 11 of FP32's 24 significand bits.
double tf32_normwise_bound(int K);

// The rigorous componentwise bound factor gamma_{K+2} = (K+2)u / (1 - (K+2)u):
// |C_ij - R_ij| <= gamma * (|alpha| (|A||B|)_ij + |beta| |C0_ij|) for ANY
// summation order (Higham, Accuracy and Stability of Numerical Algorithms, ch. 3).
double componentwise_gamma(int K);

// What a comparison of a result C against the reference R accumulates.
struct ErrorStats {
    double sum_sq_diff = 0;         // sum (C - R)^2 over finite elements
    double sum_sq_ref = 0;          // sum R^2
    double sum_sq_abs_ref = 0;      // sum Rabs^2, Rabs = |alpha||A||B| + |beta||C0|
    std::uint64_t nonfinite = 0;    // NaN or Inf elements of C (unwritten elements stay NaN)
    std::uint64_t violations = 0;   // elements outside the componentwise bound
};

// The reported error: ||C - R||_F / ||R||_F.
double relative_error(const ErrorStats& s);

// Pass iff every element is finite, inside the componentwise bound, and the
// normwise error (against a cancellation-safe scale) is within normwise_bound(K).
bool passes(const ErrorStats& s, int K);

// Host reference implementation of the accumulation (the GPU does the same in
// problem.cu for large problems); used by the CPU tests.
ErrorStats compare_host(std::span<const float> C, std::span<const double> R, std::span<const double> Rabs, int K);

}  // namespace sgemm
