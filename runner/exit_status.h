// The exit status of a runner program (sgemm_runner, sgemm_timeline): what its run() returns, or for what it
// throws, the message on stderr and the status its --help names (cli.h's kExit*).
#pragma once

#include <cstdio>
#include <exception>

#include "cli.h"
#include "device_info.h"
#include "problem.h"

namespace sgemm {

template <class Run>
int exit_status_of(const char* program, Run&& run) {
    try {
        return run();
    } catch (const UsageError& e) {  // bad options: before any GPU work
        std::fprintf(stderr, "%s: %s\n", program, e.what());
        return kExitUsage;
    } catch (const DoesNotFitError& e) {  // a problem larger than the device: a usage error too
        std::fprintf(stderr, "%s: %s\n", program, e.what());
        return kExitUsage;
    } catch (const NoDeviceError& e) {
        std::fprintf(stderr, "%s: %s\n", program, e.what());
        return kExitRuntime;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: error: %s\n", program, e.what());
        return kExitRuntime;
    }
}

}  // namespace sgemm
