#include <gtest/gtest.h>

#include <cmath>

#include "common/registry.h"  // kTunedBaseline
#include "report.h"

using namespace sgemm;

namespace {
Report sample() {
    Report r;
    r.generated_utc = "2026-11-21T22:00:00Z";
    r.command = "sgemm_runner --kernel all";
    r.device = {0,        "NVIDIA H100 80GB HBM3", "9.0",        132,    1980,   2619,    1755, std::nullopt, 5120,
                52428800, 85021163520LL,           "580.159.04", "13.0", "13.0", "13.1.0"};
    r.settings = {1.0, 0.5, 5, 20, 42, "flushed", true, 3, 1};
    r.device.ffma_peak_tflops = 66.90816;
    r.device.dram_peak_gbs = 3352.32;
    r.build = {
        "0123456789abcdef0123456789abcdef01234567", true, "Release", "90", "NVIDIA 13.0.88", "GNU 12.2.0", false};
    r.roofline = Roofline{3021.5, 1073741824, "copy kernel", 66.90816, 128};
    Result cublas{0,     "cublas", 4096,   4096,   4096,         2.7, 2.69, 50.9,
                  100.0, 3.1e-7,   6.1e-5, 3.1e-7, std::nullopt, 0,   0,    "PASS"};
    Result naive{1, "naive", 4096, 4096, 4096, 120.5, 119.9, 1.14, 2.24, 4.5e-7, 6.1e-5, 3.1e-7, 0.0001, 0, 0, "PASS"};
    Result broken{2, "coalesced",  4096,   4096,   4096,         30,       29, 4.6,
                  9, std::nullopt, 6.1e-5, 3.1e-7, std::nullopt, 16777216, 0,  "FAIL"};
    naive.config = "32x32 threads, 1 output each";
    naive.sm_clock_before_mhz = 1980;
    naive.sm_clock_after_mhz = 1755;
    naive.roof_ms = 2.0541;
    naive.pct_roof = 1.7046;
    naive.roof_bound = "flop";
    naive.pct_tuned = 2.1;
    naive.energy_j = 1.62;
    naive.gflop_per_j = 84.58;
    naive.power_w = 412.4;
    naive.power_max_w = 455.1;
    naive.sm_clock_mhz = 1755.4;
    naive.energy_window_s = 0.5061;
    naive.energy_gemms = 5;
    Result na{9, "cp_async_multistage", 4096, 4096, 4096};
    na.status = "N/A";
    na.not_run_reason = "needs sm_80 or newer";
    na.roof_ms = 2.0541;  // the shape's roof, without a time to compare it with
    na.roof_bound = "flop";
    broken.outside_writes = 7;
    broken.missed_nonfinite = 3;
    broken.inexact = 2;
    broken.init = "special";
    r.settings.init = {"uniform", "special"};
    r.settings.energy_window_s = 0.5;
    r.energy_meter = "NVML total-energy counter";
    r.results = {cublas, naive, broken, na};
    return r;
}
}  // namespace

