// Ed25519 signatures through OpenSSL's libcrypto: keys, sign, verify, PEM files, nonces.
// Nothing here is hand-rolled: every primitive is an EVP call.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace br::crypto {

/// A public key that verifies signatures. `id` is the first 16 hex digits of SHA-256 of the raw
/// key: signatures name the key they were made with, so two keys can be accepted during a rollover.
struct verify_key {
  std::string raw;  ///< 32 bytes
  std::string id;
};

/// A private key (its 32-byte seed) and its public half.
struct signing_key {
  std::string seed;  ///< 32 bytes, never logged
  verify_key pub;
};

/// A fresh key from the system's random source; nullopt only when libcrypto fails.
std::optional<signing_key> generate_key();

/// The key for a known seed (tests, PEM loading); nullopt when `seed` is not 32 bytes.
std::optional<signing_key> key_from_seed(std::string_view seed);

/// The key id of a raw public key.
std::string key_id(std::string_view raw_public_key);

/// A 64-byte Ed25519 signature of `message`; "" only when libcrypto fails.
std::string sign(const signing_key& key, std::string_view message);

/// True when `signature` is `key`'s signature of `message`.
bool verify(const verify_key& key, std::string_view message, std::string_view signature);

/// `n` bytes from the system's random source (RAND_bytes); throws when it fails.
std::string random_bytes(std::size_t n);

std::string to_hex(std::string_view bytes);
/// nullopt on odd length or a non-hex digit.
std::optional<std::string> from_hex(std::string_view hex);

/// PKCS#8 and SubjectPublicKeyInfo PEM, as `openssl genpkey -algorithm ed25519` and
/// `openssl pkey -pubout` write them.
std::string private_pem(const signing_key& key);
std::string public_pem(const verify_key& key);

struct signing_key_load {
  std::optional<signing_key> key;
  std::string error;
};
/// The first PEM private key in `pem`; it must be Ed25519.
signing_key_load signing_key_from_pem(std::string_view pem);

struct verify_keys_load {
  std::vector<verify_key> keys;  ///< every PEM public key in the text, in order
  std::string error;             ///< set when there is none, or one is not Ed25519
};
verify_keys_load verify_keys_from_pem(std::string_view pem);

}  // namespace br::crypto
