#include "superstep/core/ids.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>

#include "superstep/core/error.hpp"

namespace superstep {

namespace {

// murmur3's 64-bit finaliser: every input bit affects every output bit.
std::uint64_t fmix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

// 100 ns intervals between the Gregorian epoch (1582-10-15) and the Unix epoch.
constexpr std::uint64_t gregorian_offset = 0x01B21DD213814000ULL;

std::string format_uuid(std::uint64_t hi, std::uint64_t lo) {
  static const char hex[] = "0123456789abcdef";
  std::string s(36, '-');
  char* out = s.data();
  // Byte by byte, skipping the dashes at 8, 13, 18 and 23.
  static constexpr int positions[16] = {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34};
  for (int i = 0; i < 16; ++i) {
    std::uint64_t word = i < 8 ? hi : lo;
    unsigned byte = static_cast<unsigned>(word >> (8 * (7 - (i & 7)))) & 0xFF;
    out[positions[i]] = hex[byte >> 4];
    out[positions[i] + 1] = hex[byte & 15];
  }
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

void checkpoint_id_generator::after(std::string_view id) {
  // "tttttttt-tttt-6ttt-...": the 60 bits of time are the first 16 hex digits but the version.
  if (id.size() != 36 || id[8] != '-' || id[13] != '-' || id[14] != '6') return;
  std::uint64_t hi = 0;
  for (std::size_t i = 0; i < 18; ++i) {
    if (i == 8 || i == 13) continue;
    const char c = id[i];
    unsigned digit;
    if (c >= '0' && c <= '9')
      digit = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      digit = static_cast<unsigned>(c - 'a' + 10);
    else
      return;
    hi = (hi << 4) | digit;
  }
  const std::uint64_t ticks = ((hi >> 16) << 12) | (hi & 0xFFF);
  // Ids of the same tick with a higher clock sequence or node would sort after ours.
  last_ticks_ = std::max(last_ticks_, ticks);
}

std::uint64_t stable_hash(std::string_view data, std::uint64_t seed) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ (seed * 0x9E3779B97F4A7C15ULL);
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return fmix64(h);
}

namespace {

// Two 64-bit lanes fed 8 bytes at a time, each part followed by a separator, so the parts'
// boundaries matter: ("ab", "c") and ("a", "bc") hash differently.
class hash128 {
 public:
  hash128() = default;
  hash128(std::uint64_t a, std::uint64_t b) : a_(a), b_(b) {}
  std::uint64_t a() const { return a_; }
  std::uint64_t b() const { return b_; }
  void add(std::string_view part) {
    const char* p = part.data();
    std::size_t n = part.size();
    while (n >= 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      mix(w);
      p += 8;
      n -= 8;
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, p, n);
    mix(tail ^ (static_cast<std::uint64_t>(n + 1) << 56));
  }
  void add(std::int64_t v) { mix(static_cast<std::uint64_t>(v) ^ 0x5bd1e9955bd1e995ULL); }
  std::uint64_t hi() const { return fmix64(a_ ^ (b_ >> 1)); }
  std::uint64_t lo() const { return fmix64(b_ ^ (a_ << 1) ^ 0x2545F4914F6CDD1DULL); }

 private:
  void mix(std::uint64_t w) {
    a_ = (a_ ^ w) * 0x9E3779B97F4A7C15ULL;
    a_ ^= a_ >> 29;
    b_ = (b_ + w) * 0xC2B2AE3D27D4EB4FULL;
    b_ ^= b_ >> 31;
  }
  std::uint64_t a_ = 0x243F6A8885A308D3ULL;
  std::uint64_t b_ = 0x13198A2E03707344ULL;
};

std::string finish_id(const hash128& h) {
  std::uint64_t hi = (h.hi() & ~0xF000ULL) | 0x5000ULL;                         // version 5
  std::uint64_t lo = (h.lo() & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122
  return format_uuid(hi, lo);
}

std::string_view index_text(std::uint64_t index, char (&buf)[24]) {
  auto r = std::to_chars(buf, buf + sizeof buf, index);
  return std::string_view(buf, static_cast<std::size_t>(r.ptr - buf));
}

}  // namespace

task_id_hasher::task_id_hasher(std::string_view checkpoint_id, std::string_view checkpoint_ns,
                               std::int64_t step, std::string_view node, std::string_view kind) {
  hash128 h;
  h.add(checkpoint_id);
  h.add(checkpoint_ns);
  h.add(step);
  h.add(node);
  h.add(kind);
  a_ = h.a();
  b_ = h.b();
}

std::string task_id_hasher::id(std::string_view discriminator) const {
  hash128 h(a_, b_);
  h.add(discriminator);
  return finish_id(h);
}

std::string task_id_hasher::id(std::uint64_t index) const {
  char buf[24];
  return id(index_text(index, buf));
}

std::string task_id(std::string_view checkpoint_id, std::string_view checkpoint_ns,
                    std::int64_t step, std::string_view node, std::string_view kind,
                    std::string_view discriminator) {
  return task_id_hasher(checkpoint_id, checkpoint_ns, step, node, kind).id(discriminator);
}

std::string task_id(std::string_view checkpoint_id, std::string_view checkpoint_ns,
                    std::int64_t step, std::string_view node, std::string_view kind,
                    std::uint64_t index) {
  char buf[24];
  return task_id(checkpoint_id, checkpoint_ns, step, node, kind, index_text(index, buf));
}

namespace {

// Writes `v` as `width` decimal digits ending just before `end`.
void put_digits(char* end, std::uint64_t v, int width) {
  for (int i = 0; i < width; ++i, v /= 10) *--end = static_cast<char>('0' + v % 10);
}

}  // namespace

std::string iso8601_from_micros(std::int64_t micros) {
  // Floor divisions (times before 1970 count down), then the civil date of a day number
  // (H. Hinnant's days-to-civil algorithm): every checkpoint stamps its time, and snprintf
  // with gmtime cost ~4k instructions of a ~50k-instruction checkpointed step.
  std::int64_t secs = micros / 1000000, us = micros % 1000000;
  if (us < 0) us += 1000000, --secs;
  std::int64_t days = secs / 86400, sod = secs % 86400;
  if (sod < 0) sod += 86400, --days;
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<std::uint64_t>(days - era * 146097);
  const std::uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::uint64_t mp = (5 * doy + 2) / 153;
  const std::uint64_t day = doy - (153 * mp + 2) / 5 + 1;
  const std::uint64_t month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = static_cast<std::int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 0 || year > 9999)
    throw error(error_code::invalid_argument,
                "iso8601_from_micros: year " + std::to_string(year) + " is out of 0..9999");
  std::string out = "0000-00-00T00:00:00.000000+00:00";
  char* p = out.data();
  put_digits(p + 4, static_cast<std::uint64_t>(year), 4);
  put_digits(p + 7, month, 2);
  put_digits(p + 10, day, 2);
  put_digits(p + 13, static_cast<std::uint64_t>(sod / 3600), 2);
  put_digits(p + 16, static_cast<std::uint64_t>(sod / 60 % 60), 2);
  put_digits(p + 19, static_cast<std::uint64_t>(sod % 60), 2);
  put_digits(p + 26, static_cast<std::uint64_t>(us), 6);
  return out;
}

std::string now_iso8601() {
  using namespace std::chrono;
  return iso8601_from_micros(
      duration_cast<microseconds>(system_clock::now().time_since_epoch()).count());
}

}  // namespace superstep