TEST(ReportJson, RoundTrip) {
    const Report r = sample();
    const nlohmann::json j = to_json(r);
    const Report back = report_from_json(nlohmann::json::parse(j.dump(2)));
    EXPECT_EQ(back, r);
    EXPECT_EQ(j["schema"], "sgemm-steps/2");
    EXPECT_EQ(j["build"]["git_dirty"], true);
    EXPECT_EQ(j["settings"]["ld_pad"], 3);
    EXPECT_EQ(j["results"][1]["config"], "32x32 threads, 1 output each");
    EXPECT_TRUE(j["results"][0]["sm_clock_before_mhz"].is_null());
    EXPECT_TRUE(j["results"][2]["rel_err"].is_null());
    EXPECT_TRUE(j["device"]["mem_clock_now_mhz"].is_null());
    EXPECT_EQ(j["results"][1]["tflops"], 1.14);
    EXPECT_EQ(j["settings"]["init"], nlohmann::json({"uniform", "special"}));
    EXPECT_EQ(j["results"][0]["init"], "uniform");
    EXPECT_EQ(j["results"][2]["init"], "special");
    EXPECT_EQ(j["results"][2]["missed_nonfinite"], 3);
    EXPECT_EQ(j["results"][2]["inexact"], 2);
    EXPECT_EQ(j["results"][1]["roof_ms"], 2.0541);
    EXPECT_EQ(j["results"][1]["pct_roof"], 1.7046);
    EXPECT_EQ(j["results"][1]["roof_bound"], "flop");
    EXPECT_TRUE(j["results"][3]["pct_roof"].is_null());
    EXPECT_TRUE(j["results"][0]["roof_bound"].is_null());
    EXPECT_EQ(j["device"]["ffma_peak_tflops"], 66.90816);
    EXPECT_EQ(j["device"]["dram_peak_gbs"], 3352.32);
    EXPECT_EQ(j["roofline"]["dram_gbs_measured"], 3021.5);
    EXPECT_EQ(j["roofline"]["copy_bytes"], 1073741824);
    EXPECT_EQ(j["roofline"]["method"], "copy kernel");
    EXPECT_EQ(j["roofline"]["ffma_peak_tflops"], 66.90816);
    EXPECT_EQ(j["results"][1]["pct_tuned"], 2.1);
    EXPECT_TRUE(j["results"][0].contains("pct_tuned") && j["results"][0]["pct_tuned"].is_null());
    EXPECT_EQ(j["tuned_baseline"], kTunedBaseline);
    EXPECT_EQ(j["results"][1]["energy_j"], 1.62);
    EXPECT_EQ(j["results"][1]["gflop_per_j"], 84.58);
    EXPECT_EQ(j["results"][1]["power_w"], 412.4);
    EXPECT_EQ(j["results"][1]["power_max_w"], 455.1);
    EXPECT_EQ(j["results"][1]["sm_clock_mhz"], 1755.4);
    EXPECT_EQ(j["results"][1]["energy_window_s"], 0.5061);
    EXPECT_EQ(j["results"][1]["energy_gemms"], 5);
    for (const char* key :
         {"energy_j", "gflop_per_j", "power_w", "power_max_w", "sm_clock_mhz", "energy_window_s", "energy_gemms"})
        EXPECT_TRUE(j["results"][0].contains(key) && j["results"][0][key].is_null()) << key;
    EXPECT_EQ(j["settings"]["energy_window_s"], 0.5);
    EXPECT_EQ(j["energy_meter"], "NVML total-energy counter");
}

TEST(ReportJson, NoRooflineIsNull) {
    Report r = sample();
    r.roofline.reset();
    r.device.ffma_peak_tflops.reset();
    const nlohmann::json j = nlohmann::json::parse(to_json(r).dump());
    EXPECT_TRUE(j.contains("roofline") && j["roofline"].is_null());
    EXPECT_TRUE(j["device"]["ffma_peak_tflops"].is_null());
    EXPECT_EQ(report_from_json(j), r);
}

