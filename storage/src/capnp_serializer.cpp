// The default serializer: a value as a Cap'n Proto message (storage/schema/value.capnp).

#include <kj/exception.h>

#include <string>
#include <utility>
#include <vector>

#include "capnp_message.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/serializer.hpp"
#include "value.capnp.h"

namespace superstep::storage {

namespace {

using schema::Value;

// Cap'n Proto's default nesting limit (64) stops a reader at about 31 nested lists. Values
// nest deeper than that (message histories, tool results), so we read with 1024: at most 511
// nested lists or 341 nested objects. `dumps` refuses a value that would need more, so
// nothing we write becomes unreadable. The limit only bounds recursion (stack) on a reader.
constexpr int nesting_limit = 1024;
// What one level costs a reader (capnp's layout.c++): following a pointer to a list costs 1
// and reading one of its struct elements 1; an object adds the pointer to the entry's value.
constexpr int list_cost = 2;
constexpr int object_cost = 3;

[[noreturn]] void too_deep() {
  throw error(error_code::storage_error,
              "capnp serializer: value nested too deeply to store (a reader allows " +
                  std::to_string((nesting_limit - 1) / list_cost) + " nested lists or " +
                  std::to_string((nesting_limit - 1) / object_cost) + " nested objects)");
}

// `budget` is what a reader has left when it reaches this value's struct.
void write_value(Value::Builder out, const value& v, int budget) {
  switch (v.kind()) {
    case value_kind::null: out.setNull(); return;
    case value_kind::boolean: out.setBoolean(v.as_bool()); return;
    case value_kind::integer: out.setInteger(v.as_int()); return;
    case value_kind::real: out.setReal(v.as_double()); return;
    case value_kind::string: out.setString(text(v.as_string())); return;
    case value_kind::bytes: out.setBytes(data_ptr(v.as_bytes())); return;
    case value_kind::list: {
      if (budget < list_cost) too_deep();
      const list& items = v.as_list();
      auto elements = out.initList(static_cast<unsigned>(items.size()));
      for (unsigned i = 0; i < items.size(); ++i)
        write_value(elements[i], items[i], budget - list_cost);
      return;
    }
    case value_kind::object: {
      if (budget < object_cost) too_deep();
      const object& o = v.as_object();
      auto entries = out.initObject(static_cast<unsigned>(o.size()));
      unsigned i = 0;
      for (const auto& [key, member] : o) {
        auto entry = entries[i++];
        entry.setKey(text(key));
        write_value(entry.initValue(), member, budget - object_cost);
      }
      return;
    }
  }
  throw error(error_code::internal, "capnp serializer: a value of an unknown kind");
}

value read_value(Value::Reader in) {
  switch (in.which()) {
    case Value::NULL_: return value();
    case Value::BOOLEAN: return value(in.getBoolean());
    case Value::INTEGER: return value(static_cast<long long>(in.getInteger()));
    case Value::REAL: return value(in.getReal());
    case Value::STRING: return value(text_of(in.getString()));
    case Value::BYTES: return value(bytes{data_of(in.getBytes())});
    case Value::LIST: {
      auto elements = in.getList();
      list items;
      items.reserve(elements.size());
      for (auto element : elements) items.push_back(read_value(element));
      return value(std::move(items));
    }
    case Value::OBJECT: {
      auto entries = in.getObject();
      std::vector<object::entry> members;
      members.reserve(entries.size());
      for (auto entry : entries)
        members.emplace_back(text_of(entry.getKey()), read_value(entry.getValue()));
      // Not object::unique_keys: damaged bytes may repeat a key.
      return value(object(std::move(members)));
    }
  }
  throw error(error_code::storage_error, "unknown value kind " +
                                             std::to_string(static_cast<unsigned>(in.which())) +
                                             " (written by a newer superstep?)");
}

class capnp_serializer final : public serializer {
 public:
  std::string_view name() const noexcept override { return "capnp"; }

  std::string dumps(const value& v) const override {
    // 1 KiB first segment: small values (most writes) fit in one allocation; larger ones grow.
    capnp::MallocMessageBuilder builder(128);
    write_value(builder.initRoot<Value>(), v, nesting_limit - 1);
    return message_bytes(builder);
  }

  value loads(std::string_view bytes) const override {
    const auto fail = [&](const std::string& why) {
      return error(error_code::storage_error, "capnp serializer: unreadable value (" +
                                                  std::to_string(bytes.size()) + " bytes): " + why);
    };
    try {
      capnp::ReaderOptions options;
      options.nestingLimit = nesting_limit;
      message_reader reader(bytes, options);
      return read_value(reader.root<Value>());
    } catch (const kj::Exception& e) {
      throw fail(e.getDescription().cStr());
    } catch (const error& e) {
      throw fail(e.what());
    }
  }
};

}  // namespace

std::shared_ptr<const serializer> make_capnp_serializer() {
  return std::make_shared<const capnp_serializer>();
}

}  // namespace superstep::storage
