// request lookups, response factories and the exactly-once responder.
#include "io/http/message.hpp"

#include <algorithm>
#include <cctype>

namespace br::http {

namespace {
bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}
}  // namespace

std::optional<std::string_view> request::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (iequals(k, name)) return std::string_view{v};
  return std::nullopt;
}

std::string request::query_or(const std::string& key, std::string fallback) const {
  auto it = query.find(key);
  return it == query.end() ? std::move(fallback) : it->second;
}

response response::json(int status, const nlohmann::json& body) {
  response r;
  r.status = status;
  r.content_type = "application/json";
  // Replace invalid UTF-8 instead of throwing: error texts may carry raw bytes.
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

response response::text(int status, std::string body, std::string content_type) {
  response r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

response response::error(int status, std::string_view message) {
  return json(status, nlohmann::json{{"error", std::string{message}}});
}

void responder::operator()(response r) const {
  if (!state_ || state_->used.exchange(true)) return;  // exactly once
  if (state_->deliver) state_->deliver(std::move(r));
}

}  // namespace br::http
