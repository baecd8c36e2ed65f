// Connector/C calls behind connection: options, connect, query, result reading, error capture.
#include "io/mysql/connection.hpp"

#include <mysql.h>

#include <mutex>

namespace br::mysql {
namespace {

using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

milliseconds since(steady::time_point t0) {
  return std::chrono::duration_cast<milliseconds>(steady::now() - t0);
}

milliseconds effective(milliseconds d) {
  return std::chrono::seconds{to_c_api_seconds(d)};
}

// mysql_library_init is not thread-safe; every thread that opens a connection goes through here.
void ensure_library() {
  static std::once_flag once;
  std::call_once(once, [] { mysql_library_init(0, nullptr, nullptr); });
}

mysql_error handle_error(MYSQL* h, milliseconds elapsed, milliseconds timeout,
                         const std::vector<std::string>& secrets) {
  auto e = classify_error(mysql_errno(h), ::mysql_error(h), mysql_sqlstate(h),
                          failure_context{elapsed, timeout});
  e.message = redact(std::move(e.message), secrets);
  return e;
}

}  // namespace

std::string connect_options::describe() const {
  return user + "@" + host + ":" + std::to_string(port);
}

unsigned to_c_api_seconds(std::chrono::milliseconds d) {
  if (d <= milliseconds{0}) return 1;
  auto s = std::chrono::ceil<std::chrono::seconds>(d).count();
  return static_cast<unsigned>(std::max<long long>(1, s));
}

int query_result::column_index(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  return -1;
}

std::optional<std::string> query_result::get(size_t r, std::string_view name) const {
  int i = column_index(name);
  if (i < 0 || r >= rows.size() || static_cast<size_t>(i) >= rows[r].size()) return std::nullopt;
  return rows[r][static_cast<size_t>(i)];
}

connection::connection(st_mysql* handle, connect_options opts)
    : handle_(handle), opts_(std::move(opts)) {}

connection::connection(connection&& other) noexcept
    : handle_(other.handle_), opts_(std::move(other.opts_)) {
  other.handle_ = nullptr;
}

connection& connection::operator=(connection&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) mysql_close(handle_);
    handle_ = other.handle_;
    opts_ = std::move(other.opts_);
    other.handle_ = nullptr;
  }
  return *this;
}

connection::~connection() {
  if (handle_ != nullptr) mysql_close(handle_);
}

