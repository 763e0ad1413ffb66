// Time zones from the system's TZif files (server/time_zone.hpp).
#include "server/time_zone.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace superstep::server {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::int64_t year_of_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  return yoe + era * 400 + (mp >= 10 ? 1 : 0);
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(std::int64_t y, int m) {
  static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

// Reads a POSIX TZ rule left to right; every read throws naming the rule when it fails.
class rule_reader {
 public:
  explicit rule_reader(const std::string& text) : text_(text) {}

  bool done() const { return pos_ == text_.size(); }
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool take(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }

  [[noreturn]] void fail(const char* what) const {
    throw std::invalid_argument("POSIX TZ rule '" + text_ + "': " + what + " at " +
                                std::to_string(pos_));
  }

  // A zone abbreviation: three or more letters, or anything but '>' quoted in <...>.
  void abbreviation() {
    std::size_t count = 0;
    if (take('<')) {
      while (pos_ < text_.size() && text_[pos_] != '>') ++pos_, ++count;
      if (!take('>')) fail("an unclosed <abbreviation>");
    } else {
      while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_])))
        ++pos_, ++count;
    }
    if (count < 3) fail("an abbreviation of three or more characters expected");
  }

  int number(int most) {
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_])))
      fail("a number expected");
    int n = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      n = n * 10 + (text_[pos_++] - '0');
      if (n > most) fail("a number out of range");
    }
    return n;
  }

  // [+-]hh[:mm[:ss]] in seconds; hours up to 167 (RFC 8536's extension for rule times).
  int duration() {
    int sign = 1;
    if (take('-'))
      sign = -1;
    else
      take('+');
    int seconds = number(167) * 3600;
    if (take(':')) {
      seconds += number(59) * 60;
      if (take(':')) seconds += number(59);
    }
    return sign * seconds;
  }

  bool at_offset() const {
    return pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-' ||
                                   std::isdigit(static_cast<unsigned char>(text_[pos_])));
  }

 private:
  const std::string& text_;
  std::size_t pos_ = 0;
};

std::uint32_t be32(std::string_view b, std::size_t at) {
  return (std::uint32_t{static_cast<unsigned char>(b[at])} << 24) |
         (std::uint32_t{static_cast<unsigned char>(b[at + 1])} << 16) |
         (std::uint32_t{static_cast<unsigned char>(b[at + 2])} << 8) |
         std::uint32_t{static_cast<unsigned char>(b[at + 3])};
}

std::int64_t be64(std::string_view b, std::size_t at) {
  return static_cast<std::int64_t>((std::uint64_t{be32(b, at)} << 32) | be32(b, at + 4));
}

struct tzif_header {
  char version = 0;
  std::size_t isutcnt = 0, isstdcnt = 0, leapcnt = 0, timecnt = 0, typecnt = 0, charcnt = 0;

  std::size_t data_size(std::size_t time_size) const {
    return timecnt * time_size + timecnt + typecnt * 6 + charcnt + leapcnt * (time_size + 4) +
           isstdcnt + isutcnt;
  }
};

}  // namespace

const time_zone& time_zone::utc() {
  static const time_zone zone = [] {
    time_zone z;
    z.name_ = "UTC";
    return z;
  }();
  return zone;
}

std::shared_ptr<const time_zone> time_zone::locate(const std::string& name,
                                                   const std::string& directory) {
  auto unknown = [&](const std::string& why) {
    return std::invalid_argument("'" + name + "' is not a time zone: " + why);
  };
  if (name.empty()) throw unknown("the name is empty");
  if (name.front() == '/' || name.find("..") != std::string::npos)
    throw unknown("a zone's name is relative and has no '..'");
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '/' && c != '_' && c != '-' &&
        c != '+')
      throw unknown("a zone's name has letters, digits and / _ - + only");

  // Every lookup of a cron's zone comes here (each schedule step): the files are read once.
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const time_zone>> zones;
  const std::string key = directory + "/" + name;
  std::lock_guard lock(mutex);
  if (auto found = zones.find(key); found != zones.end()) return found->second;

  std::shared_ptr<const time_zone> zone;
  std::ifstream file(key, std::ios::binary);
  std::string bytes;
  if (file) {
    std::ostringstream read;
    read << file.rdbuf();
    bytes = read.str();
  }
  if (!bytes.empty()) {
    try {
      zone = std::make_shared<const time_zone>(from_tzif(bytes, name));
    } catch (const std::invalid_argument& e) {
      throw unknown(std::string("its file is not a zone's (") + e.what() + ")");
    }
  } else if (name == "UTC" || name == "Etc/UTC") {
    time_zone fixed = utc();
    fixed.name_ = name;
    zone = std::make_shared<const time_zone>(std::move(fixed));
  } else {
    throw unknown("no such zone in " + directory);
  }
  zones.emplace(key, zone);
  return zone;
}

