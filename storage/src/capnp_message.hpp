#pragma once

// The Cap'n Proto byte-string helpers of superstep/core/capnp_message.hpp, as storage uses them.

#include "superstep/core/capnp_message.hpp"

namespace superstep::storage {

using capnp_io::data_of;
using capnp_io::data_ptr;
using capnp_io::data_view;
using capnp_io::message_bytes;
using capnp_io::message_reader;
using capnp_io::text;
using capnp_io::text_of;

}  // namespace superstep::storage
