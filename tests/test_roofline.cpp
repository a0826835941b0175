// The roofline arithmetic (runner/roofline.h, common/gpu_rates.h) on synthetic GPUs: every expected
// number is worked out by hand here, from the GPU's published clocks, SM count and bus width.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/gpu_rates.h"
#include "roofline.h"

using namespace sgemm;

namespace {

// Relative comparison: the expected values below are rounded to 13 significant digits.
void expect_close(double actual, double expected) { EXPECT_NEAR(actual, expected, std::abs(expected) * 1e-11); }

// Synthetic devices as CUDA reports them: cc x 10, SMs, max SM clock, max memory clock, bus width.
struct Gpu {
    int cc, sms;
    double sm_hz, mem_hz;
    int bus_bits;
    double ffma() const { return ffma_peak_flops(cc, sms, sm_hz); }
    double dram() const { return dram_peak_bytes_per_s(mem_hz, bus_bits); }
};
constexpr Gpu kH100{90, 132, 1980e6, 2619e6, 5120};
constexpr Gpu kH200{90, 132, 1980e6, 3201e6, 6016};
constexpr Gpu kA100{80, 108, 1410e6, 1593e6, 5120};

constexpr int kMaxDim = 2147483647;  // 2^31 - 1

}  // namespace

TEST(Roofline, MinBytesCountsCOnceOrTwice) {
    // M, N, K = 3, 5, 7: MK = 21, KN = 35, MN = 15 (distinct, so a wrong product shows).
    EXPECT_EQ(gemm_min_bytes(3, 5, 7, 0.0), 4.0 * (21 + 35 + 15));       // 284: C written only
    EXPECT_EQ(gemm_min_bytes(3, 5, 7, 0.5), 4.0 * (21 + 35 + 15 + 15));  // 344: C read too
    EXPECT_EQ(gemm_min_bytes(3, 5, 7, -1.0), 344.0);
    EXPECT_EQ(gemm_min_bytes(4096, 4096, 4096, 0.0), 201326592.0);  // 12 x 4096^2
}

TEST(Roofline, MinBytesNear2To31DoNotOverflow) {
    // 16 (2^31 - 1)^2 = 73,786,976,226,118,729,744: beyond 2^64, so no 64-bit integer holds it.
    expect_close(gemm_min_bytes(kMaxDim, kMaxDim, kMaxDim, 1.0), 7.378697622612e19);
    // M = K = 2^31 - 1, N = 1, beta 0: 4 (m^2 + 2m) = 2^64 - 4 = 18,446,744,073,709,551,612.
    expect_close(gemm_min_bytes(kMaxDim, 1, kMaxDim, 0.0), 1.844674407371e19);
    // The FLOP too: 2 m^3 / 66.90816e12 = 2.960332581392e14 s on an H100, bound by the FFMA peak.
    const auto roof = gemm_roof(kMaxDim, kMaxDim, kMaxDim, 0.0, kH100.ffma(), kH100.dram());
    ASSERT_TRUE(roof);
    expect_close(roof->seconds, 2.960332581392e14);
    EXPECT_EQ(roof->bound, "flop");
}

TEST(Roofline, RatesOfH100H200A100) {
    // 2 FLOP x 128 lanes x 132 SMs x 1980 MHz; 2 x 64 x 108 x 1410 MHz.
    expect_close(kH100.ffma(), 66.90816e12);
    expect_close(kH200.ffma(), 66.90816e12);
    expect_close(kA100.ffma(), 19.49184e12);
    // 2 transfers x memory clock x bus bits / 8.
    expect_close(kH100.dram(), 3.35232e12);   // 2 x 2619 MHz x 5120 / 8
    expect_close(kH200.dram(), 4.814304e12);  // 2 x 3201 MHz x 6016 / 8
    expect_close(kA100.dram(), 2.03904e12);   // 2 x 1593 MHz x 5120 / 8
    ASSERT_TRUE(theoretical_ffma_tflops(90, 132, 1980e6));
    expect_close(*theoretical_ffma_tflops(90, 132, 1980e6), 66.90816);
}

