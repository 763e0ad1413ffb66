#include "superstep/core/capnp_value.hpp"

#include <kj/exception.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "superstep/core/capnp_message.hpp"
#include "superstep/core/two_threads.hpp"

namespace superstep::capnp_value {

namespace {

using schema::Value;
using namespace capnp_io;

// What one level costs a reader (capnp's layout.c++): following a pointer to a list costs 1
// and reading one of its struct elements 1; an object adds the pointer to the entry's value.
constexpr int list_cost = 2;
constexpr int object_cost = 3;

[[noreturn]] void too_deep(error_code code) {
  throw error(code, "value nested too deeply (a reader allows " +
                        std::to_string((nesting_limit - 1) / list_cost) + " nested lists or " +
                        std::to_string((nesting_limit - 1) / object_cost) + " nested objects)");
}

}  // namespace

void write(Value::Builder out, const value& v, int budget, error_code code) {
  switch (v.kind()) {
    case value_kind::null: out.setNull(); return;
    case value_kind::boolean: out.setBoolean(v.as_bool()); return;
    case value_kind::integer: out.setInteger(v.as_int()); return;
    case value_kind::real: out.setReal(v.as_double()); return;
    case value_kind::string: out.setString(text(v.as_string())); return;
    case value_kind::bytes: out.setBytes(data_ptr(v.as_bytes())); return;
    case value_kind::list: {
      if (budget < list_cost) too_deep(code);
      const list& items = v.as_list();
      auto elements = out.initList(static_cast<unsigned>(items.size()));
      for (unsigned i = 0; i < items.size(); ++i)
        write(elements[i], items[i], budget - list_cost, code);
      return;
    }
    case value_kind::object: {
      if (budget < object_cost) too_deep(code);
      const object& o = v.as_object();
      auto entries = out.initObject(static_cast<unsigned>(o.size()));
      unsigned i = 0;
      for (const auto& [key, member] : o) {
        auto entry = entries[i++];
        entry.setKey(text(key));
        write(entry.initValue(), member, budget - object_cost, code);
      }
      return;
    }
    case value_kind::send: {
      if (budget < object_cost) too_deep(code);
      const send_packet& s = v.as_send();
      auto out_send = out.initSend();
      out_send.setNode(text(s.node()));
      write(out_send.initArg(), s.arg(), budget - object_cost, code);
      write(out_send.initTimeout(), s.timeout(), budget - object_cost, code);
      return;
    }
  }
  throw error(error_code::internal, "a value of an unknown kind");
}

namespace {

// Values read one after another often repeat a short string (each of a fan-out's Sends names
// its node): the last short string read on this thread is shared rather than allocated again
// (values are immutable, so sharing one is as good as an equal copy).
value read_string(capnp::Text::Reader text) {
  constexpr std::size_t shared_up_to = 32;
  thread_local value last;
  const std::string_view s(text.begin(), text.size());
  if (s.size() > shared_up_to) return value(s);
  if (!last.is_string() || last.as_string() != s) last = value(s);
  return last;
}

}  // namespace

value read(Value::Reader in, error_code code) {
  switch (in.which()) {
    case Value::NULL_: return value();
    case Value::BOOLEAN: return value(in.getBoolean());
    case Value::INTEGER: return value(static_cast<long long>(in.getInteger()));
    case Value::REAL: return value(in.getReal());
    case Value::STRING: return read_string(in.getString());
    case Value::BYTES: return value(bytes{data_of(in.getBytes())});
    case Value::LIST: {
      auto elements = in.getList();
      list items;
      items.reserve(elements.size());
      for (auto element : elements) items.push_back(read(element, code));
      return value(std::move(items));
    }
    case Value::OBJECT: {
      auto entries = in.getObject();
      std::vector<object::entry> members;
      members.reserve(entries.size());
      for (auto entry : entries)
        members.emplace_back(text_of(entry.getKey()), read(entry.getValue(), code));
      // Not object::unique_keys: damaged bytes may repeat a key.
      return value(object(std::move(members)));
    }
    case Value::SEND: {
      auto s = in.getSend();
      return value::send(read_string(s.getNode()), read(s.getArg(), code),
                         read(s.getTimeout(), code));
    }
  }
  throw error(code, "unknown value kind " + std::to_string(static_cast<unsigned>(in.which())) +
                        " (written by a newer superstep?)");
}

namespace {

// A list of at least `chunk_items` elements is written in parts: `chunked_magic`, its length
// (8 bytes, little endian), then each part's size (8 bytes) and bytes, a message whose root
// is a list of up to `chunk_items` of its elements. Encoding it whole would hold the whole
// message unpacked beside its packed bytes (a fan-out's 10^6 Sends: about 225 MB and 100 MB);
// in parts, one part at a time. Like `packed_magic`, as a flat message's segment table it
// would count 2^32 segments, which no flat message has.
constexpr std::string_view chunked_magic{"\xff\xff\xff\xffpart", 8};
constexpr std::size_t chunk_items = 16384;

void append_u64(std::string& out, std::uint64_t n) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(n >> (8 * i)));
}

