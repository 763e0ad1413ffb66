#pragma once

// The cluster's shared key and the proof of having it: the head sends a fresh nonce, the
// peer answers HMAC-SHA256(key, nonce). The key itself never travels.

#include <string>

namespace superstep::net {

/// The key in file `path`: its bytes, without a trailing newline. Throws
/// error(invalid_argument) naming the file when it cannot be read or holds under 16 bytes.
std::string read_key_file(const std::string& path);

/// 32 random hex digits.
std::string make_nonce();

/// HMAC-SHA256 of `nonce` under `key`, in hex.
std::string prove(const std::string& key, const std::string& nonce);

/// Whether `proof` is prove(key, nonce), compared in constant time.
bool verify(const std::string& key, const std::string& nonce, const std::string& proof);

/// A short stable name for a spec text: the first 16 bytes of its SHA-256, in hex.
std::string spec_key(const std::string& spec_text);

}  // namespace superstep::net
