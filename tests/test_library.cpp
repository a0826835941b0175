// The library call of include/sgemm/sgemm.h as a program uses it: return codes for bad arguments and
// for a machine without a GPU (CPU tests), and on a GPU every layout against a float64 loop, the
// workspace rules, run-to-run identical bits, concurrent callers and capture into a CUDA graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/check.h"
#include "device_buffer.h"
#include "distribution.h"
#include "gpu_test.h"
#include "problem.h"
#include "sgemm/sgemm.h"

namespace {

using sgemm::Op;
using sgemm::Status;

float dummy[4];  // a non-null pointer for calls that must fail before touching memory

TEST(Library, RejectsBadArgumentsWithoutLaunching) {
    EXPECT_EQ(sgemm::gemm(Op::kN, Op::kN, 0, 4, 4, 1, dummy, 4, dummy, 4, 0, dummy, 4), Status::kInvalidValue);
    EXPECT_NE(sgemm::status_string(Status::kInvalidValue).find("M, N and K"), std::string::npos);
    // TN: A is K x M as stored, so lda must cover M (5), not K (2).
    EXPECT_EQ(sgemm::gemm(Op::kT, Op::kN, 5, 3, 2, 1, dummy, 2, dummy, 3, 0, dummy, 3), Status::kInvalidValue);
    EXPECT_NE(sgemm::status_string(Status::kInvalidValue).find("lda"), std::string::npos);
    // NT: B is N x K as stored, ldb must cover K.
    EXPECT_EQ(sgemm::gemm(Op::kN, Op::kT, 5, 3, 7, 1, dummy, 7, dummy, 3, 0, dummy, 3), Status::kInvalidValue);
    EXPECT_EQ(sgemm::gemm(Op::kN, Op::kN, 2, 2, 2, 1, nullptr, 2, dummy, 2, 0, dummy, 2), Status::kInvalidValue);
    EXPECT_EQ(sgemm::status_string(Status::kSuccess), "success");
}

TEST(Library, WithoutGpuSaysNotSupported) {
    if (sgemm::have_gpu()) GTEST_SKIP() << "a GPU is present: the GPU tests cover the calls";
    EXPECT_EQ(sgemm::gemm(Op::kN, Op::kT, 2, 2, 2, 1, dummy, 2, dummy, 2, 0, dummy, 2), Status::kNotSupported);
    EXPECT_NE(sgemm::status_string(Status::kNotSupported).find("no CUDA device"), std::string::npos);
    EXPECT_EQ(sgemm::gemm_workspace_bytes(Op::kN, Op::kN, 4096, 4096, 4096), 0u);
    EXPECT_EQ(sgemm::gemm_describe(Op::kN, Op::kN, 4096, 4096, 4096), "");
}

// One call on fresh random inputs in [-1, 1]: op(A) M x K, op(B) K x N, stored with padded leading
// dimensions, C poisoned with NaN where beta is 0. Returns the elements outside the FP32 bound
// 2 (K + 2) u (|alpha| |op(A)| |op(B)| + |beta| |C|) of a float64 loop, or -1 if the call failed.
struct Case {
    Op op_a, op_b;
    int M, N, K;
    float alpha, beta;
};

std::vector<float> random_matrix(std::size_t n, std::mt19937& gen) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = u(gen);
    return v;
}

template <typename T>
sgemm::DeviceBuffer<T> uploaded(const std::vector<T>& host) {
    sgemm::DeviceBuffer<T> buffer(host.size());
    sgemm::check(cudaMemcpy(buffer.get(), host.data(), buffer.bytes(), cudaMemcpyHostToDevice));
    return buffer;
}

template <typename T>
std::vector<T> downloaded(const sgemm::DeviceBuffer<T>& buffer) {
    std::vector<T> host(buffer.size());
    sgemm::check(cudaMemcpy(host.data(), buffer.get(), buffer.bytes(), cudaMemcpyDeviceToHost));
    return host;
}