result<connection> connection::open(const connect_options& opts) {
  ensure_library();
  MYSQL* h = mysql_init(nullptr);
  if (h == nullptr) return make_error(error_kind::other, "mysql_init failed (out of memory)");
  unsigned ct = to_c_api_seconds(opts.connect_timeout);
  unsigned rt = to_c_api_seconds(opts.read_timeout);
  unsigned wt = to_c_api_seconds(opts.write_timeout);
  mysql_options(h, MYSQL_OPT_CONNECT_TIMEOUT, &ct);
  mysql_options(h, MYSQL_OPT_READ_TIMEOUT, &rt);
  mysql_options(h, MYSQL_OPT_WRITE_TIMEOUT, &wt);
  my_bool no = 0;
  mysql_options(h, MYSQL_OPT_RECONNECT, &no);  // a silent reconnect would hide a lost session
  mysql_options(h, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  if (opts.disable_session_binlog)
    mysql_options(h, MYSQL_INIT_COMMAND, "SET SESSION sql_log_bin = 0");
  switch (opts.tls) {
    case tls_mode::disabled:
      break;
    case tls_mode::preferred:
      // Connector/C 3.3: requesting TLS without enforcing it falls back to plain TCP when the
      // server does not offer TLS.
      mysql_ssl_set(h, nullptr, nullptr, nullptr, nullptr, nullptr);
      break;
    case tls_mode::required: {
      my_bool yes = 1;
      mysql_options(h, MYSQL_OPT_SSL_ENFORCE, &yes);
      break;
    }
    case tls_mode::verify_identity: {
      if (opts.tls_ca_file.empty()) {
        mysql_close(h);
        return make_error(error_kind::other, "TLS verification needs a CA file [connecting as " +
                                                 opts.describe() + "]");
      }
      my_bool yes = 1;
      mysql_options(h, MYSQL_OPT_SSL_ENFORCE, &yes);
      // Connector/C 3.3: the chain against the CA, then the host name (or IP address) we dialled.
      mysql_options(h, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &yes);
      mysql_options(h, MYSQL_OPT_SSL_CA, opts.tls_ca_file.c_str());
      if (!opts.tls_cert_file.empty()) mysql_options(h, MYSQL_OPT_SSL_CERT, opts.tls_cert_file.c_str());
      if (!opts.tls_key_file.empty()) mysql_options(h, MYSQL_OPT_SSL_KEY, opts.tls_key_file.c_str());
      break;
    }
  }
  const char* db = opts.database.empty() ? nullptr : opts.database.c_str();
  auto t0 = steady::now();
  if (mysql_real_connect(h, opts.host.c_str(), opts.user.c_str(), opts.password.c_str(), db,
                         opts.port, nullptr, 0) == nullptr) {
    auto err = handle_error(h, since(t0), effective(opts.connect_timeout), {opts.password});
    err.message += " [connecting as " + opts.describe() + "]";
    mysql_close(h);
    return err;
  }
  return connection(h, opts);
}

mysql_error connection::last_error(milliseconds elapsed, milliseconds timeout,
                                   const std::vector<std::string>& secrets) const {
  auto all = secrets;
  all.push_back(opts_.password);
  return handle_error(handle_, elapsed, timeout, all);
}

result<query_result> connection::run(std::string_view sql, const std::vector<std::string>& secrets,
                                     bool keep_rows) {
  if (handle_ == nullptr) return make_error(error_kind::other, "connection is closed");
  // A statement can block on a read (the answer) or a write (sending a long statement).
  const milliseconds timeout =
      std::max(effective(opts_.read_timeout), effective(opts_.write_timeout));
  auto t0 = steady::now();
  if (mysql_real_query(handle_, sql.data(), sql.size()) != 0)
    return last_error(since(t0), timeout, secrets);
  MYSQL_RES* res = mysql_store_result(handle_);
  query_result out;
  if (res == nullptr) {
    if (mysql_field_count(handle_) != 0) return last_error(since(t0), timeout, secrets);
    out.rows.clear();
    return out;
  }
  unsigned n = mysql_num_fields(res);
  MYSQL_FIELD* fields = mysql_fetch_fields(res);
  out.columns.reserve(n);
  for (unsigned i = 0; i < n; ++i) out.columns.emplace_back(fields[i].name, fields[i].name_length);
  if (keep_rows) {
    out.rows.reserve(mysql_num_rows(res));
    while (MYSQL_ROW r = mysql_fetch_row(res)) {
      unsigned long* len = mysql_fetch_lengths(res);
      row values(n);
      for (unsigned i = 0; i < n; ++i)
        if (r[i] != nullptr) values[i] = std::string(r[i], len[i]);
      out.rows.push_back(std::move(values));
    }
  }
  mysql_free_result(res);
  return out;
}

result<query_result> connection::query(std::string_view sql) {
  return run(sql, {}, true);
}

result<query_result> connection::query_secret(std::string_view sql,
                                              const std::vector<std::string>& secrets) {
  return run(sql, secrets, true);
}

result<uint64_t> connection::exec(std::string_view sql) {
  return exec_secret(sql, {});
}

result<uint64_t> connection::exec_secret(std::string_view sql,
                                         const std::vector<std::string>& secrets) {
  auto r = run(sql, secrets, false);
  if (!r) return r.error();
  my_ulonglong affected = mysql_affected_rows(handle_);
  return affected == static_cast<my_ulonglong>(-1) ? uint64_t{0} : static_cast<uint64_t>(affected);
}

uint64_t connection::id() const {
  return handle_ ? mysql_thread_id(handle_) : 0;
}

std::string connection::server_version() const {
  return handle_ ? std::string(mysql_get_server_info(handle_)) : std::string{};
}

std::string connection::tls_cipher() const {
  if (handle_ == nullptr) return {};
  const char* c = mysql_get_ssl_cipher(handle_);
  return c ? std::string(c) : std::string{};
}

sql_quoter connection::quoter() const {
  return sql_quoter{handle_ != nullptr &&
                    (handle_->server_status & SERVER_STATUS_NO_BACKSLASH_ESCAPES) != 0};
}

}  // namespace br::mysql