time_zone time_zone::from_tzif(std::string_view bytes, std::string name) {
  auto bad = [&](const std::string& why) {
    return std::invalid_argument("TZif file of '" + name + "': " + why);
  };
  auto header_at = [&](std::size_t at) {
    if (bytes.size() < at + 44 || bytes.substr(at, 4) != "TZif") throw bad("no TZif header");
    tzif_header h;
    h.version = bytes[at + 4];
    h.isutcnt = be32(bytes, at + 20);
    h.isstdcnt = be32(bytes, at + 24);
    h.leapcnt = be32(bytes, at + 28);
    h.timecnt = be32(bytes, at + 32);
    h.typecnt = be32(bytes, at + 36);
    h.charcnt = be32(bytes, at + 40);
    if (h.typecnt == 0 || h.typecnt > 256 || h.timecnt > (1u << 20) || h.charcnt > (1u << 16) ||
        h.leapcnt > (1u << 16) || h.isutcnt > 256 || h.isstdcnt > 256)
      throw bad("counts out of range");
    return h;
  };

  tzif_header h = header_at(0);
  std::size_t at = 44;
  std::size_t time_size = 4;
  if (h.version >= '2') {
    // The version 1 block is for old readers; the 64-bit one after it is complete.
    at += h.data_size(4);
    h = header_at(at);
    at += 44;
    time_size = 8;
  }
  if (bytes.size() < at + h.data_size(time_size)) throw bad("truncated");

  time_zone zone;
  zone.name_ = std::move(name);
  const std::size_t types_at = at + h.timecnt * time_size + h.timecnt;
  std::vector<int> type_offsets(h.typecnt);
  for (std::size_t i = 0; i < h.typecnt; ++i) {
    const auto utoff = static_cast<std::int32_t>(be32(bytes, types_at + i * 6));
    if (utoff < -25 * 3600 || utoff > 26 * 3600) throw bad("a UTC offset out of range");
    type_offsets[i] = utoff;
  }
  zone.initial_offset_ = type_offsets[0];
  zone.transitions_.reserve(h.timecnt);
  zone.offsets_.reserve(h.timecnt);
  for (std::size_t i = 0; i < h.timecnt; ++i) {
    const std::int64_t t = time_size == 8 ? be64(bytes, at + i * 8)
                                          : static_cast<std::int32_t>(be32(bytes, at + i * 4));
    const auto type = static_cast<unsigned char>(bytes[at + h.timecnt * time_size + i]);
    if (type >= h.typecnt) throw bad("a transition to a type that is not there");
    if (!zone.transitions_.empty() && t <= zone.transitions_.back())
      throw bad("transitions out of order");
    zone.transitions_.push_back(t);
    zone.offsets_.push_back(type_offsets[type]);
  }

  if (time_size == 8) {
    std::size_t footer = at + h.data_size(8);
    if (footer < bytes.size()) {
      if (bytes[footer] != '\n') throw bad("no footer after the data");
      const std::size_t end = bytes.find('\n', footer + 1);
      if (end == std::string_view::npos) throw bad("an unterminated footer");
      const std::string rule(bytes.substr(footer + 1, end - footer - 1));
      if (!rule.empty()) zone.rule_ = parse_posix(rule);
    }
  }
  return zone;
}

time_zone time_zone::from_posix(const std::string& rule) {
  time_zone zone;
  zone.name_ = rule;
  zone.rule_ = parse_posix(rule);
  zone.initial_offset_ = zone.rule_->std_offset;
  return zone;
}