TEST(ReportJson, ReadsSchemaOneFiles) {
    nlohmann::json j = to_json(sample());
    j["schema"] = "sgemm-steps/1";
    j.erase("build");
    j["settings"].erase("ld_pad");
    j["settings"].erase("offset");
    j["settings"].erase("init");
    j.erase("roofline");
    j["device"].erase("ffma_peak_tflops");
    j["device"].erase("dram_peak_gbs");
    for (auto& x : j["results"])
        for (const char* key : {"config",
                                "precision",
                                "not_run_reason",
                                "workspace_bytes",
                                "sm_clock_before_mhz",
                                "sm_clock_after_mhz",
                                "mem_clock_before_mhz",
                                "mem_clock_after_mhz",
                                "tune_candidate",
                                "picked",
                                "outside_writes",
                                "init",
                                "missed_nonfinite",
                                "inexact",
                                "roof_ms",
                                "pct_roof",
                                "roof_bound",
                                "pct_tuned",
                                "energy_j",
                                "gflop_per_j",
                                "power_w",
                                "power_max_w",
                                "sm_clock_mhz",
                                "energy_window_s",
                                "energy_gemms"})
            x.erase(key);
    j["settings"].erase("energy_window_s");
    j.erase("energy_meter");
    const Report r = report_from_json(j);
    EXPECT_FALSE(r.results[1].energy_j);
    EXPECT_FALSE(r.results[1].energy_gemms);
    EXPECT_FALSE(r.settings.energy_window_s);
    EXPECT_FALSE(r.energy_meter);
    EXPECT_FALSE(r.roofline);
    EXPECT_FALSE(r.device.ffma_peak_tflops);
    EXPECT_FALSE(r.device.dram_peak_gbs);
    EXPECT_FALSE(r.results[1].roof_ms);
    EXPECT_FALSE(r.results[1].pct_roof);
    EXPECT_FALSE(r.results[1].roof_bound);
    EXPECT_FALSE(r.results[1].pct_tuned);
    EXPECT_EQ(r.device.sm_count, 132);
    EXPECT_EQ(r.settings.ld_pad, 0);
    EXPECT_EQ(r.settings.init, std::vector<std::string>{"uniform"});
    EXPECT_EQ(r.results[2].init, "uniform");
    EXPECT_EQ(r.results[2].missed_nonfinite, 0u);
    EXPECT_EQ(r.build.git_commit, "unknown");
    EXPECT_EQ(r.results[1].median_ms, 120.5);
}

TEST(ReportJson, NonFiniteNumbersBecomeNull) {
    Report r = sample();
    r.results[2].rel_err = std::nan("");
    const nlohmann::json j = nlohmann::json::parse(to_json(r).dump());
    EXPECT_TRUE(j["results"][2]["rel_err"].is_null());
    EXPECT_FALSE(report_from_json(j).results[2].rel_err.has_value());
}

TEST(ReportJson, MalformedInputThrows) {
    nlohmann::json j = to_json(sample());
    j["results"][0].erase("median_ms");
    EXPECT_THROW(report_from_json(j), nlohmann::json::exception);
    EXPECT_THROW(report_from_json(nlohmann::json::parse("{}")), nlohmann::json::exception);
}

TEST(ReportTable, RowShowsTheNumbersAndStatus) {
    const Report r = sample();
    const std::string row = table_row(r.results[1]);
    EXPECT_NE(row.find("naive"), std::string::npos);
    EXPECT_NE(row.find("120.5000"), std::string::npos);
    EXPECT_NE(row.find("2.2%"), std::string::npos);
    EXPECT_NE(row.find("PASS"), std::string::npos);
    const std::string bad = table_row(r.results[2]);
    EXPECT_NE(bad.find("FAIL"), std::string::npos);
    EXPECT_NE(bad.find("16777216 NaN/Inf where R is finite, 3 finite where R is NaN/Inf"), std::string::npos) << bad;
    EXPECT_NE(bad.find("2 not exact"), std::string::npos) << bad;
    EXPECT_NE(bad.find("7 elements written outside the C view"), std::string::npos);
    EXPECT_NE(table_row(r.results[3]).find("N/A (needs sm_80 or newer)"), std::string::npos);
    EXPECT_NE(device_header(r.device).find("580.159.04"), std::string::npos);
}

