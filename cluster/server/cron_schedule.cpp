// Cron schedules (server/cron_schedule.hpp).
#include "server/cron_schedule.hpp"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace superstep::server {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string part;
  for (char c : text) {
    if (c == sep) {
      out.push_back(part);
      part.clear();
    } else {
      part.push_back(c);
    }
  }
  out.push_back(part);
  return out;
}

std::vector<std::string> fields_of(const std::string& text) {
  std::vector<std::string> out;
  std::string part;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!part.empty()) out.push_back(part);
      part.clear();
    } else {
      part.push_back(c);
    }
  }
  if (!part.empty()) out.push_back(part);
  return out;
}

struct field_rule {
  const char* name;
  int low, high;
  const char* const* names;  // names of low, low + 1, ... (or null)
};

constexpr const char* month_names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                       "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr const char* weekday_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

int number_of(const std::string& text, const field_rule& rule) {
  if (rule.names) {
    std::string lower;
    for (char c : text)
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    const int count = rule.high - rule.low + 1;
    for (int i = 0; i < count && i < 12; ++i)
      if (rule.names[i] && lower == rule.names[i]) return rule.low + i;
  }
  if (text.empty() || text.size() > 4)
    throw std::invalid_argument(std::string(rule.name) + ": '" + text + "' is not a number");
  int n = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      throw std::invalid_argument(std::string(rule.name) + ": '" + text + "' is not a number");
    n = n * 10 + (c - '0');
  }
  return n;
}

// Sets the bits of one field; returns whether it was unrestricted ("*" or "?").
template <std::size_t N>
bool parse_field(const std::string& text, const field_rule& rule, std::bitset<N>& bits,
                 int fold_high = -1) {
  bool any = false;
  for (const std::string& item : split(text, ',')) {
    std::string range = item;
    int step = 1;
    if (auto slash = item.find('/'); slash != std::string::npos) {
      range = item.substr(0, slash);
      step = number_of(item.substr(slash + 1), field_rule{rule.name, 1, 1000, nullptr});
      if (step < 1) throw std::invalid_argument(std::string(rule.name) + ": a step is at least 1");
    }
    int low = rule.low, high = fold_high >= 0 ? fold_high : rule.high;
    if (range == "*" || range == "?") {
      if (step == 1) any = true;
    } else if (auto dash = range.find('-'); dash != std::string::npos) {
      low = number_of(range.substr(0, dash), rule);
      high = number_of(range.substr(dash + 1), rule);
    } else {
      low = number_of(range, rule);
      if (item.find('/') == std::string::npos) high = low;
    }
    const int limit = fold_high >= 0 ? fold_high : rule.high;
    if (low < rule.low || high > limit || low > high)
      throw std::invalid_argument(std::string(rule.name) + ": '" + item + "' is outside " +
                                  std::to_string(rule.low) + "-" + std::to_string(rule.high));
    for (int v = low; v <= high; v += step) bits.set(static_cast<std::size_t>(v));
  }
  return any;
}

std::string expand(const std::string& text) {
  if (text == "@yearly" || text == "@annually") return "0 0 1 1 *";
  if (text == "@monthly") return "0 0 1 * *";
  if (text == "@weekly") return "0 0 * * 0";
  if (text == "@daily" || text == "@midnight") return "0 0 * * *";
  if (text == "@hourly") return "0 * * * *";
  return text;
}

}  // namespace

cron_schedule::cron_schedule(const std::string& text) {
  const std::vector<std::string> f = fields_of(expand(text));
  if (f.size() != 5 && f.size() != 6)
    throw std::invalid_argument("'" + text + "' has " + std::to_string(f.size()) +
                                " fields; a schedule has five (minute hour day month weekday) "
                                "or six (and seconds)");
  parse_field(f[0], {"minute", 0, 59, nullptr}, minutes_);
  parse_field(f[1], {"hour", 0, 23, nullptr}, hours_);
  any_day_ = parse_field(f[2], {"day of month", 1, 31, nullptr}, days_);
  parse_field(f[3], {"month", 1, 12, month_names}, months_);
  any_weekday_ = parse_field(f[4], {"day of week", 0, 6, weekday_names}, weekdays_, 7);
  if (weekdays_[7]) weekdays_.set(0);
  if (f.size() == 6)
    parse_field(f[5], {"second", 0, 59, nullptr}, seconds_);
  else
    seconds_.set(0);
}

