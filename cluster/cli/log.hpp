#pragma once

// The `superstep` program's log (spdlog): the head, the workers and the commands sent to a
// head write lines on stderr, "HH:MM:SS.mmm WHO LEVEL: text" (UTC), at the level --log-level
// gives. Only the program uses it: the libraries log nothing themselves, and results go to
// stdout, never through the log.

#include <string>

namespace superstep::cli {

/// Makes the default spdlog logger write to stderr at `level` (trace, debug, info, warn,
/// error or off), naming the process `who` (head, worker NAME, client). Call once, before
/// the threads that log start.
void start_log(const std::string& who, const std::string& level);

/// Names the process `who` in the lines that follow (a worker, once it knows its name).
void rename_log(const std::string& who);

/// A line of the log at level info, warn or error.
void log_info(const std::string& line);
void log_warning(const std::string& line);
void log_error(const std::string& line);

}  // namespace superstep::cli
