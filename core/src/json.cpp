// JSON reading and writing for `value`. Errors name line, column and what was expected.
#include <charconv>
#include <cmath>
#include <cstring>
#include <ostream>

#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"

namespace superstep {

namespace {

constexpr char base64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_encode(const std::string& in, std::string& out) {
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned n = (static_cast<unsigned char>(in[i]) << 16) |
                 (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    out += base64_chars[(n >> 18) & 63];
    out += base64_chars[(n >> 12) & 63];
    out += base64_chars[(n >> 6) & 63];
    out += base64_chars[n & 63];
  }
  if (i < in.size()) {
    unsigned n = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) n |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += base64_chars[(n >> 18) & 63];
    out += base64_chars[(n >> 12) & 63];
    out += i + 1 < in.size() ? base64_chars[(n >> 6) & 63] : '=';
    out += '=';
  }
}

bool base64_decode(const std::string& in, std::string& out) {
  if (in.size() % 4 != 0) return false;
  auto dec = [](char c) -> int {
    const char* p = std::strchr(base64_chars, c);
    return (c != 0 && p) ? static_cast<int>(p - base64_chars) : -1;
  };
  for (std::size_t i = 0; i < in.size(); i += 4) {
    int a = dec(in[i]), b = dec(in[i + 1]);
    if (a < 0 || b < 0) return false;
    out += static_cast<char>((a << 2) | (b >> 4));
    if (in[i + 2] == '=') break;
    int c = dec(in[i + 2]);
    if (c < 0) return false;
    out += static_cast<char>(((b & 15) << 4) | (c >> 2));
    if (in[i + 3] == '=') break;
    int d = dec(in[i + 3]);
    if (d < 0) return false;
    out += static_cast<char>(((c & 3) << 6) | d);
  }
  return true;
}

void write_string(const std::string& s, std::string& out) {
  out += '"';
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          static const char hex[] = "0123456789abcdef";
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

class parser {
 public:
  explicit parser(std::string_view text) : s_(text) {}

  value parse_document() {
    value v = parse_value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected trailing characters");
    return v;
  }

 private:
  // As deep as a value can be stored and sent (capnp_value: 341 nested objects), so that any
  // value read from JSON can also be checkpointed and cross processes.
  static constexpr int max_depth = 340;

  [[noreturn]] void fail(const std::string& why) const {
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw error(error_code::json_error, "invalid JSON at line " + std::to_string(line) +
                                            ", column " + std::to_string(col) + ": " + why);
  }

  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t'))
      ++pos_;
  }

  bool consume_literal(std::string_view lit) {
    if (s_.substr(pos_, lit.size()) == lit) {
      pos_ += lit.size();
      return true;
    }
    return false;
  }

  value parse_value(int depth) {
    if (depth > max_depth) fail("nesting deeper than 340 levels");
    skip_ws();
    if (pos_ >= s_.size()) fail("unexpected end of input, expected a value");
    char c = s_[pos_];
    switch (c) {
      case '{': return parse_object(depth);
      case '[': return parse_array(depth);
      case '"': return value(parse_string());
      case 't':
        if (consume_literal("true")) return value(true);
        break;
      case 'f':
        if (consume_literal("false")) return value(false);
        break;
      case 'n':
        if (consume_literal("null")) return value();
        break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
    }
    fail(std::string("unexpected character '") + c + "', expected a value");
  }

  value parse_object(int depth) {
    ++pos_;
    object o;
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return value(std::move(o));
    }
    for (;;) {
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a string key");
      std::string key = parse_string();
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != ':') fail("expected ':' after key");
      ++pos_;
      value v = parse_value(depth + 1);
      o.set(std::move(key), std::move(v));
      skip_ws();
      if (pos_ >= s_.size()) fail("unexpected end of input in object");
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == '}') {
        ++pos_;
        break;
      }
      fail("expected ',' or '}' in object");
    }
    if (o.size() == 1) {
      if (const value* b = o.find("$bytes"); b && b->is_string()) {
        std::string raw;
        if (!base64_decode(b->as_string(), raw)) fail("invalid base64 in $bytes");
        return value(bytes{std::move(raw)});
      }
    }
    return value(std::move(o));
  }

  value parse_array(int depth) {
    ++pos_;
    list l;
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return value(std::move(l));
    }
    for (;;) {
      l.push_back(parse_value(depth + 1));
      skip_ws();
      if (pos_ >= s_.size()) fail("unexpected end of input in array");
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == ']') {
        ++pos_;
        break;
      }
      fail("expected ',' or ']' in array");
    }
    return value(std::move(l));
  }

  unsigned parse_hex4() {
    if (pos_ + 4 > s_.size()) fail("truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<unsigned>(c - 'A' + 10);
      else
        fail("invalid hex digit in \\u escape");
    }
    return v;
  }

  static void append_utf8(unsigned cp, std::string& out) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string parse_string() {
    ++pos_;  // opening quote
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) fail("unterminated string");
      char c = s_[pos_++];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = parse_hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (!consume_literal("\\u")) fail("unpaired surrogate in \\u escape");
            unsigned lo = parse_hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("invalid low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail("unpaired surrogate in \\u escape");
          }
          append_utf8(cp, out);
          break;
        }
        default: fail(std::string("invalid escape '\\") + e + "'");
      }
    }
    return out;
  }

  value parse_number() {
    std::size_t start = pos_;
    bool is_float = false;
    if (s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9')) fail("invalid number");
    if (s_[pos_] == '0' && pos_ + 1 < s_.size() && s_[pos_ + 1] >= '0' && s_[pos_ + 1] <= '9')
      fail("leading zero in number");
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      is_float = true;
      ++pos_;
      if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9'))
        fail("expected digits after '.'");
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      is_float = true;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9'))
        fail("expected digits in exponent");
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    if (!is_float) {
      std::int64_t i = 0;
      auto r = std::from_chars(first, last, i);
      if (r.ec == std::errc() && r.ptr == last) return value(i);
      // Too large for int64: fall through to double like Python's json would not, but JSON
      // readers elsewhere do.
    }
    double d = 0;
    auto r = std::from_chars(first, last, d);
    if (r.ec != std::errc() || r.ptr != last) fail("number out of range");
    return value(d);
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

void value::to_json(std::string& out) const {
  switch (kind()) {
    case value_kind::null: out += "null"; return;
    case value_kind::boolean: out += as_bool() ? "true" : "false"; return;
    case value_kind::integer: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, as_int());
      out.append(buf, r.ptr);
      return;
    }
    case value_kind::real: {
      double d = as_double();
      if (!std::isfinite(d)) {
        out += "null";
        return;
      }
      char buf[32];
      auto r = std::to_chars(buf, buf + sizeof buf, d);
      std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));
      out += s;
      if (s.find_first_of(".eE") == std::string_view::npos) out += ".0";
      return;
    }
    case value_kind::string: write_string(as_string(), out); return;
    case value_kind::bytes:
      out += "{\"$bytes\":\"";
      base64_encode(as_bytes(), out);
      out += "\"}";
      return;
    case value_kind::list: {
      out += '[';
      bool first = true;
      for (const auto& v : as_list()) {
        if (!first) out += ',';
        first = false;
        v.to_json(out);
      }
      out += ']';
      return;
    }
    case value_kind::object: {
      out += '{';
      bool first = true;
      for (const auto& [k, v] : as_object()) {
        if (!first) out += ',';
        first = false;
        write_string(k, out);
        out += ':';
        v.to_json(out);
      }
      out += '}';
      return;
    }
    case value_kind::send: as_send().object_form().to_json(out); return;
  }
}

std::string value::to_json() const {
  std::string out;
  to_json(out);
  return out;
}

value value::parse_json(std::string_view text) { return parser(text).parse_document(); }

std::ostream& operator<<(std::ostream& os, const value& v) { return os << v.to_json(); }

std::ostream& operator<<(std::ostream& os, error_code c) { return os << code_name(c); }

}  // namespace superstep
