#include "verify.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sgemm {

// [doc:normwise-bound]
// Why 8 u (sqrt(K) + 2)?
// Each C element is a K-term FP32 dot product. With independent zero-mean
// inputs (uniform in [-1, 1], the default) the partial sums form a random
// walk, and the rounding error of step j is at most u times a partial sum of
// size ~sqrt(j): the errors add up to ~u K sigma / sqrt(6) against a result of
// ~sigma sqrt(K), a relative error of ~0.41 u sqrt(K) for plain recursive
// summation, which is what every step here does: one FMA chain per output in
// k order (a kernel that splits K sums pieces and lands lower). Over M*N
// elements the normwise error concentrates at that value.
// The "+2" covers the rounding of alpha*acc and of the beta*C add, and the
// factor 8 leaves ~20x headroom over the expectation. The bound stays below
// 1e-4 up to K = 16384 (6.2e-5 there), so a result that is off by 1e-4
// relative, or computed in TF32 (operands rounded to 11 bits, ~3e-4), fails.
// The worst-case bound gamma_K ~ K u would be 1e-3 at K = 16384 and could not
// tell FP32 from TF32; it is used per element instead (componentwise_gamma).
// The other --init distributions keep the error at or below this size relative
// to the scale of normwise_error (docs/verification.md says why for each).
double normwise_bound(int K) { return 8.0 * kFp32UnitRoundoff * (std::sqrt(static_cast<double>(K)) + 2.0); }

double tf32_normwise_bound(int K) { return 8192.0 * normwise_bound(K); }

double componentwise_gamma(int K) {
    const double nu = (static_cast<double>(K) + 2.0) * kFp32UnitRoundoff;
    // From K + 2 = 2^24 on, (K + 2)u reaches 1 and the worst case bounds nothing: no limit per element
    // (the normwise bound still applies).
    return nu < 1.0 ? nu / (1.0 - nu) : std::numeric_limits<double>::infinity();
}

double relative_error(const ErrorStats& s) {
    if (s.nonfinite) return std::nan("");
    if (s.sum_sq_ref == 0) return s.sum_sq_diff == 0 ? 0.0 : std::sqrt(s.sum_sq_diff);
    return std::sqrt(s.sum_sq_diff / s.sum_sq_ref);
}

// [doc:passes]
double normwise_error(const ErrorStats& s, int K) {
    if (s.nonfinite) return std::nan("");
    // A tiny output can cancel to nearly zero (a 1x1 result of 17 products can
    // land near 0 by chance, and --init cancel makes outputs do so by design), where a
    // relative error means nothing. The scale is therefore max(||R||, ||Rabs|| / sqrt(K));
    // for uniform data ||R|| is the larger (~sqrt(K)/3 against ~sqrt(K)/4 per element
    // with beta = 0), so this changes nothing there.
    const double scale_sq = std::max(s.sum_sq_ref, s.sum_sq_abs_ref / std::max(K, 1));
    if (scale_sq == 0) return s.sum_sq_diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    return std::sqrt(s.sum_sq_diff / scale_sq);
}

bool passes(const ErrorStats& s, int K) {
    if (s.nonfinite || s.missed_nonfinite || s.violations || s.inexact) return false;
    return normwise_error(s, K) <= normwise_bound(K);
}
// [/doc:passes]

bool passes_tf32(const ErrorStats& s, int K) {
    if (s.nonfinite || s.missed_nonfinite) return false;
    return normwise_error(s, K) <= tf32_normwise_bound(K);
}

// [doc:exact-limit]
double exact_limit(Distribution d, float alpha, float beta) {
    auto zero_or_power_of_two = [](float x) {
        int e = 0;
        return x == 0 || std::abs(std::frexp(x, &e)) == 0.5f;
    };
    if (d != Distribution::kIntegers || !zero_or_power_of_two(alpha) || !zero_or_power_of_two(beta))
        return kNoExactness;
    const double inf = std::numeric_limits<double>::infinity();
    const double g = std::min(alpha == 0 ? inf : std::abs(double(alpha)), beta == 0 ? inf : std::abs(double(beta)));
    const double largest = std::numeric_limits<float>::max();
    return g == inf ? largest : std::min(16777216.0 * g, largest);  // both 0: R = 0 exactly
}

ErrorStats compare_host(std::span<const float> C, std::span<const double> R, std::span<const double> Rabs, int K,
                        double exact_limit) {
    ErrorStats s;
    const double gamma = componentwise_gamma(K);
    for (size_t i = 0; i < C.size(); ++i) accumulate(s, C[i], R[i], Rabs[i], gamma, exact_limit);
    return s;
}

Verdict verdict(const CheckResult& c, int K, Precision precision) {
    if (c.outside_writes != 0) return Verdict::kFail;
    if (passes(c.stats, K)) return Verdict::kPass;
    return precision == Precision::kTf32 && passes_tf32(c.stats, K) ? Verdict::kTf32 : Verdict::kFail;
}

const char* to_string(Verdict v) {
    static constexpr const char* kNames[] = {"PASS", "TF32", "FAIL"};  // in Verdict's order
    return kNames[static_cast<int>(v)];
}

}  // namespace sgemm
