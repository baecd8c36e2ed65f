// br_load_writer: the playground's writer: one INSERT per interval on a fresh connection, acks logged.
// Usage: br_load_writer [--tls-ca FILE] PORT RUN SECONDS INTERVAL_MS ROWS_FILE [MYSQL_PORT=SITE ...]
// Connects as app/apppw to 127.0.0.1:PORT (HAProxy's primary frontend), database appdb; each write
// is "INSERT INTO playground_load (run, seq)" then "SELECT @@port" on the same fresh connection, so
// an ok row names the server that acked it. ROWS_FILE gets "seq start_ms end_ms ok|fail port" per
// write (epoch ms, flushed per line); stdout gets one summary line per second.
// --tls-ca FILE: every connection over TLS, the server's certificate verified against FILE and
// 127.0.0.1 (the servers' require_secure_transport; playground `up --tls`). Without it: plain TCP.
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <thread>

#include "io/mysql/connection.hpp"

namespace {

using namespace std::chrono;

long long epoch_ms() {
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

struct outcome {
  bool ok = false;
  std::string port;
  std::string error;
};

outcome write_one(const br::mysql::connect_options& opts, const std::string& run, long long seq) {
  auto c = br::mysql::connection::open(opts);
  if (!c) return {false, "", c.error().to_string()};
  auto ins = c->exec("INSERT INTO playground_load (run, seq) VALUES ('" + run + "', " +
                     std::to_string(seq) + ")");
  if (!ins) return {false, "", ins.error().to_string()};
  auto q = c->query("SELECT @@port");
  // The INSERT committed (autocommit) but we cannot say where: not counted as acked.
  if (!q || q->rows.empty() || !q->rows[0][0]) return {false, "", "ack unknown: SELECT @@port failed"};
  return {true, *q->rows[0][0], ""};
}

}  // namespace

int main(int argc, char** argv) {
  br::mysql::connect_options opts;
  if (argc >= 3 && std::string(argv[1]) == "--tls-ca") {
    opts.tls = br::mysql::tls_mode::verify_identity;
    opts.tls_ca_file = argv[2];
    argc -= 2;
    argv += 2;
  }
  if (argc < 6) {
    std::fprintf(stderr, "usage: br_load_writer [--tls-ca FILE] PORT RUN SECONDS INTERVAL_MS ROWS_FILE "
                         "[MYSQL_PORT=SITE ...]\n");
    return 2;
  }
  opts.port = static_cast<uint16_t>(std::stoi(argv[1]));
  const std::string run = argv[2];
  const long long seconds = std::stoll(argv[3]);
  const milliseconds interval{std::stoll(argv[4])};
  std::FILE* rows = std::fopen(argv[5], "a");
  if (!rows) {
    std::fprintf(stderr, "br_load_writer: cannot open %s\n", argv[5]);
    return 2;
  }
  std::map<std::string, std::string> sites;
  for (int i = 6; i < argc; ++i) {
    std::string kv = argv[i];
    auto eq = kv.find('=');
    if (eq != std::string::npos) sites[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  opts.user = "app";
  opts.password = "apppw";
  opts.database = "appdb";
  // Whole seconds in the C API: 1 s is the shortest connect deadline; reads of a frozen server
  // give up after 2 s.
  opts.connect_timeout = 1s;
  opts.read_timeout = 2s;
  opts.write_timeout = 2s;

  const long long start = epoch_ms();
  const long long end = start + seconds * 1000;
  long long seq = 0, ok = 0, failed = 0, s_ok = 0, s_failed = 0, sec = 1;
  std::string writer = "-", last_error;
  auto next = steady_clock::now();
  while (epoch_ms() < end) {
    ++seq;
    long long t0 = epoch_ms();
    auto r = write_one(opts, run, seq);
    long long t1 = epoch_ms();
    if (r.ok) {
      ++ok, ++s_ok;
      auto s = sites.find(r.port);
      writer = "127.0.0.1:" + r.port + " (" + (s == sites.end() ? "unknown" : s->second) + ")";
    } else {
      ++failed, ++s_failed;
      last_error = r.error;
    }
    std::fprintf(rows, "%lld %lld %lld %s %s\n", seq, t0, t1, r.ok ? "ok" : "fail",
                 r.ok ? r.port.c_str() : "-");
    std::fflush(rows);
    if (t1 >= start + sec * 1000) {
      std::printf("[%4llds] ok %3lld failed %3lld | total ok %5lld failed %4lld | writer %s%s%s\n", sec,
                  s_ok, s_failed, ok, failed, writer.c_str(), s_failed ? " | last error: " : "",
                  s_failed ? last_error.c_str() : "");
      std::fflush(stdout);
      s_ok = s_failed = 0;
      sec = (t1 - start) / 1000 + 1;
    }
    next += interval;
    auto now = steady_clock::now();
    if (next > now)
      std::this_thread::sleep_for(next - now);
    else
      next = now;  // a slow write does not cause a burst afterwards
  }
  std::fclose(rows);
  return 0;
}
