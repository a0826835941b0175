// How a result is judged against the float64 reference. Pure host code, so
// that the bound itself is unit-tested on a machine without a GPU.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>

#include "common/registry.h"
#include "distribution.h"

namespace sgemm {

// FP32 unit roundoff u = 2^-24.
inline constexpr double kFp32UnitRoundoff = 1.0 / 16777216.0;

// The pass bound on the normwise error ||C - R||_F / max(||R||_F, ||Rabs||_F / sqrt(K))
// of an FP32 GEMM with inner dimension K (the scale equals ||R||_F unless R cancels, as
// with --init cancel; see passes()). Justified in verify.cpp.
double normwise_bound(int K);

// The bound a TF32-only computation (Precision::kTf32, a tuning-build experiment) is held to
// instead: normwise_bound scaled by 2^13, TF32 keeping 11 of FP32's 24 significand bits.
double tf32_normwise_bound(int K);

// The rigorous componentwise bound factor gamma_{K+2} = (K+2)u / (1 - (K+2)u):
// |C_ij - R_ij| <= gamma * (|alpha| (|op(A)||op(B)|)_ij + |beta| |C0_ij|) for ANY
// summation order (Higham, Accuracy and Stability of Numerical Algorithms, ch. 3).
double componentwise_gamma(int K);

// What a comparison of a result C against the reference R accumulates. Elements where R is NaN
// or Inf (an Inf or NaN input reached them: --init special) only count in missed_nonfinite when
// C is finite there; they are left out of everything else.
struct ErrorStats {
    double sum_sq_diff = 0;         // sum (C - R)^2 over elements where both are finite
    double sum_sq_ref = 0;          // sum R^2 over finite R
    double sum_sq_abs_ref = 0;      // sum Rabs^2 over finite R, Rabs = |alpha||op(A)||op(B)| + |beta||C0|
    std::uint64_t nonfinite = 0;    // NaN or Inf elements of C where R is finite (unwritten elements stay NaN)
    std::uint64_t violations = 0;   // elements outside the componentwise bound
    std::uint64_t missed_nonfinite = 0;  // finite elements of C where R is NaN or Inf
    std::uint64_t inexact = 0;      // elements that must equal R exactly (exact_limit) but do not
};

// [doc:accumulate]
// Adds element (C, R, Rabs) = (c, r, ra) to s, with the componentwise bound gamma * ra and exactness
// required where ra <= exact_limit (see exact_limit()). Returns true when both C and R are finite
// there (the element entered the error). Host and device: compare_host and the runner's GPU
// comparison (problem.cu) count every element the same way.
SGEMM_HOST_DEVICE inline bool accumulate(ErrorStats& s, float c, double r, double ra, double gamma,
                                         double exact_limit) {
    if (!std::isfinite(r)) {  // an Inf or NaN input reached this element: C must not be finite
        s.missed_nonfinite += std::isfinite(c);
        return false;
    }
    s.sum_sq_ref += r * r;
    s.sum_sq_abs_ref += ra * ra;
    if (!std::isfinite(c)) {
        ++s.nonfinite;
        return false;
    }
    const double d = static_cast<double>(c) - r;
    s.sum_sq_diff += d * d;
    if (std::fabs(d) > gamma * ra) ++s.violations;
    if (ra <= exact_limit && d != 0) ++s.inexact;
    return true;
}

// The reported error: ||C - R||_F / ||R||_F (over the finite part of R; NaN if C is non-finite
// where R is finite).
double relative_error(const ErrorStats& s);

// The normwise error the pass criteria bound: ||C - R||_F / max(||R||_F, ||Rabs||_F / sqrt(K)).
// Equals relative_error() unless R cancels (see passes()).
double normwise_error(const ErrorStats& s, int K);

// Pass iff C is non-finite exactly where R is, every other element is inside the componentwise
// bound (and exact where exactness is required), and normwise_error is within normwise_bound(K).
bool passes(const ErrorStats& s, int K);

// The rule for a TF32-only computation (Precision::kTf32): non-finite exactly where R is, and
// normwise_error within tf32_normwise_bound(K). Neither the componentwise nor the exactness check.
bool passes_tf32(const ErrorStats& s, int K);

// exact_limit() when no element has to be exact.
inline constexpr double kNoExactness = -1.0;

// With `integers` inputs (every product and partial sum an integer below 2^24) and alpha and beta
// each 0 or a power of two (of either sign), every value an FP32 kernel forms for element (i, j),
// whatever its order, is a multiple of g = min(|alpha|, |beta|) (of the nonzero ones) of magnitude
// at most Rabs_ij; up to 2^24 g (and FLT_MAX) all such values are exact in FP32, so C_ij must
// equal R_ij exactly wherever Rabs_ij <= exact_limit. kNoExactness otherwise.
double exact_limit(Distribution d, float alpha, float beta);

// Host reference implementation of the accumulation (the GPU does the same in
// problem.cu for large problems); used by the CPU tests.
ErrorStats compare_host(std::span<const float> C, std::span<const double> R, std::span<const double> Rabs, int K,
                        double exact_limit = kNoExactness);

// The whole check of one run (Problem::verify).
struct CheckResult {
    ErrorStats stats;
    double rel_err = 0;            // ||C - R|| / ||R|| over finite R (NaN when C is NaN/Inf where R is finite)
    double max_abs_diff_base = 0;  // max |C - baseline| over finite R, when a baseline was kept (NaN if C is
                                   // non-finite there)
    std::uint64_t outside_writes = 0;  // elements of C's buffer outside the M x N view that changed
    bool pass = false;             // the FP32 rule: verdict(*this, K, any precision) is kPass
};

// How a checked run is reported (the runner's check column) and what the GPU tests accept.
// kPass: passes() and nothing written outside C's view. kTf32: a Precision::kTf32 kernel (a TF32-only
// experiment, which misses the FP32 bound by design) within passes_tf32() and nothing written outside.
// kFail: anything else.
enum class Verdict { kPass, kTf32, kFail };
Verdict verdict(const CheckResult& c, int K, Precision precision);
const char* to_string(Verdict v);  // "PASS", "TF32", "FAIL"

}  // namespace sgemm
