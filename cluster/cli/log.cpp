#include "cli/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace superstep::cli {

void start_log(const std::string& who, const std::string& level) {
  // Colours only when stderr is a terminal; every line reaches stderr as it is logged (the
  // tests and scripts that start a head read its log as it grows).
  auto logger = spdlog::stderr_color_mt(who);
  logger->set_pattern("%H:%M:%S.%e %n %^%l%$: %v", spdlog::pattern_time_type::utc);
  logger->set_level(spdlog::level::from_str(level));
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(std::move(logger));
}

void rename_log(const std::string& who) {
  auto renamed = spdlog::default_logger()->clone(who);
  spdlog::set_default_logger(std::move(renamed));
}

void log_info(const std::string& line) { spdlog::info(line); }
void log_warning(const std::string& line) { spdlog::warn(line); }
void log_error(const std::string& line) { spdlog::error(line); }

}  // namespace superstep::cli
