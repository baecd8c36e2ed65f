// The bounded RESP client (see client.hpp).
#include "io/redis/client.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace br::redis {
namespace {

using clock = std::chrono::steady_clock;

timeval to_timeval(std::chrono::milliseconds d) {
  if (d.count() <= 0) d = std::chrono::milliseconds(1);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(d.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((d.count() % 1000) * 1000);
  return tv;
}

// The reader's limits, reached through its privdata; `exceeded` tells our refusal from a real OOM.
struct reader_limits {
  int max_array_elements = 0;
  bool exceeded = false;
};

// hiredis' default reply builders (static in hiredis.c) are reached through the first context's
// reader; ours wrap them and refuse oversized arrays before anything is allocated for them.
redisReplyObjectFunctions* g_defaults = nullptr;
redisReplyObjectFunctions g_bounded{};
std::once_flag g_once;

void* bounded_array(const redisReadTask* task, int elements) {
  auto* lim = static_cast<reader_limits*>(task->privdata);
  if (lim && elements > lim->max_array_elements) {
    lim->exceeded = true;
    return nullptr;  // the reader reports it as an error and stops
  }
  return g_defaults->createArray(task, elements);
}

void install_bounded(redisContext* ctx, reader_limits* lim) {
  std::call_once(g_once, [&] {
    g_defaults = ctx->reader->fn;
    g_bounded = *g_defaults;
    g_bounded.createArray = &bounded_array;
  });
  ctx->reader->fn = &g_bounded;
  ctx->reader->privdata = lim;
}

error_kind kind_of(const redisContext* ctx) {
  const std::string what = ctx->errstr;
  if (ctx->err == REDIS_ERR_IO) {
    if (what.find("refused") != std::string::npos) return error_kind::refused;
    if (what.find("timed out") != std::string::npos || what.find("temporarily unavailable") != std::string::npos ||
        what.find("in progress") != std::string::npos)
      return error_kind::timeout;
    return error_kind::io;
  }
  if (ctx->err == REDIS_ERR_EOF) return error_kind::io;
  if (ctx->err == REDIS_ERR_PROTOCOL || ctx->err == REDIS_ERR_OOM) return error_kind::protocol;
  return error_kind::io;
}

reply convert(const redisReply* r) {
  reply out;
  switch (r->type) {
    case REDIS_REPLY_STRING:
      out.kind = reply::type::string;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.kind = reply::type::status;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_INTEGER:
      out.kind = reply::type::integer;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.kind = reply::type::array;
      out.elements.reserve(r->elements);
      for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
      break;
    default:
      out.kind = reply::type::nil;
  }
  return out;
}

}  // namespace

std::string_view to_string(error_kind k) {
  switch (k) {
    case error_kind::refused: return "refused";
    case error_kind::timeout: return "timeout";
    case error_kind::io: return "io";
    case error_kind::auth: return "auth";
    case error_kind::server_error: return "server_error";
    case error_kind::protocol: return "protocol";
  }
  return "io";
}

std::string redis_error::to_string() const {
  return std::string(redis::to_string(kind)) + ": " + message;
}

std::string connect_options::describe() const { return host + ":" + std::to_string(port); }

client::client(connect_options o, redisContext* ctx) : o_(std::move(o)), ctx_(ctx) {}

client::~client() {
  if (ctx_) {
    delete static_cast<reader_limits*>(ctx_->reader ? ctx_->reader->privdata : nullptr);
    if (ctx_->reader) ctx_->reader->privdata = nullptr;
    redisFree(ctx_);
  }
}

std::unique_ptr<client> client::connect(const connect_options& o, redis_error& err) {
  redisContext* ctx = redisConnectWithTimeout(o.host.c_str(), o.port, to_timeval(o.connect_timeout));
  if (!ctx) {
    err = {error_kind::io, o.describe() + ": cannot allocate a connection"};
    return nullptr;
  }
  if (ctx->err) {
    err = {kind_of(ctx), o.describe() + ": " + ctx->errstr};
    redisFree(ctx);
    return nullptr;
  }
  if (redisSetTimeout(ctx, to_timeval(o.io_timeout)) != REDIS_OK) {
    err = {error_kind::io, o.describe() + ": cannot set the socket timeouts: " + ctx->errstr};
    redisFree(ctx);
    return nullptr;
  }
  auto* lim = new reader_limits{o.max_array_elements, false};
  install_bounded(ctx, lim);
  std::unique_ptr<client> c(new client(o, ctx));
  if (!o.password.empty()) {
    auto r = c->command({"AUTH", o.password});
    if (!r.ok()) {
      err = r.error;
      if (err.kind == error_kind::server_error) err.kind = error_kind::auth;
      err.message = o.describe() + ": AUTH refused: " + err.message;
      return nullptr;
    }
  }
  return c;
}

response client::command(const std::vector<std::string>& argv) {
  response out;
  auto fail = [&](error_kind k, std::string m) {
    out.error = {k, std::move(m)};
    if (k != error_kind::server_error) broken_ = true;  // the stream's position is unknown now
    return out;
  };
  if (argv.empty()) return fail(error_kind::protocol, "empty command");
  if (broken_) return fail(error_kind::io, o_.describe() + ": the connection was closed after an earlier error");
  std::vector<const char*> args;
  std::vector<size_t> lens;
  for (const auto& a : argv) {
    args.push_back(a.data());
    lens.push_back(a.size());
  }
  const std::string name = argv[0];
  if (redisAppendCommandArgv(ctx_, static_cast<int>(args.size()), args.data(), lens.data()) != REDIS_OK)
    return fail(error_kind::protocol, name + ": cannot format the command");
  const auto deadline = clock::now() + o_.io_timeout;
  int done = 0;
  while (!done) {
    if (redisBufferWrite(ctx_, &done) != REDIS_OK)
      return fail(kind_of(ctx_), o_.describe() + ": " + name + ": " + ctx_->errstr);
    if (!done && clock::now() > deadline) return fail(error_kind::timeout, o_.describe() + ": " + name + ": write deadline");
  }
  auto* lim = static_cast<reader_limits*>(ctx_->reader->privdata);
  void* raw = nullptr;
  // Bytes of this reply taken in so far: the parsed part too (nested arrays, each within
  // max_array_elements, would otherwise build any number of reply objects under the bound).
  std::size_t received = ctx_->reader->len;
  for (;;) {
    if (redisGetReplyFromReader(ctx_, &raw) != REDIS_OK) {
      if (lim && lim->exceeded)
        return fail(error_kind::protocol, o_.describe() + ": " + name + ": an array reply longer than " +
                                              std::to_string(o_.max_array_elements) + " elements");
      return fail(kind_of(ctx_), o_.describe() + ": " + name + ": " + ctx_->errstr);
    }
    if (raw) break;
    if (received > o_.max_reply_bytes)
      return fail(error_kind::protocol, o_.describe() + ": " + name + ": a reply larger than " +
                                            std::to_string(o_.max_reply_bytes) + " bytes");
    if (clock::now() > deadline)
      return fail(error_kind::timeout, o_.describe() + ": " + name + ": no complete reply within " +
                                           std::to_string(o_.io_timeout.count()) + " ms");
    const std::size_t before = ctx_->reader->len;  // a feed only appends; the parser compacts
    if (redisBufferRead(ctx_) != REDIS_OK)
      return fail(kind_of(ctx_), o_.describe() + ": " + name + ": " + ctx_->errstr);
    received += ctx_->reader->len - before;
  }
  auto* r = static_cast<redisReply*>(raw);
  if (r->type == REDIS_REPLY_ERROR) {
    // The server's words go into Events and logs: at most 512 bytes of them.
    constexpr size_t max_error_text = 512;
    std::string m(r->str, std::min<size_t>(r->len, max_error_text));
    if (r->len > max_error_text) m += "...";
    freeReplyObject(r);
    return fail(error_kind::server_error, name + ": " + m);
  }
  out.value = convert(r);
  freeReplyObject(r);
  return out;
}

}  // namespace br::redis
