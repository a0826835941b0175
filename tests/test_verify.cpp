// The pass bound, tested on the CPU: an FP32 GEMM computed the way the kernels
// do (FMA, one running sum) passes; a result off by 1e-4 relative, computed
// from TF32-rounded operands, or with one wrong or NaN element, fails. And the
// input distributions of --init: each holds what docs/verification.md says, an
// FP32 GEMM on it passes, Inf/NaN must land where the reference has them, and
// integers must come out exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "verify.h"

using namespace sgemm;

namespace {

struct HostGemm {
    int M, N, K;
    std::vector<float> A, B, C0, C;
    std::vector<double> R, Rabs;
};

float round_to_tf32(float x) {  // 10 explicit mantissa bits, round to nearest even
    std::uint32_t bits;
    std::memcpy(&bits, &x, 4);
    bits = (bits + 0xFFFu + ((bits >> 13) & 1u)) & ~0x1FFFu;
    std::memcpy(&x, &bits, 4);
    return x;
}

// C the way the kernels compute it (one FMA chain per element, in k order), and R, Rabs in double.
void multiply(HostGemm& g, float alpha, float beta, bool tf32 = false) {
    const int M = g.M, N = g.N, K = g.K;
    g.C.resize(g.C0.size());
    g.R.resize(g.C0.size());
    g.Rabs.resize(g.C0.size());
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float acc = 0;
            double r = 0, ra = 0;
            for (int k = 0; k < K; ++k) {
                const float a = g.A[size_t(i) * K + k], b = g.B[size_t(k) * N + j];
                acc = tf32 ? std::fma(round_to_tf32(a), round_to_tf32(b), acc) : std::fma(a, b, acc);
                r += double(a) * b;
                ra += std::abs(double(a) * b);
            }
            const size_t idx = size_t(i) * N + j;
            g.C[idx] = beta == 0 ? alpha * acc : alpha * acc + beta * g.C0[idx];
            g.R[idx] = double(alpha) * r + double(beta) * g.C0[idx];
            g.Rabs[idx] = std::abs(double(alpha)) * ra + std::abs(double(beta)) * std::abs(double(g.C0[idx]));
        }
}

HostGemm make(int M, int N, int K, float alpha, float beta, unsigned seed, bool tf32 = false) {
    HostGemm g{M, N, K, {}, {}, {}, {}, {}, {}};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    g.A.resize(size_t(M) * K);
    g.B.resize(size_t(K) * N);
    g.C0.resize(size_t(M) * N);
    for (auto& x : g.A) x = u(rng);
    for (auto& x : g.B) x = u(rng);
    for (auto& x : g.C0) x = u(rng);
    multiply(g, alpha, beta, tf32);
    return g;
}

// Unpadded inputs of an --init distribution, exactly as the GPU fills them (element_value).
HostGemm make(Distribution d, int M, int N, int K, float alpha, float beta, std::uint64_t seed) {
    HostGemm g{M, N, K, {}, {}, {}, {}, {}, {}};
    for (const auto& [out, which, n, ld] :
         {std::tuple{&g.A, Operand::kA, size_t(M) * K, K}, std::tuple{&g.B, Operand::kB, size_t(K) * N, N},
          std::tuple{&g.C0, Operand::kC0, size_t(M) * N, N}}) {
        const FillSpec spec = fill_spec(d, which, M, N, K, ld, 0, seed);
        out->resize(n);
        for (size_t i = 0; i < n; ++i) (*out)[i] = element_value(spec, i);
    }
    multiply(g, alpha, beta);
    return g;
}

ErrorStats stats(const HostGemm& g) { return compare_host(g.C, g.R, g.Rabs, g.K); }

}  // namespace

