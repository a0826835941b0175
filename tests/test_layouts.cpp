// Layouts without a GPU: --layout on the command line, and the input distributions on op(A) and op(B)
// whichever way A and B are stored (the GPU tests check that the buffers hold these values).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli.h"
#include "distribution.h"

using namespace sgemm;

namespace {

constexpr Ops kNN{Op::kN, Op::kN}, kNT{Op::kN, Op::kT}, kTN{Op::kT, Op::kN}, kTT{Op::kT, Op::kT};

std::string message_of(const std::vector<std::string>& keys) {
    try {
        select_layouts(keys);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(LayoutOption, NamesListsAndAll) {
    EXPECT_EQ(select_layouts({"NT"}), std::vector<Ops>{kNT});
    // A comma list and repeats, in the order given, without duplicates.
    EXPECT_EQ(select_layouts({"TT,NN", "TN", "TT"}), (std::vector<Ops>{kTT, kNN, kTN}));
    EXPECT_EQ(select_layouts({"all"}), (std::vector<Ops>{kNN, kNT, kTN, kTT}));
    EXPECT_EQ(select_layouts({"NT,all"}), (std::vector<Ops>{kNT, kNN, kTN, kTT}));
    // parse_options: NN by default, --layout repeatable.
    Options o;
    const char* none[] = {"sgemm_runner"};
    ASSERT_TRUE(parse_options(1, none, o));
    EXPECT_EQ(o.layouts, std::vector<Ops>{kNN});
    const char* two[] = {"sgemm_runner", "--layout", "TT,NN", "--layout", "NT"};
    ASSERT_TRUE(parse_options(5, two, o));
    EXPECT_EQ(o.layouts, (std::vector<Ops>{kTT, kNN, kNT}));
}

TEST(LayoutOption, UnknownLayoutListsValidOnes) {
    for (const char* bad : {"XX", "nt", "N", "NNN", "", "NN,,NT", "NT,bogus"}) {
        const std::string msg = message_of({bad});
        EXPECT_NE(msg.find("unknown --layout"), std::string::npos) << bad << ": " << msg;
        EXPECT_NE(msg.find("NN, NT, TN, TT"), std::string::npos) << msg;
    }
    EXPECT_NE(message_of({"TT", "XT"}).find("'XT'"), std::string::npos);
    Options o;
    const char* bad[] = {"sgemm_runner", "--layout", "XX"};
    EXPECT_THROW(parse_options(3, bad, o), UsageError);
}

// lda is M + P with A transposed and ldb K + P with B transposed: only the layouts that store a
// dimension as a row length are held to it.
TEST(LayoutOption, LeadingDimensionsFollowTheLayout) {
    EXPECT_NO_THROW(check_leading_dimensions({2147483647, 1, 1}, 1, kNN));
    EXPECT_THROW(check_leading_dimensions({2147483647, 1, 1}, 1, kTN), UsageError);  // lda = M + 1
    EXPECT_NO_THROW(check_leading_dimensions({1, 1, 2147483647}, 0, kTT));
    EXPECT_NO_THROW(check_leading_dimensions({1, 2147483646, 1}, 1, kNT));
    EXPECT_THROW(check_leading_dimensions({1, 2147483647, 1}, 1, kNT), UsageError);  // ldc = N + 1
    try {
        check_leading_dimensions({1, 1, 2147483647}, 1, kTT);  // ldb = K + 1 (lda = M + 1 is fine)
        ADD_FAILURE() << "TT with K = 2^31 - 1 and a pad of 1 was accepted";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("layout TT"), std::string::npos) << e.what();
    }
    // parse_options checks every size in every layout.
    Options o;
    const char* tn[] = {"sgemm_runner", "--size", "2147483647,1,1", "--ld-pad", "1", "--layout", "NN,TN"};
    EXPECT_THROW(parse_options(7, tn, o), UsageError);
    const char* nn[] = {"sgemm_runner", "--size", "2147483647,1,1", "--ld-pad", "1"};
    Options fresh;
    EXPECT_TRUE(parse_options(5, nn, fresh));
}

// ---- the distributions on op(A) and op(B) ----

namespace {

// A whole buffer of operand `which` as the runner lays it out, stored transposed or not, and
// element (r, c) of op(X) (op(A) M x K, op(B) K x N) read from it.
struct Stored {
    FillSpec spec;
    std::vector<float> v;
    std::size_t index(long long r, long long c) const {
        return spec.offset + (spec.transposed ? c * spec.ld + r : r * spec.ld + c);
    }
    float op(long long r, long long c) const { return v[index(r, c)]; }
};

Stored stored(Distribution d, Operand which, bool transposed, int M, int N, int K, std::uint64_t seed) {
    constexpr int kPad = 3, kOffset = 2;
    const int rows = which == Operand::kB ? K : M, cols = which == Operand::kA ? K : N;
    const int stored_rows = transposed ? cols : rows, ld = (transposed ? rows : cols) + kPad;
    Stored s{fill_spec(d, which, M, N, K, ld, kOffset, seed, transposed), {}};
    s.v.resize(kOffset + std::size_t(stored_rows) * ld + 64);
    for (std::size_t i = 0; i < s.v.size(); ++i) s.v[i] = element_value(s.spec, i);
    return s;
}

constexpr int kM = 130, kN = 70, kK = 9;

}  // namespace

// special: op(A)'s and op(B)'s Inf and NaN lie at the same (row, column) of op(X) in both storages, so
// the reference is non-finite in the same rows and columns of C: one per 64 rows of op(A) and 64
// columns of op(B), none in padding, offset or guard.
TEST(LayoutDistributions, SpecialEntriesAreThoseOfOpX) {
    for (const Operand which : {Operand::kA, Operand::kB}) {
        SCOPED_TRACE(which == Operand::kA ? "A" : "B");
        const int rows = which == Operand::kB ? kK : kM, cols = which == Operand::kA ? kK : kN;
        std::set<std::pair<int, int>> where[2];
        std::size_t nonfinite[2] = {0, 0};
        for (const bool transposed : {false, true}) {
            const Stored s = stored(Distribution::kSpecial, which, transposed, kM, kN, kK, 77);
            for (const float v : s.v) nonfinite[transposed] += !std::isfinite(v);
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c)
                    if (!std::isfinite(s.op(r, c))) where[transposed].insert({r, c});
        }
        EXPECT_EQ(where[1], where[0]);
        EXPECT_EQ(nonfinite[1], where[1].size()) << "a non-finite value outside the view";
        const int lines = which == Operand::kA ? kM : kN;  // rows of op(A), columns of op(B)
        EXPECT_EQ(where[1].size(), std::size_t((lines + 63) / 64));
        std::set<int> blocks;
        for (const auto& [r, c] : where[1]) blocks.insert((which == Operand::kA ? r : c) / 64);
        EXPECT_EQ(blocks.size(), where[1].size()) << "one per block of 64 lines";
    }
}

// scaled: every element of a row of op(A) (a column of op(B)) is its uniform value times that line's
// factor 2^r, the same factor whichever way the operand is stored.
TEST(LayoutDistributions, ScaledRowsOfOpAAndColumnsOfOpB) {
    for (const Operand which : {Operand::kA, Operand::kB}) {
        SCOPED_TRACE(which == Operand::kA ? "A" : "B");
        const int lines = which == Operand::kA ? kM : kN;
        std::vector<double> factors[2];
        for (const bool transposed : {false, true}) {
            const Stored s = stored(Distribution::kScaled, which, transposed, kM, kN, kK, 5);
            FillSpec uniform = s.spec;  // the same u at every index: scaled is u * 2^r
            uniform.distribution = Distribution::kUniform;
            for (int line = 0; line < lines; ++line) {
                std::set<double> seen;
                for (int k = 0; k < kK; ++k) {
                    const long long r = which == Operand::kA ? line : k, c = which == Operand::kA ? k : line;
                    const std::size_t i = s.index(r, c);
                    const float u = element_value(uniform, i);
                    if (u != 0) seen.insert(static_cast<double>(s.v[i]) / u);
                }
                ASSERT_EQ(seen.size(), 1u) << "line " << line << " has more than one factor";
                factors[transposed].push_back(*seen.begin());
            }
        }
        EXPECT_EQ(factors[1], factors[0]);
        EXPECT_GT(std::set<double>(factors[0].begin(), factors[0].end()).size(), 10u) << "lines are not scaled";
    }
}

// cancel: op(A)(i, k+1) = op(A)(i, k) and op(B)(k+1, j) = -op(B)(k, j) + delta for even k, in both
// storages (so op(A)(i, k) op(B)(k, j) + op(A)(i, k+1) op(B)(k+1, j) cancels to about 2^-12 of it).
TEST(LayoutDistributions, CancelPairsAlongK) {
    for (const bool transposed : {false, true}) {
        SCOPED_TRACE(transposed ? "stored transposed" : "stored as op(X)");
        const Stored a = stored(Distribution::kCancel, Operand::kA, transposed, kM, kN, kK, 9);
        const Stored b = stored(Distribution::kCancel, Operand::kB, transposed, kM, kN, kK, 9);
        int pairs = 0;
        for (int k = 0; k + 1 < kK; k += 2) {
            for (int i = 0; i < kM; ++i) ASSERT_EQ(a.op(i, k + 1), a.op(i, k)) << i << ", " << k;
            for (int j = 0; j < kN; ++j) {
                ASSERT_LE(std::fabs(double(b.op(k + 1, j)) + double(b.op(k, j))), 1.0 / 4096) << k << ", " << j;
                ASSERT_NE(b.op(k + 1, j), -b.op(k, j)) << "no delta at " << k << ", " << j;
            }
            ++pairs;
        }
        EXPECT_EQ(pairs, kK / 2);
        // The unpaired last k of an odd K is plain uniform, not a copy of its neighbour.
        int same = 0;
        for (int i = 0; i < kM; ++i) same += a.op(i, kK - 1) == a.op(i, kK - 2);
        EXPECT_LT(same, kM / 2);
    }
}
