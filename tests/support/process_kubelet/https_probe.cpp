// The kubelet's HTTPS probe (see the header).
#include "tests/support/process_kubelet/https_probe.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <openssl/ssl.h>

#include <chrono>
#include <cstdlib>
#include <memory>

namespace br::test::kubelet {

bool https_get_ok(int fd, const std::string& host, const std::string& path) {
  // Blocking with 1 s send/receive timeouts: the handshake and each read are bounded.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) return false;
  timeval tv{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx{SSL_CTX_new(TLS_client_method()), SSL_CTX_free};
  if (!ctx) return false;
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);  // the kubelet does not verify probes
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl{SSL_new(ctx.get()), SSL_free};
  if (!ssl || SSL_set_fd(ssl.get(), fd) != 1 || SSL_connect(ssl.get()) != 1) return false;
  const std::string req = "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n";
  if (SSL_write(ssl.get(), req.data(), static_cast<int>(req.size())) != static_cast<int>(req.size())) return false;
  std::string got;
  char buf[256];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{1};
  while (got.find("\r\n") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    const int n = SSL_read(ssl.get(), buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  if (got.size() <= 12 || got.rfind("HTTP/", 0) != 0) return false;
  const int code = std::atoi(got.c_str() + got.find(' ') + 1);
  return code >= 200 && code < 400;
}

}  // namespace br::test::kubelet
