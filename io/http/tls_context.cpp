// TLS context loading and reloading (see the header).
#include "io/http/tls_context.hpp"

#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <stdexcept>

#include "io/crypto/x509_inspect.hpp"
#include "io/log/log.hpp"

namespace br::http::detail {

namespace ssl = boost::asio::ssl;

tls_files::tls_files(tls_settings settings) : s_(std::move(settings)) {
  loaded_ = stamps();
  ctx_ = load();
  checked_ = std::chrono::steady_clock::now();
}

tls_files::stamp_set tls_files::stamps() const {
  return {fs::stamp_of(s_.cert_file), fs::stamp_of(s_.key_file),
          s_.client_ca_file.empty() ? fs::file_stamp{} : fs::stamp_of(s_.client_ca_file)};
}

std::shared_ptr<ssl::context> tls_files::load() const {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                   ssl::context::single_dh_use);
  boost::system::error_code ec;
  ctx->use_certificate_chain_file(s_.cert_file, ec);
  if (ec) throw std::runtime_error("cannot load TLS certificate " + s_.cert_file + ": " + ec.message());
  ctx->use_private_key_file(s_.key_file, ssl::context::pem, ec);
  if (ec) throw std::runtime_error("cannot load TLS key " + s_.key_file + ": " + ec.message());
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1)
    throw std::runtime_error("TLS key " + s_.key_file + " does not match certificate " + s_.cert_file);
  if (!s_.client_ca_file.empty()) {
    ctx->load_verify_file(s_.client_ca_file, ec);
    if (ec)
      throw std::runtime_error("cannot load TLS client CA " + s_.client_ca_file + ": " + ec.message());
    // The CA names the server sends in its certificate request (clients pick a matching cert).
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(s_.client_ca_file.c_str());
    if (!names) throw std::runtime_error("TLS client CA " + s_.client_ca_file + " holds no certificate");
    SSL_CTX_set_client_CA_list(ctx->native_handle(), names);
    ctx->set_verify_mode(ssl::verify_peer |
                         (s_.require_client_cert ? ssl::verify_fail_if_no_peer_cert : 0));
    // Sessions resumed across contexts must not skip verification: one id per server process.
    static constexpr unsigned char sid[] = "bloodraven-http";
    SSL_CTX_set_session_id_context(ctx->native_handle(), sid, sizeof sid - 1);
  }
  return ctx;
}

std::shared_ptr<ssl::context> tls_files::current() {
  std::lock_guard lock{m_};
  const auto now = std::chrono::steady_clock::now();
  if (now - checked_ < std::chrono::seconds{1}) return ctx_;
  checked_ = now;
  const auto s = stamps();
  if (s == loaded_) return ctx_;
  loaded_ = s;  // a pair that fails is tried again only after its next change
  try {
    ctx_ = load();
    br::log::info("tls certificate reloaded", {{"cert", s_.cert_file}, {"client_ca", s_.client_ca_file}});
  } catch (const std::exception& e) {
    br::log::error("tls certificate reload failed; keeping the previous one",
                   {{"cert", s_.cert_file}, {"error", e.what()}});
  }
  return ctx_;
}

std::optional<tls_peer> verified_peer(SSL* ssl) {
  if (!ssl || SSL_get_verify_result(ssl) != X509_V_OK) return std::nullopt;
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (!cert) return std::nullopt;
  std::string pem;
  if (BIO* b = BIO_new(BIO_s_mem())) {
    if (PEM_write_bio_X509(b, cert) == 1) {
      char* data = nullptr;
      const long n = BIO_get_mem_data(b, &data);
      if (n > 0) pem.assign(data, static_cast<std::size_t>(n));
    }
    BIO_free(b);
  }
  X509_free(cert);
  auto info = br::crypto::inspect_cert(pem);
  if (!info) return std::nullopt;
  return tls_peer{std::move(info->common_name), std::move(info->names), std::move(info->uris)};
}

}  // namespace br::http::detail