TEST(Bound, GrowsWithKAndStaysBelow1eMinus4UpTo16384) {
    EXPECT_LT(normwise_bound(1), normwise_bound(17));
    EXPECT_LT(normwise_bound(17), normwise_bound(4096));
    EXPECT_LT(normwise_bound(16384), 1e-4);
    EXPECT_GT(normwise_bound(1), 10 * kFp32UnitRoundoff);
    const double nu = 1024 * kFp32UnitRoundoff;
    EXPECT_DOUBLE_EQ(componentwise_gamma(1022), nu / (1 - nu));
    // From K + 2 = 2^24 the worst-case bound is vacuous: no element may fail it (a negative gamma
    // would fail every one).
    EXPECT_TRUE(std::isinf(componentwise_gamma((1 << 24) - 2)));
    EXPECT_TRUE(std::isinf(componentwise_gamma(2147483647)));
    EXPECT_GT(componentwise_gamma((1 << 24) - 3), 0.0);
    const std::vector<float> C{1.5f};
    const std::vector<double> R{1.0}, Rabs{1.0};
    EXPECT_EQ(compare_host(C, R, Rabs, 2147483647).violations, 0u);
}

TEST(Bound, Fp32ResultsPass) {
    struct Case {
        int M, N, K;
        float alpha, beta;
    };
    for (const Case& c : {Case{1, 1, 1, 1, 0}, Case{3, 5, 7, 0.5f, 3}, Case{17, 33, 65, -1.25f, 1},
                          Case{32, 32, 1000, 1, 0}, Case{8, 8, 4096, 1, 0}, Case{4, 4, 16384, 0.5f, 3}}) {
        const HostGemm g = make(c.M, c.N, c.K, c.alpha, c.beta, 1234u + c.K);
        const ErrorStats s = stats(g);
        EXPECT_TRUE(passes(s, c.K)) << c.M << "x" << c.N << "x" << c.K << " rel err " << relative_error(s) << " bound "
                                    << normwise_bound(c.K);
        EXPECT_LT(relative_error(s), normwise_bound(c.K) / 4) << "the bound should leave headroom";
    }
}

TEST(Bound, TinyOutputsThatCancelStillPass) {
    // 1x1 results of 17 products land near zero now and then; a plain relative
    // error would then fail a correct result. 2000 draws cover that case.
    for (unsigned seed = 0; seed < 2000; ++seed) {
        const HostGemm g = make(1, 1, 17, 1, 0, seed);
        ASSERT_TRUE(passes(stats(g), 17)) << "seed " << seed << " R " << g.R[0] << " C " << g.C[0];
    }
}

TEST(Bound, PerturbedBy1eMinus4Fails) {
    for (int K : {1, 17, 1000, 4096, 16384}) {
        HostGemm g = make(K >= 4096 ? 4 : 32, 32, K, 1, 0, 77u + K);
        ASSERT_TRUE(passes(stats(g), K));
        for (size_t i = 0; i < g.C.size(); ++i) g.C[i] = static_cast<float>(g.R[i] * (1.0 + 1e-4));
        EXPECT_FALSE(passes(stats(g), K)) << "K=" << K << " rel err " << relative_error(stats(g));
    }
}

TEST(Bound, Tf32ResultsFail) {
    for (int K : {64, 1000, 4096}) {
        const HostGemm g = make(16, 16, K, 1, 0, 5u + K, /*tf32=*/true);
        EXPECT_FALSE(passes(stats(g), K)) << "K=" << K << " rel err " << relative_error(stats(g));
        EXPECT_TRUE(passes_tf32(stats(g), K)) << "but they are right to TF32's accuracy";
    }
}

TEST(Bound, OneWrongOrNanElementFails) {
    HostGemm g = make(64, 64, 256, 1, 0, 9);
    ASSERT_TRUE(passes(stats(g), 256));
    HostGemm wrong = g;
    wrong.C[1234] *= 1.001f;  // 0.1 % off in one element of 4096
    const ErrorStats s = stats(wrong);
    EXPECT_FALSE(passes(s, 256));
    EXPECT_EQ(s.violations, 1u);
    HostGemm unwritten = g;
    unwritten.C[4095] = std::nanf("");
    EXPECT_FALSE(passes(stats(unwritten), 256));
    EXPECT_EQ(stats(unwritten).nonfinite, 1u);
    EXPECT_TRUE(std::isnan(relative_error(stats(unwritten))));
    HostGemm inf = g;
    inf.C[0] = INFINITY;
    EXPECT_FALSE(passes(stats(inf), 256));
}

