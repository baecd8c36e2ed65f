// Ed25519 through EVP (OpenSSL 3): raw keys in and out, PEM through BIOs.
#include "io/crypto/ed25519.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <memory>
#include <stdexcept>

namespace br::crypto {

namespace {

using pkey_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using md_ptr = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;
using bio_ptr = std::unique_ptr<BIO, decltype(&BIO_free)>;

const unsigned char* bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

pkey_ptr private_pkey(std::string_view seed) {
  return {EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, bytes(seed), seed.size()),
          &EVP_PKEY_free};
}

pkey_ptr public_pkey(std::string_view raw) {
  return {EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, bytes(raw), raw.size()),
          &EVP_PKEY_free};
}

std::optional<std::string> raw_public(EVP_PKEY* k) {
  std::string out(32, '\0');
  size_t len = out.size();
  if (EVP_PKEY_get_raw_public_key(k, reinterpret_cast<unsigned char*>(out.data()), &len) != 1 ||
      len != 32)
    return std::nullopt;
  return out;
}

std::optional<std::string> raw_private(EVP_PKEY* k) {
  std::string out(32, '\0');
  size_t len = out.size();
  if (EVP_PKEY_get_raw_private_key(k, reinterpret_cast<unsigned char*>(out.data()), &len) != 1 ||
      len != 32)
    return std::nullopt;
  return out;
}

std::string bio_text(BIO* b) {
  char* data = nullptr;
  long n = BIO_get_mem_data(b, &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

}  // namespace

std::string key_id(std::string_view raw) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(bytes(raw), raw.size(), d);
  return to_hex(std::string_view(reinterpret_cast<const char*>(d), 8));
}

std::optional<signing_key> key_from_seed(std::string_view seed) {
  if (seed.size() != 32) return std::nullopt;
  auto k = private_pkey(seed);
  if (!k) return std::nullopt;
  auto pub = raw_public(k.get());
  if (!pub) return std::nullopt;
  signing_key out;
  out.seed = std::string(seed);
  out.pub.raw = *pub;
  out.pub.id = key_id(*pub);
  return out;
}

std::optional<signing_key> generate_key() { return key_from_seed(random_bytes(32)); }

std::string sign(const signing_key& key, std::string_view message) {
  auto k = private_pkey(key.seed);
  md_ptr ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!k || !ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) != 1)
    return {};
  std::string sig(64, '\0');
  size_t len = sig.size();
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                     bytes(message), message.size()) != 1 ||
      len != 64)
    return {};
  return sig;
}

bool verify(const verify_key& key, std::string_view message, std::string_view signature) {
  if (key.raw.size() != 32 || signature.size() != 64) return false;
  auto k = public_pkey(key.raw);
  md_ptr ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!k || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) != 1)
    return false;
  return EVP_DigestVerify(ctx.get(), bytes(signature), signature.size(), bytes(message),
                          message.size()) == 1;
}

std::string random_bytes(std::size_t n) {
  std::string out(n, '\0');
  if (n > 0 && RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1)
    throw std::runtime_error("RAND_bytes failed");
  return out;
}

std::string to_hex(std::string_view in) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(in.size() * 2);
  for (unsigned char c : in) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

std::optional<std::string> from_hex(std::string_view in) {
  if (in.size() % 2 != 0) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(in.size() / 2);
  for (size_t i = 0; i < in.size(); i += 2) {
    int hi = nibble(in[i]), lo = nibble(in[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

std::string private_pem(const signing_key& key) {
  auto k = private_pkey(key.seed);
  bio_ptr b(BIO_new(BIO_s_mem()), &BIO_free);
  if (!k || !b ||
      PEM_write_bio_PrivateKey(b.get(), k.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1)
    return {};
  return bio_text(b.get());
}

std::string public_pem(const verify_key& key) {
  auto k = public_pkey(key.raw);
  bio_ptr b(BIO_new(BIO_s_mem()), &BIO_free);
  if (!k || !b || PEM_write_bio_PUBKEY(b.get(), k.get()) != 1) return {};
  return bio_text(b.get());
}

signing_key_load signing_key_from_pem(std::string_view pem) {
  signing_key_load out;
  bio_ptr b(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  pkey_ptr k(b ? PEM_read_bio_PrivateKey(b.get(), nullptr, nullptr, nullptr) : nullptr,
             &EVP_PKEY_free);
  if (!k) {
    out.error = "no PEM private key";
    return out;
  }
  if (EVP_PKEY_get_id(k.get()) != EVP_PKEY_ED25519) {
    out.error = "the private key is not Ed25519";
    return out;
  }
  auto seed = raw_private(k.get());
  if (seed) out.key = key_from_seed(*seed);
  if (!out.key) out.error = "cannot read the Ed25519 private key";
  return out;
}

verify_keys_load verify_keys_from_pem(std::string_view pem) {
  verify_keys_load out;
  bio_ptr b(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  while (b) {
    pkey_ptr k(PEM_read_bio_PUBKEY(b.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
    if (!k) break;
    if (EVP_PKEY_get_id(k.get()) != EVP_PKEY_ED25519) {
      out.error = "public key " + std::to_string(out.keys.size() + 1) + " is not Ed25519";
      out.keys.clear();
      return out;
    }
    auto raw = raw_public(k.get());
    if (!raw) {
      out.error = "cannot read public key " + std::to_string(out.keys.size() + 1);
      out.keys.clear();
      return out;
    }
    out.keys.push_back({*raw, key_id(*raw)});
  }
  ERR_clear_error();  // the read that ended the loop leaves "no start line" on the queue
  if (out.keys.empty()) out.error = "no PEM public key";
  return out;
}

}  // namespace br::crypto
