// The shape of one GEMM problem: A is M x K, B K x N, C M x N. Its own header because the problem,
// the runner and the tests use it without the command line (cli.h parses it from "M,N,K").
#pragma once

namespace sgemm {

struct Size {
    int M = 0, N = 0, K = 0;
    friend bool operator==(const Size&, const Size&) = default;
};

}  // namespace sgemm
