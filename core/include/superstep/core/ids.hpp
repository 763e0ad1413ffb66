#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace superstep {

/// Issues checkpoint ids: uuid6-style strings (36 characters) that sort lexicographically in
/// the order they were issued, even when the clock stands still or steps back.
/// Not thread-safe: each coordinator owns one.
class checkpoint_id_generator {
 public:
  checkpoint_id_generator();
  std::string next();
  /// The ids issued from now on sort after `id` (a thread's latest checkpoint, issued by any
  /// process at any time), whatever the clock says. An id not in uuid6 form is ignored.
  void after(std::string_view id);

 private:
  std::uint64_t last_ticks_ = 0;
  std::uint64_t node_;
  std::uint16_t clock_seq_;
};

/// A deterministic task id in uuid format: a 128-bit hash of the parts that identify a task
/// (checkpoint id, namespace, step, node, kind, triggers or Send index). The same parts give
/// the same id on any machine.
std::string task_id(std::string_view checkpoint_id, std::string_view checkpoint_ns,
                    std::int64_t step, std::string_view node, std::string_view kind,
                    std::string_view discriminator);
/// The same, for a numbered task (a Send's index).
std::string task_id(std::string_view checkpoint_id, std::string_view checkpoint_ns,
                    std::int64_t step, std::string_view node, std::string_view kind,
                    std::uint64_t index);

/// Task ids of the many tasks that share all parts but the last (the Sends of one node in
/// one step): the common parts are hashed once. `id(i)` equals `task_id(..., i)`.
class task_id_hasher {
 public:
  task_id_hasher(std::string_view checkpoint_id, std::string_view checkpoint_ns, std::int64_t step,
                 std::string_view node, std::string_view kind);
  std::string id(std::uint64_t index) const;
  std::string id(std::string_view discriminator) const;

 private:
  std::uint64_t a_, b_;
};

/// A 64-bit FNV-1a style hash with a strong finaliser, stable across platforms.
std::uint64_t stable_hash(std::string_view data, std::uint64_t seed = 0) noexcept;

/// The current UTC time as ISO 8601 with microseconds ("2026-11-21T06:50:57.123456+00:00").
std::string now_iso8601();

/// The same for a time given in microseconds since 1970-01-01 UTC (years 0 to 9999).
std::string iso8601_from_micros(std::int64_t micros);

}  // namespace superstep