long long violations(const Case& c, std::uint32_t seed, cudaStream_t stream = nullptr, bool own_workspace = false) {
    std::mt19937 gen(seed);
    const int a_rows = c.op_a == Op::kN ? c.M : c.K, a_cols = c.op_a == Op::kN ? c.K : c.M;
    const int b_rows = c.op_b == Op::kN ? c.K : c.N, b_cols = c.op_b == Op::kN ? c.N : c.K;
    const int lda = a_cols + 3, ldb = b_cols + 1, ldc = c.N + 2;  // views: rows not 16-byte aligned
    const std::vector<float> a = random_matrix(std::size_t(a_rows) * lda, gen);
    const std::vector<float> b = random_matrix(std::size_t(b_rows) * ldb, gen);
    std::vector<float> c0 = random_matrix(std::size_t(c.M) * ldc, gen);
    if (c.beta == 0.0f) std::fill(c0.begin(), c0.end(), std::numeric_limits<float>::quiet_NaN());
    const sgemm::DeviceBuffer<float> da = uploaded(a), db = uploaded(b), dc = uploaded(c0);
    std::size_t bytes = 0;
    sgemm::DeviceBuffer<char> workspace;
    if (own_workspace) {
        bytes = sgemm::gemm_workspace_bytes(c.op_a, c.op_b, c.M, c.N, c.K);
        workspace = sgemm::DeviceBuffer<char>(bytes);
    }
    if (sgemm::gemm(c.op_a, c.op_b, c.M, c.N, c.K, c.alpha, da.get(), lda, db.get(), ldb, c.beta, dc.get(), ldc, stream,
                    workspace.get(), bytes) != Status::kSuccess) {
        ADD_FAILURE() << sgemm::status_string(Status::kCudaError);
        return -1;
    }
    sgemm::check(cudaStreamSynchronize(stream));
    const std::vector<float> out = downloaded(dc);
    auto op_a = [&](int m, int k) {
        return c.op_a == Op::kN ? a[std::size_t(m) * lda + k] : a[std::size_t(k) * lda + m];
    };
    auto op_b = [&](int k, int n) {
        return c.op_b == Op::kN ? b[std::size_t(k) * ldb + n] : b[std::size_t(n) * ldb + k];
    };
    const double u = std::ldexp(1.0, -24);
    long long bad = 0;
    for (int m = 0; m < c.M; ++m)
        for (int n = 0; n < c.N; ++n) {
            double sum = 0, abs_sum = 0;
            for (int k = 0; k < c.K; ++k) {
                sum += double(op_a(m, k)) * op_b(k, n);
                abs_sum += std::fabs(double(op_a(m, k)) * op_b(k, n));
            }
            const double old = c.beta == 0.0f ? 0.0 : c0[std::size_t(m) * ldc + n];
            const double ref = c.alpha * sum + c.beta * old;
            const double bound = 2 * (c.K + 2) * u * (std::fabs(c.alpha) * abs_sum + std::fabs(c.beta * old));
            const float got = out[std::size_t(m) * ldc + n];
            if (!(std::fabs(got - ref) <= bound)) ++bad;
        }
    // Outside C's M x N view nothing changed.
    for (int m = 0; m < c.M; ++m)
        for (int n = c.N; n < ldc; ++n)
            if (std::memcmp(&out[std::size_t(m) * ldc + n], &c0[std::size_t(m) * ldc + n], sizeof(float)) != 0) ++bad;
    return bad;
}

std::uint32_t fresh_seed() { return std::random_device{}(); }