// ---- the verdict: the runner's check column and what the GPU tests accept ----

namespace {

CheckResult check_of(const HostGemm& g, std::uint64_t outside_writes = 0) {
    CheckResult c;
    c.stats = stats(g);
    c.outside_writes = outside_writes;
    return c;
}

const Precision kPrecisions[] = {Precision::kFp32, Precision::kFp32ViaTensorCores, Precision::kTf32};

}  // namespace

TEST(Verdict, Fp32ResultsPassWhateverThePrecision) {
    for (int K : {1, 1000, 16384}) {
        const HostGemm g = make(4, 8, K, 0.5f, 3, 21u + K);
        for (const Precision p : kPrecisions)
            EXPECT_STREQ(to_string(verdict(check_of(g), K, p)), "PASS") << "K=" << K << " " << to_string(p);
    }
}

TEST(Verdict, Tf32ResultsAreTf32OnlyForATf32Kernel) {
    for (int K : {64, 1000, 4096}) {
        const HostGemm g = make(16, 16, K, 1, 0, 5u + K, /*tf32=*/true);
        EXPECT_STREQ(to_string(verdict(check_of(g), K, Precision::kTf32)), "TF32") << "K=" << K;
        EXPECT_STREQ(to_string(verdict(check_of(g), K, Precision::kFp32)), "FAIL") << "K=" << K;
        EXPECT_STREQ(to_string(verdict(check_of(g), K, Precision::kFp32ViaTensorCores)), "FAIL") << "K=" << K;
    }
}

TEST(Verdict, AWriteOutsideTheViewFailsEvenARightResult) {
    const HostGemm fp32 = make(16, 16, 256, 1, 0, 3), tf32 = make(16, 16, 256, 1, 0, 3, /*tf32=*/true);
    for (const Precision p : kPrecisions) {
        EXPECT_STREQ(to_string(verdict(check_of(fp32, 1), 256, p)), "FAIL") << to_string(p);
        EXPECT_STREQ(to_string(verdict(check_of(tf32, 1), 256, p)), "FAIL") << to_string(p);
    }
}

TEST(Verdict, ATf32KernelFailsBeyondTf32sBoundOrWithNan) {
    const int K = 1000;
    HostGemm off = make(16, 16, K, 1, 0, 8, /*tf32=*/true);
    for (size_t i = 0; i < off.C.size(); ++i) off.C[i] = static_cast<float>(off.R[i] * 1.5);
    ASSERT_GT(normwise_error(stats(off), K), tf32_normwise_bound(K));
    EXPECT_STREQ(to_string(verdict(check_of(off), K, Precision::kTf32)), "FAIL");
    HostGemm nan = make(16, 16, K, 1, 0, 8, /*tf32=*/true);
    nan.C[17] = std::nanf("");
    EXPECT_STREQ(to_string(verdict(check_of(nan), K, Precision::kTf32)), "FAIL");
}

// ---- input distributions (--init) ----

namespace {

// A whole buffer as the runner lays it out: `offset` floats, rows x ld, a guard of 64.
struct Buffer {
    FillSpec spec;
    int rows, cols;
    std::vector<float> v;
    float at(int r, int c) const { return v[spec.offset + size_t(r) * spec.ld + c]; }
};

Buffer buffer(Distribution d, Operand which, int M, int N, int K, int pad, int offset, std::uint64_t seed) {
    const int rows = which == Operand::kB ? K : M, cols = which == Operand::kA ? K : N;
    Buffer b{fill_spec(d, which, M, N, K, cols + pad, offset, seed), rows, cols, {}};
    b.v.resize(offset + size_t(rows) * (cols + pad) + 64);
    for (size_t i = 0; i < b.v.size(); ++i) b.v[i] = element_value(b.spec, i);
    return b;
}

int exponent(float x) {  // x = m 2^e with m in [1, 2)
    int e = 0;
    std::frexp(x, &e);
    return e - 1;
}

bool on_grid(double x, int step_exponent) {  // x a multiple of 2^step_exponent
    const double scaled = std::ldexp(x, -step_exponent);
    return scaled == std::floor(scaled);
}

}  // namespace