TEST(ReportTable, RoofColumnFollowsCublas) {
    const Report r = sample();
    const std::string header = table_header();
    EXPECT_NE(header.find("% cuBLAS  % roof    rel err"), std::string::npos) << header;
    // naive: 2.2 % of cuBLAS, then 1.7 % of its roof; cuBLAS's row has no roof: "-".
    EXPECT_NE(table_row(r.results[1]).find("2.2%    1.7%   4.50e-07"), std::string::npos) << table_row(r.results[1]);
    EXPECT_NE(table_row(r.results[0]).find("100.0%       - "), std::string::npos) << table_row(r.results[0]);
    // Every row lines up with the header: the check column starts at the same place.
    EXPECT_EQ(table_row(r.results[1]).find("PASS"), header.find("check"));
    EXPECT_EQ(table_row(r.results[3]).find("N/A"), header.find("check"));
}

TEST(ReportTable, RooflineHeaderStatesBothRates) {
    const Report r = sample();
    EXPECT_EQ(roofline_header(r.device, r.roofline),
              "roofline: FFMA 66.9 TFLOP/s (128 lanes x 132 SMs x 1980 MHz, max clock; theoretical), "
              "DRAM 3.02 TB/s measured (copy kernel, read + written, 1.00 GiB)\n");
    Roofline unknown = *r.roofline;
    unknown.ffma_peak_tflops.reset();
    EXPECT_EQ(roofline_header(r.device, unknown)
                  .find("roofline: FFMA peak unknown for compute capability 9.0 (no "
                        "roof), DRAM 3.02"),
              0u);
    EXPECT_EQ(roofline_header(r.device, std::nullopt), "roofline: not measured (--no-roofline)\n");
}

// Where the tuned baseline ran in a table: a % tuned column right after % cuBLAS, "-" on rows without one
// (N/A), every row still lined up with the header; without it the table is as before.
TEST(ReportTable, TunedColumnFollowsCublasWhereTheTunedBaselineRan) {
    const Report r = sample();
    const std::string header = table_header(true);
    EXPECT_NE(header.find("% cuBLAS   % tuned  % roof    rel err"), std::string::npos) << header;
    EXPECT_EQ(table_header(false).find("% tuned"), std::string::npos);
    EXPECT_NE(table_row(r.results[1], true).find("2.2%      2.1%    1.7%   4.50e-07"), std::string::npos)
        << table_row(r.results[1], true);
    EXPECT_NE(table_row(r.results[0], true).find("100.0%         -       - "), std::string::npos)
        << table_row(r.results[0], true);
    for (const Result& row : r.results) {
        const std::string line = table_row(row, true);
        EXPECT_EQ(line.find(row.status == "N/A" ? "N/A" : row.status), header.find("check")) << line;
        EXPECT_EQ(table_row(row, false), table_row(row)) << "no column without the tuned baseline";
        EXPECT_EQ(table_row(row, false).find("2.1%"), std::string::npos);
    }
}

// --energy: J/GEMM, GFLOP/J, W and SM MHz between max|d cuB| and check, every row lined up with the header;
// "n/a" where a row that ran has no figure (no NVML), "-" on N/A rows; without --energy the table is as before.
TEST(ReportTable, EnergyColumnsBeforeCheck) {
    const Report r = sample();
    const std::string header = table_header(true, true);
    EXPECT_NE(header.find("max|d cuB|    J/GEMM  GFLOP/J     W SM MHz  check"), std::string::npos) << header;
    EXPECT_EQ(table_header(true, false), table_header(true));
    EXPECT_NE(table_row(r.results[1], true, true).find("     1.62     84.6   412   1755  PASS"), std::string::npos)
        << table_row(r.results[1], true, true);
    EXPECT_NE(table_row(r.results[0], true, true).find("       n/a      n/a   n/a    n/a  PASS"), std::string::npos)
        << table_row(r.results[0], true, true);
    EXPECT_NE(table_row(r.results[3], true, true).find("         -        -     -      -  N/A"), std::string::npos)
        << table_row(r.results[3], true, true);
    for (const Result& row : r.results) {
        EXPECT_EQ(table_row(row, true, true).find(row.status), header.find("check")) << table_row(row, true, true);
        EXPECT_EQ(table_row(row, true, false), table_row(row, true)) << "no energy columns without --energy";
    }
}
