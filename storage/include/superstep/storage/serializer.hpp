#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "superstep/core/value.hpp"

namespace superstep::storage {

/// Turns values into bytes for storage and back (LangGraph's SerializerProtocol).
///
/// `loads` of bytes that were damaged, truncated, made by another serializer or encrypted with
/// another key throws `superstep::error` (code storage_error) saying what is wrong; it never
/// crashes. Implementations are immutable and safe to share between threads.
class serializer {
 public:
  virtual ~serializer() = default;
  /// A short name recorded beside what it wrote ("capnp", "aes-256-gcm+capnp").
  virtual std::string_view name() const noexcept = 0;
  virtual std::string dumps(const value& v) const = 0;
  virtual value loads(std::string_view bytes) const = 0;
};

/// The default: a value as a Cap'n Proto message (storage/schema/value.capnp).
std::shared_ptr<const serializer> make_capnp_serializer();

/// Encrypts what `inner` writes with AES-256-GCM under `key` (32 bytes).
/// Throws `superstep::error` (invalid_argument) for a key of another length.
std::shared_ptr<const serializer> make_encrypting_serializer(
    std::shared_ptr<const serializer> inner, std::string key);

/// The encrypting serializer with the key `key_text` spells (64 hex digits or 44 base64
/// characters: 32 bytes), or `inner` unchanged when `key_text` is empty. Throws
/// `superstep::error` (invalid_argument) naming `source`, where the text came from (the
/// `superstep` program's SUPERSTEP_AES_KEY variable), when it is malformed; the message never
/// shows the text. The caller supplies the key: this library reads no environment variable.
std::shared_ptr<const serializer> serializer_with_key(std::shared_ptr<const serializer> inner,
                                                      std::string_view key_text,
                                                      std::string_view source);

}  // namespace superstep::storage