// The default inputs are the runner's inputs from before --init existed, bit for bit
// (seed 20261121, 4096^3: elements 0, 1, 12345 and 2^24 - 1 of A, B and C0).
TEST(Distributions, UniformIsUnchanged) {
    const std::uint32_t want[3][4] = {{0xbd6fb880, 0x3f067954, 0x3f339c8e, 0xbe7af960},
                                      {0x3e9f7e74, 0x3e84e148, 0x3dc968a0, 0x3f426eb2},
                                      {0x3f05174c, 0xbd6a3180, 0x3ea82a1c, 0x3e6be610}};
    const std::size_t index[4] = {0, 1, 12345, 16777215};
    for (int which = 0; which < 3; ++which)
        for (int n = 0; n < 4; ++n) {
            const FillSpec spec =
                fill_spec(Distribution::kUniform, Operand(which), 4096, 4096, 4096, 4096, 0, 20261121);
            const float v = element_value(spec, index[n]);
            std::uint32_t bits;
            std::memcpy(&bits, &v, sizeof bits);
            EXPECT_EQ(bits, want[which][n]) << "matrix " << which << " element " << index[n];
        }
}

TEST(Distributions, NamesRoundTrip) {
    for (const DistributionInfo& d : kDistributions) {
        EXPECT_EQ(find_distribution(d.name), d.id);
        EXPECT_EQ(to_string(d.id), d.name);
    }
    EXPECT_EQ(kDistributions.size(), 9u);
    EXPECT_FALSE(find_distribution("bogus"));
    EXPECT_NE(distribution_names().find("integers"), std::string::npos);
}

TEST(Distributions, DerivedConstants) {
    EXPECT_EQ(integer_range(1), 2048);
    EXPECT_EQ(integer_range(2), 1448);
    EXPECT_EQ(integer_range(3), 1182);
    EXPECT_EQ(integer_range(16384), 16);
    EXPECT_EQ(integer_range(1 << 22), 1);
    EXPECT_EQ(integer_range(1 << 30), 1);
    for (int K : {1, 2, 3, 7, 33, 997, 4096, 16384, 1 << 20}) {
        const long long q = integer_range(K);
        EXPECT_LE(K * q * q, 1LL << 22) << K;  // every partial sum below 2^22 (+ C0 below 2^23)
        EXPECT_GT(K * (q + 1) * (q + 1), 1LL << 22) << K;
    }
    EXPECT_EQ(huge_b_exponent(1), -10);
    EXPECT_EQ(huge_b_exponent(2), -11);
    EXPECT_EQ(huge_b_exponent(3), -12);
    EXPECT_EQ(huge_b_exponent(1024), -20);
    EXPECT_EQ(huge_b_exponent(1025), -21);
    // K |A||B| < K 2^128 2^(e+1) <= 2^120: finite with room for alpha, beta and C0 (< 2^119).
    for (int K : {1, 3, 1000, 16384, 1 << 30}) EXPECT_LE(std::log2(double(K)) + 128 + huge_b_exponent(K) + 1, 120) << K;
}

