// TLS context loading and reloading (see the header).
#include "io/http/tls_context.hpp"

#include <sys/stat.h>

#include <stdexcept>

#include "io/log/log.hpp"

namespace br::http::detail {

namespace ssl = boost::asio::ssl;

tls_files::tls_files(std::string cert_file, std::string key_file)
    : cert_file_(std::move(cert_file)), key_file_(std::move(key_file)) {
  loaded_ = stamps();
  ctx_ = load();
  checked_ = std::chrono::steady_clock::now();
}

std::pair<file_stamp, file_stamp> tls_files::stamps() const {
  auto of = [](const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return file_stamp{};
    return file_stamp{static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec,
                 static_cast<long long>(st.st_size)};
  };
  return {of(cert_file_), of(key_file_)};
}

std::shared_ptr<ssl::context> tls_files::load() const {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                   ssl::context::single_dh_use);
  boost::system::error_code ec;
  ctx->use_certificate_chain_file(cert_file_, ec);
  if (ec) throw std::runtime_error("cannot load TLS certificate " + cert_file_ + ": " + ec.message());
  ctx->use_private_key_file(key_file_, ssl::context::pem, ec);
  if (ec) throw std::runtime_error("cannot load TLS key " + key_file_ + ": " + ec.message());
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1)
    throw std::runtime_error("TLS key " + key_file_ + " does not match certificate " + cert_file_);
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
    br::log::info("tls certificate reloaded", {{"cert", cert_file_}});
  } catch (const std::exception& e) {
    br::log::error("tls certificate reload failed; keeping the previous one",
                   {{"cert", cert_file_}, {"error", e.what()}});
  }
  return ctx_;
}

}  // namespace br::http::detail
