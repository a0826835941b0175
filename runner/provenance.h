// What the runner's programs write into their JSON about how they were run: the time, and the
// command line with paths relative to the repository (committed results hold no machine's paths).
#pragma once

#include <string>

namespace sgemm {

// Now, in UTC, as 2026-11-23T15:04:05Z.
std::string utc_now();

// argv as one string: the program and every path argument (also --opt=PATH) relative to the
// repository when they lie inside it, otherwise by file name alone.
std::string portable_command_line(int argc, char** argv);

}  // namespace sgemm