// Every element, padding, offset and guard included, is what verification.md defines.
TEST(Distributions, ValuesFollowTheirDefinitions) {
    const int M = 130, N = 70, K = 9, pad = 3, offset = 2;
    const std::uint64_t seed = 4242;
    for (const DistributionInfo& d : kDistributions)
        for (const Operand which : {Operand::kA, Operand::kB, Operand::kC0}) {
            SCOPED_TRACE(testing::Message() << d.name << " operand " << int(which));
            const Buffer b = buffer(d.id, which, M, N, K, pad, offset, seed);
            for (const float v : b.v) {
                if (d.id != Distribution::kSpecial) ASSERT_TRUE(std::isfinite(v)) << v;
                switch (d.id) {
                    case Distribution::kUniform: ASSERT_TRUE(v >= -1 && v < 1 && on_grid(v, -23)) << v; break;
                    case Distribution::kPositive: ASSERT_TRUE(v >= 0 && v <= 1 && on_grid(v, -23)) << v; break;
                    case Distribution::kWide:
                        ASSERT_TRUE(v != 0 && exponent(v) >= -48 && exponent(v) <= 48) << v;
                        break;
                    case Distribution::kTiny:
                        ASSERT_EQ(exponent(v), which == Operand::kA ? -118 : which == Operand::kB ? -6 : -122) << v;
                        break;
                    case Distribution::kHuge:
                        ASSERT_EQ(exponent(v),
                                  which == Operand::kA       ? 127
                                      : which == Operand::kB ? huge_b_exponent(K)
                                                             : 118);
                        break;
                    case Distribution::kIntegers: {
                        const long long q = integer_range(K), range = which == Operand::kC0 ? q * q : q;
                        ASSERT_TRUE(v == std::floor(v) && std::abs(v) <= range) << v;
                        break;
                    }
                    case Distribution::kCancel:
                        if (which == Operand::kC0) ASSERT_LE(std::abs(v), 1.0f / 4096) << v;
                        ASSERT_LE(std::abs(v), 1.0f + 1.0f / 4096) << v;
                        break;
                    default: break;
                }
            }
            if (d.id == Distribution::kScaled)  // uniform * 2^r_i (A), 2^c_j (B), 2^(r_i + c_j) (C0)
                for (int r = 0; r < b.rows; ++r)
                    for (int c = 0; c < b.cols; ++c) {
                        const int er = detail::scale_exponent(b.spec.row_seed, r);
                        const int ec = detail::scale_exponent(b.spec.col_seed, c);
                        const int e = which == Operand::kA ? er : which == Operand::kB ? ec : er + ec;
                        ASSERT_TRUE(er >= -30 && er <= 30 && ec >= -30 && ec <= 30);
                        const float v = b.at(r, c);
                        ASSERT_TRUE(std::abs(v) <= std::ldexp(1.0, e) && on_grid(v, e - 23)) << v << " 2^" << e;
                    }
        }
    // scaled: C0's row and column exponents are A's and B's.
    const Buffer a = buffer(Distribution::kScaled, Operand::kA, M, N, K, 0, 0, seed);
    const Buffer c0 = buffer(Distribution::kScaled, Operand::kC0, M, N, K, 0, 0, seed);
    EXPECT_EQ(a.spec.row_seed, c0.spec.row_seed);
    EXPECT_EQ(a.spec.col_seed, c0.spec.col_seed);
}

TEST(Distributions, CancelPairs) {
    for (const int K : {1, 2, 7, 8}) {
        const int M = 5, N = 6;
        const Buffer a = buffer(Distribution::kCancel, Operand::kA, M, N, K, 3, 1, 99);
        const Buffer b = buffer(Distribution::kCancel, Operand::kB, M, N, K, 3, 1, 99);
        for (int k = 0; k + 1 < K; k += 2) {
            for (int i = 0; i < M; ++i) ASSERT_EQ(a.at(i, k + 1), a.at(i, k));
            for (int j = 0; j < N; ++j) {
                const double delta = double(b.at(k + 1, j)) + b.at(k, j);  // -B(k, j) + delta, rounded
                ASSERT_LE(std::abs(delta), 1.0 / 4096 + 0x1p-24) << K << " " << k << " " << j;
            }
        }
    }
}