bool cron_schedule::day_matches(int mday, int wday) const {
  const bool d = days_[static_cast<std::size_t>(mday)];
  const bool w = weekdays_[static_cast<std::size_t>(wday)];
  if (any_day_ && any_weekday_) return true;
  if (any_day_) return w;
  if (any_weekday_) return d;
  return d || w;
}

std::optional<std::int64_t> cron_schedule::next_after(std::int64_t after) const {
  return next_wall_after(after);
}

std::optional<std::int64_t> cron_schedule::next_after(std::int64_t after,
                                                      const time_zone& zone) const {
  std::int64_t wall = after + zone.offset_at(after);
  // A matching wall time can name an instant at or before `after`: one read with the offset
  // before a gap the clocks skipped, or the first of a repeated hour when `after` is in the
  // second. Then the search goes on from that wall time; a few steps at most.
  for (int step = 0; step < 1000; ++step) {
    auto next = next_wall_after(wall);
    if (!next) return std::nullopt;
    const std::int64_t at = zone.instants_of(*next).first;
    if (at > after) return at;
    wall = *next;
  }
  return std::nullopt;
}

std::optional<std::int64_t> cron_schedule::next_wall_after(std::int64_t after) const {
  std::int64_t t = after + 1;
  const std::int64_t end = after + std::int64_t{8} * 366 * 86400;
  while (t < end) {
    const std::time_t now = static_cast<std::time_t>(t);
    std::tm tm{};
    ::gmtime_r(&now, &tm);
    const std::int64_t day_start = t - tm.tm_hour * 3600 - tm.tm_min * 60 - tm.tm_sec;
    if (!months_[static_cast<std::size_t>(tm.tm_mon + 1)]) {
      std::tm next{};
      next.tm_year = tm.tm_mon == 11 ? tm.tm_year + 1 : tm.tm_year;
      next.tm_mon = (tm.tm_mon + 1) % 12;
      next.tm_mday = 1;
      t = static_cast<std::int64_t>(::timegm(&next));
      continue;
    }
    if (!day_matches(tm.tm_mday, tm.tm_wday)) {
      t = day_start + 86400;
      continue;
    }
    if (!hours_[static_cast<std::size_t>(tm.tm_hour)]) {
      t = day_start + (tm.tm_hour + 1) * 3600;
      continue;
    }
    if (!minutes_[static_cast<std::size_t>(tm.tm_min)]) {
      t = day_start + tm.tm_hour * 3600 + (tm.tm_min + 1) * 60;
      continue;
    }
    if (!seconds_[static_cast<std::size_t>(tm.tm_sec)]) {
      ++t;
      continue;
    }
    return t;
  }
  return std::nullopt;
}

std::string iso_of_time(std::int64_t t) {
  const std::time_t secs = static_cast<std::time_t>(t);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d+00:00", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

std::optional<std::int64_t> time_of_iso(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  std::size_t pos = 0;
  auto digits = [&](std::size_t count, int& out) {
    if (pos + count > text.size()) return false;
    out = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const char c = text[pos + i];
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      out = out * 10 + (c - '0');
    }
    pos += count;
    return true;
  };
  auto expect = [&](char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  };
  if (!digits(4, y) || !expect('-') || !digits(2, mo) || !expect('-') || !digits(2, d))
    return std::nullopt;
  if (pos < text.size()) {
    if (!expect('T') && !expect(' ')) return std::nullopt;
    if (!digits(2, h) || !expect(':') || !digits(2, mi)) return std::nullopt;
    if (expect(':')) {
      if (!digits(2, s)) return std::nullopt;
      if (expect('.'))
        while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
    }
  }
  int offset = 0;
  if (pos < text.size()) {
    if (expect('Z')) {
    } else if (text[pos] == '+' || text[pos] == '-') {
      const int sign = text[pos] == '-' ? -1 : 1;
      ++pos;
      int oh = 0, om = 0;
      if (!digits(2, oh)) return std::nullopt;
      expect(':');
      if (!digits(2, om)) return std::nullopt;
      offset = sign * (oh * 3600 + om * 60);
    } else {
      return std::nullopt;
    }
  }
  if (pos != text.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
    return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<std::int64_t>(::timegm(&tm)) - offset;
}

}  // namespace superstep::server
