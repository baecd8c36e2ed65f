// site_io against a closed loopback port (no MySQL needed): outcomes are errors with the right
// kind, many commands queue over a small pool, and the pool answers every one.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "actors/operator/group/site_io.hpp"

using namespace br;

namespace {

// A port nothing listens on: bind an ephemeral port, read it, close the socket.
uint16_t closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

}  // namespace

BOOST_AUTO_TEST_CASE(refused_connections_map_to_refused_outcomes) {
  BOOST_TEST(site_io_detail::outcome_kind("protocol") == "other");
  BOOST_TEST(site_io_detail::outcome_kind("timeout") == "timeout");
  caf::actor_system_config cfg;
  cfg.set("logger.verbosity", caf::atom("quiet"));
  caf::actor_system sys{cfg};
  auto io = spawn_site_io(sys);
  caf::scoped_actor self{sys};
  auto port = closed_port();
  const int n = 12;
  for (int i = 0; i < n; ++i) {
    mysql_command c;
    c.op = i % 2 == 0 ? mysql_op::probe : mysql_op::fence;
    c.target.site = "s" + std::to_string(i);
    c.target.port = port;
    c.target.user = "bloodraven";
    c.target.password = "topsecret-pw";
    c.timeout = std::chrono::seconds(2);
    self->send(io, c);
  }
  int answered = 0;
  for (int i = 0; i < n; ++i)
    self->receive(
        [&](mysql_outcome& out) {
          ++answered;
          BOOST_TEST(!out.ok);
          BOOST_TEST(out.error_kind == "refused");
          BOOST_TEST(out.error.find("topsecret-pw") == std::string::npos);
        },
        caf::after(std::chrono::seconds(30)) >> [] {});
  BOOST_TEST(answered == n);
  self->send_exit(io, caf::exit_reason::user_shutdown);
}
