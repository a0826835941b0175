// The pass bound, tested on the CPU: an FP32 GEMM computed the way the kernels
// do (FMA, one running sum) passes; a result off by 1e-4 relative, computed
// from TF32-rounded operands, or with one wrong or NaN element, fails.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
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
}

TEST(Bound, Fp32ResultsPass) {
    struct Case { int M, N, K; float alpha, beta; };
    for (const Case& c : {Case{1, 1, 1, 1, 0}, Case{3, 5, 7, 0.5f, 3}, Case{17, 33, 65, -1.25f, 1},
                          Case{32, 32, 1000, 1, 0}, Case{8, 8, 4096, 1, 0}, Case{4, 4, 16384, 0.5f, 3}}) {
        const HostGemm g = make(c.M, c.N, c.K, c.alpha, c.beta, 1234u + c.K);
        const ErrorStats s = stats(g);
        EXPECT_TRUE(passes(s, c.K)) << c.M << "x" << c.N << "x" << c.K << " rel err " << relative_error(s)
                                    << " bound " << normwise_bound(c.K);
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