TEST(LibraryGpu, EveryLayoutWithinTheFp32Bound) {
    SKIP_WITHOUT_GPU();
    const std::uint32_t seed = fresh_seed();
    std::string ways;  // what ran, from describe(): the shapes below must take both FFMA forms
    for (Op op_a : {Op::kN, Op::kT})
        for (Op op_b : {Op::kN, Op::kT})
            for (const auto& [M, N, K] : {std::tuple{1, 1, 1},
                                          {37, 29, 1},
                                          {64, 65, 3},
                                          {1, 300, 257},
                                          {300, 1, 257},
                                          {129, 77, 33},
                                          {257, 255, 600},
                                          {640, 384, 512}})
                for (float beta : {0.0f, 0.75f}) {
                    const Case c{op_a, op_b, M, N, K, 1.25f, beta};
                    ways += sgemm::gemm_describe(op_a, op_b, M, N, K) + "\n";
                    EXPECT_EQ(violations(c, seed), 0)
                        << "seed " << seed << ", " << (op_a == Op::kN ? "N" : "T") << (op_b == Op::kN ? "N" : "T")
                        << " " << M << "x" << N << "x" << K << " beta " << beta << ": "
                        << sgemm::gemm_describe(op_a, op_b, M, N, K);
                }
    EXPECT_NE(ways.find("operand(s) transposed first"), std::string::npos) << "no direct form with copies:\n" << ways;
    EXPECT_NE(ways.find("C^T = op(B)^T op(A)^T"), std::string::npos) << "no swapped form:\n" << ways;
}

TEST(LibraryGpu, WorkspaceRules) {
    SKIP_WITHOUT_GPU();
    const std::uint32_t seed = fresh_seed();
    // Passed in, at the size gemm_workspace_bytes says: the same result as the allocator's.
    EXPECT_EQ(violations({Op::kT, Op::kT, 520, 390, 700, 1.0f, 0.0f}, seed, nullptr, true), 0) << "seed " << seed;
    const std::size_t bytes = sgemm::gemm_workspace_bytes(Op::kT, Op::kN, 1024, 1024, 1024);
    ASSERT_GT(bytes, 0u) << "both families stage or transpose A in this layout";
    const sgemm::DeviceBuffer<float> a = uploaded(std::vector<float>(1024 * 1024, 1.0f)),
                                     b = uploaded(std::vector<float>(1024 * 1024, 1.0f));
    sgemm::DeviceBuffer<float> c(1024 * 1024);
    sgemm::DeviceBuffer<char> workspace(bytes + 256);
    auto call = [&](void* ws, std::size_t n) {
        return sgemm::gemm(Op::kT, Op::kN, 1024, 1024, 1024, 1, a.get(), 1024, b.get(), 1024, 0, c.get(), 1024, nullptr,
                           ws, n);
    };
    EXPECT_EQ(call(workspace.get(), bytes - 1), Status::kInvalidValue);
    EXPECT_NE(sgemm::status_string(Status::kInvalidValue).find("needed"), std::string::npos);
    EXPECT_EQ(call(workspace.get() + 4, bytes), Status::kInvalidValue);  // not 256-byte aligned
    EXPECT_EQ(call(workspace.get(), bytes), Status::kSuccess);
    sgemm::check(cudaDeviceSynchronize());
    EXPECT_EQ(downloaded(c)[12345], 1024.0f);  // sums of 1024 ones: exact
}

// gemm_workspace_bytes must cover a call with any pointers and leading dimensions: step 13's pick weighs
// where C's rows lie (step 12's 8-byte stores of C, step 10's 16-byte ones), so a C whose rows are aligned
// though N is odd may take a family the packed C would not. Odd N near the tensor / FFMA boundary of the
// models on an H100 (57529 x 1635 x 109) and an H200 (13484 x 175 x 777): C at offsets of 0, 1 and 2 floats,
// ldc = N, N rounded up to 2 and to 4.
TEST(LibraryGpu, WorkspaceQueryCoversEveryAlignment) {
    SKIP_WITHOUT_GPU();
    for (const auto& [M, N, K] : {std::tuple{57529, 1635, 109}, std::tuple{13484, 175, 777}}) {
        const std::size_t bytes = sgemm::gemm_workspace_bytes(Op::kN, Op::kN, M, N, K);
        const sgemm::DeviceBuffer<float> a(std::size_t(M) * K), b(std::size_t(K) * N);
        sgemm::check(cudaMemset(a.get(), 0, a.bytes()));
        sgemm::check(cudaMemset(b.get(), 0, b.bytes()));
        sgemm::DeviceBuffer<float> c(std::size_t(M) * (N + 3) + 2);
        sgemm::DeviceBuffer<char> workspace(std::max<std::size_t>(bytes, 1));
        for (const int offset : {0, 1, 2})
            for (const int ldc : {N, N + N % 2, (N + 3) / 4 * 4}) {
                const Status status = sgemm::gemm(Op::kN, Op::kN, M, N, K, 1.0f, a.get(), K, b.get(), N, 0.0f,
                                                  c.get() + offset, ldc, nullptr, workspace.get(), bytes);
                EXPECT_EQ(status, Status::kSuccess)
                    << M << "x" << N << "x" << K << ", C " << offset << " floats past its allocation, ldc " << ldc
                    << ": " << sgemm::status_string(status);
            }
        sgemm::check(cudaDeviceSynchronize());
    }
}

