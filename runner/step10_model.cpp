// step10_model: step 10's planner (kernels/10_every_shape/planner.h) on a GPU described by its
// numbers, without a GPU: for each shape read from standard input as "M N K beta_zero b_aligned
// [c_aligned]" (0/1 flags; c_aligned defaults to b_aligned), one line per plan:
// "M N K beta_zero b_aligned c_aligned|description|class|seconds|picked". scripts/calibrate_planner
// compares these with sgemm_runner --tune measurements. Exit status: 0, or 2 on bad input.
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "10_every_shape/planner.h"

int main(int argc, char** argv) {
    step10::DeviceModel d;  // an H200 unless told otherwise
    double clock_mhz = d.sm_clock_hz / 1e6, mem_clock_mhz = d.mem_clock_hz / 1e6;
    std::string calibration;
    CLI::App app{
        "step10_model: step 10's plans and modelled times for shapes read from stdin (M N K beta_zero b_aligned "
        "[c_aligned])"};
    app.add_option("--cc", d.cc, "compute capability x 10")->capture_default_str()->check(CLI::Range(50, 200));
    app.add_option("--sms", d.sms, "SM count")->capture_default_str()->check(CLI::Range(1, 1024));
    app.add_option("--clock-mhz", clock_mhz, "maximum SM clock")
        ->capture_default_str()
        ->check(CLI::Range(1.0, 10000.0));
    app.add_option("--mem-clock-mhz", mem_clock_mhz, "memory clock")
        ->capture_default_str()
        ->check(CLI::Range(1.0, 100000.0));
    app.add_option("--bus-bits", d.bus_bits, "memory bus width")->capture_default_str()->check(CLI::Range(1, 65536));
    app.add_option("--calibration", calibration, "a calibration file (default: none, every scale 1)")
        ->check(CLI::ExistingFile);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    d.sm_clock_hz = clock_mhz * 1e6;
    d.mem_clock_hz = mem_clock_mhz * 1e6;
    try {
        if (!calibration.empty()) d.cal = step10::read_calibration(calibration);
        std::string line;
        while (std::getline(std::cin, line)) {
            std::istringstream words(line);
            long long M = 0, N = 0, K = 0;
            int beta_zero = 1, b_aligned = 1, c_aligned = -1;
            if (!(words >> M >> N >> K >> beta_zero >> b_aligned)) continue;
            if (!(words >> c_aligned)) c_aligned = b_aligned;  // the runner's views: ldb = ldc = N
            if (M < 1 || N < 1 || K < 1 || M > 2147483647 || N > 2147483647 || K > 2147483647)
                throw std::invalid_argument("sizes must lie in [1, 2^31 - 1]: " + line);
            const step10::Shape s{static_cast<int>(M), static_cast<int>(N), static_cast<int>(K),
                                  beta_zero != 0,      b_aligned != 0,      c_aligned != 0};
            const std::vector<step10::Plan> plans = step10::all_plans(s, d);
            const std::string picked = step10::pick_among(s, plans).describe();
            for (const step10::Plan& p : plans)
                std::printf("%lld %lld %lld %d %d %d|%s|%s|%.9g|%d\n", M, N, K, beta_zero != 0, b_aligned != 0,
                            c_aligned != 0, p.describe().c_str(), step10::kClassNames[step10::plan_class(p)], p.seconds,
                            p.describe() == picked);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "step10_model: %s\n", e.what());
        return 2;
    }
    return 0;
}
