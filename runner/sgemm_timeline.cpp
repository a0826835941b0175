// sgemm_timeline: the measured pipeline of one block, k-tile by k-tile. Runs a *_timeline kernel (a
// tuning variant of step 08, 09 or 11 that stamps clock64() per k-tile, common/trace.cuh) on random
// inputs, twice (a warm-up, then the recorded run), and writes what the sampled blocks stamped (block 0
// and the one in the middle of the grid, their first 64 k-tiles) as CSV:
//
//   step,block,sm,role,k_tile,event,cycle
//
// event: issue (the copy of k-tile k_tile started), ready (its data is visible to the math), compute_begin,
// compute_end; cycle: SM clock cycles after the block's first stamp; role: all (steps 08, 09: thread 0
// speaks for the block), producer, consumer0, consumer1 (step 11). Needs a -DSGEMM_TUNING=ON build.
//
//   sgemm_timeline --kernel double_buffering_timeline --size 4096,4096,4096 --step 08 --out 08.csv
//
// Exit status (cli.h): 0 success, 2 usage error (before any GPU work), 3 no usable GPU or a CUDA error.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <cuda_runtime.h>

#include "cli.h"
#include "exit_status.h"
#include "common/check.h"
#include "device_buffer.h"
#include "device_info.h"
#include "problem.h"
#include "timeline.h"

using namespace sgemm;

