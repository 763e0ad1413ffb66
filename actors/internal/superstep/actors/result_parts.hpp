// A batch's result too big for one message between processes travels in parts: the node actor
// sends the encoded result in pieces (result_part), then a closing result that says how many
// (task_batch_done::parts); whoever takes the result (the coordinator, or the run's writes
// saver) keeps the pieces and decodes the whole once it closes. CAF delivers the messages of
// one sender to one receiver in order. No message is then bigger than result_part_bytes: the
// network layer's buffers, which keep the size of the largest message they carried for as
// long as the link lasts, stay small (a task sending 10^6 Sends would hold twice its result
// in them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "superstep/actors/protocol.hpp"

namespace superstep::actors {

/// The most bytes of an encoded result that travel in one message.
inline constexpr std::size_t result_part_bytes = std::size_t{4} << 20;
/// The most bytes a result in parts may add up to (a peer sending parts without end is
/// refused, not given the receiver's memory).
inline constexpr std::size_t max_result_bytes = std::size_t{4} << 30;

/// The parts of `done`, an encoded result bigger than `part_bytes`, in order; `done` is left
/// as the result that closes them. Nothing for a smaller one (it goes whole).
std::vector<result_part> split_result(task_batch_done& done,
                                      std::size_t part_bytes = result_part_bytes);

/// Parts of results taken ahead of the results that close them, by batch id.
class result_assembly {
 public:
  /// Keeps part `p`. Throws `superstep::error` (protocol_error) naming the batch when it does
  /// not follow the batch's last part or the parts exceed max_result_bytes; the batch's later
  /// parts are then dropped, and its closing message gets the same error.
  void add(result_part p);
  /// `closing` closes a result sent in parts (its `parts` is not 0): decodes the whole from
  /// them into it. Throws `superstep::error` (protocol_error) naming the batch when parts are
  /// missing or the whole is malformed.
  void complete(task_batch_done& closing);
  void complete(pending_writes& closing);
  /// Whether parts of batch `id` are held.
  bool holds(std::uint64_t id) const { return parts_.count(id) != 0; }
  /// Drops the parts of the batches `keep` says no to (results that will never close).
  template <class Keep>
  void keep_if(Keep keep) {
    std::erase_if(parts_, [&](const auto& p) { return !keep(p.first); });
  }
  void clear() { parts_.clear(); }

 private:
  struct partial {
    std::uint32_t count = 0;
    std::string bytes;
    std::string broken;  // why its parts were refused
  };
  // The whole encoded result that `closing` closes, its parts forgotten.
  std::string take(const task_batch_done& closing);

  std::unordered_map<std::uint64_t, partial> parts_;
};

}  // namespace superstep::actors
