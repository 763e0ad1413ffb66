#include "net/auth.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <fstream>
#include <sstream>

#include "superstep/core/error.hpp"

namespace superstep::net {

namespace {

std::string hex(const unsigned char* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

}  // namespace

std::string read_key_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(error_code::invalid_argument, "cannot read key file '" + path + "'");
  std::ostringstream s;
  s << in.rdbuf();
  std::string key = s.str();
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
  if (key.size() < 16)
    throw error(error_code::invalid_argument,
                "key file '" + path + "' holds " + std::to_string(key.size()) +
                    " bytes; a key needs at least 16 (e.g. head -c 32 /dev/urandom | base64)");
  return key;
}

std::string make_nonce() {
  unsigned char buf[16];
  if (RAND_bytes(buf, sizeof buf) != 1)
    throw error(error_code::internal, "no random bytes from OpenSSL");
  return hex(buf, sizeof buf);
}

std::string prove(const std::string& key, const std::string& nonce) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(nonce.data()), nonce.size(), mac, &len))
    throw error(error_code::internal, "HMAC-SHA256 failed");
  return hex(mac, len);
}

bool verify(const std::string& key, const std::string& nonce, const std::string& proof) {
  std::string expected = prove(key, nonce);
  return proof.size() == expected.size() &&
         CRYPTO_memcmp(proof.data(), expected.data(), expected.size()) == 0;
}

std::string spec_key(const std::string& spec_text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(spec_text.data()), spec_text.size(), digest);
  return hex(digest, 16);
}

}  // namespace superstep::net