time_zone::posix_rule time_zone::parse_posix(const std::string& text) {
  rule_reader r(text);
  posix_rule rule;
  r.abbreviation();
  // POSIX offsets count west of Greenwich; ours east.
  rule.std_offset = -r.duration();
  if (r.done()) return rule;
  r.abbreviation();
  rule.has_dst = true;
  rule.dst_offset = r.at_offset() ? -r.duration() : rule.std_offset + 3600;
  auto date = [&] {
    rule_date d;
    if (r.take('J')) {
      d.form = rule_date::kind::julian_no_leap;
      d.day = r.number(365);
      if (d.day < 1) r.fail("a Jn day from 1 to 365 expected");
    } else if (r.take('M')) {
      d.form = rule_date::kind::month_week_day;
      d.month = r.number(12);
      if (d.month < 1 || !r.take('.')) r.fail("Mm.w.d expected");
      d.week = r.number(5);
      if (d.week < 1 || !r.take('.')) r.fail("Mm.w.d expected");
      d.weekday = r.number(6);
    } else {
      d.form = rule_date::kind::zero_based;
      d.day = r.number(365);
    }
    if (r.take('/')) d.time = r.duration();
    return d;
  };
  if (r.done()) {
    // No rule given: the United States' (what POSIX systems take by default).
    rule.start = {rule_date::kind::month_week_day, 0, 3, 2, 0, 7200};
    rule.end = {rule_date::kind::month_week_day, 0, 11, 1, 0, 7200};
    return rule;
  }
  if (!r.take(',')) r.fail("',' and the start of daylight saving time expected");
  rule.start = date();
  if (!r.take(',')) r.fail("',' and the end of daylight saving time expected");
  rule.end = date();
  if (!r.done()) r.fail("text after the rule");
  return rule;
}

// Local midnight of the date `date` names in `year`, as seconds since the epoch as if UTC,
// plus its time.
std::int64_t time_zone::start_of(const rule_date& date, int year) {
  std::int64_t days = days_from_civil(year, 1, 1);
  switch (date.form) {
    case rule_date::kind::julian_no_leap:
      days += date.day - 1 + (is_leap(year) && date.day >= 60 ? 1 : 0);
      break;
    case rule_date::kind::zero_based: days += date.day; break;
    case rule_date::kind::month_week_day: {
      const std::int64_t first = days_from_civil(year, date.month, 1);
      const int first_weekday = static_cast<int>(((first % 7) + 7 + 4) % 7);  // 1970-01-01: Thu
      int mday = 1 + (date.weekday - first_weekday + 7) % 7 + (date.week - 1) * 7;
      while (mday > days_in_month(year, date.month)) mday -= 7;
      days = first + mday - 1;
      break;
    }
  }
  return days * 86400 + date.time;
}

int time_zone::rule_offset_at(std::int64_t t) const {
  const posix_rule& rule = *rule_;
  if (!rule.has_dst) return rule.std_offset;
  const int year = static_cast<int>(year_of_days(floor_div(t + rule.std_offset, 86400)));
  // The start is written in standard time, the end in daylight saving time.
  const std::int64_t start = start_of(rule.start, year) - rule.std_offset;
  const std::int64_t end = start_of(rule.end, year) - rule.dst_offset;
  const bool dst = start < end ? (t >= start && t < end) : (t < end || t >= start);
  return dst ? rule.dst_offset : rule.std_offset;
}

int time_zone::offset_at(std::int64_t t) const {
  if (transitions_.empty() || t >= transitions_.back()) {
    if (rule_) return rule_offset_at(t);
    return transitions_.empty() ? initial_offset_ : offsets_.back();
  }
  auto next = std::upper_bound(transitions_.begin(), transitions_.end(), t);
  if (next == transitions_.begin()) return initial_offset_;
  return offsets_[static_cast<std::size_t>(std::distance(transitions_.begin(), next) - 1)];
}

time_zone::local_instants time_zone::instants_of(std::int64_t wall) const {
  // The offsets a day either side (no zone changes its clocks twice within two days): the
  // instant is the wall time less one of them.
  const int before = offset_at(wall - 86400), after = offset_at(wall + 86400);
  const std::int64_t a = wall - before, b = wall - after;
  const bool a_fits = a + offset_at(a) == wall, b_fits = b + offset_at(b) == wall;
  local_instants out;
  if (a_fits && b_fits && a != b) {
    out.first = std::min(a, b);
    out.second = std::max(a, b);
  } else if (b_fits && !a_fits) {
    out.first = b;
  } else {
    out.first = a;  // the one instant, or in a gap the wall time read with the offset before
  }
  return out;
}

}  // namespace superstep::server
