// The input distributions of sgemm_runner --init (docs/verification.md#input-distributions): their
// names, and the value of every element of A, B and C0. Host and device code: the GPU fills the
// buffers with element_value() and the CPU tests check the very same function.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#ifdef __CUDACC__
#define SGEMM_HOST_DEVICE __host__ __device__
#else
#define SGEMM_HOST_DEVICE
#endif

namespace sgemm {

enum class Distribution { kUniform, kPositive, kWide, kScaled, kTiny, kHuge, kIntegers, kCancel, kSpecial };

struct DistributionInfo {
    Distribution id;
    std::string_view name;
    std::string_view summary;  // one line, for --help
};

// In enum order; --init takes these names.
inline constexpr std::array<DistributionInfo, 9> kDistributions{{
    {Distribution::kUniform, "uniform", "uniform in [-1, 1) (the default)"},
    {Distribution::kPositive, "positive", "|uniform|: no cancellation"},
    {Distribution::kWide, "wide", "s*m*2^e, e uniform in [-48, 48]"},
    {Distribution::kScaled, "scaled",
     "uniform * 2^r per row of op(A), * 2^c per column of op(B), r and c in [-30, 30]"},
    {Distribution::kTiny, "tiny", "A ~2^-118, B ~2^-6, C0 ~2^-122: products at the bottom of the normal range"},
    {Distribution::kHuge, "huge", "A in FP32's top binade (2^127), B ~2^-(10 + ceil(log2 K))"},
    {Distribution::kIntegers, "integers", "integers whose sums stay below 2^24: exact with power-of-two alpha, beta"},
    {Distribution::kCancel, "cancel", "products cancel in pairs up to 2^-12: a large condition number"},
    {Distribution::kSpecial, "special",
     "uniform with one Inf or NaN in about every 64th row of op(A) and column of op(B)"},
}};

constexpr std::string_view to_string(Distribution d) { return kDistributions[static_cast<int>(d)].name; }

inline std::optional<Distribution> find_distribution(std::string_view name) {
    for (const DistributionInfo& d : kDistributions)
        if (d.name == name) return d.id;
    return std::nullopt;
}

// "uniform, positive, ..., special" for messages.
inline std::string distribution_names() {
    std::string out;
    for (const DistributionInfo& d : kDistributions) out += (out.empty() ? "" : ", ") + std::string(d.name);
    return out;
}

// Which matrix a buffer holds.
enum class Operand { kA, kB, kC0 };

SGEMM_HOST_DEVICE constexpr std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// [doc:matrix-seed]
// The seed of one matrix (`which` 0, 1, 2: A, B, C0; 3, 4: the exponents of A's rows and B's
// columns) mixed from the run's seed and the size: each size gets fresh data.
constexpr std::uint64_t matrix_seed(std::uint64_t seed, int M, int N, int K, int which) {
    return splitmix64(seed ^ splitmix64((std::uint64_t(M) << 42) ^ (std::uint64_t(N) << 21) ^ std::uint64_t(K)) ^
                      splitmix64(which));
}

// integers: q = max(1, floor(sqrt(2^22 / K))), so that K q^2 <= 2^22. floor(sqrt(x)) of a real x
// equals that of floor(x); found bit by bit, exactly, on host and device.
SGEMM_HOST_DEVICE constexpr int integer_range(int K) {
    const int x = (1 << 22) / (K > 0 ? K : 1);
    int q = 0;
    for (int bit = 1 << 11; bit; bit >>= 1)
        if ((q + bit) * (q + bit) <= x) q += bit;
    return q > 1 ? q : 1;
}

// huge: B's exponent -(10 + ceil(log2 K)), so that K |A||B| < 2^(128 + 2 - 10) = 2^120.
SGEMM_HOST_DEVICE constexpr int huge_b_exponent(int K) {
    int log2_ceil = 0;
    while ((1LL << log2_ceil) < K) ++log2_ceil;
    return -(10 + log2_ceil);
}

// One whole buffer as element_value() sees it: the offset before the view, the view (rows x
// cols with leading dimension ld) and, after it, the padding columns and the guard.
struct FillSpec {
    Distribution distribution = Distribution::kUniform;
    Operand operand = Operand::kA;
    int M = 0, N = 0, K = 0;   // the problem: op(A) is M x K, op(B) K x N, C0 M x N
    int ld = 0;                // the view's leading dimension
    std::size_t offset = 0;    // floats before the view
    std::uint64_t seed = 0;    // this matrix's seed
    std::uint64_t row_seed = 0, col_seed = 0;  // scaled: exponents of op(A)'s rows, op(B)'s columns (C0: both)
    // A or B stored transposed (Op::kT): A as K x M, B as N x K. The distributions are defined on
    // op(A) and op(B), so a value that depends on where an element lies follows the transpose.
    bool transposed = false;
};

constexpr FillSpec fill_spec(Distribution d, Operand which, int M, int N, int K, int ld, std::size_t offset,
                             std::uint64_t seed, bool transposed = false) {
    return {d,
            which,
            M,
            N,
            K,
            ld,
            offset,
            matrix_seed(seed, M, N, K, static_cast<int>(which)),
            matrix_seed(seed, M, N, K, 3),
            matrix_seed(seed, M, N, K, 4),
            transposed};
}

namespace detail {

SGEMM_HOST_DEVICE inline float from_bits(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// [doc:uniform]
// Uniform in [-1, 1) on a 2^-23 grid from the top 24 bits of h: exact in FP32 (and FP64).
SGEMM_HOST_DEVICE inline float uniform(std::uint64_t h) {
    return static_cast<float>(static_cast<double>(h >> 40) * (1.0 / 8388608.0) - 1.0);
}

// s * m * 2^e, sign and mantissa m in [1, 2) from h's top 24 bits; e a normal exponent (-126..127).
SGEMM_HOST_DEVICE inline float signed_mantissa(std::uint64_t h, int e) {
    return from_bits((static_cast<std::uint32_t>(h >> 63) << 31) | (static_cast<std::uint32_t>(e + 127) << 23) |
                     (static_cast<std::uint32_t>(h >> 40) & 0x7FFFFFu));
}

SGEMM_HOST_DEVICE inline float pow2(int e) { return from_bits(static_cast<std::uint32_t>(e + 127) << 23); }

// scaled: the exponent in [-30, 30] of row (or column) `index`.
SGEMM_HOST_DEVICE inline int scale_exponent(std::uint64_t seed, long long index) {
    return static_cast<int>(splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(index))) % 61) - 30;
}

// special: in each block of 64 rows of A (64 columns of B; fewer in the last block) one line gets
// one non-finite entry at a random place across it (`across` = K). True when (line, other) is it.
SGEMM_HOST_DEVICE inline bool is_special(std::uint64_t seed, long long line, long long other, int lines, int across,
                                         std::uint64_t& kind) {
    const long long block = line / 64, first = block * 64;
    const long long span = lines - first < 64 ? lines - first : 64;
    const std::uint64_t h = splitmix64(seed ^ splitmix64(~static_cast<std::uint64_t>(block)));
    const std::uint64_t h2 = splitmix64(h);
    kind = (h2 >> 32) % 3;
    return line == first + static_cast<long long>(h % span) && other == static_cast<long long>(h2 % across);
}

}  // namespace detail

