// Reading X.509 certificates back (see the header). Every primitive is an OpenSSL call.
#include "io/crypto/x509_inspect.hpp"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>

namespace br::crypto {

namespace {

using x509_ptr = std::unique_ptr<X509, decltype(&X509_free)>;
using pkey_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using bio_ptr = std::unique_ptr<BIO, decltype(&BIO_free)>;

x509_ptr read_cert(const std::string& pem) {
  bio_ptr b{BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free};
  if (!b) return {nullptr, &X509_free};
  return {PEM_read_bio_X509(b.get(), nullptr, nullptr, nullptr), &X509_free};
}

pkey_ptr read_key(const std::string& pem) {
  bio_ptr b{BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free};
  if (!b) return {nullptr, &EVP_PKEY_free};
  return {PEM_read_bio_PrivateKey(b.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free};
}

std::optional<std::chrono::system_clock::time_point> time_of(const ASN1_TIME* t) {
  std::tm tm{};
  if (!t || ASN1_TIME_to_tm(t, &tm) != 1) return std::nullopt;
  return std::chrono::system_clock::from_time_t(::timegm(&tm));
}

}  // namespace

std::optional<cert_info> inspect_cert(const std::string& cert_pem) {
  auto c = read_cert(cert_pem);
  if (!c) return std::nullopt;
  auto nb = time_of(X509_get0_notBefore(c.get()));
  auto na = time_of(X509_get0_notAfter(c.get()));
  if (!nb || !na) return std::nullopt;
  cert_info out;
  out.not_before = *nb;
  out.not_after = *na;
  out.is_ca = X509_check_ca(c.get()) == 1;  // 1: basicConstraints CA:TRUE
  char cn[256] = {};
  if (X509_NAME_get_text_by_NID(X509_get_subject_name(c.get()), NID_commonName, cn, sizeof cn) > 0)
    out.common_name = cn;
  auto* sans = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(c.get(), NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; sans && i < sk_GENERAL_NAME_num(sans); ++i) {
    const GENERAL_NAME* g = sk_GENERAL_NAME_value(sans, i);
    if (g->type == GEN_DNS) {
      const auto* s = g->d.dNSName;
      out.names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                             static_cast<std::size_t>(ASN1_STRING_length(s)));
    } else if (g->type == GEN_IPADD) {
      const auto* s = g->d.iPAddress;
      char text[INET6_ADDRSTRLEN] = {};
      const int n = ASN1_STRING_length(s);
      if ((n == 4 || n == 16) &&
          inet_ntop(n == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(s), text, sizeof text))
        out.names.emplace_back(text);
    } else if (g->type == GEN_URI) {
      const auto* s = g->d.uniformResourceIdentifier;
      out.uris.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                            static_cast<std::size_t>(ASN1_STRING_length(s)));
    }
  }
  GENERAL_NAMES_free(sans);
  return out;
}

bool signed_by(const std::string& cert_pem, const std::string& ca_cert_pem) {
  auto c = read_cert(cert_pem);
  auto ca = read_cert(ca_cert_pem);
  if (!c || !ca) return false;
  if (X509_NAME_cmp(X509_get_issuer_name(c.get()), X509_get_subject_name(ca.get())) != 0) return false;
  EVP_PKEY* pub = X509_get0_pubkey(ca.get());
  return pub && X509_verify(c.get(), pub) == 1;
}

bool key_matches(const std::string& cert_pem, const std::string& key_pem) {
  auto c = read_cert(cert_pem);
  auto k = read_key(key_pem);
  return c && k && X509_check_private_key(c.get(), k.get()) == 1;
}

}  // namespace br::crypto
