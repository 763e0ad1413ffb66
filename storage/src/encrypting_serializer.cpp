// The encrypting serializer (LangGraph's EncryptedSerializer): AES-256-GCM over what an inner
// serializer writes, through OpenSSL's EVP API.
//
// Record layout, all lengths in bytes:
//
//   "SSE1" (4) | nonce (12) | ciphertext (as long as the inner bytes) | GCM tag (16)
//
// "SSE1" names the format and its version. The additional authenticated data is the magic
// followed by the inner serializer's name, so a record made through another inner format (or a
// future layout) fails authentication instead of reaching the wrong decoder.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "superstep/core/error.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::storage {

namespace {

constexpr std::string_view magic = "SSE1";
constexpr std::size_t key_size = 32;
constexpr std::size_t nonce_size = 12;
constexpr std::size_t tag_size = 16;
constexpr std::size_t overhead = magic.size() + nonce_size + tag_size;
// EVP takes int lengths: longer inputs go through in slices.
constexpr std::size_t max_slice = std::size_t{1} << 30;

[[noreturn]] void fail_openssl(const char* what) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  std::string message = std::string("AES-256-GCM: ") + what + " failed";
  if (code != 0) {
    char reason[256];
    ERR_error_string_n(code, reason, sizeof reason);
    message += std::string(": ") + reason;
  }
  throw error(error_code::storage_error, message);
}

struct cipher_ctx_deleter {
  void operator()(EVP_CIPHER_CTX* ctx) const noexcept { EVP_CIPHER_CTX_free(ctx); }
};
using cipher_ctx = std::unique_ptr<EVP_CIPHER_CTX, cipher_ctx_deleter>;

cipher_ctx new_ctx() {
  cipher_ctx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) fail_openssl("EVP_CIPHER_CTX_new");
  return ctx;
}

const unsigned char* bytes_of(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}
unsigned char* bytes_of(std::string& s, std::size_t at) {
  return reinterpret_cast<unsigned char*>(s.data() + at);
}

// Feeds `in` through an initialised context, writing the same number of bytes at `out`
// (GCM is a stream mode). A null `out` feeds additional authenticated data.
void update(EVP_CIPHER_CTX* ctx, bool encrypt, std::string_view in, unsigned char* out) {
  for (std::size_t done = 0, n = 0; done < in.size(); done += n) {
    n = std::min(in.size() - done, max_slice);
    int written = 0;
    const unsigned char* src = bytes_of(in) + done;
    unsigned char* dst = out ? out + done : nullptr;
    const int ok = encrypt ? EVP_EncryptUpdate(ctx, dst, &written, src, static_cast<int>(n))
                           : EVP_DecryptUpdate(ctx, dst, &written, src, static_cast<int>(n));
    if (ok != 1) fail_openssl(encrypt ? "EVP_EncryptUpdate" : "EVP_DecryptUpdate");
  }
}

class encrypting_serializer final : public serializer {
 public:
  encrypting_serializer(std::shared_ptr<const serializer> inner, std::string key)
      : inner_(std::move(inner)),
        key_(std::move(key)),
        name_("aes-256-gcm+" + std::string(inner_->name())),
        aad_(std::string(magic) + std::string(inner_->name())) {}

  ~encrypting_serializer() override { OPENSSL_cleanse(key_.data(), key_.size()); }

  std::string_view name() const noexcept override { return name_; }

