// X.509 issuing (see the header). Every primitive is an OpenSSL call.
#include "io/crypto/x509_issue.hpp"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace br::crypto {

namespace {

using pkey_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using x509_ptr = std::unique_ptr<X509, decltype(&X509_free)>;
using bio_ptr = std::unique_ptr<BIO, decltype(&BIO_free)>;

pkey_ptr new_key() {
  return {EVP_EC_gen("P-256"), &EVP_PKEY_free};
}

std::string bio_text(BIO* b) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(b, &data);
  return n > 0 ? std::string{data, static_cast<std::size_t>(n)} : std::string{};
}

std::optional<std::string> cert_pem(X509* c) {
  bio_ptr b{BIO_new(BIO_s_mem()), &BIO_free};
  if (!b || PEM_write_bio_X509(b.get(), c) != 1) return std::nullopt;
  return bio_text(b.get());
}

std::optional<std::string> key_pem(EVP_PKEY* k) {
  bio_ptr b{BIO_new(BIO_s_mem()), &BIO_free};
  if (!b || PEM_write_bio_PrivateKey(b.get(), k, nullptr, nullptr, 0, nullptr, nullptr) != 1)
    return std::nullopt;
  return bio_text(b.get());
}

bool add_ext(X509* issuer, X509* subject, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, subject, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (!ext) return false;
  const bool ok = X509_add_ext(subject, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

/// A certificate skeleton: v3, random serial, validity, subject CN, public key.
x509_ptr skeleton(EVP_PKEY* key, const std::string& cn, std::chrono::hours validity) {
  x509_ptr c{X509_new(), &X509_free};
  if (!c) return c;
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return {nullptr, &X509_free};
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  const bool ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(c.get())) != nullptr &&
                  X509_set_version(c.get(), 2) == 1 &&
                  X509_gmtime_adj(X509_getm_notBefore(c.get()), -3600) != nullptr &&
                  X509_gmtime_adj(X509_getm_notAfter(c.get()),
                                  static_cast<long>(std::chrono::seconds{validity}.count())) != nullptr &&
                  X509_set_pubkey(c.get(), key) == 1;
  BN_free(bn);
  X509_NAME* name = X509_get_subject_name(c.get());
  if (!ok || X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                        reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                                        0) != 1)
    return {nullptr, &X509_free};
  return c;
}

std::string san_of(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    unsigned char buf[16];
    const bool ip = inet_pton(AF_INET, n.c_str(), buf) == 1 || inet_pton(AF_INET6, n.c_str(), buf) == 1;
    const bool uri = n.find("://") != std::string::npos;
    out += (out.empty() ? "" : ",") + std::string{ip ? "IP:" : uri ? "URI:" : "DNS:"} + n;
  }
  return out;
}

}  // namespace

std::optional<pem_pair> make_ca(const std::string& common_name, std::chrono::hours validity) {
  auto key = new_key();
  if (!key) return std::nullopt;
  auto c = skeleton(key.get(), common_name, validity);
  if (!c || X509_set_issuer_name(c.get(), X509_get_subject_name(c.get())) != 1) return std::nullopt;
  if (!add_ext(c.get(), c.get(), NID_basic_constraints, "critical,CA:TRUE") ||
      !add_ext(c.get(), c.get(), NID_key_usage, "critical,keyCertSign,cRLSign") ||
      !add_ext(c.get(), c.get(), NID_subject_key_identifier, "hash"))
    return std::nullopt;
  if (X509_sign(c.get(), key.get(), EVP_sha256()) == 0) return std::nullopt;
  auto cp = cert_pem(c.get());
  auto kp = key_pem(key.get());
  if (!cp || !kp) return std::nullopt;
  return pem_pair{*cp, *kp};
}

namespace {

/// A leaf certificate signed by `ca` with extendedKeyUsage `eku` (see issue_server_cert).
std::optional<pem_pair> issue_leaf(const pem_pair& ca, const std::vector<std::string>& dns_names,
                                   std::chrono::hours validity, const char* eku) {
  if (dns_names.empty()) return std::nullopt;
  bio_ptr cb{BIO_new_mem_buf(ca.cert_pem.data(), static_cast<int>(ca.cert_pem.size())), &BIO_free};
  bio_ptr kb{BIO_new_mem_buf(ca.key_pem.data(), static_cast<int>(ca.key_pem.size())), &BIO_free};
  if (!cb || !kb) return std::nullopt;
  x509_ptr ca_cert{PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr), &X509_free};
  pkey_ptr ca_key{PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free};
  if (!ca_cert || !ca_key) return std::nullopt;
  auto key = new_key();
  if (!key) return std::nullopt;
  auto c = skeleton(key.get(), dns_names.front(), validity);
  if (!c || X509_set_issuer_name(c.get(), X509_get_subject_name(ca_cert.get())) != 1)
    return std::nullopt;
  if (!add_ext(ca_cert.get(), c.get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !add_ext(ca_cert.get(), c.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
      !add_ext(ca_cert.get(), c.get(), NID_ext_key_usage, eku) ||
      !add_ext(ca_cert.get(), c.get(), NID_subject_alt_name, san_of(dns_names)))
    return std::nullopt;
  if (X509_sign(c.get(), ca_key.get(), EVP_sha256()) == 0) return std::nullopt;
  auto cp = cert_pem(c.get());
  auto kp = key_pem(key.get());
  if (!cp || !kp) return std::nullopt;
  return pem_pair{*cp, *kp};
}

}  // namespace

std::optional<pem_pair> issue_server_cert(const pem_pair& ca, const std::vector<std::string>& dns_names,
                                          std::chrono::hours validity) {
  return issue_leaf(ca, dns_names, validity, "serverAuth");
}

std::optional<pem_pair> issue_peer_cert(const pem_pair& ca, const std::vector<std::string>& names,
                                        std::chrono::hours validity) {
  return issue_leaf(ca, names, validity, "serverAuth,clientAuth");
}

}  // namespace br::crypto