// [doc:element-value]
// Element i of the whole buffer `f` describes (docs/verification.md defines each distribution).
// Every value is an exact FP32 number; padding and guard get values of the same kind.
SGEMM_HOST_DEVICE inline float element_value(const FillSpec& f, std::size_t i) {
    const std::uint64_t h = splitmix64(f.seed ^ splitmix64(i));
    const float u = detail::uniform(h);
    // Where i lies: row and column relative to the stored view (the offset before it is row -1), and
    // (row, col) of op(X), which the distributions are defined on: op(A) is M x K, op(B) K x N (outside
    // the view, the stored pair swapped: padding and guard only need values of the same kind).
    const long long rel = static_cast<long long>(i) - static_cast<long long>(f.offset);
    const long long stored_row = rel >= 0 ? rel / f.ld : -((-rel + f.ld - 1) / f.ld);
    const long long stored_col = rel - stored_row * f.ld;
    const long long row = f.transposed ? stored_col : stored_row, col = f.transposed ? stored_row : stored_col;
    const int rows = f.operand == Operand::kB ? f.K : f.M, cols = f.operand == Operand::kA ? f.K : f.N;
    const bool inside = f.transposed ? stored_row >= 0 && stored_row < cols && stored_col < rows
                                     : stored_row >= 0 && stored_row < rows && stored_col < cols;
    // The element of the stored buffer one step back along op(X)'s rows (row - 1) or columns (col - 1).
    const std::size_t row_step = f.transposed ? 1 : f.ld, col_step = f.transposed ? f.ld : 1;
    switch (f.distribution) {
        case Distribution::kUniform: return u;
        case Distribution::kPositive: return u < 0 ? -u : u;
        case Distribution::kWide: return detail::signed_mantissa(h, static_cast<int>((h & 0xFFFFFFFFu) % 97) - 48);
        case Distribution::kScaled: {
            const int r = detail::scale_exponent(f.row_seed, row), c = detail::scale_exponent(f.col_seed, col);
            return u * detail::pow2(f.operand == Operand::kA ? r : f.operand == Operand::kB ? c : r + c);
        }
        case Distribution::kTiny:
            return detail::signed_mantissa(h, f.operand == Operand::kA ? -118 : f.operand == Operand::kB ? -6 : -122);
        case Distribution::kHuge:
            return detail::signed_mantissa(h,
                                           f.operand == Operand::kA       ? 127
                                               : f.operand == Operand::kB ? huge_b_exponent(f.K)
                                                                          : 118);
        case Distribution::kIntegers: {
            const long long q = integer_range(f.K), range = f.operand == Operand::kC0 ? q * q : q;
            return static_cast<float>(static_cast<long long>(h % static_cast<std::uint64_t>(2 * range + 1)) - range);
        }
        case Distribution::kCancel:
            // Pairs (k, k + 1), k even: A(i, k+1) = A(i, k) and B(k+1, j) = -B(k, j) + delta.
            if (f.operand == Operand::kA && inside && col % 2 == 1)
                return detail::uniform(splitmix64(f.seed ^ splitmix64(i - col_step)));
            if (f.operand == Operand::kB && inside && row % 2 == 1) {
                const float b_k = detail::uniform(splitmix64(f.seed ^ splitmix64(i - row_step)));
                return static_cast<float>(-static_cast<double>(b_k) + static_cast<double>(u) * (1.0 / 4096.0));
            }
            return f.operand == Operand::kC0 ? u * (1.0f / 4096.0f) : u;
        case Distribution::kSpecial: {
            std::uint64_t kind = 0;
            const bool special = inside &&
                (f.operand == Operand::kA       ? detail::is_special(f.seed, row, col, f.M, f.K, kind)
                     : f.operand == Operand::kB ? detail::is_special(f.seed, col, row, f.N, f.K, kind)
                                                : false);
            if (!special) return u;
            return detail::from_bits(kind == 0 ? 0x7F800000u : kind == 1 ? 0xFF800000u : 0x7FC00000u);  // +-Inf, NaN
        }
    }
    return u;
}

}  // namespace sgemm