std::uint64_t read_u64(std::string_view& bytes, error_code code) {
  if (bytes.size() < 8) throw error(code, "a value in parts is cut short");
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i)
    n |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  bytes.remove_prefix(8);
  return n;
}

// The bytes of one message whose root Value `write_root` fills.
template <class Write>
std::string encode_message(Write&& write_root) {
  // Most values are small: the first segment is this thread's scratch words, zeroed again
  // after each use, so encoding one allocates only its bytes. Larger values grow with little
  // slack; an encoding inside another (none today) allocates its own.
  constexpr unsigned scratch_words = 128;
  thread_local std::array<capnp::word, scratch_words> scratch{};
  thread_local bool scratch_busy = false;
  auto build = [&](capnp_io::bounded_message_builder& builder) {
    write_root(builder.initRoot<Value>());
    return message_bytes_for_size(builder);
  };
  if (scratch_busy) {
    capnp_io::bounded_message_builder builder(scratch_words);
    return build(builder);
  }
  scratch_busy = true;
  struct release {
    ~release() { scratch_busy = false; }
  } release_scratch;
  capnp_io::bounded_message_builder builder(kj::arrayPtr(scratch.data(), scratch.size()));
  return build(builder);
}

std::string encode_in_parts(const list& items, error_code code) {
  std::string out(chunked_magic);
  append_u64(out, items.size());
  const std::size_t parts = (items.size() + chunk_items - 1) / chunk_items;
  const auto encode_part = [&](std::size_t k) {
    const std::size_t first = k * chunk_items, n = std::min(chunk_items, items.size() - first);
    return encode_message([&](Value::Builder root) {
      auto l = root.initList(static_cast<unsigned>(n));
      for (std::size_t i = 0; i < n; ++i)
        write(l[static_cast<unsigned>(i)], items[first + i], nesting_limit - 1 - list_cost, code);
    });
  };
  // A fan-out's 10^6 Sends are 62 parts, encoded two at a time.
  detail::make_in_order_on_two_threads(parts, encode_part, [&](std::size_t k, std::string part) {
    if (k == 0) out.reserve(out.size() + room_for_parts(part.size() + 8, parts));
    append_u64(out, part.size());
    out.append(part);
  });
  return out;
}

value decode_one(std::string_view bytes, error_code code) {
  try {
    capnp::ReaderOptions options;
    options.nestingLimit = nesting_limit;
    message_reader reader(bytes, options, code);
    return read(reader.root<Value>(), code);
  } catch (const kj::Exception& e) {
    throw error(code, e.getDescription().cStr());
  }
}

value decode_in_parts(std::string_view bytes, error_code code) {
  bytes.remove_prefix(chunked_magic.size());
  const std::uint64_t count = read_u64(bytes, code);
  // Each element takes at least a byte: a count beyond that is damage, not a size to reserve.
  if (count > bytes.size())
    throw error(code, "a value in parts claims more elements than its bytes hold");
  std::vector<std::string_view> parts;
  while (!bytes.empty()) {
    const std::uint64_t size = read_u64(bytes, code);
    if (size > bytes.size()) throw error(code, "a value in parts is cut short");
    parts.push_back(bytes.substr(0, size));
    bytes.remove_prefix(size);
  }
  list items;
  items.reserve(count);
  // A fan-out's 10^6 Sends are 62 parts, decoded two at a time.
  detail::make_in_order_on_two_threads(
      parts.size(), [&](std::size_t k) { return decode_one(parts[k], code); },
      [&](std::size_t, value part) {
        if (!part.is_list()) throw error(code, "a part of a list value is not a list");
        const list& l = part.as_list();
        if (items.size() + l.size() > count)
          throw error(code, "a value in parts holds more elements than it claims");
        items.insert(items.end(), l.begin(), l.end());
      });
  if (items.size() != count)
    throw error(code, "a value in parts holds " + std::to_string(items.size()) + " of its " +
                          std::to_string(count) + " elements");
  return value(std::move(items));
}

}  // namespace

std::string encode(const value& v, error_code code) {
  if (v.is_list() && v.as_list().size() >= chunk_items) return encode_in_parts(v.as_list(), code);
  return encode_message([&](Value::Builder root) { write(root, v, nesting_limit - 1, code); });
}

value decode(std::string_view bytes, error_code code) {
  if (bytes.substr(0, chunked_magic.size()) == chunked_magic) return decode_in_parts(bytes, code);
  return decode_one(bytes, code);
}

}  // namespace superstep::capnp_value
