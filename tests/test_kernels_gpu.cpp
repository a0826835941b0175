// GPU tests: every registered kernel (picked up from the registry, so new steps
// are covered automatically) on odd and tile-multiple shapes, three (alpha,
// beta) pairs, beta = 0 with NaN in C. Skipped, with a message, without a GPU.
#include <gtest/gtest.h>

#include <cublas_v2.h>

#include <random>

#include "common/check.h"
#include "common/registry.h"
#include "device_info.h"
#include "problem.h"

using namespace sgemm;

namespace {

bool have_gpu() {
    static const bool present = usable_device_count() > 0;
    return present;
}

#define SKIP_WITHOUT_GPU()                                                                    \
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: GPU test skipped (it runs " \
                                     "on a machine with an NVIDIA GPU)"

// Fresh inputs on every run; the seed is printed with any failure to reproduce it.
std::uint64_t run_seed() {
    static const std::uint64_t seed = std::random_device{}() * 0x100000001ull + std::random_device{}();
    return seed;
}

const Size kShapes[] = {{1, 1, 1},         {1, 1, 17},       {3, 5, 7},        {17, 33, 65},
                        {127, 129, 131},   {128, 128, 128},  {255, 257, 129},  {1000, 1000, 1000},
                        {33, 4097, 17},    {4096, 64, 512},  {64, 4096, 512}};
const std::pair<float, float> kScalars[] = {{1.0f, 0.0f}, {0.5f, 3.0f}, {-1.25f, 1.0f}};

std::vector<const KernelInfo*> kernels_under_test() {
    std::vector<const KernelInfo*> out;
    for (const auto& k : registry()) out.push_back(&k);
    return out;
}

std::string describe(const CheckResult& c, int K) {
    return "rel err " + std::to_string(c.rel_err) + " (bound " + std::to_string(normwise_bound(K)) + "), " +
           std::to_string(c.stats.nonfinite) + " NaN/Inf, " + std::to_string(c.stats.violations) +
           " outside the componentwise bound";
}

class Kernel : public testing::TestWithParam<const KernelInfo*> {};

TEST_P(Kernel, CorrectOnEveryShapeAndScalars) {
    SKIP_WITHOUT_GPU();
    const KernelInfo& k = *GetParam();
    if (k.flags & kTileMultiplesOnly) GTEST_SKIP() << k.label() << " is a tuning variant without edge handling";
    std::uint64_t seed = run_seed() ^ (std::uint64_t(k.number) << 48);
    for (const Size& s : kShapes)
        for (const auto& [alpha, beta] : kScalars) {
            SCOPED_TRACE(testing::Message() << k.label() << " " << s.M << "x" << s.N << "x" << s.K << " alpha "
                                            << alpha << " beta " << beta << (beta == 0 ? " (C = NaN)" : "")
                                            << " seed " << seed);
            Problem p(s, alpha, beta, seed++, /*with_reference=*/true);
            p.run_once(k);
            const CheckResult c = p.verify();
            EXPECT_TRUE(c.pass) << describe(c, s.K);
        }
}

INSTANTIATE_TEST_SUITE_P(Registered, Kernel, testing::ValuesIn(kernels_under_test()),
                         [](const testing::TestParamInfo<const KernelInfo*>& info) { return info.param->label(); });

// The check itself must be able to fail on the GPU path too.
class CheckCatches : public testing::Test {
protected:
    void SetUp() override {
        SKIP_WITHOUT_GPU();
        check(cublasCreate(&handle_));
    }
    void TearDown() override {
        if (handle_) cublasDestroy(handle_);
    }
    // Row-major C = alpha A B + beta C through column-major cuBLAS, with a chosen K and beta.
    void sgemm(Problem& p, int K, float beta) {
        const Size s = p.size();
        const float alpha = p.alpha();
        check(cublasSetStream(handle_, p.stream()));
        check(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, K, &alpha, p.B(), s.N, p.A(), s.K, &beta,
                          p.C(), s.N));
        p.synchronize_and_check();
    }
    cublasHandle_t handle_ = nullptr;
};

TEST_F(CheckCatches, Tf32) {
    for (const Size& s : {Size{128, 128, 128}, Size{1000, 1000, 1000}}) {
        Problem p(s, 1.0f, 0.0f, run_seed(), true);
        check(cublasSetMathMode(handle_, CUBLAS_TF32_TENSOR_OP_MATH));
        p.reset_output();
        sgemm(p, s.K, 0.0f);
        const CheckResult c = p.verify();
        EXPECT_FALSE(c.pass) << "TF32 result passed: " << describe(c, s.K);
    }
}

TEST_F(CheckCatches, ResultOffBy1eMinus4) {
    for (const Size& s : {Size{255, 257, 129}, Size{1000, 1000, 1000}, Size{256, 256, 16384}}) {
        Problem p(s, 1.0f, 0.0f, run_seed(), true);
        p.reset_output();
        sgemm(p, s.K, 0.0f);
        ASSERT_TRUE(p.verify().pass);
        const float factor = 1e-4f;
        check(cublasSaxpy(handle_, s.M * s.N, &factor, p.C(), 1, p.C(), 1));  // C *= 1 + 1e-4
        p.synchronize_and_check();
        EXPECT_FALSE(p.verify().pass) << s.M << "x" << s.N << "x" << s.K;
    }
}

TEST_F(CheckCatches, MissingTermAndNanLeak) {
    const Size s{127, 129, 131};
    Problem p(s, 1.0f, 0.0f, run_seed(), true);
    p.reset_output();
    sgemm(p, s.K - 1, 0.0f);  // drops the last k
    EXPECT_FALSE(p.verify().pass);
    p.reset_output();          // C = NaN
    sgemm(p, s.K, 1.0f);       // reads C although the problem's beta is 0
    const CheckResult c = p.verify();
    EXPECT_FALSE(c.pass);
    EXPECT_EQ(c.stats.nonfinite, std::uint64_t(s.M) * s.N);
}

TEST(GpuProblem, RefusesWhatDoesNotFit) {
    SKIP_WITHOUT_GPU();
    EXPECT_THROW(Problem::ensure_fits({1 << 20, 1 << 20, 1 << 20}, true), DoesNotFitError);
    EXPECT_NO_THROW(Problem::ensure_fits({1024, 1024, 1024}, true));
}

}  // namespace
