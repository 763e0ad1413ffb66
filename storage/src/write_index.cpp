#include "superstep/storage/write_index.hpp"

#include "superstep/checkpoint/constants.hpp"

namespace superstep::storage {

int write_index(std::string_view channel, std::size_t position) noexcept {
  if (channel == ERROR) return error_write_index;
  if (channel == SCHEDULED) return scheduled_write_index;
  if (channel == INTERRUPT) return interrupt_write_index;
  if (channel == RESUME) return resume_write_index;
  return static_cast<int>(position);
}

}  // namespace superstep::storage
