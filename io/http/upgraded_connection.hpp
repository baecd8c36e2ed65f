// A socket taken over from the HTTP server by an upgrade route (WebSocket extension point).
#pragma once

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "io/http/router.hpp"

namespace br::http {

/// Handed to an upgrade_handler. Typical use:
///   boost::beast::websocket::stream<boost::beast::tcp_stream> ws{std::move(c->stream)};
///   ws.async_accept(c->raw, ...);
/// The stream runs on the server's io_context (its executor is the connection's strand) with
/// no expiry set. The server no longer counts or closes it: the owner must close it before the
/// server is destroyed.
struct upgraded_connection {
  boost::beast::tcp_stream stream;
  boost::beast::flat_buffer buffer;  // bytes already read after the request, usually empty
  boost::beast::http::request<boost::beast::http::string_body> raw;
};

}  // namespace br::http