TEST(Roofline, FlopBoundAt4096Cubed) {
    // 2 x 4096^3 = 137,438,953,472 FLOP; 201,326,592 bytes.
    // The DRAM terms, far below: 6.006e-5 s (H100), 4.182e-5 s (H200), 9.874e-5 s (A100).
    struct Case {
        Gpu gpu;
        double seconds;
    };
    for (const Case& c : {Case{kH100, 2.054143373125e-3},    // 137,438,953,472 / 66.90816e12
                          Case{kH200, 2.054143373125e-3},    // the same FFMA peak
                          Case{kA100, 7.051102075125e-3}}) {  // 137,438,953,472 / 19.49184e12
        const auto roof = gemm_roof(4096, 4096, 4096, 0.0, c.gpu.ffma(), c.gpu.dram());
        ASSERT_TRUE(roof);
        expect_close(roof->seconds, c.seconds);
        EXPECT_EQ(roof->bound, "flop");
    }
}

TEST(Roofline, DramBoundMatrixVector) {
    // M = K = 8192, N = 1, beta 1: 2 x 8192^2 = 134,217,728 FLOP; 4 (8192^2 + 8192 + 2 x 8192) =
    // 268,533,760 bytes (with beta 0, 268,500,992: the C read is in the expected times).
    // The FLOP terms, far below: 2.006e-6 s (H100, H200), 6.886e-6 s (A100).
    struct Case {
        Gpu gpu;
        double seconds;
    };
    for (const Case& c : {Case{kH100, 8.010385643375e-5},    // 268,533,760 / 3.35232e12
                          Case{kH200, 5.577831395774e-5},    // / 4.814304e12
                          Case{kA100, 1.316961707470e-4}}) {  // / 2.03904e12
        const auto roof = gemm_roof(8192, 1, 8192, 1.0, c.gpu.ffma(), c.gpu.dram());
        ASSERT_TRUE(roof);
        expect_close(roof->seconds, c.seconds);
        EXPECT_EQ(roof->bound, "dram");
    }
}

TEST(Roofline, TheBoundDependsOnTheGpu) {
    // 96^3, beta 0: 1,769,472 FLOP over 110,592 bytes = 16 FLOP/byte, above the A100's and the H200's
    // ridge points (9.6 and 13.9 FLOP/byte), below the H100's (20.0).
    const auto h100 = gemm_roof(96, 96, 96, 0.0, kH100.ffma(), kH100.dram());
    const auto h200 = gemm_roof(96, 96, 96, 0.0, kH200.ffma(), kH200.dram());
    const auto a100 = gemm_roof(96, 96, 96, 0.0, kA100.ffma(), kA100.dram());
    ASSERT_TRUE(h100 && h200 && a100);
    expect_close(h100->seconds, 3.298969072165e-8);  // 110,592 / 3.35232e12
    EXPECT_EQ(h100->bound, "dram");
    expect_close(h200->seconds, 2.644628099174e-8);  // 1,769,472 / 66.90816e12
    EXPECT_EQ(h200->bound, "flop");
    expect_close(a100->seconds, 9.078014184397e-8);  // 1,769,472 / 19.49184e12
    EXPECT_EQ(a100->bound, "flop");
}

TEST(Roofline, UnknownRatesGiveNoRoof) {
    // Compute capability 5.0: FP32 lanes unknown, so no FFMA peak and no roof (not an infinite one).
    EXPECT_EQ(ffma_peak_flops(50, 16, 1e9), 0.0);
    EXPECT_FALSE(theoretical_ffma_tflops(50, 16, 1e9));
    EXPECT_FALSE(gemm_roof(4096, 4096, 4096, 0.0, ffma_peak_flops(50, 16, 1e9), kH100.dram()));
    EXPECT_FALSE(gemm_roof(4096, 4096, 4096, 0.0, kH100.ffma(), 0.0));
    EXPECT_FALSE(gemm_roof(4096, 4096, 4096, 0.0, std::numeric_limits<double>::quiet_NaN(), kH100.dram()));
    EXPECT_FALSE(gemm_roof(4096, 4096, 4096, 0.0, kH100.ffma(), std::numeric_limits<double>::infinity()));
}