TEST(LibraryGpu, SameBitsEveryRun) {
    SKIP_WITHOUT_GPU();
    for (const auto& [M, N, K] : {std::tuple{96, 80, 20000}, {2048, 2048, 512}, {3000, 17, 4000}}) {
        std::mt19937 gen(fresh_seed());
        const std::vector<float> a = random_matrix(std::size_t(M) * K, gen), b = random_matrix(std::size_t(K) * N, gen);
        const sgemm::DeviceBuffer<float> da = uploaded(a), db = uploaded(b);
        sgemm::DeviceBuffer<float> dc(std::size_t(M) * N);
        std::vector<float> first;
        for (int run = 0; run < 3; ++run) {
            ASSERT_EQ(sgemm::gemm(Op::kN, Op::kT, M, N, K, 1, da.get(), K, db.get(), K, 0, dc.get(), N),
                      Status::kSuccess);
            const std::vector<float> out = downloaded(dc);
            if (run == 0)
                first = out;
            else
                EXPECT_EQ(std::memcmp(first.data(), out.data(), out.size() * sizeof(float)), 0)
                    << M << "x" << N << "x" << K << " run " << run << ": "
                    << sgemm::gemm_describe(Op::kN, Op::kT, M, N, K);
        }
    }
}

TEST(LibraryGpu, ConcurrentCallersOnTheirOwnStreams) {
    SKIP_WITHOUT_GPU();
    const std::uint32_t seed = fresh_seed();
    std::vector<long long> bad(4, -2);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            cudaStream_t stream;
            sgemm::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
            const Case c{
                t % 2 ? Op::kT : Op::kN, t / 2 ? Op::kT : Op::kN, 200 + 37 * t, 150 + 11 * t, 90 + 300 * t, 1.0f, 0.5f};
            bad[t] = violations(c, seed + t, stream);
            sgemm::check(cudaStreamDestroy(stream));
        });
    for (std::thread& t : threads) t.join();
    for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t << ", seed " << seed + t;
}

