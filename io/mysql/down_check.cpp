// A raw TCP connect that tells "nothing listens" (ECONNREFUSED) from everything else.
#include "io/mysql/down_check.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace br::mysql {

bool loopback_host(std::string_view host) {
  std::string h(host);
  if (h == "localhost" || h == "::1") return true;
  in_addr a{};
  if (::inet_pton(AF_INET, h.c_str(), &a) != 1) return false;
  return (ntohl(a.s_addr) >> 24) == 127;
}

bool tcp_refused(std::string_view host, uint16_t port, std::chrono::milliseconds timeout) {
  std::string h(host == "localhost" ? std::string_view("127.0.0.1") : host);
  sockaddr_storage ss{};
  socklen_t len = 0;
  int family = AF_INET;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (::inet_pton(AF_INET, h.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    len = sizeof *v4;
  } else if (::inet_pton(AF_INET6, h.c_str(), &v6->sin6_addr) == 1) {
    family = AF_INET6;
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    len = sizeof *v6;
  } else {
    return false;  // not a literal: no DNS here, a name proves nothing
  }
  int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  bool refused = false;
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&ss), len);
  if (rc != 0 && errno == ECONNREFUSED) {
    refused = true;
  } else if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    int ms = static_cast<int>(timeout.count() < 0 ? 0 : timeout.count());
    if (::poll(&p, 1, ms) == 1) {
      int err = 0;
      socklen_t el = sizeof err;
      if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0) refused = err == ECONNREFUSED;
    }
  }
  ::close(fd);
  return refused;
}

bool provably_down(const mysql_error& e, std::string_view host, uint16_t port,
                   std::chrono::milliseconds timeout) {
  // CR_CONNECTION_ERROR (2002: the library's code for a failed connect, TCP included) or
  // CR_CONN_HOST_ERROR (2003). A lost connection (2013), gone away (2006), auth or server errors
  // are a running server's answers or say nothing.
  if (e.code != 2002 && e.code != 2003) return false;
  if (!loopback_host(host)) return false;
  return tcp_refused(host, port, timeout);
}

}  // namespace br::mysql
