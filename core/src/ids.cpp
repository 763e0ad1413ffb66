#include "superstep/core/ids.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>

namespace superstep {

namespace {

// 100 ns intervals between the Gregorian epoch (1582-10-15) and the Unix epoch.
constexpr std::uint64_t gregorian_offset = 0x01B21DD213814000ULL;

void append_hex(std::string& out, std::uint64_t v, int digits) {
  static const char hex[] = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i) out += hex[(v >> (4 * i)) & 15];
}

std::string format_uuid(std::uint64_t hi, std::uint64_t lo) {
  std::string s;
  s.reserve(36);
  append_hex(s, hi >> 32, 8);
  s += '-';
  append_hex(s, (hi >> 16) & 0xFFFF, 4);
  s += '-';
  append_hex(s, hi & 0xFFFF, 4);
  s += '-';
  append_hex(s, lo >> 48, 4);
  s += '-';
  append_hex(s, lo & 0xFFFFFFFFFFFFULL, 12);
  return s;
}

}  // namespace

checkpoint_id_generator::checkpoint_id_generator() {
  std::random_device rd;
  node_ = ((static_cast<std::uint64_t>(rd()) << 32) | rd()) & 0xFFFFFFFFFFFFULL;
  clock_seq_ = static_cast<std::uint16_t>(rd() & 0x3FFF);
}

std::string checkpoint_id_generator::next() {
  using namespace std::chrono;
  auto now = duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count();
  std::uint64_t ticks = static_cast<std::uint64_t>(now / 100) + gregorian_offset;
  if (ticks <= last_ticks_) ticks = last_ticks_ + 1;
  last_ticks_ = ticks;
  // uuid6 layout: 48 high bits of time, version 6, 12 low bits of time.
  std::uint64_t t = ticks & 0x0FFFFFFFFFFFFFFFULL;
  std::uint64_t hi = ((t >> 12) << 16) | (0x6ULL << 12) | (t & 0xFFF);
  std::uint64_t lo = (static_cast<std::uint64_t>(0x8000 | clock_seq_) << 48) | node_;
  return format_uuid(hi, lo);
}

std::uint64_t stable_hash(std::string_view data, std::uint64_t seed) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ (seed * 0x9E3779B97F4A7C15ULL);
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  // murmur3 finaliser
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

std::string task_id(std::string_view checkpoint_id, std::string_view checkpoint_ns,
                    std::int64_t step, std::string_view node, std::string_view kind,
                    std::string_view discriminator) {
  std::string key;
  key.reserve(checkpoint_id.size() + checkpoint_ns.size() + node.size() + kind.size() +
              discriminator.size() + 32);
  key.append(checkpoint_id).append(1, '\0');
  key.append(checkpoint_ns).append(1, '\0');
  key.append(std::to_string(step)).append(1, '\0');
  key.append(node).append(1, '\0');
  key.append(kind).append(1, '\0');
  key.append(discriminator);
  std::uint64_t hi = stable_hash(key, 1), lo = stable_hash(key, 2);
  hi = (hi & ~0xF000ULL) | 0x5000ULL;                         // version 5 (name-based)
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  return format_uuid(hi, lo);
}

std::string now_iso8601() {
  using namespace std::chrono;
  auto now = system_clock::now();
  auto us = duration_cast<microseconds>(now.time_since_epoch()).count() % 1000000;
  std::time_t t = system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lld+00:00", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(us));
  return buf;
}

}  // namespace superstep
