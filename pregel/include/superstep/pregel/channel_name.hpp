#pragma once

// A name kept once per process (channel_name): what staged writes and tasks name their
// channel and node by. Plain data, no actor headers.

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>

namespace superstep::actors {

/// A name as a staged write (its channel's) or a task (its node's) carries it: a pointer to the
/// process's one copy of that name (8 bytes, where a std::string takes 32, and a name past 15
/// characters a heap block more; a fan-out stages 10^6 writes, two per task beside the
/// coordinator, and holds 10^6 tasks). Reads as a `const std::string&`. The process keeps at
/// most 65,536 names; past that, a new name is a copy of its own, held by this object (as a
/// std::string would be), so that names made up without end (a graph per run with fresh node names,
/// or a peer's bad writes) cost only while they are used.
class channel_name {
 public:
  channel_name() noexcept : p_(reinterpret_cast<std::uintptr_t>(&none_)) {}
  channel_name(std::string_view name);
  channel_name(const std::string& name) : channel_name(std::string_view(name)) {}
  channel_name(const char* name) : channel_name(std::string_view(name)) {}
  channel_name(const channel_name& o) : p_(o.owned() ? own(o.str()) : o.p_) {}
  channel_name(channel_name&& o) noexcept : p_(o.p_) {
    o.p_ = reinterpret_cast<std::uintptr_t>(&none_);
  }
  channel_name& operator=(const channel_name& o) {
    if (this != &o) *this = channel_name(o);
    return *this;
  }
  channel_name& operator=(channel_name&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~channel_name() {
    if (owned()) delete &str();
  }

  const std::string& str() const noexcept {
    return *reinterpret_cast<const std::string*>(p_ & ~std::uintptr_t{1});
  }
  operator const std::string&() const noexcept { return str(); }
  operator std::string_view() const noexcept { return str(); }
  bool empty() const noexcept { return str().empty(); }
  std::size_t size() const noexcept { return str().size(); }
  const char* c_str() const noexcept { return str().c_str(); }

  friend bool operator==(const channel_name& a, const channel_name& b) noexcept {
    return a.p_ == b.p_ || ((a.owned() || b.owned()) && a.str() == b.str());
  }
  friend bool operator==(const channel_name& a, const std::string& b) noexcept {
    return a.str() == b;
  }
  friend bool operator==(const channel_name& a, std::string_view b) noexcept {
    return a.str() == b;
  }
  friend bool operator==(const channel_name& a, const char* b) noexcept { return a.str() == b; }

 private:
  // The empty name (never in the table).
  static inline const std::string none_{};
  // The name's address, its lowest bit set when this object owns it (not in the table).
  std::uintptr_t p_;
  bool owned() const noexcept { return (p_ & 1u) != 0; }
  static std::uintptr_t own(const std::string& name);
};

inline bool operator<(const channel_name& a, const channel_name& b) noexcept {
  return a.str() < b.str();
}
inline std::string operator+(const channel_name& a, std::string_view b) {
  std::string out = a.str();
  out.append(b);
  return out;
}
inline std::string operator+(const channel_name& a, const char* b) {
  return a + std::string_view(b);
}
inline std::string operator+(const channel_name& a, char b) {
  std::string out = a.str();
  out.push_back(b);
  return out;
}
inline std::string operator+(std::string a, const channel_name& b) {
  a.append(b.str());
  return a;
}
inline std::string operator+(const char* a, const channel_name& b) { return std::string(a) + b; }
std::ostream& operator<<(std::ostream& os, const channel_name& n);

}  // namespace superstep::actors
