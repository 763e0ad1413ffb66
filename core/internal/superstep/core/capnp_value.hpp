#pragma once

// superstep::value as Cap'n Proto (core/schema/value.capnp): what the default serializer
// stores and what carries values between processes. Include only where Cap'n Proto is used.

#include <string>
#include <string_view>

#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"
#include "value.capnp.h"

namespace superstep::capnp_value {

/// The nesting budget a reader of a value allows. Cap'n Proto's default (64) stops a reader at
/// about 31 nested lists; values nest deeper (message histories, tool results). It only
/// bounds a reader's recursion.
inline constexpr int nesting_limit = 1024;

/// Writes `v` into `out`, where a reader has `budget` of its nesting budget left (a root value:
/// nesting_limit - 1). Throws error(`code`, "value nested too deeply ...") for a value a
/// reader with that budget could not read back, so nothing written becomes unreadable.
void write(schema::Value::Builder out, const value& v, int budget = nesting_limit - 1,
           error_code code = error_code::storage_error);

/// Reads a value. Throws error(`code`) for a kind this build does not know (written by a newer
/// one) and kj::Exception for damaged bytes (callers wrap the whole read).
value read(schema::Value::Reader in, error_code code = error_code::storage_error);

/// `v` as the bytes of a message whose root is a Value.
std::string encode(const value& v, error_code code = error_code::storage_error);

/// The value in the bytes of a message whose root is a Value. Throws error(`code`) naming what
/// is wrong with bytes that are not one (kj::Exception included).
value decode(std::string_view bytes, error_code code = error_code::storage_error);

}  // namespace superstep::capnp_value