// special: ceil(M/64) entries of A and ceil(N/64) of B are +-Inf or NaN, one per row of A (column
// of B), inside the views only; R is then non-finite in exactly those rows and columns.
TEST(Distributions, SpecialPattern) {
    const int M = 130, N = 70, K = 9;
    const std::uint64_t seed = 7;
    const Buffer a = buffer(Distribution::kSpecial, Operand::kA, M, N, K, 3, 1, seed);
    const Buffer b = buffer(Distribution::kSpecial, Operand::kB, M, N, K, 3, 1, seed);
    const Buffer c0 = buffer(Distribution::kSpecial, Operand::kC0, M, N, K, 3, 1, seed);
    auto nonfinite = [](const std::vector<float>& v) {
        return std::count_if(v.begin(), v.end(), [](float x) { return !std::isfinite(x); });
    };
    EXPECT_EQ(nonfinite(a.v), 3);  // ceil(130 / 64)
    EXPECT_EQ(nonfinite(b.v), 2);  // ceil(70 / 64)
    EXPECT_EQ(nonfinite(c0.v), 0);
    std::vector<int> rows, cols;
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k)
            if (!std::isfinite(a.at(i, k))) rows.push_back(i);
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j)
            if (!std::isfinite(b.at(k, j))) cols.push_back(j);
    ASSERT_EQ(rows.size(), 3u) << "all inside the view, one per row";
    ASSERT_EQ(cols.size(), 2u);
    EXPECT_TRUE(rows[0] < 64 && rows[1] >= 64 && rows[1] < 128 && rows[2] >= 128);
    EXPECT_TRUE(cols[0] < 64 && cols[1] >= 64);

    const HostGemm g = make(Distribution::kSpecial, M, N, K, 1, 0, seed);
    std::size_t nonfinite_r = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            const bool special = std::count(rows.begin(), rows.end(), i) || std::count(cols.begin(), cols.end(), j);
            EXPECT_EQ(std::isfinite(g.R[size_t(i) * N + j]), !special) << i << " " << j;
            nonfinite_r += !std::isfinite(g.R[size_t(i) * N + j]);
        }
    EXPECT_EQ(nonfinite_r, size_t(M) * N - size_t(M - 3) * (N - 2));
}

// With Inf/NaN inputs, C must be non-finite exactly where R is: both ways count; the norms and
// the relative error cover the finite part only.
TEST(Distributions, SpecialCheck) {
    const int M = 130, N = 70, K = 9;
    for (const auto [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{-1.25f, 0.75f}}) {
        const HostGemm g = make(Distribution::kSpecial, M, N, K, alpha, beta, 11);
        const ErrorStats s = stats(g);
        EXPECT_TRUE(passes(s, K));
        EXPECT_EQ(s.nonfinite, 0u);
        EXPECT_EQ(s.missed_nonfinite, 0u);
        EXPECT_TRUE(std::isfinite(relative_error(s)));
        EXPECT_LT(relative_error(s), normwise_bound(K));
        size_t special = 0, finite = 0;
        while (std::isfinite(g.R[special])) ++special;
        while (!std::isfinite(g.R[finite])) ++finite;
        HostGemm lost = g;
        lost.C[special] = 0;  // a kernel that drops the Inf/NaN of an input
        EXPECT_FALSE(passes(stats(lost), K));
        EXPECT_EQ(stats(lost).missed_nonfinite, 1u);
        EXPECT_EQ(stats(lost).nonfinite, 0u);
        HostGemm added = g;
        added.C[finite] = INFINITY;
        EXPECT_FALSE(passes(stats(added), K));
        EXPECT_EQ(stats(added).nonfinite, 1u);
        EXPECT_EQ(stats(added).missed_nonfinite, 0u);
        // Non-finite R is left out of the norms: the same sums as over the finite elements alone.
        std::vector<float> c;
        std::vector<double> r, ra;
        for (size_t i = 0; i < g.C.size(); ++i)
            if (std::isfinite(g.R[i])) c.push_back(g.C[i]), r.push_back(g.R[i]), ra.push_back(g.Rabs[i]);
        const ErrorStats finite_only = compare_host(c, r, ra, K);
        EXPECT_EQ(finite_only.sum_sq_ref, s.sum_sq_ref);
        EXPECT_EQ(finite_only.sum_sq_abs_ref, s.sum_sq_abs_ref);
        EXPECT_EQ(finite_only.sum_sq_diff, s.sum_sq_diff);
    }
}