  std::string dumps(const value& v) const override {
    const std::string plain = inner_->dumps(v);
    std::string record(overhead + plain.size(), '\0');
    record.replace(0, magic.size(), magic);
    unsigned char* nonce = bytes_of(record, magic.size());
    if (RAND_bytes(nonce, static_cast<int>(nonce_size)) != 1) fail_openssl("RAND_bytes (nonce)");

    cipher_ctx ctx = new_ctx();
    if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(nonce_size),
                            nullptr) != 1 ||
        EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, bytes_of(key_), nonce) != 1)
      fail_openssl("EVP_EncryptInit_ex");
    update(ctx.get(), true, aad_, nullptr);
    update(ctx.get(), true, plain, bytes_of(record, magic.size() + nonce_size));
    int final_len = 0;
    if (EVP_EncryptFinal_ex(ctx.get(), nullptr, &final_len) != 1 || final_len != 0)
      fail_openssl("EVP_EncryptFinal_ex");
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(tag_size),
                            bytes_of(record, record.size() - tag_size)) != 1)
      fail_openssl("reading the GCM tag");
    return record;
  }

  value loads(std::string_view record) const override {
    if (record.size() < overhead)
      throw error(error_code::storage_error, "encrypted record: " + std::to_string(record.size()) +
                                                 " bytes is shorter than the " +
                                                 std::to_string(overhead) +
                                                 " bytes of header, nonce and tag (truncated)");
    if (record.substr(0, magic.size()) != magic)
      throw error(error_code::storage_error,
                  "encrypted record: wrong magic, expected \"SSE1\" (not written by " + name_ +
                      ", or damaged)");
    const std::string_view nonce = record.substr(magic.size(), nonce_size);
    const std::string_view sealed =
        record.substr(magic.size() + nonce_size, record.size() - overhead);
    // The tag is copied: OpenSSL's SET_TAG takes a non-const pointer.
    unsigned char tag[tag_size];
    std::copy_n(bytes_of(record) + record.size() - tag_size, tag_size, tag);

    cipher_ctx ctx = new_ctx();
    if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(nonce_size),
                            nullptr) != 1 ||
        EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr, bytes_of(key_), bytes_of(nonce)) != 1)
      fail_openssl("EVP_DecryptInit_ex");
    std::string plain(sealed.size(), '\0');
    update(ctx.get(), false, aad_, nullptr);
    update(ctx.get(), false, sealed, bytes_of(plain, 0));
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(tag_size), tag) != 1)
      fail_openssl("setting the GCM tag");
    int final_len = 0;
    if (EVP_DecryptFinal_ex(ctx.get(), nullptr, &final_len) != 1) {
      ERR_clear_error();
      OPENSSL_cleanse(plain.data(), plain.size());
      throw error(error_code::storage_error,
                  "encrypted record failed authentication: wrong key or tampered data");
    }
    return inner_->loads(plain);
  }

 private:
  std::shared_ptr<const serializer> inner_;
  std::string key_;
  std::string name_;
  std::string aad_;
};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int base64_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// A 32-byte key from 64 hex digits or 44 (padded, standard alphabet) base64 characters;
// false for anything else.
bool decode_key(std::string_view text, std::string& key) {
  key.clear();
  if (text.size() == 2 * key_size) {
    for (std::size_t i = 0; i < text.size(); i += 2) {
      const int hi = hex_digit(text[i]), lo = hex_digit(text[i + 1]);
      if (hi < 0 || lo < 0) return false;
      key.push_back(static_cast<char>(hi << 4 | lo));
    }
    return true;
  }
  // 32 bytes are 43 base64 digits (the last carries 2 bits of padding) and one '='.
  if (text.size() != 44 || text[43] != '=') return false;
  unsigned long bits = 0;
  int nbits = 0;
  for (std::size_t i = 0; i < 43; ++i) {
    const int d = base64_digit(text[i]);
    if (d < 0) return false;
    bits = (bits << 6) | static_cast<unsigned long>(d);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      key.push_back(static_cast<char>((bits >> nbits) & 0xff));
    }
  }
  // Non-zero padding bits would let two spellings name one key: not canonical base64.
  return key.size() == key_size && (bits & ((1ul << nbits) - 1)) == 0;
}

}  // namespace

std::shared_ptr<const serializer> make_encrypting_serializer(
    std::shared_ptr<const serializer> inner, std::string key) {
  if (!inner)
    throw error(error_code::invalid_argument, "make_encrypting_serializer needs an inner one");
  if (key.size() != key_size) {
    const std::size_t n = key.size();
    OPENSSL_cleanse(key.data(), key.size());
    throw error(error_code::invalid_argument,
                "AES-256-GCM needs a 32-byte key, got " + std::to_string(n));
  }
  return std::make_shared<encrypting_serializer>(std::move(inner), std::move(key));
}

std::shared_ptr<const serializer> serializer_with_key(std::shared_ptr<const serializer> inner,
                                                      std::string_view key_text,
                                                      std::string_view source) {
  if (key_text.empty()) return inner;
  std::string key;
  if (!decode_key(key_text, key)) {
    OPENSSL_cleanse(key.data(), key.size());
    throw error(
        error_code::invalid_argument,
        std::string(source) + " must be 64 hex digits or 44 base64 characters (a 32-byte key)");
  }
  return make_encrypting_serializer(std::move(inner), std::move(key));
}

}  // namespace superstep::storage
