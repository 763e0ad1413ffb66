#include "python_format.hpp"

#include <cstdio>

namespace superstep::agents::detail {

namespace {

void json_string(const std::string& s, std::string& out) {
  out += '"';
  for (unsigned char c : s) {
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
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void repr_string(const std::string& s, std::string& out) {
  const bool double_quotes = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char quote = double_quotes ? '"' : '\'';
  out += quote;
  for (unsigned char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == static_cast<unsigned char>(quote))
      out += std::string("\\") + quote;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += quote;
}

template <class Scalar, class String>
void write(const value& v, std::string& out, Scalar scalar, String string) {
  if (v.is_string()) {
    string(v.as_string(), out);
  } else if (v.is_list()) {
    out += '[';
    bool first = true;
    for (const value& item : v.as_list()) {
      if (!first) out += ", ";
      first = false;
      write(item, out, scalar, string);
    }
    out += ']';
  } else if (v.is_send()) {
    write(v.as_send().object_form(), out, scalar, string);  // shown as its object form
  } else if (v.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [k, item] : v.as_object()) {
      if (!first) out += ", ";
      first = false;
      string(k, out);
      out += ": ";
      write(item, out, scalar, string);
    }
    out += '}';
  } else {
    scalar(v, out);
  }
}

}  // namespace

std::string python_json(const value& v) {
  std::string out;
  write(
      v, out, [](const value& s, std::string& o) { o += s.to_json(); }, json_string);
  return out;
}

std::string python_repr(const value& v) {
  std::string out;
  write(
      v, out,
      [](const value& s, std::string& o) {
        if (s.is_null())
          o += "None";
        else if (s.is_bool())
          o += s.as_bool() ? "True" : "False";
        else
          o += s.to_json();
      },
      repr_string);
  return out;
}

}  // namespace superstep::agents::detail