TEST(Distributions, ExactLimit) {
    EXPECT_EQ(exact_limit(Distribution::kUniform, 1, 0), kNoExactness);
    EXPECT_EQ(exact_limit(Distribution::kIntegers, 1.25f, 0), kNoExactness);
    EXPECT_EQ(exact_limit(Distribution::kIntegers, 1, 3), kNoExactness);
    EXPECT_EQ(exact_limit(Distribution::kIntegers, 1, 0), 0x1p24);
    EXPECT_EQ(exact_limit(Distribution::kIntegers, 2, 0.5f), 0x1p23);
    EXPECT_EQ(exact_limit(Distribution::kIntegers, -0.25f, -4), 0x1p22);
    EXPECT_EQ(exact_limit(Distribution::kIntegers, 0, 8), 0x1p27);
    EXPECT_EQ(exact_limit(Distribution::kIntegers, 0x1p120f, 0), double(std::numeric_limits<float>::max()));
    EXPECT_EQ(exact_limit(Distribution::kIntegers, 0, 0), double(std::numeric_limits<float>::max()));
    EXPECT_EQ(exact_limit(Distribution::kIntegers, 0x1p-140f, 0), 0x1p-116);  // a subnormal power of two
}

// integers with power-of-two scalars: the FP32 result is R exactly, and one ulp off, far inside the
// componentwise bound, fails; with other scalars the usual bounds apply.
TEST(Distributions, IntegersAreExact) {
    for (const int K : {1, 2, 3, 33, 1000})
        for (const auto [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{2.0f, 0.5f}, std::pair{-0.5f, 0.25f}}) {
            SCOPED_TRACE(testing::Message() << "K " << K << " alpha " << alpha << " beta " << beta);
            const HostGemm g = make(Distribution::kIntegers, 24, 20, K, alpha, beta, 5 + K);
            const double limit = exact_limit(Distribution::kIntegers, alpha, beta);
            const ErrorStats s = compare_host(g.C, g.R, g.Rabs, K, limit);
            EXPECT_EQ(s.inexact, 0u);
            EXPECT_TRUE(passes(s, K));
            size_t checked = 0;
            for (size_t i = 0; i < g.C.size(); ++i) checked += g.Rabs[i] <= limit;
            EXPECT_GT(checked, g.C.size() / 2) << "most elements are held to exactness";
            size_t at = 0;
            while (g.Rabs[at] > limit || std::abs(g.C[at]) < 8) ++at;
            HostGemm off = g;
            off.C[at] = std::nextafter(off.C[at], INFINITY);
            const ErrorStats t = compare_host(off.C, off.R, off.Rabs, K, limit);
            EXPECT_EQ(t.violations, 0u);
            EXPECT_EQ(t.inexact, 1u);
            EXPECT_FALSE(passes(t, K));
            EXPECT_TRUE(passes(compare_host(off.C, off.R, off.Rabs, K), K)) << "without exactness it passes";
        }
}

// An FP32 GEMM (one FMA chain per element) on every distribution passes: finite where R is,
// within both bounds, exact where exactness is required.
TEST(Distributions, Fp32ResultsPass) {
    struct Case {
        int M, N, K;
    };
    for (const DistributionInfo& d : kDistributions)
        for (const Case& c :
             {Case{3, 5, 1}, Case{7, 9, 2}, Case{5, 3, 3}, Case{16, 16, 33}, Case{4, 4, 1000}, Case{2, 3, 16384}})
            for (const auto [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{2.0f, 0.5f}, std::pair{-1.25f, 0.75f}}) {
                SCOPED_TRACE(testing::Message() << d.name << " " << c.M << "x" << c.N << "x" << c.K << " alpha "
                                                << alpha << " beta " << beta);
                const HostGemm g = make(d.id, c.M, c.N, c.K, alpha, beta, 31 * c.K + 7);
                const ErrorStats s = compare_host(g.C, g.R, g.Rabs, c.K, exact_limit(d.id, alpha, beta));
                EXPECT_TRUE(passes(s, c.K))
                    << "normwise error " << normwise_error(s, c.K) << " bound " << normwise_bound(c.K) << ", "
                    << s.nonfinite << " NaN/Inf, " << s.missed_nonfinite << " missed, " << s.violations
                    << " outside the componentwise bound, " << s.inexact << " inexact";
                if (d.id != Distribution::kSpecial)
                    for (const float x : g.C) ASSERT_TRUE(std::isfinite(x));
            }
}
