#include "superstep/actors/result_parts.hpp"

#include <algorithm>
#include <utility>

#include "superstep/core/error.hpp"

namespace superstep::actors {

std::vector<result_part> split_result(task_batch_done& done, std::size_t part_bytes) {
  std::vector<result_part> parts;
  if (part_bytes == 0 || done.encoded.size() <= part_bytes) return parts;
  const std::string& bytes = done.encoded;
  for (std::size_t at = 0; at < bytes.size(); at += part_bytes) {
    result_part p;
    p.batch = done.id;
    p.index = static_cast<std::uint32_t>(parts.size());
    p.bytes.assign(bytes, at, std::min(part_bytes, bytes.size() - at));
    parts.push_back(std::move(p));
  }
  task_batch_done closing;
  closing.id = done.id;
  closing.parts = static_cast<std::uint32_t>(parts.size());
  done.encoded = wire_codec::encode(closing);
  done.parts = closing.parts;
  return parts;
}

void result_assembly::add(result_part p) {
  partial& have = parts_[p.batch];
  if (!have.broken.empty()) return;  // refused already: its closing message says why
  const auto refuse = [&](std::string why) {
    have.broken = "result of batch " + std::to_string(p.batch) + ": " + std::move(why);
    have.bytes = std::string();
    throw error(error_code::protocol_error, have.broken);
  };
  if (p.index != have.count)
    refuse("part " + std::to_string(p.index) + " came after " + std::to_string(have.count));
  if (have.bytes.size() + p.bytes.size() > max_result_bytes)
    refuse("its parts exceed " + std::to_string(max_result_bytes >> 20) + " MB");
  ++have.count;
  if (have.bytes.empty())
    have.bytes = std::move(p.bytes);
  else
    have.bytes += p.bytes;
}

std::string result_assembly::take(const task_batch_done& closing) {
  auto it = parts_.find(closing.id);
  if (it != parts_.end() && !it->second.broken.empty()) {
    const std::string why = std::move(it->second.broken);
    parts_.erase(it);
    throw error(error_code::protocol_error, why);
  }
  const std::uint32_t got = it == parts_.end() ? 0 : it->second.count;
  if (got != closing.parts) {
    if (it != parts_.end()) parts_.erase(it);
    throw error(error_code::protocol_error, "result of batch " + std::to_string(closing.id) +
                                                " came in " + std::to_string(closing.parts) +
                                                " parts, " + std::to_string(got) +
                                                " of which arrived");
  }
  std::string bytes = std::move(it->second.bytes);
  parts_.erase(it);
  return bytes;
}

namespace {

// Decodes the whole result `bytes` into `closing`, the message that closed it.
template <class Result>
void decode_whole(const std::string& bytes, Result& closing) {
  Result whole;
  wire_codec::decode(bytes, whole);
  if (whole.id != closing.id || whole.parts != 0)
    throw error(error_code::protocol_error,
                "result of batch " + std::to_string(closing.id) + ": its parts hold another");
  closing = std::move(whole);
}

}  // namespace

void result_assembly::complete(task_batch_done& closing) {
  if (closing.parts != 0) decode_whole(take(closing), closing);
}

void result_assembly::complete(pending_writes& closing) {
  if (closing.parts != 0) decode_whole(take(closing), closing);
}

}  // namespace superstep::actors
