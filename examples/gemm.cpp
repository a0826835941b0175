// A linear layer y = x W^T through the library: x is M x K, W is stored N x K (out x in features).
// Exit status: 0 correct, 1 wrong or failed, 77 no CUDA device (skipped).
#include <cuda_runtime.h>  // the runtime with its C++ overloads (cudaMalloc(float**, ...)); no nvcc needed
#include <sgemm/sgemm.h>

#include <cmath>
#include <cstdio>
#include <vector>

static bool cuda_ok(cudaError_t error) {
    if (error != cudaSuccess) std::printf("CUDA error: %s\n", cudaGetErrorString(error));
    return error == cudaSuccess;
}

int main() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("no CUDA device: skipped\n");
        return 77;
    }
    const int M = 300, N = 200, K = 500;
    std::vector<float> x(M * K), w(N * K), y(M * N);
    for (int i = 0; i < M * K; ++i) x[i] = static_cast<float>(i % 7 - 3);
    for (int i = 0; i < N * K; ++i) w[i] = static_cast<float>(i % 5) * 0.25f;
    float *dx = nullptr, *dw = nullptr, *dy = nullptr;
    if (!cuda_ok(cudaMalloc(&dx, x.size() * 4)) || !cuda_ok(cudaMalloc(&dw, w.size() * 4)) ||
        !cuda_ok(cudaMalloc(&dy, y.size() * 4)) ||
        !cuda_ok(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice)) ||
        !cuda_ok(cudaMemcpy(dw, w.data(), w.size() * 4, cudaMemcpyHostToDevice)))
        return 1;

    const sgemm::Status status = sgemm::gemm(sgemm::Op::kN, sgemm::Op::kT, M, N, K, 1.0f, dx, K, dw, K, 0.0f, dy, N);
    if (status != sgemm::Status::kSuccess) {
        std::printf("sgemm::gemm: %s\n", sgemm::status_string(status).c_str());
        return 1;
    }
    if (!cuda_ok(cudaMemcpy(y.data(), dy, y.size() * 4, cudaMemcpyDeviceToHost))) return 1;

    int wrong = 0;  // a few elements against float64, within the header's FP32 bound gamma_(K+2) * sum |x w|
    for (int r : {0, 1, M / 2, M - 1})
        for (int c : {0, 7, N / 2, N - 1}) {
            double ref = 0, bound = 0;
            for (int k = 0; k < K; ++k) {
                ref += double(x[r * K + k]) * w[c * K + k];
                bound += std::fabs(double(x[r * K + k]) * w[c * K + k]) * (K + 2) * std::ldexp(1.0, -24);
            }
            if (!(std::fabs(y[r * N + c] - ref) <= bound)) {
                std::printf("y[%d][%d] = %.9g, expected %.9g\n", r, c, y[r * N + c], ref);
                ++wrong;
            }
        }
    std::printf("%s\n%s\n", sgemm::gemm_describe(sgemm::Op::kN, sgemm::Op::kT, M, N, K).c_str(),
                wrong ? "WRONG" : "ok");
    cudaFree(dx), cudaFree(dw), cudaFree(dy);
    return wrong ? 1 : 0;
}
