// A blocking WebSocket client for tests (Boost.Beast): connect + handshake to /ws/status, read
// messages, with an optional deadline that closes the socket from another thread.
#pragma once

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <future>
#include <string>

namespace br::test {

struct ws_client {
  boost::asio::io_context ioc;
  boost::beast::websocket::stream<boost::asio::ip::tcp::socket> ws{ioc};
  boost::beast::websocket::response_type res;
  boost::beast::error_code ec;

  /// Connects and handshakes; `rcvbuf` > 0 shrinks the receive buffer (a slow reader fills fast).
  ws_client(uint16_t port, const std::string& origin = "", int rcvbuf = 0) {
    boost::asio::ip::tcp::endpoint ep(boost::asio::ip::make_address("127.0.0.1"), port);
    auto& sock = ws.next_layer();
    sock.open(ep.protocol());
    if (rcvbuf > 0) sock.set_option(boost::asio::socket_base::receive_buffer_size(rcvbuf));
    sock.connect(ep);
    if (!origin.empty())
      ws.set_option(boost::beast::websocket::stream_base::decorator(
          [origin](boost::beast::websocket::request_type& r) { r.set(boost::beast::http::field::origin, origin); }));
    ws.handshake(res, "127.0.0.1", "/ws/status", ec);
  }
  bool open() const { return !ec; }
  /// Reads one message; "" on error.
  std::string read() {
    boost::beast::flat_buffer b;
    boost::beast::error_code e;
    ws.read(b, e);
    if (e) return {};
    return boost::beast::buffers_to_string(b.data());
  }
};


/// Reads one message, giving up after `deadline` (the socket is shut down; "" returned).
inline std::string read_within(ws_client& c, std::chrono::milliseconds deadline) {
  auto f = std::async(std::launch::async, [&c] { return c.read(); });
  if (f.wait_for(deadline) != std::future_status::ready)
    ::shutdown(c.ws.next_layer().native_handle(), SHUT_RDWR);
  return f.get();
}

}  // namespace br::test
