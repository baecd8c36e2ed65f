// Classification of MySQL C API / server errors into error kinds, and secret redaction.
#include "io/mysql/error.hpp"

#include <algorithm>
#include <cctype>

#include "io/mysql/sql_text.hpp"

namespace br::mysql {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool says_timed_out(std::string_view message) {
  const std::string m = lower(message);
  return m.find("timed out") != std::string::npos || m.find("timeout") != std::string::npos ||
         m.find("system error: 110") != std::string::npos || m.find("(110)") != std::string::npos ||
         m.find("(110 ") != std::string::npos;
}

bool is_auth(unsigned code) {
  switch (code) {
    case 1044:  // ER_DBACCESS_DENIED_ERROR
    case 1045:  // ER_ACCESS_DENIED_ERROR (also "Plugin caching_sha2_password could not be loaded")
    case 1130:  // ER_HOST_NOT_PRIVILEGED
    case 1698:  // ER_ACCESS_DENIED_NO_PASSWORD_ERROR
    case 2059:  // CR_AUTH_PLUGIN_CANNOT_LOAD
    case 2061:  // CR_AUTH_PLUGIN_ERR (e.g. caching_sha2 needs TLS or the RSA key)
      return true;
    default:
      return false;
  }
}

bool is_refused(unsigned code) {
  return code == 2002 /* CR_CONNECTION_ERROR */ || code == 2003 /* CR_CONN_HOST_ERROR */ ||
         code == 2005 /* CR_UNKNOWN_HOST */;
}

bool is_lost(unsigned code) {
  switch (code) {
    case 2006:  // CR_SERVER_GONE_ERROR
    case 2013:  // CR_SERVER_LOST
    case 2055:  // CR_SERVER_LOST_EXTENDED
    case 1053:  // ER_SERVER_SHUTDOWN: the server is closing this connection
    case 1927:  // ER_CONNECTION_KILLED (MariaDB)
    case 4031:  // ER_CLIENT_INTERACTION_TIMEOUT: server closed an idle session
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string_view to_string(error_kind k) {
  switch (k) {
    case error_kind::refused:
      return "refused";
    case error_kind::timeout:
      return "timeout";
    case error_kind::lost_connection:
      return "lost_connection";
    case error_kind::auth:
      return "auth";
    case error_kind::server_error:
      return "server_error";
    case error_kind::protocol:
      return "protocol";
    case error_kind::other:
      return "other";
  }
  return "other";
}

std::string mysql_error::to_string() const {
  std::string out(mysql::to_string(kind));
  if (code != 0) out += " " + std::to_string(code);
  if (!sql_state.empty()) out += " (" + sql_state + ")";
  out += ": " + message;
  return out;
}

bool reached_timeout(std::chrono::milliseconds elapsed, std::chrono::milliseconds timeout) {
  using std::chrono::milliseconds;
  if (timeout <= milliseconds{0}) return false;
  const milliseconds slack = std::max(milliseconds{100}, timeout / 10);
  return elapsed + slack >= timeout;
}

mysql_error classify_error(unsigned code, std::string_view message, std::string_view sql_state,
                           failure_context ctx) {
  mysql_error e;
  e.code = code;
  e.message = std::string(message);
  e.sql_state = std::string(sql_state);
  const bool timed_out = says_timed_out(message) || reached_timeout(ctx.elapsed, ctx.timeout);
  if (code == 0) {
    e.kind = error_kind::other;
  } else if (is_refused(code)) {
    e.kind = timed_out ? error_kind::timeout : error_kind::refused;
  } else if (is_lost(code)) {
    // 4031 and 1053 carry their own meaning; only client-side losses can be hidden timeouts.
    const bool client_side = code >= 2000 && code < 3000;
    e.kind = client_side && timed_out ? error_kind::timeout : error_kind::lost_connection;
  } else if (is_auth(code)) {
    e.kind = error_kind::auth;
  } else if (code >= 2000 && code < 3000) {
    e.kind = error_kind::protocol;
  } else {
    e.kind = error_kind::server_error;
  }
  return e;
}

std::string redact(std::string text, const std::vector<std::string>& secrets) {
  // Every form a secret can take in a message: raw, and escaped as inside a quoted literal
  // (with and without backslash escapes). One left-to-right pass, longest match first, so the
  // "***" we insert is never matched again.
  std::vector<std::string> needles;
  for (const auto& s : secrets) {
    if (s.empty()) continue;
    needles.push_back(s);
    for (bool nbe : {false, true}) {
      std::string q = sql_quoter{nbe}(s);
      needles.push_back(q.substr(1, q.size() - 2));
    }
  }
  if (needles.empty()) return text;
  std::sort(needles.begin(), needles.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const std::string* hit = nullptr;
    for (const auto& n : needles) {
      if (text.compare(i, n.size(), n) == 0) {
        hit = &n;
        break;
      }
    }
    if (hit != nullptr) {
      out += "***";
      i += hit->size();
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

mysql_error make_error(error_kind kind, std::string message) {
  mysql_error e;
  e.kind = kind;
  e.message = std::move(message);
  return e;
}

}  // namespace br::mysql