// The call only queues work: captured into a CUDA graph (with a workspace passed in, and with the
// stream-ordered allocator's), the graph's launch gives the bits of a direct call, on shapes that
// take the int8 family (on a GPU with it), 3xTF32 and FFMA. Each graph is replayed on two inputs:
// uniform, and `wide` (exponents spread over 2^+-48), which the int8 family hands to its FP64
// kernel: a choice baked into the graph at capture would give the wrong bits on one of them.
TEST(LibraryGpu, CapturedInAGraph) {
    SKIP_WITHOUT_GPU();
    const std::uint32_t seed = fresh_seed();
    std::string ways;
    for (const auto& [op_a, op_b, M, N, K] : {std::tuple{Op::kN, Op::kT, 8192, 8192, 8192},
                                              {Op::kN, Op::kN, 16384, 12288, 4096},
                                              {Op::kN, Op::kN, 2048, 2048, 512},
                                              {Op::kT, Op::kN, 3000, 17, 4000}}) {
        sgemm::DeviceBuffer<float> a(std::size_t(M) * K), b(std::size_t(K) * N), c(std::size_t(M) * N);
        const int lda = op_a == Op::kN ? K : M, ldb = op_b == Op::kN ? N : K;
        const std::string what = sgemm::gemm_describe(op_a, op_b, M, N, K);
        ways += what + "\n";
        SCOPED_TRACE(testing::Message() << M << "x" << N << "x" << K << " seed " << seed << ": " << what);
        cudaStream_t stream;
        sgemm::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        // A and B drawn from the runner's `uniform` or `wide` distribution (distribution.h), on the
        // device; NaN in C: every element must be written.
        auto use = [&](bool spread) {
            const sgemm::Distribution d = spread ? sgemm::Distribution::kWide : sgemm::Distribution::kUniform;
            sgemm::fill_buffer(a.get(), a.size(),
                               sgemm::fill_spec(d, sgemm::Operand::kA, M, N, K, lda, 0, seed, op_a == Op::kT), stream);
            sgemm::fill_buffer(b.get(), b.size(),
                               sgemm::fill_spec(d, sgemm::Operand::kB, M, N, K, ldb, 0, seed, op_b == Op::kT), stream);
            sgemm::check(cudaMemsetAsync(c.get(), 0xFF, c.bytes(), stream));
        };
        auto call = [&](void* ws, std::size_t bytes) {
            return sgemm::gemm(op_a, op_b, M, N, K, 1, a.get(), lda, b.get(), ldb, 0, c.get(), N, stream, ws, bytes);
        };
        auto result = [&] {
            sgemm::check(cudaStreamSynchronize(stream));
            return downloaded(c);
        };
        std::vector<float> direct[2];  // uniform, spread
        for (int spread = 0; spread < 2; ++spread) {
            use(spread);
            const Status status = call(nullptr, 0);
            ASSERT_EQ(status, Status::kSuccess) << sgemm::status_string(status);
            direct[spread] = result();
            EXPECT_EQ(
                std::count_if(direct[spread].begin(), direct[spread].end(), [](float x) { return !std::isfinite(x); }),
                0);
        }
        const std::size_t bytes = sgemm::gemm_workspace_bytes(op_a, op_b, M, N, K);
        sgemm::DeviceBuffer<char> workspace(bytes);
        for (void* ws : {static_cast<void*>(workspace.get()), static_cast<void*>(nullptr)}) {
            cudaGraph_t graph = nullptr;
            use(false);
            sgemm::check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
            const Status status = call(ws, ws ? bytes : 0);
            const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
            cudaGetLastError();  // a failed capture's error must not surface in a later test
            ASSERT_EQ(status, Status::kSuccess) << sgemm::status_string(status);
            ASSERT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
            cudaGraphExec_t exec = nullptr;
            sgemm::check(cudaGraphInstantiate(&exec, graph, 0));
            for (int spread = 0; spread < 2; ++spread) {
                use(spread);
                sgemm::check(cudaGraphLaunch(exec, stream));
                EXPECT_EQ(std::memcmp(direct[spread].data(), result().data(), c.bytes()), 0)
                    << (ws ? "workspace passed in, " : "stream-ordered workspace, ")
                    << (spread ? "spread inputs" : "uniform inputs");
            }
            sgemm::check(cudaGraphExecDestroy(exec));
            sgemm::check(cudaGraphDestroy(graph));
        }
        sgemm::check(cudaStreamDestroy(stream));
    }
    int device = 0, major = 0, minor = 0;
    sgemm::check(cudaGetDevice(&device));
    sgemm::check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    sgemm::check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    if (major == 9 && minor == 0)
        EXPECT_NE(ways.find("int8 tensor cores"), std::string::npos) << "no shape took the int8 family:\n" << ways;
}

// On a GPU with the tensor-core path, a big square is compute-bound: the planner must pick it.
TEST(LibraryGpu, BigSquarePicksTheTensorCores) {
    SKIP_WITHOUT_GPU();
    int device = 0, major = 0, minor = 0;
    sgemm::check(cudaGetDevice(&device));
    sgemm::check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    sgemm::check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    if (major != 9 || minor != 0) GTEST_SKIP() << "no sm_90a tensor-core path on this GPU";
    for (Op op_a : {Op::kN, Op::kT})
        for (Op op_b : {Op::kN, Op::kT})
            EXPECT_NE(sgemm::gemm_describe(op_a, op_b, 4096, 4096, 4096).find("tensor cores, step 1"),
                      std::string::npos)
                << sgemm::gemm_describe(op_a, op_b, 4096, 4096, 4096);  // step 12's TF32 or step 14's int8
}

}  // namespace