namespace {

struct TimelineOptions {
    std::string kernel, size, out, step;
    int device = 0;
};

// "  804  double_buffering_timeline ..." for the messages that name the kernels to choose from.
std::string timeline_kernels() {
    std::string list;
    for (const KernelInfo& k : registry())
        if (records_timeline(k)) list += "\n  " + std::to_string(k.spec.number) + "  " + k.name;
    return list.empty() ? " none in this build (configure with -DSGEMM_TUNING=ON)" : list;
}

// The median of `v` (empty: 0), for the summary.
long long median_cycles(std::vector<long long> v) {
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

// One line per sampled block and role: the k-tiles it stamped, its span and the median latencies.
void print_summary(const std::vector<TimelineRow>& rows) {
    struct Stats {
        long long sm = 0, last = 0;
        std::map<int, std::map<std::string, long long>> k_tiles;  // k-tile -> event -> cycle
    };
    std::map<std::pair<long long, std::string>, Stats> by_role;
    for (const TimelineRow& r : rows) {
        Stats& s = by_role[{r.block, r.role}];
        s.sm = r.sm;
        s.last = std::max(s.last, r.cycle);
        s.k_tiles[r.k_tile][r.event] = r.cycle;
    }
    std::printf("%8s %4s %-10s %7s %10s %17s %17s %15s\n", "block", "sm", "role", "k-tiles", "last", "issue->ready",
                "ready->begin", "begin->end");
    for (const auto& [key, s] : by_role) {
        std::vector<long long> copy, wait, math;  // per k-tile, where both of its events were stamped
        for (const auto& [k_tile, e] : s.k_tiles) {
            if (e.contains("issue") && e.contains("ready")) copy.push_back(e.at("ready") - e.at("issue"));
            if (e.contains("ready") && e.contains("compute_begin"))
                wait.push_back(e.at("compute_begin") - e.at("ready"));
            if (e.contains("compute_begin") && e.contains("compute_end"))
                math.push_back(e.at("compute_end") - e.at("compute_begin"));
        }
        std::printf("%8lld %4lld %-10s %7zu %10lld %11lld (%3zu) %11lld (%3zu) %9lld (%3zu)\n", key.first, s.sm,
                    key.second.c_str(), s.k_tiles.size(), s.last, median_cycles(copy), copy.size(), median_cycles(wait),
                    wait.size(), median_cycles(math), math.size());
    }
    std::printf(
        "(cycles: medians over the k-tiles that have both events, how many in brackets. issue->ready: the copy as "
        "the math sees it; ready->begin: data there, math not yet on it; begin->end: the math on one k-tile, "
        "with the next k-tile's barrier or wait inside it)\n");
}

int run(int argc, char** argv) {
    TimelineOptions o;
    CLI::App app{
        "sgemm_timeline: runs a *_timeline kernel (tuning build) twice and writes, for block 0 and the block in "
        "the middle of the grid, when each of the first 64 k-tiles was issued, ready, and computed on, in SM "
        "cycles, as CSV (step,block,sm,role,k_tile,event,cycle).\n"
        "Exit status: 0 success, 2 usage error, 3 no usable GPU or a CUDA error."};
    app.add_option("--kernel", o.kernel, "a *_timeline kernel: number or name")->required();
    app.add_option("--size", o.size, "M,N,K")->required();
    app.add_option("--out", o.out, "the CSV file to write")->required()->type_name("FILE");
    // Required: the timeline kernels are tuning variants, and a variant's step number does not say which rung
    // it copies (914 runs sub-step 9a's configuration; scripts/pictures reads 09a.csv).
    app.add_option("--step", o.step, "the step column, the rung whose configuration the kernel runs (08, 09a, 11)")
        ->required();
    app.add_option("--device", o.device, "CUDA device index")->capture_default_str()->check(CLI::Range(0, 64));
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : kExitUsage;
    }

    // Everything that needs no GPU first: a bad command line exits 2 before any GPU work.
    const Size size = parse_size(o.size);
    const KernelInfo* kernel = find_kernel(o.kernel);
    if (!kernel) throw UsageError("unknown kernel '" + o.kernel + "'; the timeline kernels:" + timeline_kernels());
    if (!records_timeline(*kernel))
        throw UsageError("kernel " + kernel->label() +
                         " stamps no timeline; the timeline kernels:" + timeline_kernels());
    const GemmArgs shape = Problem::args_for(size, 1.0f, 0.0f, {});
    if (const std::string why = kernel->can_implement(shape); !why.empty())
        throw UsageError(kernel->label() + " cannot run " + o.size + ": " + why);
    try {
        ensure_writable(o.out);
    } catch (const UsageError&) {  // its message names the runner's --json
        throw UsageError("--out " + o.out + ": cannot create this file (does its directory exist and is it writable?)");
    }

    if (usable_device_count() == 0)
        throw NoDeviceError("no CUDA device available: the timeline is measured on an NVIDIA GPU");
    const DeviceInfo device = query_device(o.device);  // selects the device
    if (const std::string why = kernel->unmet_requirements(compute_capability(o.device)); !why.empty())
        throw UsageError(kernel->label() + " cannot run on " + device.name + ": " + why);

    Problem problem(size, 1.0f, 0.0f, Options{}.seed, /*with_reference=*/false);  // the runner's default inputs
    const GemmArgs& args = problem.args();
    const Launcher launcher = launcher_of(*kernel, args);
    if (launcher.workspace_bytes < sizeof(trace::Timeline))
        throw std::logic_error(kernel->label() + " asks for less workspace than a timeline");
    const DeviceBuffer<char> workspace(launcher.workspace_bytes);
    for (int run = 0; run < 2; ++run) {  // a warm-up (clocks, caches, the first launch's setup), then the record
        check(cudaMemsetAsync(workspace.get(), 0, workspace.bytes(), problem.stream()));  // unstamped slots: 0
        launcher.launch(args, workspace.get(), problem.stream());
        problem.synchronize_and_check();
    }
    trace::Timeline timeline;
    check(cudaMemcpy(&timeline, workspace.get(), sizeof timeline, cudaMemcpyDeviceToHost));

    const std::vector<TimelineRow> rows = timeline_rows(timeline, o.step);
    const std::string text = timeline_csv(rows);
    std::ofstream csv(o.out);
    csv << text;
    csv.close();
    if (!csv) throw std::runtime_error("could not write " + o.out);

    std::printf("%s on %s, M=%d N=%d K=%d: %s\n", kernel->label().c_str(), device.name.c_str(), size.M, size.N, size.K,
                kernel->describe(args).c_str());
    print_summary(rows);
    std::size_t head = 0;  // the header and the first 8 rows, as written
    for (int line = 0; line < 9 && head != std::string::npos; ++line) head = text.find('\n', head + 1);
    std::printf("wrote %zu rows (step %s) to %s:\n%s...\n", rows.size(), o.step.c_str(), o.out.c_str(),
                text.substr(0, head == std::string::npos ? text.size() : head + 1).c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return sgemm::exit_status_of("sgemm_timeline", [&] { return run(argc, argv); });
}
